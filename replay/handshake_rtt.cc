#include "replay/handshake_rtt.h"

namespace ccreplay {

int64_t HandshakeRtt::AnsweredNs(const Transmission& sent, bool has_ts,
                                 uint32_t ts_ecr) {
  if (sent.count == 0) return -1;
  if (sent.count == 1) return sent.time_ns;
  // Resent: only an echo of the last transmission's TSval tells which one
  // was answered (an earlier one's TSval is not kept).
  if (has_ts && sent.ts_known && ts_ecr == sent.ts_val) return sent.time_ns;
  return -1;
}

void HandshakeRtt::OnSyn(int64_t time_ns, bool ts_known, uint32_t ts_val) {
  syn_ = {time_ns, ts_val, ts_known, syn_.count + 1};
}

void HandshakeRtt::OnSynAck(int64_t time_ns, bool has_ts, uint32_t ts_val,
                            uint32_t ts_ecr) {
  // The client times the first SYN-ACK that reaches it.
  if (syn_ack_.count == 0) {
    const int64_t syn_ns = AnsweredNs(syn_, has_ts, ts_ecr);
    if (syn_ns >= 0 && time_ns >= syn_ns) server_half_ns_ = time_ns - syn_ns;
  }
  syn_ack_ = {time_ns, ts_val, has_ts, syn_ack_.count + 1};
}

void HandshakeRtt::OnHandshakeAck(int64_t time_ns, bool has_ts,
                                  uint32_t ts_ecr) {
  const int64_t syn_ack_ns = AnsweredNs(syn_ack_, has_ts, ts_ecr);
  if (server_half_ns_ < 0 || syn_ack_ns < 0 || time_ns < syn_ack_ns) return;
  sample_us_ = (server_half_ns_ + time_ns - syn_ack_ns) / 1000;
}

}  // namespace ccreplay
