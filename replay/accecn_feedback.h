// What an AccECN data sender learns from each ACK (RFC 9768): the 3-bit
// ACE counter of CE-marked packets, unwrapped into a monotonic count with
// the packets the ACK delivered resolving wraps (Appendix A.2), and the
// AccECN option's 24-bit byte counters (section 3.2.3), unwrapped.
#ifndef CCREPLAY_REPLAY_ACCECN_FEEDBACK_H_
#define CCREPLAY_REPLAY_ACCECN_FEEDBACK_H_

#include <cstdint>

#include "parsers/tcp_segment.h"

namespace ccreplay {

class AccEcnFeedback {
 public:
  // RFC 9768 section 3.2.2.1: the data receiver's CE packet counter starts
  // at 5 (Linux TCP_ACCECN_CEP_INIT_OFFSET), so that a middlebox zeroing
  // the ACE field is told apart from a counter at zero.
  static constexpr uint8_t kInitialAce = 5;

  struct Update {
    uint64_t ce_packets = 0;  // Newly reported CE-marked packets.
    // The ACK could hide wraps of the counter (8 or more packets
    // delivered); the count was resolved as `Decode` describes.
    bool wrap_possible = false;
    // Newly reported bytes per codepoint (0 without the option).
    uint64_t ce_bytes = 0;
    uint64_t ect0_bytes = 0;
    uint64_t ect1_bytes = 0;
  };

  // The handshake was seen: the counter starts at kInitialAce. Without
  // it, the first ACK's ACE is the baseline (nothing before it is known).
  void StartAtHandshake() { baseline_known_ = true; }

  // One ACK: its ACE field, the packets and bytes it newly delivered
  // (cumulatively or by SACK) and its AccECN option (kind 0 when absent).
  Update OnAck(uint8_t ace, uint64_t delivered_packets,
               uint64_t delivered_bytes, const AccEcnOption& option);

  // The CE packet count reported so far, unwrapped.
  uint64_t ce_packets() const { return ce_packets_; }
  // The option's counters, unwrapped, counted from the first option seen.
  bool option_seen() const { return option_seen_; }
  uint64_t ce_bytes() const { return ce_bytes_; }
  uint64_t ect0_bytes() const { return ect0_bytes_; }
  uint64_t ect1_bytes() const { return ect1_bytes_; }

  // RFC 9768 Appendix A.2: the increase of the CE packet counter given the
  // ACE difference modulo 8 (`ace_delta`) and the packets delivered. Fewer
  // than 8 packets cannot hide a wrap. Otherwise the count is one of
  // ace_delta + 8k no larger than the packets delivered: with the option's
  // CE byte counter the one nearest to the CE bytes divided by the mean
  // delivered packet size (A.2.2), without it the largest (the
  // conservative choice of A.2.1).
  static uint64_t Decode(uint8_t ace_delta, uint64_t delivered_packets,
                         uint64_t delivered_bytes, bool has_ce_bytes,
                         uint64_t ce_bytes_delta);

 private:
  bool baseline_known_ = false;
  uint8_t last_ace_ = kInitialAce;
  uint64_t ce_packets_ = 0;
  bool option_seen_ = false;
  bool has_last_[3] = {false, false, false};  // ee0b, eceb, ee1b.
  uint32_t last_counter_[3] = {0, 0, 0};
  uint64_t ce_bytes_ = 0;
  uint64_t ect0_bytes_ = 0;
  uint64_t ect1_bytes_ = 0;
};

}  // namespace ccreplay

#endif  // CCREPLAY_REPLAY_ACCECN_FEEDBACK_H_
