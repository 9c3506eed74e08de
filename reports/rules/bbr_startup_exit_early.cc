#include "reports/rules/bbr_startup_exit_early.h"

#include <algorithm>
#include <cmath>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "reports/rules/bbr_counterfactual.h"
#include "reports/rules/rule_helpers.h"

namespace ccreplay {
namespace {

// "Well below": the estimate at the exit under 80 % of the later one;
// tcp_bbr.c's own growth test is 25 % (bbr_full_bw_thresh), so a 20 %
// shortfall is more than one round's noise.
constexpr double kEarlyShare = 0.8;
// The later estimate counts as reached at 95 % of it.
constexpr double kReachedShare = 0.95;
// tcp_bbr.c bbr_full_bw_thresh: growth under 25 % counts as none.
constexpr double kFullBwGrowth = 1.25;

// The record at which full-bandwidth detection ended STARTUP.
std::optional<size_t> StartupExit(const BbrStateTrace& trace) {
  for (size_t i = 0; i < trace.records.size(); ++i) {
    if (trace.records[i].full_bw_reached) return i;
  }
  return std::nullopt;
}

// The largest max-filter estimate after `from` (bit/s).
double LaterMaxBw(const BbrStateTrace& trace, size_t from) {
  double best = 0;
  for (size_t i = from; i < trace.records.size(); ++i) {
    best = std::max(best, trace.records[i].max_bw_bps);
  }
  return best;
}

// The first record from `from` whose estimate reaches `bps`.
size_t FirstReaching(const BbrStateTrace& trace, size_t from, double bps) {
  size_t i = from;
  while (i + 1 < trace.records.size() && trace.records[i].max_bw_bps < bps) {
    ++i;
  }
  return i;
}

// The closed-loop counterfactual: the fitted path at the exit's estimate,
// stepping to the later one when the estimate first grew 25 % past the
// exit's (the path's rate had risen by then), with the replayed spec and
// with full-bandwidth detection given the rounds from the exit to that
// rise on top of its 3 (bbr_full_bw_cnt): a STARTUP that lasted until the
// rate rose. nullopt without a fitted path or a rise.
std::optional<std::string> ClosedLoop(const RuleContext& x, size_t exit,
                                      double later_bps) {
  const int c = BbrControllerIndex(x);
  if (c < 0 || !x.evidence->path.has_value()) return std::nullopt;
  const BbrStateTrace& trace = *x.bbr;
  const BbrStateRecord& at_exit = trace.records[exit];
  const size_t rise =
      FirstReaching(trace, exit, at_exit.max_bw_bps * kFullBwGrowth);
  if (trace.records[rise].max_bw_bps < at_exit.max_bw_bps * kFullBwGrowth) {
    return std::nullopt;
  }
  FittedPath path = *x.evidence->path;
  // The fitted flow starts at 0, the report's clock at the SYN, a base RTT
  // earlier.
  const double rise_s = BbrRecordTime(x, trace.records[rise]);
  path.rate_bps = static_cast<int64_t>(at_exit.max_bw_bps);
  path.rate_after_step_bps = static_cast<int64_t>(later_bps);
  path.rate_step_ns = std::max<int64_t>(
      0, static_cast<int64_t>(rise_s * 1e9) - path.base_rtt_ns);
  const uint32_t rounds =
      LinuxBbr::kFullBwCount +
      (trace.records[rise].round_count - at_exit.round_count);
  const std::optional<BbrCounterfactual> cf = RunBbrCounterfactual(
      path, x.evidence->replay->controllers[c].spec,
      {{"full_bw_cnt", absl::StrCat(rounds)}}, x.packet_bytes);
  if (!cf.has_value()) return std::nullopt;
  return DescribeBbrCounterfactual(
      *cf, absl::StrFormat("full-bandwidth detection after %d rounds without "
                           "25%% growth, lasting until the rate rose",
                           static_cast<int>(rounds)));
}

// The path's estimated rate and the closed-loop counterfactual.
void AddPathEvidence(const RuleContext& x, size_t exit, double later_bps,
                     Finding& f) {
  if (x.estimates->bottleneck_rate_bps > 0) {
    f.evidence.push_back(absl::StrFormat(
        "the path's estimated bottleneck rate: %.2f Mbit/s%s",
        x.estimates->bottleneck_rate_bps / 1e6,
        x.estimates->rate_is_lower_bound ? " (a lower bound)" : ""));
  }
  if (std::optional<std::string> cf = ClosedLoop(x, exit, later_bps)) {
    f.evidence.push_back(std::move(*cf));
  }
}

}  // namespace

void BbrStartupExitEarlyRule::Check(const RuleContext& x,
                                    RuleOutput* out) const {
  if (x.bbr == nullptr) return;  // not a BBR flow
  const BbrStateTrace& trace = *x.bbr;
  const std::optional<size_t> exit = StartupExit(trace);
  if (!exit.has_value()) {
    out->notes.push_back(
        "bbr_startup_exit_early: the bbr:linux replay never left STARTUP");
    return;
  }
  const BbrStateRecord& at_exit = trace.records[*exit];
  const double t_exit = BbrRecordTime(x, at_exit);
  const double later_bps = LaterMaxBw(trace, *exit);
  if (later_bps <= 0 || at_exit.max_bw_bps >= kEarlyShare * later_bps) {
    out->notes.push_back(absl::StrFormat(
        "bbr_startup_exit_early: STARTUP ended at %.3f s with %.2f Mbit/s, "
        "not under %.0f%% of the later %.2f Mbit/s",
        t_exit, at_exit.max_bw_bps / 1e6, 100 * kEarlyShare, later_bps / 1e6));
    return;
  }
  const BbrStateRecord& reached =
      trace.records[FirstReaching(trace, *exit, kReachedShare * later_bps)];
  const double t_reached = BbrRecordTime(x, reached);
  // Had STARTUP gone on, delivery doubles per round (tcp_bbr.c: "the
  // smallest pacing gain that will allow a smoothly increasing pacing
  // rate that will double each RTT"): log2 of the shortfall more rounds
  // to reach the same 95 %.
  const double startup_rounds = std::max(
      1.0,
      std::ceil(std::log2(kReachedShare * later_bps / at_exit.max_bw_bps)));
  const double rtt_s = at_exit.min_rtt_us.value_or(0) * 1e-6;
  Finding f;
  f.kind = "bbr_startup_exit_early";
  f.severity = Severity::kWarning;
  f.start_s = t_exit;
  f.end_s = t_reached;
  f.message = absl::StrFormat(
      "BBR's full-bandwidth detection (3 rounds with under 25%% growth) ended "
      "STARTUP at %.3f s with a bandwidth estimate of %.2f Mbit/s, %.0f%% of "
      "the %.2f Mbit/s it measured later; PROBE_BW then took %.2f s (%d "
      "rounds) to reach %.0f%% of it, where STARTUP, doubling per round, "
      "needs %.0f more rounds (%.0f ms at the %.1f ms min RTT).",
      t_exit, at_exit.max_bw_bps / 1e6, 100 * at_exit.max_bw_bps / later_bps,
      later_bps / 1e6, t_reached - t_exit,
      static_cast<int>(reached.round_count - at_exit.round_count),
      100 * kReachedShare, startup_rounds, 1e3 * startup_rounds * rtt_s,
      1e3 * rtt_s);
  f.evidence.push_back(absl::StrFormat(
      "the bbr:linux replay leaves STARTUP at round %d, %.3f s, with max bw "
      "%.2f Mbit/s; its max bw reaches %.2f Mbit/s at %.3f s",
      static_cast<int>(at_exit.round_count), t_exit, at_exit.max_bw_bps / 1e6,
      reached.max_bw_bps / 1e6, t_reached));
  AddPathEvidence(x, *exit, later_bps, f);
  out->findings.push_back(std::move(f));
}

}  // namespace ccreplay
