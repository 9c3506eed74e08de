#include "reports/host_state_report.h"

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "reports/json_writer.h"

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
  JsonWriter w;
  w.BeginObject().Key("capture").BeginObject();
  w.Field("path", log.path).Field("format", FormatName(log));
  w.Key("warnings").BeginArray();
  for (const std::string& warning : log.warnings) w.String(warning);
  w.EndArray().EndObject();
  w.Key("flows").BeginArray();
  for (const HostTraceSummary& t : traces) {
    w.BeginObject().Field("protocol", t.protocol).Field("source", t.source);
    if (t.protocol == "tcp") {
      w.Field("sender", t.sender)
          .Field("receiver", t.receiver)
          .Field("samples", t.samples);
      w.Field("cwnd_min_segments", t.cwnd_min_segments);
      w.Field("cwnd_max_segments", t.cwnd_max_segments);
      w.Field("cwnd_last_segments", t.cwnd_last_segments);
    } else {
      w.Field("vantage", t.vantage).Field("packets_sent", t.packets_sent);
      w.Field("packets_received", t.packets_received)
          .Field("packets_lost", t.packets_lost);
      w.Field("cwnd_updates", t.cwnd_updates)
          .Field("cwnd_max_bytes", t.cwnd_max_bytes);
      w.Field("ce_fed_back_packets", t.ce_fed_back_packets);
    }
    w.EndObject();
  }
  w.EndArray().EndObject();
  return w.str() + "\n";
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
