#include "reports/diagnosis.h"

#include <algorithm>
#include <cmath>
#include <optional>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "reports/fitted_simulation.h"

namespace ccreplay {

const char* LimiterName(Limiter limiter) {
  switch (limiter) {
    case Limiter::kCwnd:
      return "cwnd";
    case Limiter::kRwnd:
      return "rwnd";
    case Limiter::kApp:
      return "app";
    case Limiter::kRecovery:
      return "recovery";
    case Limiter::kUnknown:
      break;
  }
  return "unknown";
}

namespace {

// A finding needs its condition over this share of the data phase...
constexpr double kMinShare = 0.10;
// ...and over at least this many base RTTs in one stretch.
constexpr double kMinRunRtts = 5;
// The verdict calls the path's rate varying when the median delivery rate
// while a queue built is below this share of the peak estimate.
constexpr double kVaryingRateShare = 0.8;

Limiter BinLimiter(const ObservationBin& b) {
  if (b.retransmissions > 0) return Limiter::kRecovery;
  const uint32_t* n = b.limit_acks;
  const int kinds[] = {
      static_cast<int>(SendLimit::kCwnd), static_cast<int>(SendLimit::kRwnd),
      static_cast<int>(SendLimit::kApp), static_cast<int>(SendLimit::kUnknown)};
  const Limiter as[] = {Limiter::kCwnd, Limiter::kRwnd, Limiter::kApp,
                        Limiter::kUnknown};
  int best = 3;
  for (int i = 0; i < 4; ++i) {
    if (n[kinds[i]] > n[kinds[best]]) best = i;
  }
  return as[best];
}

const char* LimiterColor(Limiter limiter) {
  switch (limiter) {
    case Limiter::kCwnd:
      return "#4e79a7";
    case Limiter::kRwnd:
      return "#f28e2b";
    case Limiter::kApp:
      return "#bab0ac";
    case Limiter::kRecovery:
      return "#e15759";
    case Limiter::kUnknown:
      break;
  }
  return "#dddddd";
}

const char* LimiterLabel(Limiter limiter) {
  switch (limiter) {
    case Limiter::kCwnd:
      return "cwnd (waiting for ACKs)";
    case Limiter::kRwnd:
      return "receive window";
    case Limiter::kApp:
      return "application (nothing to send)";
    case Limiter::kRecovery:
      return "loss recovery";
    case Limiter::kUnknown:
      break;
  }
  return "unknown / pacing";
}

std::string Mbps(double bps) { return absl::StrFormat("%.2f Mb/s", bps / 1e6); }

// The longest stretch of `limiter` and the total time under it.
struct Coverage {
  double total_s = 0;
  LimiterRun longest;
};
Coverage CoverageOf(const std::vector<LimiterRun>& runs, Limiter limiter) {
  Coverage c;
  for (const LimiterRun& r : runs) {
    if (r.limiter != limiter) continue;
    c.total_s += r.end_s - r.start_s;
    if (r.end_s - r.start_s > c.longest.end_s - c.longest.start_s)
      c.longest = r;
  }
  return c;
}

void AddLimiterFinding(const std::vector<LimiterRun>& runs, Limiter limiter,
                       double data_s, double base_rtt_s, const char* kind,
                       Severity severity, const std::string& what,
                       std::vector<Finding>* findings) {
  const Coverage c = CoverageOf(runs, limiter);
  if (data_s <= 0 || c.total_s < kMinShare * data_s) return;
  if (c.longest.end_s - c.longest.start_s < kMinRunRtts * base_rtt_s) return;
  Finding f;
  f.kind = kind;
  f.severity = severity;
  f.start_s = c.longest.start_s;
  f.end_s = c.longest.end_s;
  f.message = absl::StrFormat(
      "%s for %.0f%% of the data phase (%.2f s of %.2f s); the longest "
      "stretch runs from %.3f s to %.3f s.",
      what, 100 * c.total_s / data_s, c.total_s, data_s, f.start_s, f.end_s);
  f.evidence.push_back(absl::StrFormat(
      "limiter per interval from the ACK timeline (what the sender did just "
      "before each ACK); the band \"%s\" in the limiter plot",
      LimiterLabel(limiter)));
  findings->push_back(std::move(f));
}

PlotSeries MakeSeries(const char* name, const char* color, SeriesStyle style) {
  PlotSeries s;
  s.name = name;
  s.color = color;
  s.style = style;
  return s;
}

}  // namespace

std::vector<LimiterRun> LimiterRuns(const FlowObserver& observed) {
  // Judge over about one smoothed RTT at a time: within an RTT a
  // window-limited sender alternates between sending and waiting.
  const double w = observed.bin_width_s();
  const std::vector<ObservationBin>& bins = observed.bins();
  std::vector<int64_t> srtts;
  for (const ObservationBin& b : bins) {
    if (b.srtt_us > 0) srtts.push_back(b.srtt_us);
  }
  size_t group = 1;
  if (!srtts.empty()) {
    std::nth_element(srtts.begin(), srtts.begin() + srtts.size() / 2,
                     srtts.end());
    group = std::max<size_t>(
        1,
        static_cast<size_t>(std::lround(srtts[srtts.size() / 2] * 1e-6 / w)));
  }
  std::vector<LimiterRun> runs;
  for (size_t i = 0; i < bins.size(); i += group) {
    ObservationBin merged = bins[i];
    for (size_t j = i + 1; j < std::min(bins.size(), i + group); ++j)
      merged.Merge(bins[j]);
    const double start = i * w, end = std::min(bins.size(), i + group) * w;
    if (merged.acks == 0 && merged.retransmissions == 0 && !runs.empty()) {
      runs.back().end_s = end;
      continue;
    }
    const Limiter l = BinLimiter(merged);
    if (!runs.empty() && runs.back().limiter == l) {
      runs.back().end_s = end;
    } else {
      runs.push_back({l, start, end});
    }
  }
  return runs;
}

Diagnosis Diagnose(const DiagnosisInput& in) {
  const FlowObserver& obs = *in.observed;
  const PathEstimates est = EstimatePath(obs);
  const std::vector<LimiterRun> runs = LimiterRuns(obs);
  const std::vector<ObservationBin>& bins = obs.bins();
  const double w = obs.bin_width_s();
  const double end_s = std::max(in.summary.duration_s, bins.size() * w);
  const double data_s = bins.size() * w;
  const double utilization =
      est.bottleneck_rate_bps > 0
          ? in.summary.goodput_bps / est.bottleneck_rate_bps
          : 0;

  // Findings from the timeline.
  std::vector<Finding> findings;
  AddLimiterFinding(runs, Limiter::kRwnd, data_s, est.base_rtt_s,
                    "receive_window_limited", Severity::kWarning,
                    "The receive window was full", &findings);
  AddLimiterFinding(runs, Limiter::kApp, data_s, est.base_rtt_s,
                    "application_limited", Severity::kInfo,
                    "The application had nothing more to send", &findings);
  AddLimiterFinding(runs, Limiter::kRecovery, data_s, est.base_rtt_s,
                    "loss_recovery_dominant", Severity::kWarning,
                    "The sender was recovering from loss", &findings);
  // Findings from the replay, with the fitted path's simulations.
  ReplayFindings replayed;
  std::optional<ReplayEvidence> evidence;
  std::string simulation_note =
      "closed-loop simulation: not run (--simulate off)";
  if (in.replay != nullptr) {
    evidence = *in.replay;
    if (in.simulate) {
      absl::StatusOr<FittedPath> path =
          FitPath(est, obs, in.summary.duration_s);
      if (path.ok()) {
        evidence->path = *path;
        simulation_note = absl::StrCat(
            "closed-loop simulation (replay/sim) of the fitted path: ",
            path->Describe(), "; run for the findings that cite it");
      } else {
        simulation_note = absl::StrCat("closed-loop simulation: not run, ",
                                       path.status().message());
      }
    }
    replayed = FindFromReplay(
        *evidence, est, obs,
        std::max<uint32_t>(in.summary.max_payload_bytes, 1), end_s);
    for (Finding& f : replayed.findings) findings.push_back(std::move(f));
  }
  std::stable_sort(findings.begin(), findings.end(),
                   [](const Finding& a, const Finding& b) {
                     return a.severity > b.severity;
                   });

  Diagnosis d;
  ReportPage& page = d.page;
  page.title = absl::StrCat(in.summary.sender, " → ", in.summary.receiver);
  page.start_s = 0;
  page.end_s = end_s;
  // Verdict: utilization first, then the leading finding.
  std::string verdict = absl::StrFormat(
      "The flow delivered %s, %.0f%% of the %s the path showed it could "
      "carry%s (base RTT %.2f "
      "ms, BDP %.0f packets).",
      Mbps(in.summary.goodput_bps), 100 * utilization,
      Mbps(est.bottleneck_rate_bps),
      est.rate_is_lower_bound ? " (a lower bound: the path never looked busy)"
                              : "",
      est.base_rtt_s * 1e3,
      in.summary.max_payload_bytes > 0
          ? est.bdp_bytes / in.summary.max_payload_bytes
          : 0.0);
  // A busy-period rate well below the peak means the path's rate varied
  // (Wi-Fi, cellular, cross traffic): the utilization figure is against
  // the peak, so say what was available most of the time too.
  if (!est.rate_is_lower_bound &&
      est.busy_delivery_rate_bps <
          kVaryingRateShare * est.bottleneck_rate_bps) {
    absl::StrAppend(
        &verdict,
        absl::StrFormat(
            " The path's rate varied: while a queue was building the flow "
            "got a median %s (%.0f%% of that peak), and %.0f%% of it overall.",
            Mbps(est.busy_delivery_rate_bps),
            100 * est.busy_delivery_rate_bps / est.bottleneck_rate_bps,
            100 * in.summary.goodput_bps / est.busy_delivery_rate_bps));
  }
  if (!findings.empty()) {
    absl::StrAppend(&verdict, " ", findings.front().message);
  }
  page.verdict = verdict;
  page.findings = findings;

  // Plots on the shared time axis.
  const double mss = std::max<double>(in.summary.max_payload_bytes, 1);
  const size_t window_bins = static_cast<size_t>(std::ceil(est.window_s / w));
  const std::vector<double> rates = SmoothedDeliveryRateBps(
      obs, std::max<size_t>(window_bins / 4, 1));  // About one RTT.
  PlotSeries flight = MakeSeries("flight size (pipe, max per interval)",
                                 "#1f77b4", SeriesStyle::kStep);
  PlotSeries outstanding = MakeSeries("outstanding (snd_nxt − snd_una)",
                                      "#aec7e8", SeriesStyle::kStep);
  outstanding.initially_hidden = true;
  PlotSeries rwnd = MakeSeries("receive window", "#f28e2b", SeriesStyle::kStep);
  rwnd.initially_hidden = true;
  PlotSeries rate = MakeSeries("delivery rate", "#1f77b4", SeriesStyle::kLine);
  PlotSeries rtt_min = MakeSeries("RTT samples (min per interval)", "#9c755f",
                                  SeriesStyle::kPoints);
  PlotSeries rtt_max = MakeSeries("RTT samples (max per interval)", "#d4a6c8",
                                  SeriesStyle::kPoints);
  PlotSeries srtt = MakeSeries("smoothed RTT", "#59a14f", SeriesStyle::kStep);
  PlotSeries ce =
      MakeSeries("CE marks fed back (AccECN)", "#e15759", SeriesStyle::kLine);
  PlotSeries ece = MakeSeries("ACKs with ECE", "#f28e2b", SeriesStyle::kLine);
  PlotSeries acked = MakeSeries("highest ACK", "#1f77b4", SeriesStyle::kStep);
  PlotSeries sent =
      MakeSeries("highest byte sent", "#59a14f", SeriesStyle::kStep);
  PlotSeries rexmit =
      MakeSeries("retransmissions", "#e15759", SeriesStyle::kPoints);
  uint64_t total_ce = 0, total_ece = 0;
  for (size_t i = 0; i < bins.size(); ++i) {
    const ObservationBin& b = bins[i];
    const double t = i * w;
    total_ce += b.ce_packets;
    total_ece += b.ece_acks;
    if (b.acks > 0) {
      flight.t_s.push_back(t);
      flight.y.push_back(b.max_pipe_bytes / mss);
      outstanding.t_s.push_back(t);
      outstanding.y.push_back(b.max_outstanding_bytes / mss);
      rwnd.t_s.push_back(t);
      rwnd.y.push_back(b.rwnd_bytes / mss);
      acked.t_s.push_back(t);
      acked.y.push_back(b.highest_ack / 1e6);
      sent.t_s.push_back(t);
      sent.y.push_back(b.highest_seq_sent / 1e6);
    }
    rate.t_s.push_back(t + w);
    rate.y.push_back(rates[i] / 1e6);
    if (b.has_rtt()) {
      rtt_min.t_s.push_back(t);
      rtt_min.y.push_back(b.rtt_min_us / 1e3);
      rtt_max.t_s.push_back(t);
      rtt_max.y.push_back(b.rtt_max_us / 1e3);
    }
    if (b.srtt_us > 0) {
      srtt.t_s.push_back(t);
      srtt.y.push_back(b.srtt_us / 1e3);
    }
    ce.t_s.push_back(t);
    ce.y.push_back(static_cast<double>(b.ce_packets));
    ece.t_s.push_back(t);
    ece.y.push_back(static_cast<double>(b.ece_acks));
  }
  for (const RetransmissionMark& m : obs.retransmissions()) {
    rexmit.t_s.push_back(m.time_s);
    rexmit.y.push_back(m.seq / 1e6);
  }
  PlotSeries bdp = MakeSeries("BDP", "#333333", SeriesStyle::kDashed);
  bdp.t_s = {0, end_s};
  bdp.y = {est.bdp_bytes / mss, est.bdp_bytes / mss};
  PlotSeries rate_line =
      MakeSeries("estimated bottleneck rate", "#333333", SeriesStyle::kDashed);
  rate_line.t_s = {0, end_s};
  rate_line.y = {est.bottleneck_rate_bps / 1e6, est.bottleneck_rate_bps / 1e6};
  PlotSeries base = MakeSeries("base RTT", "#333333", SeriesStyle::kDashed);
  base.t_s = {0, end_s};
  base.y = {est.base_rtt_s * 1e3, est.base_rtt_s * 1e3};

  PlotSeries bdp_queue =
      MakeSeries("BDP + largest queue seen", "#888888", SeriesStyle::kDashed);
  bdp_queue.t_s = {0, end_s};
  bdp_queue.y = {(est.bdp_bytes + est.max_queue_bytes) / mss,
                 (est.bdp_bytes + est.max_queue_bytes) / mss};
  Plot window_plot{
      "plot-cwnd", "Window: captured and replayed cwnd against the BDP",
      "packets",   {flight, outstanding, rwnd},
      {},          false};
  Plot alpha_plot{"plot-alpha",
                  "Replayed controllers: ECN estimate α and RTT-scaling factor",
                  "fraction (0–1)",
                  {},
                  {},
                  false};
  if (evidence.has_value()) {
    const ReplayResult& r = *evidence->replay;
    const double offset = evidence->offset_s;
    if (r.source != CapturedSource::kFlightSize) {
      PlotSeries captured = MakeSeries("", "#111111", SeriesStyle::kStep);
      captured.name =
          absl::StrCat("captured cwnd (", CapturedSourceName(r.source), ")");
      for (size_t i = 0; i < r.captured_cwnd_bytes.size(); ++i) {
        if (!r.captured_cwnd_bytes[i].has_value() || r.controllers.empty())
          continue;
        captured.t_s.push_back(
            r.controllers[0].series.samples[i].time_us * 1e-6 - offset);
        captured.y.push_back(*r.captured_cwnd_bytes[i] / mss);
      }
      window_plot.series.insert(window_plot.series.begin(), captured);
    }
    static const char* kPalette[] = {"#e15759", "#59a14f", "#9467bd",
                                     "#edc948", "#ff9da7", "#76b7b2",
                                     "#b07aa1", "#8c564b"};
    // The best-fitting claimed replay and its counterfactuals show; the
    // other claimed profiles are a click away.
    const int best = BestFittingClaimed(*evidence);
    const std::string best_spec = best >= 0 ? evidence->choices[best].spec : "";
    for (size_t c = 0; c < r.controllers.size(); ++c) {
      const ReplayChoice& choice = evidence->choices[c];
      const char* color =
          kPalette[c % (sizeof(kPalette) / sizeof(kPalette[0]))];
      const bool claimed = choice.role == ReplayRole::kClaimed;
      PlotSeries cwnd = MakeSeries(
          "", color, claimed ? SeriesStyle::kStep : SeriesStyle::kDashed);
      cwnd.name =
          absl::StrCat(claimed ? "replay " : "counterfactual ", choice.spec);
      cwnd.initially_hidden =
          (claimed ? choice.spec : choice.base_spec) != best_spec;
      PlotSeries alpha = MakeSeries("", color, SeriesStyle::kStep);
      alpha.name = absl::StrCat("α ", choice.spec);
      PlotSeries ai = MakeSeries("", color, SeriesStyle::kDashed);
      ai.name = absl::StrCat("RTT-scaling factor ", choice.spec);
      bool scaled = false;
      for (const SeriesSample& sample : r.controllers[c].series.samples) {
        const double t = sample.time_us * 1e-6 - offset;
        cwnd.t_s.push_back(t);
        cwnd.y.push_back(sample.cwnd_bytes / mss);
        if (sample.alpha >= 0) {
          alpha.t_s.push_back(t);
          alpha.y.push_back(sample.alpha);
        }
        ai.t_s.push_back(t);
        ai.y.push_back(sample.ai_factor);
        scaled = scaled || sample.ai_factor < 1;
      }
      window_plot.series.push_back(cwnd);
      alpha.initially_hidden = ai.initially_hidden = cwnd.initially_hidden;
      if (claimed && !alpha.t_s.empty()) alpha_plot.series.push_back(alpha);
      if (claimed && scaled) alpha_plot.series.push_back(ai);
    }
  }
  window_plot.series.push_back(bdp);
  window_plot.series.push_back(bdp_queue);
  Plot rate_plot{
      "plot-rate", "Delivery rate against the estimated bottleneck rate",
      "Mb/s",      {rate, rate_line},
      {},          false};
  Plot rtt_plot{"plot-rtt", "RTT", "ms", {rtt_min, rtt_max, srtt, base},
                {},         false};
  Plot limiter_plot{
      "plot-limiter", "What limited the sender", "", {}, {}, true};
  for (const LimiterRun& r : runs) {
    limiter_plot.bands.push_back(
        {r.start_s, r.end_s, LimiterLabel(r.limiter), LimiterColor(r.limiter)});
  }
  // One legend entry per limiter kind: the page legend reads the bands.
  page.plots.push_back(window_plot);
  page.plots.push_back(rate_plot);
  page.plots.push_back(rtt_plot);
  if (total_ce > 0 || total_ece > 0) {
    Plot ecn_plot{"plot-ecn", "ECN feedback per interval", "count", {}, {},
                  false};
    if (total_ce > 0) ecn_plot.series.push_back(ce);
    if (total_ece > 0) ecn_plot.series.push_back(ece);
    page.plots.push_back(ecn_plot);
  }
  if (!alpha_plot.series.empty()) page.plots.push_back(alpha_plot);
  page.plots.push_back(limiter_plot);
  page.plots.push_back(Plot{"plot-tsg",
                            "Time-sequence graph",
                            "MB of sequence space",
                            {sent, acked, rexmit},
                            {},
                            false});

  // Facts and method.
  const FlowSummary& s = in.summary;
  page.summary = {
      {"flow", absl::StrCat("#", s.index, ": ", s.sender, " → ", s.receiver)},
      {"duration", absl::StrFormat("%.3f s", s.duration_s)},
      {"data",
       absl::StrFormat("%d bytes in %d packets, %d retransmitted", s.data_bytes,
                       s.packets_data_dir, s.retransmitted_segments)},
      {"goodput", Mbps(s.goodput_bps)},
      {"ECN",
       absl::StrFormat("%s; ECT(0) %d, ECT(1) %d, CE %d, ECE ACKs %d, CWR %d, "
                       "ACE changes %d",
                       EcnModeName(s.ecn_mode), s.ect0_packets, s.ect1_packets,
                       s.ce_packets, s.ece_acks, s.cwr_packets, s.ace_changes)},
      {"handshake",
       absl::StrFormat(
           "MSS %s, wscale %s/%s, SACK %s, timestamps %s",
           s.mss_option_sender ? absl::StrCat(*s.mss_option_sender) : "-",
           s.wscale_sender ? absl::StrCat(*s.wscale_sender) : "-",
           s.wscale_receiver ? absl::StrCat(*s.wscale_receiver) : "-",
           s.sack_permitted ? "yes" : "no", s.timestamps ? "yes" : "no")},
      {"RTT samples",
       absl::StrFormat("%d; min %.3f ms, median %.3f ms, max %.3f ms",
                       in.stats.rtt_samples, in.stats.rtt_min_ms,
                       in.stats.rtt_median_ms, in.stats.rtt_max_ms)},
      {"retransmissions",
       absl::StrFormat("fast %d, RTO %d, TLP %d, other %d; spurious %d",
                       in.stats.retransmissions[0], in.stats.retransmissions[1],
                       in.stats.retransmissions[2], in.stats.retransmissions[3],
                       in.stats.spurious_retransmissions)},
      {"bottleneck rate",
       absl::StrCat(Mbps(est.bottleneck_rate_bps),
                    est.rate_is_lower_bound ? " (lower bound)" : "")},
      {"base RTT", absl::StrFormat("%.3f ms", est.base_rtt_s * 1e3)},
      {"BDP",
       absl::StrFormat("%.0f bytes (%.1f packets of %d bytes)", est.bdp_bytes,
                       est.bdp_bytes / mss, s.max_payload_bytes)},
      {"utilization", absl::StrFormat("%.1f%%", 100 * utilization)},
  };
  if (in.quic) {
    // A qlog has no TCP handshake, flags or per-packet ECN codepoints.
    page.summary = {
        {"trace", absl::StrCat("#", s.index, ": ", s.sender)},
        {"duration", absl::StrFormat("%.3f s", s.duration_s)},
        {"data", absl::StrFormat(
                     "%d bytes acknowledged; %d packets sent, largest %d bytes",
                     s.data_bytes, s.packets_data_dir, s.max_payload_bytes)},
        {"goodput", Mbps(s.goodput_bps)},
        {"ECN", s.ecn_mode == EcnMode::kNone
                    ? "no ECN counts in ACK frames"
                    : "ECN counts in ACK frames (RFC 9000 section 19.3.2)"},
        {"congestion events",
         absl::StrCat(in.quic_congestion_events, " (loss and CE episodes)")},
        {"RTT", absl::StrFormat("min %.3f ms", in.stats.rtt_min_ms)},
        page.summary[8],
        page.summary[9],
        page.summary[10],
        page.summary[11]};
  }
  page.method = {
      absl::StrCat("input: ", in.input_path, ", flow ", s.index,
                   "; vantage point: ", VantageName(in.stats.vantage)),
      absl::StrFormat(
          "timeline: %d ACKs and %d retransmissions reconstructed at the "
          "sender "
          "(RFC 6675 pipe, RFC 6298 RTT, Karn's rule); intervals of %.1f ms",
          obs.total_acks(), obs.total_retransmissions(), w * 1e3),
      "timeline checks: receive_window_limited, application_limited, "
      "loss_recovery_dominant "
      "(each needs 10% of the data phase and a stretch of 5 base RTTs)",
  };
  if (evidence.has_value()) {
    const ReplayResult& r = *evidence->replay;
    page.method.push_back(
        absl::StrCat("captured cwnd: ", r.source_description,
                     r.source == CapturedSource::kFlightSize
                         ? ", compared only where the sender was cwnd-limited"
                         : ""));
    page.method.push_back(
        absl::StrCat("replayed controllers: ", in.controller_reason,
                     "; counterfactuals added for the causes they test"));
    for (const ReplayedController& c : r.controllers) {
      const DivergenceSummary& d = c.divergence;
      page.method.push_back(absl::StrFormat(
          "replay %s: %d samples compared, median error %s, 95th percentile %s",
          c.spec, d.samples,
          d.median_abs_err_pct
              ? absl::StrFormat("%.1f%%", *d.median_abs_err_pct)
              : "-",
          d.p95_abs_err_pct ? absl::StrFormat("%.1f%%", *d.p95_abs_err_pct)
                            : "-"));
    }
    const SendTimeAccounting& host = r.host_send_time;
    if (host.busy_ms && *host.busy_ms > 0) {
      // Linux counts a chrono stat only once it is non-zero; absent = 0.
      const double rwnd_ms = host.rwnd_limited_ms.value_or(0);
      const double sndbuf_ms = host.sndbuf_limited_ms.value_or(0);
      page.method.push_back(absl::StrFormat(
          "the sender's own accounting (ss -i, at its last sample): %.3f s "
          "busy sending, %.3f s (%.1f%%) of it limited by the receive window, "
          "%.3f s (%.1f%%) by the send buffer; the timeline puts %.1f%% of "
          "the data phase under the receive window",
          *host.busy_ms / 1e3, rwnd_ms / 1e3, 100 * rwnd_ms / *host.busy_ms,
          sndbuf_ms / 1e3, 100 * sndbuf_ms / *host.busy_ms,
          data_s > 0 ? 100 * CoverageOf(runs, Limiter::kRwnd).total_s / data_s
                     : 0.0));
    }
    for (const std::string& n : replayed.notes) page.method.push_back(n);
    page.method.push_back(simulation_note);
  } else {
    page.method.push_back(
        "no replay: the checks that need reference controllers did not run");
  }
  for (const std::string& n : est.notes) page.method.push_back(n);
  for (const std::string& n : in.stats.warnings)
    page.method.push_back(absl::StrCat("warning: ", n));

  // The JSON result.
  proto::Diagnosis& r = d.result;
  r.set_input(in.input_path);
  r.set_flow_index(s.index);
  r.set_sender(s.sender);
  r.set_receiver(s.receiver);
  r.set_verdict(page.verdict);
  for (const Finding& f : findings) {
    proto::Finding* out = r.add_findings();
    out->set_kind(f.kind);
    out->set_start_s(f.start_s);
    out->set_end_s(f.end_s);
    out->set_severity(SeverityName(f.severity));
    out->set_message(f.message);
    for (const std::string& e : f.evidence) out->add_evidence(e);
  }
  proto::Estimates* e = r.mutable_estimates();
  e->set_bottleneck_rate_bps(est.bottleneck_rate_bps);
  e->set_bottleneck_rate_is_lower_bound(est.rate_is_lower_bound);
  e->set_busy_delivery_rate_bps(est.busy_delivery_rate_bps);
  e->set_base_rtt_s(est.base_rtt_s);
  e->set_bdp_bytes(est.bdp_bytes);
  for (const std::string& n : est.notes) e->add_notes(n);
  r.set_utilization(utilization);
  r.set_goodput_bps(s.goodput_bps);
  r.set_duration_s(s.duration_s);
  r.set_vantage(VantageName(in.stats.vantage));
  if (evidence.has_value()) {
    const SendTimeAccounting& host = evidence->replay->host_send_time;
    if (host.busy_ms || host.rwnd_limited_ms || host.sndbuf_limited_ms) {
      proto::HostSendTime* h = r.mutable_host_send_time();
      if (host.busy_ms) h->set_busy_s(*host.busy_ms / 1e3);
      if (host.rwnd_limited_ms)
        h->set_rwnd_limited_s(*host.rwnd_limited_ms / 1e3);
      if (host.sndbuf_limited_ms)
        h->set_sndbuf_limited_s(*host.sndbuf_limited_ms / 1e3);
    }
  }
  for (Limiter l : {Limiter::kCwnd, Limiter::kRwnd, Limiter::kApp,
                    Limiter::kRecovery, Limiter::kUnknown}) {
    const double share = data_s > 0 ? CoverageOf(runs, l).total_s / data_s : 0;
    if (share <= 0) continue;
    proto::LimiterShare* out = r.add_limiters();
    out->set_limiter(LimiterName(l));
    out->set_time_fraction(share);
  }
  return d;
}

}  // namespace ccreplay
