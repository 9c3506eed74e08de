#include "reports/host_state_report.h"

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "proto/flows.pb.h"
#include "proto/json_printer.h"

namespace ccreplay {
namespace {

const char* FormatName(const HostStateLog& log) {
  return log.traces.empty() ? "unknown"
                            : HostStateSourceName(log.traces[0].source);
}

std::string OrDash(const std::optional<uint64_t>& v) {
  return v.has_value() ? absl::StrCat(*v) : "-";
}

}  // namespace

std::string HostStateFlowsJson(const HostStateLog& log,
                               const std::vector<HostTraceSummary>& traces) {
  proto::HostFlowsReport report;
  proto::HostLogSummary* capture = report.mutable_capture();
  capture->set_path(log.path);
  capture->set_format(FormatName(log));
  for (const std::string& warning : log.warnings)
    capture->add_warnings(warning);
  for (const HostTraceSummary& t : traces) {
    proto::HostFlowReport* flow = report.add_flows();
    flow->set_protocol(t.protocol);
    flow->set_source(t.source);
    if (t.protocol == "tcp") {
      flow->set_sender(t.sender);
      flow->set_receiver(t.receiver);
      flow->set_samples(t.samples);
      flow->set_cwnd_min_segments(t.cwnd_min_segments);
      flow->set_cwnd_max_segments(t.cwnd_max_segments);
      flow->set_cwnd_last_segments(t.cwnd_last_segments);
    } else {
      flow->set_vantage(t.vantage);
      flow->set_packets_sent(t.packets_sent);
      flow->set_packets_received(t.packets_received);
      flow->set_packets_lost(t.packets_lost);
      flow->set_cwnd_updates(t.cwnd_updates);
      if (t.cwnd_max_bytes) flow->set_cwnd_max_bytes(*t.cwnd_max_bytes);
      if (t.ce_fed_back_packets) {
        flow->set_ce_fed_back_packets(*t.ce_fed_back_packets);
      }
    }
  }
  return PrintJson(report);
}

std::string HostStateFlowsTable(const HostStateLog& log,
                                const std::vector<HostTraceSummary>& traces) {
  std::string out = absl::StrFormat("%s: %s, %d connections or traces\n",
                                    log.path, FormatName(log), traces.size());
  absl::StrAppendFormat(&out, "%3s  %-6s %-10s %-52s %8s %s\n", "#", "proto",
                        "source", "sender -> receiver / vantage", "samples",
                        "cwnd");
  for (size_t i = 0; i < traces.size(); ++i) {
    const HostTraceSummary& t = traces[i];
    if (t.protocol == "tcp") {
      absl::StrAppendFormat(
          &out, "%3d  %-6s %-10s %-52s %8d %d..%d segments, last %d\n", i,
          t.protocol, t.source, absl::StrCat(t.sender, " -> ", t.receiver),
          t.samples, t.cwnd_min_segments, t.cwnd_max_segments,
          t.cwnd_last_segments);
    } else {
      absl::StrAppendFormat(&out,
                            "%3d  %-6s %-10s %-52s %8d max %s bytes; sent %d, "
                            "received %d, lost %d, CE fed back %s\n",
                            i, t.protocol, t.source, t.vantage, t.cwnd_updates,
                            OrDash(t.cwnd_max_bytes), t.packets_sent,
                            t.packets_received, t.packets_lost,
                            OrDash(t.ce_fed_back_packets));
    }
  }
  return out;
}

}  // namespace ccreplay
