#include "reports/replay_report.h"

#include <array>
#include <optional>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "proto/json_printer.h"
#include "proto/replay.pb.h"

namespace ccreplay {
namespace {

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

// One quantile of the error per DivergencePhase (slow start, CA, recovery).
void SetPhaseErrors(const std::array<std::optional<double>, 3>& phase,
                    proto::PhaseErrors* out) {
  if (phase[0]) out->set_slow_start(*phase[0]);
  if (phase[1]) out->set_congestion_avoidance(*phase[1]);
  if (phase[2]) out->set_recovery(*phase[2]);
}

void SetSenderConfig(const SenderConfigReport& r, proto::SenderConfig* out) {
  proto::DepartureGapStats* gaps = out->mutable_departure_gaps();
  const DepartureGaps& g = r.evidence.gaps;
  gaps->set_gaps(g.gaps);
  if (g.back_to_back_fraction)
    gaps->set_back_to_back_fraction(*g.back_to_back_fraction);
  if (g.paced) gaps->set_paced(*g.paced);
  gaps->set_resolved_gaps(g.resolved_gaps);
  if (g.median_answer_ns) gaps->set_median_answer_us(*g.median_answer_ns / 1e3);
  gaps->set_at_sender(g.at_sender());
  gaps->set_no_verdict_reason(GapsSilence(g));
  const SegmentSizes& z = r.evidence.sizes;
  proto::SegmentSizeStats* sizes = out->mutable_segment_sizes();
  sizes->set_sender_side(z.sender_side);
  sizes->set_data_segments(z.data_segments);
  sizes->set_super_segments(z.super_segments);
  sizes->set_largest_payload_bytes(z.largest_bytes);
  sizes->set_mss_bytes(z.mss_bytes);
  for (const SenderConfigFit& f : r.fits) {
    proto::SenderConfigFit* fit = out->add_fits();
    fit->set_given_spec(f.given_spec);
    fit->set_replayed_spec(f.replayed_spec);
    if (f.median_abs_err_pct)
      fit->set_median_abs_err_pct(*f.median_abs_err_pct);
    for (const FittedSetting& s : f.settings) {
      proto::FittedSenderSetting* setting = fit->add_settings();
      setting->set_option(s.option);
      setting->set_value(s.value);
      setting->set_source(s.source);
      if (s.margin_pct) setting->set_margin_pct(*s.margin_pct);
      setting->set_determined(s.determined());
      setting->set_reason(s.reason);
    }
  }
}

}  // namespace

std::string ReplayReportJson(const ReplayResult& result,
                             const SenderConfigReport* sender_config) {
  proto::ReplayReport report;
  proto::ReplayFlow* flow = report.mutable_flow();
  flow->set_index(result.flow_index);
  flow->set_sender(result.sender);
  flow->set_receiver(result.receiver);
  report.set_captured_source(CapturedSourceName(result.source));
  for (const ReplayedController& c : result.controllers) {
    const DivergenceSummary& d = c.divergence;
    proto::ReplayControllerFit* fit = report.add_controllers();
    fit->set_spec(c.spec);
    fit->set_samples(d.samples);
    fit->set_parting_runs(d.parting_runs);
    if (d.median_abs_err_pct)
      fit->set_median_abs_err_pct(*d.median_abs_err_pct);
    if (d.p95_abs_err_pct) fit->set_p95_abs_err_pct(*d.p95_abs_err_pct);
    const std::optional<double> diverge =
        Seconds(d.first_divergence_us, result.start_us);
    if (diverge) fit->set_first_divergence_s(*diverge);
    SetPhaseErrors(d.median_by_phase_pct, fit->mutable_by_phase());
    SetPhaseErrors(d.p95_by_phase_pct, fit->mutable_by_phase_p95());
  }
  const std::vector<SeriesSample>& points = Points(result);
  for (size_t row = 0; row < points.size(); ++row) {
    proto::ReplaySeriesPoint* point = report.add_series();
    point->set_t_s(static_cast<double>(points[row].time_us) / 1e6);
    if (result.captured_cwnd_bytes[row]) {
      point->set_captured_cwnd_bytes(*result.captured_cwnd_bytes[row]);
    }
    for (const ReplayedController& c : result.controllers) {
      point->add_cwnd_bytes(c.series.samples[row].cwnd_bytes);
    }
  }
  if (sender_config != nullptr &&
      !DescribeSenderConfig(*sender_config).empty()) {
    SetSenderConfig(*sender_config, report.mutable_sender_config());
  }
  return PrintJson(report);
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

std::string ReplayReportText(const ReplayResult& result,
                             const SenderConfigReport* sender_config) {
  std::string out = absl::StrFormat(
      "flow %u  %s -> %s  %u ACKs replayed\ncaptured cwnd: %s (%s)\n\n",
      result.flow_index, result.sender, result.receiver, result.acks,
      CapturedSourceName(result.source), result.source_description);
  if (!result.controller_profile.empty()) {
    absl::StrAppend(&out, result.controller_profile, "\n\n");
  }
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
  if (sender_config != nullptr) {
    for (const std::string& line : DescribeSenderConfig(*sender_config))
      absl::StrAppend(&out, line, "\n");
  }
  return out;
}

}  // namespace ccreplay
