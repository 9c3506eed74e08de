// Renders `ccreplay flows` for host-state inputs (ss logs, tcp_probe traces,
// qlogs, quicly logs): one entry per connection or trace.
#ifndef CCREPLAY_REPORTS_HOST_STATE_REPORT_H_
#define CCREPLAY_REPORTS_HOST_STATE_REPORT_H_

#include <string>
#include <vector>

#include "parsers/host_state.h"
#include "parsers/host_state_summary.h"

namespace ccreplay {

// proto::HostFlowsReport (proto/flows.proto) as JSON: one entry per
// connection or trace, the other protocol's fields null.
std::string HostStateFlowsJson(const HostStateLog& log,
                               const std::vector<HostTraceSummary>& traces);

std::string HostStateFlowsTable(const HostStateLog& log,
                                const std::vector<HostTraceSummary>& traces);

}  // namespace ccreplay

#endif  // CCREPLAY_REPORTS_HOST_STATE_REPORT_H_
