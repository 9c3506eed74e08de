// What travels through the simulated path: data packets (sender -> bottleneck
// -> receiver) and ACKs (receiver -> sender). Plain values, recycled through
// ring buffers; nothing is allocated per packet.
#ifndef CCREPLAY_REPLAY_SIM_SIM_PACKET_H_
#define CCREPLAY_REPLAY_SIM_SIM_PACKET_H_

#include <cstdint>

namespace ccreplay {

// How the receiver reports congestion experienced (CE) marks.
enum class EcnFeedback {
  kNone,     // Not-ECT packets, no feedback
  kRfc3168,  // ECT(0); ECE latched until CWR (RFC 3168 section 6.1.3)
  kDctcp,    // ECT(0); ECE mirrors each packet's CE (RFC 8257 section 3.2)
  kAccEcn,   // ECT(1); CE packet and byte counters (RFC 9768)
};

struct SimPacket {
  int64_t sent_ns = 0;     // left the sender
  int64_t arrival_ns = 0;  // reaches the next hop (delay line) / enqueued
  uint64_t pn = 0;         // packet number, new for every transmission
  uint64_t seq = 0;        // byte offset of the payload in the stream
  uint32_t bytes = 0;      // payload; no header overhead is modelled
  uint32_t flow = 0;
  uint8_t ecn = 0;   // IP ECN field, parsers/tcp_segment.h IpEcnCodepoint
  bool cwr = false;  // TCP CWR flag (RFC 3168 section 6.1.2)
  bool retransmission = false;
  // The TSO burst (one skb) the packet left in, numbered per flow from 1;
  // 0: sent alone (FlowConfig::tso_burst_shift off).
  uint64_t skb = 0;
};

// One ACK from a receiver. A receiver ACKs at once whenever a packet number
// is skipped (a drop), so the packets an ACK newly reports are always the
// contiguous range [pn_first, pn_last]: the simulator's SACK.
struct SimAck {
  int64_t sent_ns = 0;     // left the receiver
  int64_t arrival_ns = 0;  // reaches the sender
  uint32_t flow = 0;
  uint64_t pn_first = 0;
  uint64_t pn_last = 0;
  uint64_t cumulative_ack = 0;  // next expected stream byte (TCP ack)
  bool ece = false;
  // AccECN counters (RFC 9768 section 3.2), cumulative since the start:
  // CE-marked packets and payload bytes received per codepoint.
  uint64_t ce_packets = 0;
  uint64_t ce_bytes = 0;
  uint64_t ect0_bytes = 0;
  uint64_t ect1_bytes = 0;
  // The send time of the packet that triggered this ACK (TCP timestamp echo).
  int64_t echo_sent_ns = 0;
  // SACK blocks (RFC 2018) above cumulative_ack, at most three.
  uint8_t sack_blocks = 0;
  uint64_t sack_start[3] = {0, 0, 0};
  uint64_t sack_end[3] = {0, 0, 0};
};

}  // namespace ccreplay

#endif  // CCREPLAY_REPLAY_SIM_SIM_PACKET_H_
