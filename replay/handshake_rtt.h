// The round trip a TCP handshake shows, as the RTT sample each end's
// retransmission timer starts from (RFC 6298 section 2.2): the client times
// its SYN to the SYN-ACK, the server its SYN-ACK to the ACK (Linux
// tcp_ack_update_rtt(), from tcp_rcv_synsent_state_process() and
// tcp_synack_rtt_meas()). Karn's rule (RFC 6298 section 3) forbids the
// sample when the SYN or SYN-ACK was resent, unless the timestamp echo
// names the transmission answered (RFC 7323 section 4; Linux uses the
// echo whenever the sequence sample is forbidden).
//
// The capture point may sit anywhere on the path: SYN -> SYN-ACK is the
// round trip from it to the server, SYN-ACK -> ACK the one to the client,
// and their sum the path's round trip, which is what either end measured.
#ifndef CCREPLAY_REPLAY_HANDSHAKE_RTT_H_
#define CCREPLAY_REPLAY_HANDSHAKE_RTT_H_

#include <cstdint>

namespace ccreplay {

class HandshakeRtt {
 public:
  // A SYN (without ACK). `ts_known`: its TSval is `ts_val` (a flow's first
  // SYN may be known only by its time); without timestamps, false.
  void OnSyn(int64_t time_ns, bool ts_known, uint32_t ts_val);
  // A SYN-ACK, and the ACK completing the handshake; `has_ts` when the
  // segment carried timestamps.
  void OnSynAck(int64_t time_ns, bool has_ts, uint32_t ts_val, uint32_t ts_ecr);
  void OnHandshakeAck(int64_t time_ns, bool has_ts, uint32_t ts_ecr);

  // The handshake's round trip in microseconds, or 0 when the capture does
  // not show which transmission was answered (or saw no complete
  // handshake).
  int64_t sample_us() const { return sample_us_; }

 private:
  struct Transmission {
    int64_t time_ns = 0;
    uint32_t ts_val = 0;
    bool ts_known = false;
    int count = 0;  // Transmissions so far: more than 1 means resent.
  };
  // When the one of `sent` that `ts_ecr` answers left, or -1 when it
  // cannot be told (Karn's rule without a matching echo).
  static int64_t AnsweredNs(const Transmission& sent, bool has_ts,
                            uint32_t ts_ecr);

  Transmission syn_;             // The last SYN.
  Transmission syn_ack_;         // The last SYN-ACK.
  int64_t server_half_ns_ = -1;  // SYN -> first SYN-ACK; -1 unknown.
  int64_t sample_us_ = 0;
};

}  // namespace ccreplay

#endif  // CCREPLAY_REPLAY_HANDSHAKE_RTT_H_
