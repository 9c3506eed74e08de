// Renders `ccreplay flows` for host-state inputs (ss logs, tcp_probe traces,
// qlogs, quicly logs): one entry per connection or trace.
#ifndef CCREPLAY_REPORTS_HOST_STATE_REPORT_H_
#define CCREPLAY_REPORTS_HOST_STATE_REPORT_H_

#include <string>
#include <vector>

#include "parsers/host_state.h"
#include "parsers/host_state_summary.h"

namespace ccreplay {

// {"capture": {"path", "format", "warnings"}, "flows": [entry...]} where a
// TCP entry is {"protocol": "tcp", "source", "sender", "receiver",
// "samples", "cwnd_min_segments", "cwnd_max_segments", "cwnd_last_segments"}
// and a QUIC entry {"protocol": "quic", "source", "vantage", "packets_sent",
// "packets_received", "packets_lost", "cwnd_updates", "cwnd_max_bytes",
// "ce_fed_back_packets"} (the last two may be null).
std::string HostStateFlowsJson(const HostStateLog& log,
                               const std::vector<HostTraceSummary>& traces);

std::string HostStateFlowsTable(const HostStateLog& log,
                                const std::vector<HostTraceSummary>& traces);

}  // namespace ccreplay

#endif  // CCREPLAY_REPORTS_HOST_STATE_REPORT_H_
