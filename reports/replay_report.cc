#include "reports/replay_report.h"

#include <optional>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "reports/json_writer.h"

namespace ccreplay {
namespace {

constexpr const char* kPhaseKeys[] = {"slow_start", "congestion_avoidance",
                                      "recovery"};

std::optional<double> Seconds(const std::optional<int64_t>& time_us,
                              int64_t start_us) {
  if (!time_us.has_value()) return std::nullopt;
  return static_cast<double>(*time_us - start_us) / 1e6;
}

std::string Pct(const std::optional<double>& pct) {
  return pct.has_value() ? absl::StrFormat("%.1f", *pct) : "-";
}

// Series times: every controller has the same points; take the first's.
const std::vector<SeriesSample>& Points(const ReplayResult& result) {
  static const std::vector<SeriesSample> kNone;
  return result.controllers.empty() ? kNone
                                    : result.controllers[0].series.samples;
}

}  // namespace

std::string ReplayReportJson(const ReplayResult& result) {
  JsonWriter w;
  w.BeginObject();
  w.Key("flow").BeginObject();
  w.Field("index", result.flow_index);
  w.Field("sender", result.sender);
  w.Field("receiver", result.receiver);
  w.EndObject();
  w.Field("captured_source", CapturedSourceName(result.source));
  w.Key("controllers").BeginArray();
  for (const ReplayedController& c : result.controllers) {
    const DivergenceSummary& d = c.divergence;
    w.BeginObject();
    w.Field("spec", c.spec);
    w.Field("samples", d.samples);
    w.Field("median_abs_err_pct", d.median_abs_err_pct);
    w.Field("p95_abs_err_pct", d.p95_abs_err_pct);
    w.Field("first_divergence_s",
            Seconds(d.first_divergence_us, result.start_us));
    w.Key("by_phase").BeginObject();
    for (size_t i = 0; i < d.median_by_phase_pct.size(); ++i) {
      w.Field(kPhaseKeys[i], d.median_by_phase_pct[i]);
    }
    w.EndObject();
    w.EndObject();
  }
  w.EndArray();
  w.Key("series").BeginObject();
  w.Key("t_s").BeginArray();
  for (const SeriesSample& s : Points(result)) {
    w.Double(static_cast<double>(s.time_us) / 1e6);
  }
  w.EndArray();
  w.Key("captured_cwnd_bytes").BeginArray();
  for (const std::optional<uint64_t>& v : result.captured_cwnd_bytes) {
    w.Optional(v);
  }
  w.EndArray();
  for (const ReplayedController& c : result.controllers) {
    w.Key(c.spec).BeginArray();
    for (const SeriesSample& s : c.series.samples) w.Uint(s.cwnd_bytes);
    w.EndArray();
  }
  w.EndObject();
  w.EndObject();
  return absl::StrCat(w.str(), "\n");
}

std::string ReplayReportCsv(const ReplayResult& result) {
  std::string out = "t_s,captured_cwnd_bytes";
  for (const ReplayedController& c : result.controllers) {
    // A spec may hold commas: quote it (RFC 4180).
    absl::StrAppend(&out, ",\"", c.spec, "\"");
  }
  out += "\n";
  const std::vector<SeriesSample>& points = Points(result);
  for (size_t row = 0; row < points.size(); ++row) {
    absl::StrAppendFormat(&out, "%.6f,", points[row].time_us / 1e6);
    if (result.captured_cwnd_bytes[row].has_value()) {
      absl::StrAppend(&out, *result.captured_cwnd_bytes[row]);
    }
    for (const ReplayedController& c : result.controllers) {
      absl::StrAppend(&out, ",", c.series.samples[row].cwnd_bytes);
    }
    out += "\n";
  }
  return out;
}

std::string ReplayReportText(const ReplayResult& result) {
  std::string out = absl::StrFormat(
      "flow %u  %s -> %s  %u ACKs replayed\ncaptured cwnd: %s (%s)\n\n",
      result.flow_index, result.sender, result.receiver, result.acks,
      CapturedSourceName(result.source), result.source_description);
  absl::StrAppendFormat(&out, "%-32s %8s %8s %8s %10s %8s %8s %8s\n",
                        "controller", "samples", "med err%", "p95 err%",
                        "diverge s", "SS", "CA", "rec/CWR");
  for (const ReplayedController& c : result.controllers) {
    const DivergenceSummary& d = c.divergence;
    const std::optional<double> diverge =
        Seconds(d.first_divergence_us, result.start_us);
    absl::StrAppendFormat(
        &out, "%-32s %8u %8s %8s %10s %8s %8s %8s\n", c.spec, d.samples,
        Pct(d.median_abs_err_pct), Pct(d.p95_abs_err_pct),
        diverge.has_value() ? absl::StrFormat("%.3f", *diverge) : "-",
        Pct(d.median_by_phase_pct[0]), Pct(d.median_by_phase_pct[1]),
        Pct(d.median_by_phase_pct[2]));
  }
  out +=
      "\nErrors: |model - captured| / captured over the samples where the "
      "sender was\ncwnd-limited; by phase of the model. 'diverge': first time "
      "the model left a\n+/-25% band for more than 4 RTTs (and 50 ms).\n";
  return out;
}

}  // namespace ccreplay
