#include "reports/flows_report.h"

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"
#include "reports/json_writer.h"

namespace ccreplay {

std::string FlowsJson(const CaptureInfo& capture,
                      const std::vector<FlowRow>& flows) {
  JsonWriter w;
  w.BeginObject().Key("capture").BeginObject();
  w.Field("path", capture.path).Field("format", capture.format);
  w.Key("link_types").BeginArray();
  for (const std::string& t : capture.link_types) w.String(t);
  w.EndArray();
  w.Field("packets", capture.packets).Field("tcp_packets", capture.tcp_packets);
  w.Key("warnings").BeginArray();
  for (const std::string& warning : capture.warnings) w.String(warning);
  w.EndArray().EndObject();
  w.Key("flows").BeginArray();
  for (const FlowRow& row : flows) {
    const FlowSummary& f = row.flow;
    const TimelineStats& t = row.timeline;
    w.BeginObject();
    w.Field("index", f.index).Field("protocol", "tcp");
    w.Field("sender", f.sender).Field("receiver", f.receiver);
    w.Field("packets_data_dir", f.packets_data_dir)
        .Field("packets_ack_dir", f.packets_ack_dir);
    w.Field("data_bytes", f.data_bytes);
    w.Field("retransmitted_segments", f.retransmitted_segments);
    w.Field("max_payload_bytes", f.max_payload_bytes);
    w.Field("mss_option_sender", f.mss_option_sender);
    w.Field("mss_option_receiver", f.mss_option_receiver);
    w.Field("wscale_sender", f.wscale_sender)
        .Field("wscale_receiver", f.wscale_receiver);
    w.Field("sack_permitted", f.sack_permitted)
        .Field("timestamps", f.timestamps);
    w.Field("ecn_mode", EcnModeName(f.ecn_mode));
    w.Field("ect0_packets", f.ect0_packets)
        .Field("ect1_packets", f.ect1_packets);
    w.Field("ce_packets", f.ce_packets)
        .Field("not_ect_packets", f.not_ect_packets);
    w.Field("ece_acks", f.ece_acks).Field("cwr_packets", f.cwr_packets);
    w.Field("ace_changes", f.ace_changes);
    w.Field("start_s", f.start_s).Field("duration_s", f.duration_s);
    w.Field("goodput_bps", f.goodput_bps);
    w.Field("rtt_samples", t.rtt_samples);
    w.Field("rtt_min_ms", t.rtt_min_ms).Field("rtt_median_ms", t.rtt_median_ms);
    w.Field("rtt_max_ms", t.rtt_max_ms);
    w.Key("retransmissions").BeginObject();
    for (int k = 0; k < 4; ++k) {
      w.Field(RetransmissionKindName(static_cast<RetransmissionKind>(k)),
              t.retransmissions[k]);
    }
    w.Field("spurious", t.spurious_retransmissions).EndObject();
    w.Field("ece_episodes", t.ece_episodes);
    w.Field("ce_fed_back_packets", t.ce_fed_back_packets);
    w.Field("vantage", VantageName(t.vantage));
    w.EndObject();
  }
  w.EndArray().EndObject();
  return w.str() + "\n";
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

std::string FlowsTable(const CaptureInfo& capture,
                       const std::vector<FlowRow>& flows) {
  std::string out = absl::StrFormat(
      "%s: %s%s, %s, %d packets (%d TCP), %d flows\n", capture.path,
      capture.format, capture.gzip ? " (gzip)" : "",
      absl::StrJoin(capture.link_types, ","), capture.packets,
      capture.tcp_packets, flows.size());
  absl::StrAppendFormat(&out,
                        "%3s  %-45s %8s %8s %12s %6s %5s %-7s %7s %7s %7s %6s "
                        "%6s %8s %9s %12s %9s %-8s\n",
                        "#", "sender -> receiver", "pkts>", "pkts<", "bytes",
                        "rexmt", "mss", "ecn", "ect0", "ect1", "ce", "ece",
                        "cwr", "ace_chg", "dur_s", "goodput", "rtt_ms",
                        "vantage");
  for (const FlowRow& row : flows) {
    const FlowSummary& f = row.flow;
    absl::StrAppendFormat(
        &out,
        "%3d  %-45s %8d %8d %12d %6d %5s %-7s %7d %7d %7d %6d %6d %8d %9.3f "
        "%12s %9.3f %-8s\n",
        f.index, absl::StrCat(f.sender, " -> ", f.receiver), f.packets_data_dir,
        f.packets_ack_dir, f.data_bytes, f.retransmitted_segments,
        OrDash(f.mss_option_sender), EcnModeName(f.ecn_mode), f.ect0_packets,
        f.ect1_packets, f.ce_packets, f.ece_acks, f.cwr_packets, f.ace_changes,
        f.duration_s, HumanRate(f.goodput_bps), row.timeline.rtt_median_ms,
        VantageName(row.timeline.vantage));
  }
  return out;
}

}  // namespace ccreplay
