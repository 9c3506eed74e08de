// When a connection's per-connection state may be dropped: the reader's
// (SequenceSanity) and the flow index's (replay/flow_index.h) follow the
// same rules, so that memory is bounded by the connections open at once.
#ifndef CCREPLAY_PARSERS_CONNECTION_EXPIRY_H_
#define CCREPLAY_PARSERS_CONNECTION_EXPIRY_H_

#include <cstdint>

namespace ccreplay {

// A connection ends at a RST, or once both sides sent a FIN and the first
// is acknowledged (RFC 9293 section 3.6). Its state is kept this long
// after the RST or its second FIN: the last ACK and any retransmitted FIN
// come about an RTT later, and RTTs of a second are rare on any path.
inline constexpr int64_t kClosedLingerNs = 1'000'000'000;
// A connection with no packet for this long is taken as ended: longer
// than Linux's largest retransmission timeout (TCP_RTO_MAX, 120 s in
// include/net/tcp.h of 6.18), so a connection still retrying is never cut.
inline constexpr int64_t kFlowIdleTimeoutNs = 121'000'000'000;

}  // namespace ccreplay

#endif  // CCREPLAY_PARSERS_CONNECTION_EXPIRY_H_
