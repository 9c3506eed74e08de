#include "replay/captured_cwnd.h"

#include <algorithm>
#include <iterator>
#include <optional>
#include <string>

#include "absl/container/flat_hash_map.h"
#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "cc/congestion_controller.h"
#include "replay/stack_profile.h"

namespace ccreplay {

const char* CapturedSourceName(CapturedSource source) {
  switch (source) {
    case CapturedSource::kSs:
      return "ss";
    case CapturedSource::kTcpProbe:
      return "tcp_probe";
    case CapturedSource::kQlog:
      return "qlog";
    case CapturedSource::kFlightSize:
      return "flight_size";
  }
  return "unknown";
}

namespace {

std::vector<SeriesPoint> Shifted(const Series& series, int64_t offset_us) {
  std::vector<SeriesPoint> points(series.begin(), series.end());
  for (SeriesPoint& p : points) p.time_us += offset_us;
  std::stable_sort(points.begin(), points.end(),
                   [](const SeriesPoint& a, const SeriesPoint& b) {
                     return a.time_us < b.time_us;
                   });
  return points;
}

// The last value of one of a trace's other series, nullopt when absent.
std::optional<double> LastValue(const CapturedSeries& series,
                                const std::string& name) {
  auto it = series.other.find(name);
  if (it == series.other.end() || it->second.empty()) return std::nullopt;
  return it->second.back().value;
}

// The values of `series` by time on the capture's clock.
absl::flat_hash_map<int64_t, double> ValuesByTime(
    const std::vector<SeriesPoint>& series, int64_t offset_us) {
  absl::flat_hash_map<int64_t, double> at;
  for (const SeriesPoint& p : series) at[p.time_us + offset_us] = p.value;
  return at;
}

// An ss sample shows the socket when ss read it, not when the log's
// `# t=` line was written: on the lab's bundles ss reads it a median 2-4
// ms (up to 55 ms under load) after the stamp, 1-4 ACKs of a 20 Mbit/s
// flow later, and under an emulated CPU (QEMU's TCG) one ss run takes
// about 450 ms (bench/fidelity.sh rows, docs/controllers.md). What it
// had processed it says itself. Its delivered (tcpi_delivered =
// tp->delivered, tcp_get_info(), net/ipv4/tcp.c, 6.18: segments acked or
// SACKed, the SYN's included) orders it among the ACKs, duplicate ones in
// Recovery too: each point gets it as its log order, and CwndAligner
// hands it out before the first ACK that leaves more delivered
// (ordered_by_delivered). Without delivered on every sample (ss before
// Linux 4.18), bytes_acked (tcpi_bytes_acked: snd_una minus the ISN, the
// SYN included, so the timeline's relative cumulative ACK) orders it
// before the first ACK beyond it, which cannot tell the duplicate ACKs of
// one cumulative ACK apart. A sample with neither keeps order 0 and its
// time.
void OrderSsSamples(const HostTrace& trace, CapturedCwnd& captured) {
  const int64_t offset_us = trace.clock_epoch_us.value_or(0);
  absl::flat_hash_map<int64_t, double> order =
      ValuesByTime(trace.series.delivered_segments, offset_us);
  captured.ordered_by_delivered =
      std::all_of(captured.points.begin(), captured.points.end(),
                  [&order](const SeriesPoint& p) {
                    auto found = order.find(p.time_us);
                    return found != order.end() && found->second >= 1;
                  });
  if (!captured.ordered_by_delivered) {
    auto it = trace.series.other.find("bytes_acked");
    if (it == trace.series.other.end()) return;
    order = ValuesByTime(it->second, offset_us);
  }
  for (SeriesPoint& p : captured.points) {
    auto found = order.find(p.time_us);
    if (found != order.end() && found->second >= 1) {
      p.log_order = static_cast<uint64_t>(found->second);
    }
  }
}

}  // namespace

absl::StatusOr<CapturedCwnd> CapturedCwndForTcpFlow(
    const HostStateLog& log, const std::string& sender,
    const std::string& receiver) {
  for (const HostTrace& trace : log.traces) {
    if (trace.quic || trace.local_endpoint != sender ||
        trace.remote_endpoint != receiver) {
      continue;
    }
    if (trace.source != HostStateSource::kSs &&
        trace.source != HostStateSource::kTcpProbe) {
      continue;
    }
    if (trace.series.cwnd_segments.empty()) {
      return absl::FailedPreconditionError(
          absl::StrCat(log.path, ": the trace of ", sender, " -> ", receiver,
                       " has no cwnd"));
    }
    CapturedCwnd captured;
    captured.source = trace.source == HostStateSource::kSs
                          ? CapturedSource::kSs
                          : CapturedSource::kTcpProbe;
    captured.in_segments = true;
    captured.points =
        Shifted(trace.series.cwnd_segments, trace.clock_epoch_us.value_or(0));
    if (captured.source == CapturedSource::kSs) {
      OrderSsSamples(trace, captured);
    }
    if (captured.source == CapturedSource::kTcpProbe) {
      captured.kernel_mono_offset_us = trace.clock_epoch_us;
      // Each line's ssthresh, in segments as its cwnd; the parser leaves
      // out TCP_INFINITE_SSTHRESH, unset (before the first reduction or
      // HyStart's exit, or after an undo restored it).
      captured.ssthresh_points = Shifted(trace.series.ssthresh_segments,
                                         trace.clock_epoch_us.value_or(0));
      captured.ssthresh_omitted_while_unset = true;
      auto wire = trace.series.other.find("snd_una_wire");
      if (wire != trace.series.other.end() &&
          wire->second.size() == captured.points.size()) {
        for (const SeriesPoint& p : wire->second) {
          captured.snd_una_wire.push_back(static_cast<uint32_t>(p.value));
        }
      }
    }
    captured.description =
        absl::StrCat(CapturedSourceName(captured.source), " ", log.path, " ",
                     sender, " -> ", receiver);
    captured.send_time.busy_ms = LastValue(trace.series, "busy_ms");
    captured.send_time.rwnd_limited_ms =
        LastValue(trace.series, "rwnd_limited_ms");
    captured.send_time.sndbuf_limited_ms =
        LastValue(trace.series, "sndbuf_limited_ms");
    return captured;
  }
  return absl::FailedPreconditionError(
      absl::StrCat(log.path, ": no ss or tcp_probe trace of the socket ",
                   sender, " -> ", receiver));
}

absl::StatusOr<CapturedCwnd> CapturedCwndForQuicTrace(const HostTrace& trace) {
  if (trace.series.cwnd_bytes.empty()) {
    return absl::FailedPreconditionError(absl::StrCat(
        "QUIC trace '", trace.name, "' logs no congestion_window"));
  }
  CapturedCwnd captured;
  captured.source = CapturedSource::kQlog;
  captured.points = Shifted(trace.series.cwnd_bytes, 0);
  captured.ssthresh_points = Shifted(trace.series.ssthresh_bytes, 0);
  captured.ssthresh_omitted_while_unset = IsNgtcp2Trace(trace);
  captured.description = absl::StrCat("qlog trace ", trace.name);
  return captured;
}

std::optional<uint64_t> SsthreshAtCwndPoint(const CapturedCwnd& captured,
                                            const SeriesPoint& cwnd) {
  const std::vector<SeriesPoint>& s = captured.ssthresh_points;
  // The last ssthresh logged at or before the cwnd point's event.
  const auto after = std::upper_bound(
      s.begin(), s.end(), cwnd, [](const SeriesPoint& a, const SeriesPoint& b) {
        return a.log_order > 0 && b.log_order > 0 ? a.log_order < b.log_order
                                                  : a.time_us < b.time_us;
      });
  // The same event: the same log order, or, where the log keeps none
  // (tcp_probe), the same line's time.
  const bool same_event =
      after != s.begin() &&
      (cwnd.log_order > 0 ? std::prev(after)->log_order == cwnd.log_order
                          : std::prev(after)->time_us == cwnd.time_us);
  if (captured.ssthresh_omitted_while_unset && !same_event) {
    return kNoSsthreshBytes;
  }
  if (after == s.begin() || std::prev(after)->value < 0) return std::nullopt;
  return static_cast<uint64_t>(std::prev(after)->value + 0.5);
}

CwndAligner::CwndAligner(const CapturedCwnd& captured) : captured_(captured) {}

absl::Span<const SeriesPoint> CwndAligner::DueBefore(int64_t ack_time_us,
                                                     uint64_t ack_log_order) {
  const size_t begin = next_;
  while (next_ < captured_.points.size()) {
    const SeriesPoint& p = captured_.points[next_];
    const bool due = p.log_order > 0 && ack_log_order > 0
                         ? p.log_order < ack_log_order
                         : p.time_us < ack_time_us;
    if (!due) break;
    ++next_;
  }
  return absl::MakeConstSpan(captured_.points.data() + begin, next_ - begin);
}

bool CwndAligner::KeyBySndUna(uint32_t isn, int64_t ack) {
  const std::vector<uint32_t>& wire = captured_.snd_una_wire;
  if (wire.empty() || wire.size() != captured_.points.size()) return false;
  if (candidate_isn_ != isn || candidate_.empty()) {
    candidate_.resize(wire.size());
    int64_t relative = 0;
    for (size_t i = 0; i < wire.size(); ++i) {
      // The 64-bit value nearest the last one (a trace can span wraps).
      relative +=
          static_cast<int32_t>(wire[i] - isn - static_cast<uint32_t>(relative));
      // snd_una never falls: a line repeats the one before or moves on.
      const bool again = i > 0 && candidate_[i - 1].ack == relative;
      candidate_[i] = {relative, again ? candidate_[i - 1].repeat + 1 : 0};
    }
    candidate_isn_ = isn;
  }
  const bool logged = std::any_of(candidate_.begin(), candidate_.end(),
                                  [ack](const Key& k) { return k.ack == ack; });
  if (logged) keys_ = std::move(candidate_);
  return logged;
}

absl::Span<const SeriesPoint> CwndAligner::DueBeforeAck(int64_t ack,
                                                        uint32_t repeat) {
  const size_t begin = next_;
  while (next_ < keys_.size()) {
    const Key& k = keys_[next_];
    if (k.ack > ack || (k.ack == ack && k.repeat >= repeat)) break;
    ++next_;
  }
  return absl::MakeConstSpan(captured_.points.data() + begin, next_ - begin);
}

absl::Span<const SeriesPoint> CwndAligner::Rest() {
  const size_t begin = next_;
  next_ = captured_.points.size();
  return absl::MakeConstSpan(captured_.points.data() + begin, next_ - begin);
}

}  // namespace ccreplay
