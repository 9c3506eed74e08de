#include "reports/diagnosis.h"

#include <algorithm>
#include <cmath>
#include <optional>
#include <utility>

#include "absl/strings/ascii.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/strip.h"
#include "reports/evidence_quality.h"
#include "reports/figure_format.h"
#include "reports/fitted_simulation.h"
#include "reports/rules/registry.h"
#include "reports/rules/rule_helpers.h"

namespace ccreplay {
namespace {

// The verdict calls the path's rate varying when the median delivery rate
// while a queue built is below this share of the peak estimate.
constexpr double kVaryingRateShare = 0.8;

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

PlotSeries MakeSeries(const char* name, const char* color, SeriesStyle style) {
  PlotSeries s;
  s.name = name;
  s.color = color;
  s.style = style;
  return s;
}

// Goodput / the path's estimated rate, at most 1: the rate is the peak of
// a sliding window, and on a short flow the whole-flow goodput can exceed
// it by the window's edges; nullopt without a measured rate. When the rate
// is a lower bound (EstimatePath), this bounds the utilization from above.
std::optional<double> Utilization(const DiagnosisInput& in,
                                  const PathEstimates& est) {
  if (!(est.bottleneck_rate_bps > 0) || !std::isfinite(in.summary.goodput_bps))
    return std::nullopt;
  return std::min(1.0, in.summary.goodput_bps / est.bottleneck_rate_bps);
}

// "42%", "at most 42%" when the path's rate is a lower bound, "n/a".
std::string UtilizationText(const DiagnosisInput& in,
                            const PathEstimates& est) {
  const std::optional<double> u = Utilization(in, est);
  if (!u.has_value()) return std::string(kNotAvailable);
  return absl::StrCat(est.rate_is_lower_bound ? "at most " : "",
                      Percent(*u, 0));
}

EvidenceFacts FactsOf(const DiagnosisInput& in, const PathEstimates& est) {
  EvidenceFacts f;
  f.vantage = in.stats.vantage;
  f.host_cwnd = in.replay != nullptr && in.replay->replay != nullptr &&
                in.replay->replay->source != CapturedSource::kFlightSize;
  f.data_packets = in.summary.payload_packets_data_dir;
  f.duration_s = in.summary.duration_s;
  f.base_rtt_s = est.base_rtt_s;
  f.path_busy = !est.rate_is_lower_bound;
  f.acks = in.stats.acks;
  f.bytes_acked = in.stats.bytes_acked;
  f.bytes_seen_sent = in.summary.data_bytes;
  f.snaplen_bytes = in.snaplen_bytes;
  f.snaplen_cut_packets = in.snaplen_cut_packets;
  f.duplicate_frames = in.summary.duplicate_frames;
  f.packets = in.summary.packets_data_dir + in.summary.packets_ack_dir;
  return f;
}

// The one evidence gate: a finding whose rule needs more evidence than the
// flow has (FindingRule::evidence_need(), TooWeakFor) is held back and
// named in `quality->withheld`.
std::vector<Finding> GateFindings(std::vector<Finding> findings,
                                  EvidenceQuality* quality) {
  std::vector<Finding> kept;
  for (Finding& f : findings) {
    const FindingRule* rule = RuleOfKind(f.kind);
    const std::optional<std::string> weak = TooWeakFor(
        rule != nullptr ? rule->evidence_need() : EvidenceNeed::kSenderWindow,
        *quality);
    if (weak.has_value()) {
      quality->withheld.push_back(absl::StrCat(f.kind, ": ", *weak));
    } else {
      kept.push_back(std::move(f));
    }
  }
  return kept;
}

// The replay as evidence, with the fitted path when simulations are on,
// and what "How this was computed" says about the simulation.
struct ReplayStage {
  std::optional<ReplayEvidence> evidence;
  std::string simulation_note =
      "closed-loop simulation: not run (--simulate off)";
};

// The flow's facts the path fit uses (reports/fitted_simulation.h).
FlowFitFacts FitFacts(const DiagnosisInput& in) {
  FlowFitFacts f;
  f.duration_s = in.summary.duration_s;
  f.packet_bytes = in.summary.max_payload_bytes;
  if (in.flow != nullptr) f.handshake_rtt_ns = in.flow->handshake_rtt_ns;
  return f;
}

ReplayStage FitReplay(const DiagnosisInput& in, const PathEstimates& est) {
  ReplayStage stage;
  if (in.replay == nullptr) return stage;
  stage.evidence = *in.replay;
  if (!in.simulate) return stage;
  absl::StatusOr<FittedPath> path = FitPath(est, *in.observed, FitFacts(in));
  if (path.ok()) {
    stage.evidence->path = *path;
    stage.simulation_note =
        absl::StrCat("closed-loop simulation (replay/sim) of the fitted path: ",
                     path->Describe(), "; run for the findings that cite it");
  } else {
    stage.simulation_note = absl::StrCat("closed-loop simulation: not run, ",
                                         path.status().message());
  }
  return stage;
}

// The timeline rules, in the registry's order.
RuleOutput TimelineFindings(const RuleContext& x) {
  RuleOutput out;
  for (const FindingRule* rule : FindingRules()) {
    if (rule->input() == RuleInput::kTimeline) rule->Check(x, &out);
  }
  return out;
}

// The replay rules, in the registry's order, after a note on the
// controller they compare with; those that compare cwnd with the BDP are
// skipped, with one note, when the BDP is too small for that.
RuleOutput ReplayFindings(const RuleContext& x) {
  RuleOutput out;
  if (x.evidence == nullptr) return out;
  if (x.best < 0 || x.samples.size() == 0) {
    out.notes.push_back(
        "no replay to compare: the checks that need one did not run");
    return out;
  }
  out.notes.push_back(absl::StrFormat(
      "best-fitting claimed controller: %s (median error %s); a stretch "
      "counts when it lasts "
      "%.0f RTTs of %.2f ms and %.0f%% of the flow (%.3f s)",
      x.evidence->choices[x.best].spec, MedianErrorText(*x.evidence, x.best),
      kMinStretchRtts, x.typical_srtt_s * 1e3, 100 * kMinStretchShare,
      x.min_stretch_s));
  const bool bdp_too_small = x.bdp_bytes < kMinBdpPackets * x.mss_bytes;
  bool said_bdp_too_small = false;
  for (const FindingRule* rule : FindingRules()) {
    if (rule->input() == RuleInput::kTimeline) continue;
    if (rule->input() == RuleInput::kReplayAndBdp && bdp_too_small) {
      if (!said_bdp_too_small) {
        out.notes.push_back(absl::StrFormat(
            "%s: not checked, the BDP (%.1f packets) is under %.0f packets, "
            "too small to be below",
            RuleKinds(RuleInput::kReplayAndBdp), x.bdp_bytes / x.mss_bytes,
            kMinBdpPackets));
        said_bdp_too_small = true;
      }
      continue;
    }
    rule->Check(x, &out);
  }
  return out;
}

// The timeline's findings, then the replay's, the most severe first.
std::vector<Finding> SortedFindings(RuleOutput timeline, RuleOutput replay) {
  std::vector<Finding> findings = std::move(timeline.findings);
  for (Finding& f : replay.findings) findings.push_back(std::move(f));
  std::stable_sort(findings.begin(), findings.end(),
                   [](const Finding& a, const Finding& b) {
                     return a.severity > b.severity;
                   });
  return findings;
}

// "Too short to tell: ...": each thing the evidence cannot tell, as a
// sentence.
std::string CannotTellSentences(const EvidenceQuality& quality) {
  std::string out;
  for (const std::string& s : quality.cannot_tell) {
    if (s.empty()) continue;
    absl::StrAppend(&out, out.empty() ? "" : " ",
                    absl::AsciiStrToUpper(s.substr(0, 1)), s.substr(1), ".");
  }
  return out;
}

// The bandwidth-delay product in packets of the flow's largest payload;
// under ten packets with one decimal, under one packet in bytes (a LAN
// path's 0.04 packets is not "0 packets").
std::string BdpText(double bdp_bytes, uint32_t payload_bytes) {
  if (payload_bytes == 0 || bdp_bytes < payload_bytes)
    return absl::StrCat("BDP ", Figure(bdp_bytes, 0, " bytes"),
                        payload_bytes == 0 ? "" : ", under one packet");
  const double packets = bdp_bytes / payload_bytes;
  return absl::StrCat("BDP ",
                      Figure(packets, packets < 10 ? 1 : 0, " packets"));
}

// Utilization (when the receiver's ACKs were seen), what the evidence
// cannot tell, then the leading finding.
std::string Verdict(const DiagnosisInput& in, const PathEstimates& est,
                    const EvidenceQuality& quality,
                    const std::vector<Finding>& findings) {
  std::string verdict;
  if (quality.both_directions && est.bottleneck_rate_bps > 0) {
    verdict = absl::StrFormat(
        "The flow delivered %s, %s of the %s the path showed it could "
        "carry%s (base RTT %s, %s).",
        Mbps(in.summary.goodput_bps), UtilizationText(in, est),
        Mbps(est.bottleneck_rate_bps),
        est.rate_is_lower_bound ? " (a lower bound: the path never looked busy)"
                                : "",
        Figure(est.base_rtt_s * 1e3, 2, " ms"),
        BdpText(est.bdp_bytes, in.summary.max_payload_bytes));
  }
  const std::string cannot_tell = CannotTellSentences(quality);
  if (!cannot_tell.empty())
    absl::StrAppend(&verdict, verdict.empty() ? "" : " ", cannot_tell);
  // A busy-period rate well below the peak means the path's rate varied
  // (Wi-Fi, cellular, cross traffic): the utilization figure is against
  // the peak, so say what was available most of the time too. Not when
  // the flow's own goodput exceeded that busy-period rate: then the busy
  // median is not what the path offered, and "212% of it" misleads.
  if (!est.rate_is_lower_bound && est.busy_delivery_rate_bps > 0 &&
      est.busy_delivery_rate_bps <
          kVaryingRateShare * est.bottleneck_rate_bps &&
      in.summary.goodput_bps <= est.busy_delivery_rate_bps) {
    absl::StrAppend(
        &verdict,
        absl::StrFormat(
            " The path's rate varied: while a queue was building the flow "
            "got a median %s (%s of that peak), and %s of it overall.",
            Mbps(est.busy_delivery_rate_bps),
            PercentOf(est.busy_delivery_rate_bps, est.bottleneck_rate_bps),
            PercentOf(in.summary.goodput_bps, est.busy_delivery_rate_bps)));
  }
  if (!findings.empty()) {
    absl::StrAppend(&verdict, " ", findings.front().message);
  }
  return std::string(absl::StripLeadingAsciiWhitespace(verdict));
}

// The series read from the observed timeline, one point per interval.
struct ObservedSeries {
  PlotSeries flight = MakeSeries("flight size (pipe, max per interval)",
                                 "#1f77b4", SeriesStyle::kStep);
  PlotSeries outstanding = MakeSeries("outstanding (snd_nxt − snd_una)",
                                      "#aec7e8", SeriesStyle::kStep);
  PlotSeries rwnd = MakeSeries("receive window", "#f28e2b", SeriesStyle::kStep);
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
};

void Append(PlotSeries* s, double t, double y) {
  s->t_s.push_back(t);
  s->y.push_back(y);
}

ObservedSeries CollectObservedSeries(const FlowObserver& obs,
                                     const PathEstimates& est, double mss) {
  ObservedSeries s;
  s.outstanding.initially_hidden = true;
  s.rwnd.initially_hidden = true;
  const double w = obs.bin_width_s();
  const size_t window_bins = static_cast<size_t>(std::ceil(est.window_s / w));
  const std::vector<double> rates = SmoothedDeliveryRateBps(
      obs, std::max<size_t>(window_bins / 4, 1));  // About one RTT.
  for (size_t i = 0; i < obs.bins().size(); ++i) {
    const ObservationBin& b = obs.bins()[i];
    const double t = i * w;
    s.total_ce += b.ce_packets;
    s.total_ece += b.ece_acks;
    if (b.acks > 0) {
      Append(&s.flight, t, b.max_pipe_bytes / mss);
      Append(&s.outstanding, t, b.max_outstanding_bytes / mss);
      Append(&s.rwnd, t, b.rwnd_bytes / mss);
      Append(&s.acked, t, b.highest_ack / 1e6);
      Append(&s.sent, t, b.highest_seq_sent / 1e6);
    }
    Append(&s.rate, t + w, rates[i] / 1e6);
    if (b.has_rtt()) {
      Append(&s.rtt_min, t, b.rtt_min_us / 1e3);
      Append(&s.rtt_max, t, b.rtt_max_us / 1e3);
    }
    if (b.srtt_us > 0) Append(&s.srtt, t, b.srtt_us / 1e3);
    Append(&s.ce, t, static_cast<double>(b.ce_packets));
    Append(&s.ece, t, static_cast<double>(b.ece_acks));
  }
  for (const RetransmissionMark& m : obs.retransmissions())
    Append(&s.rexmit, m.time_s, m.seq / 1e6);
  return s;
}

// A dashed horizontal line at `y` across the report.
PlotSeries Level(const char* name, const char* color, double end_s, double y) {
  PlotSeries s = MakeSeries(name, color, SeriesStyle::kDashed);
  s.t_s = {0, end_s};
  s.y = {y, y};
  return s;
}

// The captured cwnd, when it is more than the flight size.
std::optional<PlotSeries> CapturedCwndSeries(const ReplayEvidence& evidence,
                                             double mss) {
  const ReplayResult& r = *evidence.replay;
  if (r.source == CapturedSource::kFlightSize) return std::nullopt;
  PlotSeries captured = MakeSeries("", "#111111", SeriesStyle::kStep);
  captured.name =
      absl::StrCat("captured cwnd (", CapturedSourceName(r.source), ")");
  for (size_t i = 0; i < r.captured_cwnd_bytes.size(); ++i) {
    if (!r.captured_cwnd_bytes[i].has_value() || r.controllers.empty())
      continue;
    Append(
        &captured,
        r.controllers[0].series.samples[i].time_us * 1e-6 - evidence.offset_s,
        *r.captured_cwnd_bytes[i] / mss);
  }
  return captured;
}

// Each replayed controller's cwnd on the window plot; the claimed ones'
// α and RTT-scaling factor on the α plot. The best-fitting claimed
// replay and its counterfactuals show; the other claimed profiles are a
// click away.
void AddReplaySeries(const ReplayEvidence& evidence, double mss,
                     Plot* window_plot, Plot* alpha_plot) {
  static const char* kPalette[] = {"#e15759", "#59a14f", "#9467bd", "#edc948",
                                   "#ff9da7", "#76b7b2", "#b07aa1", "#8c564b"};
  const ReplayResult& r = *evidence.replay;
  const int best = BestFittingClaimed(evidence);
  const std::string best_spec = best >= 0 ? evidence.choices[best].spec : "";
  for (size_t c = 0; c < r.controllers.size(); ++c) {
    const ReplayChoice& choice = evidence.choices[c];
    const char* color = kPalette[c % (sizeof(kPalette) / sizeof(kPalette[0]))];
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
      const double t = sample.time_us * 1e-6 - evidence.offset_s;
      Append(&cwnd, t, sample.cwnd_bytes / mss);
      if (sample.alpha >= 0) Append(&alpha, t, sample.alpha);
      Append(&ai, t, sample.ai_factor);
      scaled = scaled || sample.ai_factor < 1;
    }
    window_plot->series.push_back(cwnd);
    alpha.initially_hidden = ai.initially_hidden = cwnd.initially_hidden;
    if (claimed && !alpha.t_s.empty()) alpha_plot->series.push_back(alpha);
    if (claimed && scaled) alpha_plot->series.push_back(ai);
  }
}

// The plots on the shared time axis, in page order.
// long: one statement or two per plot, in the order the page shows them.
std::vector<Plot> Plots(const DiagnosisInput& in, const PathEstimates& est,
                        const RuleContext& x, double end_s) {
  const double mss = std::max<double>(in.summary.max_payload_bytes, 1);
  ObservedSeries s = CollectObservedSeries(*in.observed, est, mss);
  Plot window_plot{
      "plot-cwnd", "Window: captured and replayed cwnd against the BDP",
      "packets",   {s.flight, s.outstanding, s.rwnd},
      {},          false};
  Plot alpha_plot{"plot-alpha",
                  "Replayed controllers: ECN estimate α and RTT-scaling factor",
                  "fraction (0–1)",
                  {},
                  {},
                  false};
  if (x.evidence != nullptr) {
    std::optional<PlotSeries> captured = CapturedCwndSeries(*x.evidence, mss);
    if (captured.has_value())
      window_plot.series.insert(window_plot.series.begin(), *captured);
    AddReplaySeries(*x.evidence, mss, &window_plot, &alpha_plot);
  }
  window_plot.series.push_back(
      Level("BDP", "#333333", end_s, est.bdp_bytes / mss));
  window_plot.series.push_back(
      Level("BDP + largest queue seen", "#888888", end_s,
            (est.bdp_bytes + est.max_queue_bytes) / mss));
  std::vector<Plot> plots;
  plots.push_back(window_plot);
  plots.push_back(Plot{"plot-rate",
                       "Delivery rate against the estimated bottleneck rate",
                       "Mb/s",
                       {s.rate, Level("estimated bottleneck rate", "#333333",
                                      end_s, est.bottleneck_rate_bps / 1e6)},
                       {},
                       false});
  plots.push_back(
      Plot{"plot-rtt",
           "RTT",
           "ms",
           {s.rtt_min, s.rtt_max, s.srtt,
            Level("base RTT", "#333333", end_s, est.base_rtt_s * 1e3)},
           {},
           false});
  if (s.total_ce > 0 || s.total_ece > 0) {
    Plot ecn_plot{"plot-ecn", "ECN feedback per interval", "count", {}, {},
                  false};
    if (s.total_ce > 0) ecn_plot.series.push_back(s.ce);
    if (s.total_ece > 0) ecn_plot.series.push_back(s.ece);
    plots.push_back(ecn_plot);
  }
  if (!alpha_plot.series.empty()) plots.push_back(alpha_plot);
  // One legend entry per limiter kind: the page legend reads the bands.
  Plot limiter_plot{
      "plot-limiter", "What limited the sender", "", {}, {}, true};
  for (const LimiterRun& r : x.limiter_runs) {
    limiter_plot.bands.push_back(
        {r.start_s, r.end_s, LimiterLabel(r.limiter), LimiterColor(r.limiter)});
  }
  plots.push_back(limiter_plot);
  plots.push_back(Plot{"plot-tsg",
                       "Time-sequence graph",
                       "MB of sequence space",
                       {s.sent, s.acked, s.rexmit},
                       {},
                       false});
  return plots;
}

// Facts about the flow: a capture's TCP facts, or what a qlog has.
// long: one row per fact, each formatted where it is listed.
std::vector<std::pair<std::string, std::string>> SummaryRows(
    const DiagnosisInput& in, const PathEstimates& est,
    const EvidenceQuality& quality) {
  const double mss = std::max<double>(in.summary.max_payload_bytes, 1);
  std::vector<std::pair<std::string, std::string>> rows;
  const FlowSummary& s = in.summary;
  rows = {
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
      {"utilization", UtilizationText(in, est)},
  };
  if (in.quic) {
    // A qlog has no TCP handshake, flags or per-packet ECN codepoints.
    rows = {
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
        rows[8],
        rows[9],
        rows[10],
        rows[11]};
  }
  for (auto& row : EvidenceRows(quality)) rows.push_back(std::move(row));
  return rows;
}

// The sender's own send-time accounting beside the timeline's, when the
// ss log had it.
std::optional<std::string> HostAccountingLine(const RuleContext& x) {
  const SendTimeAccounting& host = x.evidence->replay->host_send_time;
  if (!host.busy_ms || *host.busy_ms <= 0) return std::nullopt;
  // Linux counts a chrono stat only once it is non-zero; absent = 0.
  const double rwnd_ms = host.rwnd_limited_ms.value_or(0);
  const double sndbuf_ms = host.sndbuf_limited_ms.value_or(0);
  return absl::StrFormat(
      "the sender's own accounting (ss -i, at its last sample): %.3f s "
      "busy sending, %.3f s (%.1f%%) of it limited by the receive window, "
      "%.3f s (%.1f%%) by the send buffer; the timeline puts %.1f%% of "
      "the data phase under the receive window",
      *host.busy_ms / 1e3, rwnd_ms / 1e3, 100 * rwnd_ms / *host.busy_ms,
      sndbuf_ms / 1e3, 100 * sndbuf_ms / *host.busy_ms,
      x.data_s > 0
          ? 100 * CoverageOf(x.limiter_runs, Limiter::kRwnd).total_s / x.data_s
          : 0.0);
}

// "How this was computed": the inputs, the timeline, the checks that ran
// and why others did not.
std::vector<std::string> MethodLines(const DiagnosisInput& in,
                                     const PathEstimates& est,
                                     const RuleContext& x,
                                     const ReplayStage& replay,
                                     const std::vector<std::string>& notes) {
  const FlowObserver& obs = *in.observed;
  std::vector<std::string> method = {
      absl::StrCat("input: ", in.input_path, ", flow ", in.summary.index,
                   "; vantage point: ", VantageName(in.stats.vantage),
                   in.stats.vantage_note.empty() ? "" : " (",
                   in.stats.vantage_note,
                   in.stats.vantage_note.empty() ? "" : ")",
                   in.stats.sender_window_reason.empty() ? "" : "; ",
                   in.stats.sender_window_reason),
      absl::StrFormat(
          "timeline: %d ACKs and %d retransmissions reconstructed at the "
          "sender "
          "(RFC 6675 pipe, RFC 6298 RTT, Karn's rule); intervals of %.1f ms",
          obs.total_acks(), obs.total_retransmissions(),
          obs.bin_width_s() * 1e3),
      absl::StrFormat("timeline checks: %s (each needs %.0f%% of the data "
                      "phase and a stretch of %.0f base RTTs)",
                      RuleKinds(RuleInput::kTimeline), 100 * kMinLimiterShare,
                      kMinLimiterRunRtts),
  };
  if (x.evidence != nullptr) {
    const ReplayResult& r = *x.evidence->replay;
    method.push_back(
        absl::StrCat("captured cwnd: ", r.source_description,
                     r.source == CapturedSource::kFlightSize
                         ? ", compared only where the sender was cwnd-limited"
                         : ""));
    method.push_back(
        absl::StrCat("replayed controllers: ", in.controller_reason,
                     "; counterfactuals added for the causes they test"));
    for (const std::string& line : in.sender_config) method.push_back(line);
    for (const ReplayedController& c : r.controllers) {
      const DivergenceSummary& d = c.divergence;
      method.push_back(absl::StrFormat(
          "replay %s: %d samples compared, median error %s, 95th percentile %s",
          c.spec, d.samples,
          d.median_abs_err_pct
              ? absl::StrFormat("%.1f%%", *d.median_abs_err_pct)
              : "-",
          d.p95_abs_err_pct ? absl::StrFormat("%.1f%%", *d.p95_abs_err_pct)
                            : "-"));
    }
    std::optional<std::string> host = HostAccountingLine(x);
    if (host.has_value()) method.push_back(*std::move(host));
    for (const std::string& n : notes) method.push_back(n);
    method.push_back(replay.simulation_note);
  } else {
    method.push_back(
        "no replay: the checks that need reference controllers did not run");
  }
  for (const std::string& n : est.notes) method.push_back(n);
  for (const std::string& n : in.stats.warnings)
    method.push_back(absl::StrCat("warning: ", n));
  return method;
}

ReportPage PageModel(const DiagnosisInput& in, const PathEstimates& est,
                     const RuleContext& x, const ReplayStage& replay,
                     const EvidenceQuality& quality,
                     const std::vector<Finding>& findings,
                     std::vector<std::string> notes) {
  for (const std::string& w : quality.withheld)
    notes.push_back(absl::StrCat("held back, the evidence is too weak: ", w));
  ReportPage page;
  page.title = absl::StrCat(in.summary.sender, " → ", in.summary.receiver);
  page.start_s = 0;
  page.end_s = x.duration_s;
  page.verdict = Verdict(in, est, quality, findings);
  page.findings = findings;
  page.plots = Plots(in, est, x, x.duration_s);
  page.summary = SummaryRows(in, est, quality);
  page.method = MethodLines(in, est, x, replay, notes);
  return page;
}

// The time share of each limiter, for the JSON.
void AddLimiterShares(const RuleContext& x, proto::Diagnosis* r) {
  for (Limiter l : {Limiter::kCwnd, Limiter::kRwnd, Limiter::kApp,
                    Limiter::kRecovery, Limiter::kUnknown}) {
    const double share =
        x.data_s > 0 ? CoverageOf(x.limiter_runs, l).total_s / x.data_s : 0;
    if (share <= 0) continue;
    proto::LimiterShare* out = r->add_limiters();
    out->set_limiter(LimiterName(l));
    out->set_time_fraction(share);
  }
}

// The JSON result.
proto::Diagnosis ResultProto(const DiagnosisInput& in, const PathEstimates& est,
                             const RuleContext& x,
                             const EvidenceQuality& quality,
                             const ReportPage& page) {
  const FlowSummary& s = in.summary;
  proto::Diagnosis r;
  r.set_input(in.input_path);
  r.set_flow_index(s.index);
  r.set_sender(s.sender);
  r.set_receiver(s.receiver);
  r.set_verdict(page.verdict);
  for (const Finding& f : page.findings) {
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
  const std::optional<double> utilization = Utilization(in, est);
  if (utilization.has_value()) {
    if (est.rate_is_lower_bound) {
      r.set_utilization_at_most(*utilization);
    } else {
      r.set_utilization(*utilization);
    }
  }
  *r.mutable_evidence() = EvidenceQualityProto(quality);
  r.set_goodput_bps(s.goodput_bps);
  r.set_duration_s(s.duration_s);
  r.set_vantage(VantageName(in.stats.vantage));
  for (const std::string& w : in.stats.warnings) r.add_warnings(w);
  if (x.evidence != nullptr) {
    const SendTimeAccounting& host = x.evidence->replay->host_send_time;
    if (host.busy_ms || host.rwnd_limited_ms || host.sndbuf_limited_ms) {
      proto::HostSendTime* h = r.mutable_host_send_time();
      if (host.busy_ms) h->set_busy_s(*host.busy_ms / 1e3);
      if (host.rwnd_limited_ms)
        h->set_rwnd_limited_s(*host.rwnd_limited_ms / 1e3);
      if (host.sndbuf_limited_ms)
        h->set_sndbuf_limited_s(*host.sndbuf_limited_ms / 1e3);
    }
  }
  AddLimiterShares(x, &r);
  return r;
}

}  // namespace

// The stages in turn: path estimates, the replay with its fitted path, the
// rules' findings (timeline, then replay), the page, the JSON.
Diagnosis Diagnose(const DiagnosisInput& in) {
  const FlowObserver& obs = *in.observed;
  const PathEstimates est = EstimatePath(obs, in.summary.goodput_bps);
  const ReplayStage replay = FitReplay(in, est);
  const double end_s =
      std::max(in.summary.duration_s, obs.bins().size() * obs.bin_width_s());
  RuleContext context = MakeRuleContext(
      obs, est, replay.evidence.has_value() ? &*replay.evidence : nullptr,
      in.summary.max_payload_bytes, end_s);
  if (context.evidence != nullptr) context.conformance = in.conformance;
  context.conformance_not_checked = in.conformance_not_checked;
  RuleOutput replayed = ReplayFindings(context);
  const std::vector<std::string> notes = replayed.notes;
  EvidenceQuality quality = AssessEvidence(FactsOf(in, est));
  const std::vector<Finding> findings = GateFindings(
      SortedFindings(TimelineFindings(context), std::move(replayed)), &quality);
  Diagnosis d;
  d.page = PageModel(in, est, context, replay, quality, findings, notes);
  d.result = ResultProto(in, est, context, quality, d.page);
  d.evidence_rows = EvidenceRows(quality);
  d.nothing_to_diagnose = !quality.both_directions;
  if (absl::StatusOr<FittedPath> path = FitPath(est, obs, FitFacts(in));
      path.ok()) {
    d.fitted_path = *std::move(path);
  }
  return d;
}

}  // namespace ccreplay
