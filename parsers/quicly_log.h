// Reads quicly's raw event log: the JSON lines `cli -e <file>` writes
// through picotls' log sink ({"module":"quicly","type":"cc_ack_received",
// "time":<ms>,"conn":<id>,...}), and h2olog's kebab-case form of the same
// events ("cc-ack-received", "largest-acked"). quicly-cc-and-simulator.md §5.
//
// One HostTrace per connection, with the same two outputs as a qlog:
//  - series: cwnd and bytes in flight after every cc_ack_received,
//    cc_congestion and pto; the cumulative CE count of ecn_congestion;
//  - sender events: packet_sent (pn, len, epoch, ack_only), one ACK frame
//    per cc_ack_received with the ranges of the ack_block_received (or
//    packet_acked) events before it, packet_lost.
// quicly does not log the ACK frame's ECN counts nor a decoded ACK delay
// (ack_delay_received carries the encoded value), so ack_delay_us is
// absent and ce_packets is the last ecn_congestion ce_count, once one was
// logged.
#ifndef CCREPLAY_PARSERS_QUICLY_LOG_H_
#define CCREPLAY_PARSERS_QUICLY_LOG_H_

#include <string>

#include "absl/status/statusor.h"
#include "parsers/host_state.h"

namespace ccreplay {

// InvalidArgument when no line is a quicly event.
absl::StatusOr<HostStateLog> ParseQuiclyLog(const std::string& path);

}  // namespace ccreplay

#endif  // CCREPLAY_PARSERS_QUICLY_LOG_H_
