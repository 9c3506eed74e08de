#include "reports/rules/slow_start_exit_early.h"

#include <algorithm>
#include <cmath>
#include <functional>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"
#include "reports/rules/rule_helpers.h"

namespace ccreplay {
namespace {

// Slow start "well below" the BDP.
constexpr double kEarlyExitShare = 0.5;

}  // namespace

// The exit, the two reasons it would not be early (a signal, a cwnd
// near the BDP) with their notes, then how long congestion avoidance took.
// long: each gate says why in its own note.
void SlowStartExitEarlyRule::Check(const RuleContext& x,
                                   RuleOutput* out) const {
  const int best = x.best;
  const std::string& spec = x.evidence->replay->controllers[best].spec;
  const std::optional<size_t> exit = SlowStartExit(x, best);
  if (!exit.has_value()) {
    out->notes.push_back(absl::StrCat("slow_start_exit_early: ", spec,
                                      " never left slow start"));
    return;
  }
  const double t_exit = x.samples.t(*exit);
  if (SignalBefore(*x.observed, t_exit + x.typical_srtt_s)) {
    out->notes.push_back(
        absl::StrFormat("slow_start_exit_early: slow start ended at %.3f s on "
                        "loss or CE feedback",
                        t_exit));
    return;
  }
  // The captured cwnd around the exit (the largest within one RTT), else
  // the model's.
  double cwnd = 0;
  for (size_t i = *exit;
       i < x.samples.size() && x.samples.t(i) <= t_exit + x.typical_srtt_s;
       ++i) {
    cwnd = std::max(cwnd, x.samples.captured(i).value_or(0));
  }
  if (cwnd == 0) cwnd = x.samples.at(best, *exit).cwnd_bytes;
  if (cwnd >= kEarlyExitShare * x.bdp_bytes) {
    out->notes.push_back(
        absl::StrFormat("slow_start_exit_early: slow start ended at %.3f s "
                        "without loss or marks, at %.0f%% of "
                        "the BDP (not early)",
                        t_exit, 100 * cwnd / x.bdp_bytes));
    return;
  }
  // How long congestion avoidance then took to reach the BDP.
  double reached = -1;
  for (size_t i = *exit; i < x.samples.size(); ++i) {
    if (x.samples.captured(i).value_or(x.samples.at(best, i).cwnd_bytes) >=
        kBelowBdp * x.bdp_bytes) {
      reached = x.samples.t(i);
      break;
    }
  }
  Finding f;
  f.kind = "slow_start_exit_early";
  f.severity = Severity::kWarning;
  f.start_s = t_exit;
  f.end_s = reached > 0 ? reached : x.duration_s;
  f.message = absl::StrFormat(
      "Slow start ended at %.3f s with cwnd at %s packets, %.0f%% of the "
      "%s-packet BDP, before "
      "any loss or CE mark (a delay-based exit such as HyStart); congestion "
      "avoidance %s.",
      t_exit, Pkts(cwnd, x.mss_bytes), 100 * cwnd / x.bdp_bytes,
      Pkts(x.bdp_bytes, x.mss_bytes),
      reached > 0
          ? absl::StrFormat("then took %.2f s to bring cwnd to 80%% of the BDP",
                            reached - t_exit)
          : std::string("never brought cwnd to 80% of the BDP"));
  f.evidence.push_back(absl::StrFormat(
      "the replay of %s leaves slow start at %.3f s", spec, t_exit));
  f.evidence.push_back(
      "no retransmission, CE or ECE in the timeline before then");
  out->findings.push_back(std::move(f));
}

}  // namespace ccreplay
