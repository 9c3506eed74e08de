#include "replay/timeline_writer.h"

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "parsers/flow_proto.h"
#include "proto/json_printer.h"

namespace ccreplay {
namespace {

const char* TypeName(TimelineEvent::Type type) {
  return type == TimelineEvent::Type::kAck ? "ack" : "retransmission";
}

// The JSON of an AckTimelineReport up to its events: the head message
// printed whole, cut after its `"events":` key (events and summary are its
// last fields, and a string's quotes are escaped, so the last such key is
// the field's). The events and the summary follow as they stream.
std::string JsonHead(const proto::AckTimelineReport& head) {
  static constexpr char kEvents[] = ",\"events\":";
  std::string json = PrintJson(head, JsonPrintOptions{0});
  json.resize(json.rfind(kEvents) + sizeof(kEvents) - 1);
  return json + "[\n";
}

}  // namespace

proto::AckTimelineSummary AckTimelineSummaryProto(const TimelineStats& s) {
  proto::AckTimelineSummary out;
  out.set_rtt_samples(s.rtt_samples);
  out.set_rtt_min_ms(s.rtt_min_ms);
  out.set_rtt_median_ms(s.rtt_median_ms);
  out.set_rtt_max_ms(s.rtt_max_ms);
  proto::RetransmissionCounts* r = out.mutable_retransmissions();
  using Kind = RetransmissionKind;
  r->set_fast(s.retransmissions[static_cast<int>(Kind::kFast)]);
  r->set_rto(s.retransmissions[static_cast<int>(Kind::kRto)]);
  r->set_tlp(s.retransmissions[static_cast<int>(Kind::kTlp)]);
  r->set_other(s.retransmissions[static_cast<int>(Kind::kOther)]);
  r->set_spurious(s.spurious_retransmissions);
  out.set_ece_episodes(s.ece_episodes);
  if (s.ce_fed_back_packets) {
    out.set_ce_fed_back_packets(*s.ce_fed_back_packets);
  }
  out.set_ip_ce_data_packets(s.ip_ce_data_packets);
  out.set_bytes_acked(s.bytes_acked);
  out.set_acks(s.acks);
  out.set_vantage(VantageName(s.vantage));
  out.set_sender_window(SenderWindowName(s.sender_window));
  out.set_sender_window_reason(s.sender_window_reason);
  if (!s.vantage_note.empty()) out.set_vantage_note(s.vantage_note);
  for (const std::string& warning : s.warnings) out.add_warnings(warning);
  return out;
}

void WriteAckTimelineSummaryJson(const TimelineStats& s,
                                 JsonObjectWriter& out) {
  out.Uint("rtt_samples", s.rtt_samples);
  out.Double("rtt_min_ms", s.rtt_min_ms);
  out.Double("rtt_median_ms", s.rtt_median_ms);
  out.Double("rtt_max_ms", s.rtt_max_ms);
  JsonObjectWriter r = out.Object("retransmissions");
  using Kind = RetransmissionKind;
  r.Uint("fast", s.retransmissions[static_cast<int>(Kind::kFast)]);
  r.Uint("rto", s.retransmissions[static_cast<int>(Kind::kRto)]);
  r.Uint("tlp", s.retransmissions[static_cast<int>(Kind::kTlp)]);
  r.Uint("other", s.retransmissions[static_cast<int>(Kind::kOther)]);
  r.Uint("spurious", s.spurious_retransmissions);
  r.End();
  out.Uint("ece_episodes", s.ece_episodes);
  out.OptionalUint("ce_fed_back_packets", s.ce_fed_back_packets);
  out.Uint("ip_ce_data_packets", s.ip_ce_data_packets);
  out.Uint("bytes_acked", s.bytes_acked);
  out.Uint("acks", s.acks);
  out.String("vantage", VantageName(s.vantage));
  out.String("sender_window", SenderWindowName(s.sender_window));
  out.OptionalString("vantage_note",
                     s.vantage_note.empty()
                         ? std::nullopt
                         : std::optional<absl::string_view>(s.vantage_note));
  out.String("sender_window_reason", s.sender_window_reason);
  out.StringArray("warnings", s.warnings);
}

proto::AckTimelineEvent AckTimelineEventProto(const TimelineEvent& e,
                                              int64_t origin_ns) {
  proto::AckTimelineEvent out;
  out.set_type(TypeName(e.type));
  out.set_time_s(static_cast<double>(e.time_ns - origin_ns) * 1e-9);
  out.set_time_estimated(e.time_estimated);
  out.set_ack(e.ack);
  if (e.type == TimelineEvent::Type::kRetransmission) {
    out.set_seq_start(e.seq_start);
    out.set_seq_end(e.seq_end);
    out.set_kind(RetransmissionKindName(e.kind));
    out.set_starts_episode(e.starts_episode);
    out.set_retransmits_retransmission(e.retransmits_retransmission);
  } else {
    out.set_bytes_acked(e.bytes_acked);
    out.set_bytes_sacked(e.bytes_sacked);
    out.set_bytes_dsacked(e.bytes_dsacked);
    out.set_packets_delivered(e.packets_delivered);
    out.set_duplicate(e.duplicate);
    out.set_reneged(e.reneged);
    out.set_rtt_sample_us(e.rtt_sample_us);
    out.set_ece(e.ece);
    out.set_ce_packets(e.ce_packets);
    out.set_ce_packets_total(e.ce_packets_total);
    out.set_ce_bytes(e.ce_bytes);
    out.set_ect0_bytes(e.ect0_bytes);
    out.set_ect1_bytes(e.ect1_bytes);
    out.set_congestion_episode(e.congestion_episode);
    out.set_ip_ce_data_packets(e.ip_ce_data_packets);
    out.set_limit(SendLimitName(e.limit));
    out.set_spurious_retransmissions(e.spurious_retransmissions);
  }
  out.set_srtt_us(e.srtt_us);
  out.set_rttvar_us(e.rttvar_us);
  out.set_min_rtt_us(e.min_rtt_us);
  out.set_rto_us(e.rto_us);
  out.set_outstanding_bytes(e.outstanding_bytes);
  out.set_sacked_bytes(e.sacked_bytes);
  out.set_lost_bytes(e.lost_bytes);
  out.set_pipe_bytes(e.pipe_bytes);
  out.set_rwnd_bytes(e.rwnd_bytes);
  out.set_mss_bytes(e.mss_bytes);
  return out;
}

TimelineWriter::TimelineWriter(Format format, std::FILE* out, int64_t origin_ns)
    : format_(format), out_(out), origin_ns_(origin_ns) {}

void TimelineWriter::Put(const std::string& text) {
  std::fwrite(text.data(), 1, text.size(), out_);
}

std::string TimelineWriter::CsvHeader() {
  // The columns are the JSON event's fields, in order: one schema.
  const google::protobuf::Descriptor* d = proto::AckTimelineEvent::descriptor();
  std::string header;
  for (int i = 0; i < d->field_count(); ++i) {
    absl::StrAppend(&header, i > 0 ? "," : "", d->field(i)->name());
  }
  return header;
}

std::string TimelineWriter::CsvRow(const TimelineEvent& e) const {
  const bool rtx = e.type == TimelineEvent::Type::kRetransmission;
  return absl::StrFormat(
      "%s,%.9f,%d,%d,%d,%d,%d,%d,%d,%d,%d,%d,%d,%d,%d,%d,%d,%d,%d,%d,%d,%d,%d,%"
      "d,%d,%d,%d,%d,%s,"
      "%d,%d,%d,%d,%s,%d,%d",
      TypeName(e.type), static_cast<double>(e.time_ns - origin_ns_) * 1e-9,
      e.time_estimated, e.ack, e.bytes_acked, e.bytes_sacked, e.bytes_dsacked,
      e.packets_delivered, e.duplicate, e.reneged, e.rtt_sample_us, e.srtt_us,
      e.rttvar_us, e.min_rtt_us, e.rto_us, e.ece, e.ce_packets,
      e.ce_packets_total, e.ce_bytes, e.ect0_bytes, e.ect1_bytes,
      e.congestion_episode, e.ip_ce_data_packets, e.outstanding_bytes,
      e.sacked_bytes, e.lost_bytes, e.pipe_bytes, e.rwnd_bytes,
      rtx ? "" : SendLimitName(e.limit), e.mss_bytes,
      e.spurious_retransmissions, e.seq_start, e.seq_end,
      rtx ? RetransmissionKindName(e.kind) : "", e.starts_episode,
      e.retransmits_retransmission);
}

void TimelineWriter::Begin(const std::string& capture_path,
                           const Flow& capture_flow) {
  const FlowSummary flow = SummarizeFlow(capture_flow, origin_ns_);
  switch (format_) {
    case Format::kCsv:
      Put(CsvHeader() + "\n");
      return;
    case Format::kJson: {
      proto::AckTimelineReport head;
      head.set_capture(capture_path);
      *head.mutable_flow() = FlowIdentityProto(capture_flow);
      *head.mutable_handshake() = HandshakeProto(capture_flow, flow);
      Put(JsonHead(head));
      return;
    }
    case Format::kText:
      Put(absl::StrFormat("%s: flow %d, %s -> %s, ECN %s\n", capture_path,
                          flow.index, flow.sender, flow.receiver,
                          EcnModeName(flow.ecn_mode)));
      Put(absl::StrFormat(
          "%12s %-5s %12s %9s %9s %9s %9s %10s %10s %9s %-7s %s\n", "time_s",
          "event", "ack", "acked", "sacked", "rtt_us", "srtt_us", "pipe",
          "rwnd", "mss", "limit", "signals"));
      return;
  }
}

void TimelineWriter::Write(const TimelineEvent& e) {
  const bool rtx = e.type == TimelineEvent::Type::kRetransmission;
  switch (format_) {
    case Format::kCsv:
      Put(CsvRow(e) + "\n");
      return;
    case Format::kJson: {
      std::string json = first_event_ ? "" : ",\n";
      AppendJson(AckTimelineEventProto(e, origin_ns_), JsonPrintOptions{0}, 0,
                 &json);
      Put(json);
      first_event_ = false;
      return;
    }
    case Format::kText: {
      std::string signals;
      if (rtx) {
        signals = absl::StrCat(RetransmissionKindName(e.kind), " [",
                               e.seq_start, ",", e.seq_end, ")",
                               e.starts_episode ? " new-episode" : "");
      } else {
        if (e.duplicate) signals += "dup ";
        if (e.ece) signals += "ECE ";
        if (e.ce_packets > 0)
          absl::StrAppend(&signals, "CE+", e.ce_packets, " ");
        if (e.congestion_episode) signals += "episode ";
        if (e.bytes_dsacked > 0)
          absl::StrAppend(&signals, "dsack=", e.bytes_dsacked, " ");
        if (e.reneged) signals += "reneged ";
        if (e.spurious_retransmissions > 0) signals += "spurious ";
      }
      Put(absl::StrFormat(
          "%12.6f %-5s %12d %9d %9d %9d %9d %10d %10d %9d %-7s %s\n",
          static_cast<double>(e.time_ns - origin_ns_) * 1e-9,
          rtx ? "RETX" : "ack", e.ack, e.bytes_acked, e.bytes_sacked,
          e.rtt_sample_us, e.srtt_us, e.pipe_bytes, e.rwnd_bytes, e.mss_bytes,
          rtx ? "" : SendLimitName(e.limit), signals));
      return;
    }
  }
}

void TimelineWriter::End(const TimelineStats& stats) {
  switch (format_) {
    case Format::kCsv:
      return;
    case Format::kJson: {
      std::string json = "\n],\"summary\":";
      AppendJson(AckTimelineSummaryProto(stats), JsonPrintOptions{0}, 0, &json);
      Put(json + "}\n");
      return;
    }
    case Format::kText:
      Put(absl::StrFormat(
          "vantage %s; %d ACKs, %d bytes acked; RTT samples %d (min %.3f, "
          "median %.3f, max "
          "%.3f ms); retransmissions fast %d, rto %d, tlp %d, other %d, "
          "spurious %d; ECE "
          "episodes %d%s\n",
          VantageName(stats.vantage), stats.acks, stats.bytes_acked,
          stats.rtt_samples, stats.rtt_min_ms, stats.rtt_median_ms,
          stats.rtt_max_ms, stats.retransmissions[0], stats.retransmissions[1],
          stats.retransmissions[2], stats.retransmissions[3],
          stats.spurious_retransmissions, stats.ece_episodes,
          stats.ce_fed_back_packets.has_value()
              ? absl::StrCat("; CE packets fed back ",
                             *stats.ce_fed_back_packets)
              : ""));
      return;
  }
}

}  // namespace ccreplay
