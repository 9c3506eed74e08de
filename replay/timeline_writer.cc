#include "replay/timeline_writer.h"

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "reports/json_writer.h"

namespace ccreplay {
namespace {

const char* TypeName(TimelineEvent::Type type) {
  return type == TimelineEvent::Type::kAck ? "ack" : "retransmission";
}

void WriteStats(JsonWriter& w, const TimelineStats& s) {
  w.Field("rtt_samples", s.rtt_samples);
  w.Field("rtt_min_ms", s.rtt_min_ms).Field("rtt_median_ms", s.rtt_median_ms);
  w.Field("rtt_max_ms", s.rtt_max_ms);
  w.Key("retransmissions").BeginObject();
  for (int k = 0; k < 4; ++k) {
    w.Field(RetransmissionKindName(static_cast<RetransmissionKind>(k)),
            s.retransmissions[k]);
  }
  w.Field("spurious", s.spurious_retransmissions).EndObject();
  w.Field("ece_episodes", s.ece_episodes);
  w.Field("ce_fed_back_packets", s.ce_fed_back_packets);
  w.Field("ip_ce_data_packets", s.ip_ce_data_packets);
  w.Field("bytes_acked", s.bytes_acked).Field("acks", s.acks);
  w.Field("vantage", VantageName(s.vantage));
  w.Key("warnings").BeginArray();
  for (const std::string& warning : s.warnings) w.String(warning);
  w.EndArray();
}

}  // namespace

TimelineWriter::TimelineWriter(Format format, std::FILE* out, int64_t origin_ns)
    : format_(format), out_(out), origin_ns_(origin_ns) {}

void TimelineWriter::Put(const std::string& text) {
  std::fwrite(text.data(), 1, text.size(), out_);
}

std::string TimelineWriter::CsvHeader() {
  return "type,time_s,time_estimated,ack,bytes_acked,bytes_sacked,bytes_"
         "dsacked,"
         "packets_delivered,duplicate,reneged,rtt_sample_us,srtt_us,rttvar_us,"
         "min_rtt_us,"
         "rto_us,ece,ce_packets,ce_packets_total,ce_bytes,ect0_bytes,ect1_"
         "bytes,"
         "congestion_episode,ip_ce_data_packets,outstanding_bytes,sacked_bytes,"
         "lost_bytes,"
         "pipe_bytes,rwnd_bytes,limit,mss_bytes,spurious_retransmissions,seq_"
         "start,seq_end,"
         "kind,starts_episode,retransmits_retransmission";
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
                           const FlowSummary& flow) {
  switch (format_) {
    case Format::kCsv:
      Put(CsvHeader() + "\n");
      return;
    case Format::kJson: {
      JsonWriter w;
      w.BeginObject().Field("capture", capture_path).Key("flow").BeginObject();
      w.Field("index", flow.index).Field("sender", flow.sender);
      w.Field("receiver", flow.receiver)
          .Field("ecn_mode", EcnModeName(flow.ecn_mode));
      w.EndObject();
      // Left open: the events follow.
      Put(w.str() + ",\"events\":[\n");
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
      JsonWriter w;
      w.BeginObject().Field("type", TypeName(e.type));
      w.Field("time_s", static_cast<double>(e.time_ns - origin_ns_) * 1e-9);
      w.Field("time_estimated", e.time_estimated).Field("ack", e.ack);
      if (rtx) {
        w.Field("seq_start", e.seq_start).Field("seq_end", e.seq_end);
        w.Field("kind", RetransmissionKindName(e.kind));
        w.Field("starts_episode", e.starts_episode);
        w.Field("retransmits_retransmission", e.retransmits_retransmission);
      } else {
        w.Field("bytes_acked", e.bytes_acked)
            .Field("bytes_sacked", e.bytes_sacked);
        w.Field("bytes_dsacked", e.bytes_dsacked);
        w.Field("packets_delivered", e.packets_delivered);
        w.Field("duplicate", e.duplicate).Field("reneged", e.reneged);
        w.Field("rtt_sample_us", e.rtt_sample_us);
        w.Field("ece", e.ece).Field("ce_packets", e.ce_packets);
        w.Field("ce_packets_total", e.ce_packets_total)
            .Field("ce_bytes", e.ce_bytes);
        w.Field("ect0_bytes", e.ect0_bytes).Field("ect1_bytes", e.ect1_bytes);
        w.Field("congestion_episode", e.congestion_episode);
        w.Field("ip_ce_data_packets", e.ip_ce_data_packets);
        w.Field("limit", SendLimitName(e.limit));
        w.Field("spurious_retransmissions", e.spurious_retransmissions);
      }
      w.Field("srtt_us", e.srtt_us).Field("rttvar_us", e.rttvar_us);
      w.Field("min_rtt_us", e.min_rtt_us).Field("rto_us", e.rto_us);
      w.Field("outstanding_bytes", e.outstanding_bytes)
          .Field("sacked_bytes", e.sacked_bytes);
      w.Field("lost_bytes", e.lost_bytes).Field("pipe_bytes", e.pipe_bytes);
      w.Field("rwnd_bytes", e.rwnd_bytes).Field("mss_bytes", e.mss_bytes);
      w.EndObject();
      Put(absl::StrCat(first_event_ ? "" : ",\n", w.str()));
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
      JsonWriter w;
      w.BeginObject();
      WriteStats(w, stats);
      w.EndObject();
      Put(absl::StrCat("\n],\"summary\":", w.str(), "}\n"));
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
