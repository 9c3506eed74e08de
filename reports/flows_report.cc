#include "reports/flows_report.h"

#include "absl/algorithm/container.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"
#include "parsers/flow_proto.h"
#include "proto/flows.pb.h"
#include "proto/json_printer.h"
#include "replay/timeline_writer.h"

namespace ccreplay {

void AppendFlowReportJson(const FlowRow& r, int depth, std::string* out) {
  JsonObjectWriter flow(depth, out);
  JsonObjectWriter identity = flow.Object("identity");
  WriteFlowIdentityJson(*r.source, identity);
  identity.End();
  JsonObjectWriter handshake = flow.Object("handshake");
  WriteHandshakeJson(*r.source, r.flow, handshake);
  handshake.End();
  JsonObjectWriter summary = flow.Object("summary");
  WriteFlowSummaryJson(r.flow, summary);
  summary.End();
  JsonObjectWriter timeline = flow.Object("timeline");
  WriteAckTimelineSummaryJson(r.timeline, timeline);
  timeline.End();
  flow.End();
}

void WriteFlowsJson(const CaptureInfo& capture, size_t flow_count,
                    FlowRowSource row, TextSink write) {
  proto::FlowsReport head;
  *head.mutable_capture() = CaptureSummaryProto(capture);
  std::string out = PrintJson(head);
  // `head` ends with its flows, empty: `"flows": []\n}\n`.
  constexpr absl::string_view kEmptyFlows = "[]\n}\n";
  out.resize(out.size() - kEmptyFlows.size());
  out += flow_count == 0 ? "[" : "[\n    ";
  for (size_t i = 0; i < flow_count; ++i) {
    if (i > 0) out += ",\n    ";
    AppendFlowReportJson(row(i), 2, &out);
    write(out);
    out.clear();
  }
  out += flow_count == 0 ? "]\n}\n" : "\n  ]\n}\n";
  write(out);
}

namespace {

std::string HumanRate(double bps) {
  if (bps >= 1e9) return absl::StrFormat("%.2f Gb/s", bps / 1e9);
  if (bps >= 1e6) return absl::StrFormat("%.2f Mb/s", bps / 1e6);
  if (bps >= 1e3) return absl::StrFormat("%.1f kb/s", bps / 1e3);
  return absl::StrFormat("%.0f b/s", bps);
}

std::string OrDash(const std::optional<uint32_t>& v) {
  return v.has_value() ? absl::StrCat(*v) : "-";
}

}  // namespace

void WriteFlowsTable(const CaptureInfo& capture, size_t flow_count,
                     bool tunnel_column, FlowRowSource row, TextSink write) {
  std::string out = absl::StrFormat(
      "%s: %s%s, %s, %d packets (%d TCP), %d flows\n", capture.path,
      capture.format, capture.gzip ? " (gzip)" : "",
      absl::StrJoin(capture.link_types, ","), capture.packets,
      capture.tcp_packets, flow_count);
  absl::StrAppendFormat(&out,
                        "%3s  %-45s %8s %8s %12s %6s %5s %-7s %7s %7s %7s %6s "
                        "%6s %8s %9s %12s %9s %-8s",
                        "#", "sender -> receiver", "pkts>", "pkts<", "bytes",
                        "rexmt", "mss", "ecn", "ect0", "ect1", "ce", "ece",
                        "cwr", "ace_chg", "dur_s", "goodput", "rtt_ms",
                        "vantage");
  // The tunnel column only when a flow came through one: untunnelled
  // captures print as they always have.
  absl::StrAppend(&out, tunnel_column ? " tunnel\n" : "\n");
  for (size_t i = 0; i < flow_count; ++i) {
    const FlowRow r = row(i);
    const FlowSummary& f = r.flow;
    absl::StrAppendFormat(
        &out,
        "%3d  %-45s %8d %8d %12d %6d %5s %-7s %7d %7d %7d %6d %6d %8d %9.3f "
        "%12s %9.3f %-8s",
        f.index, absl::StrCat(f.sender, " -> ", f.receiver), f.packets_data_dir,
        f.packets_ack_dir, f.data_bytes, f.retransmitted_segments,
        OrDash(f.mss_option_sender), EcnModeName(f.ecn_mode), f.ect0_packets,
        f.ect1_packets, f.ce_packets, f.ece_acks, f.cwr_packets, f.ace_changes,
        f.duration_s, HumanRate(f.goodput_bps), r.timeline.rtt_median_ms,
        VantageName(r.timeline.vantage));
    if (tunnel_column) {
      absl::StrAppend(&out, " ",
                      f.encapsulation == Encapsulation::kNone
                          ? "-"
                          : EncapsulationName(f.encapsulation));
    }
    absl::StrAppend(&out, "\n");
    write(out);
    out.clear();
  }
  write(out);
}

}  // namespace ccreplay
