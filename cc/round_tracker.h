// Round-trip ("round") boundaries without sequence numbers.
//
// Linux ends a round when snd_una reaches the snd_nxt recorded at the round's
// start (tcp_dctcp.c dctcp_update_alpha(), tcp_prague.c
// prague_e2e_rtt_elapsed()). Counting delivered bytes instead: the round
// started when D bytes had been delivered and F were in flight ends once D + F
// bytes have been delivered.
#ifndef CCREPLAY_CC_ROUND_TRACKER_H_
#define CCREPLAY_CC_ROUND_TRACKER_H_

#include <cstdint>

namespace ccreplay {

class RoundTracker {
 public:
  // Adds this ACK's delivered bytes. Returns true when the ACK ends the
  // current round; the caller then calls StartRound().
  bool OnAck(uint64_t bytes_acked) {
    delivered_bytes_ += bytes_acked;
    return delivered_bytes_ >= round_end_bytes_;
  }
  // Starts a round now: it ends when everything in flight is delivered.
  void StartRound(uint64_t bytes_in_flight) {
    round_end_bytes_ = delivered_bytes_ + bytes_in_flight;
  }
  uint64_t delivered_bytes() const { return delivered_bytes_; }

 private:
  uint64_t delivered_bytes_ = 0;
  // Initially 0, so the first ACK ends the round open since connection
  // start, as next_seq = snd_nxt at init does in the kernel modules.
  uint64_t round_end_bytes_ = 0;
};

}  // namespace ccreplay

#endif  // CCREPLAY_CC_ROUND_TRACKER_H_
