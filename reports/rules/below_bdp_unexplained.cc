#include "reports/rules/below_bdp_unexplained.h"

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
namespace {}  // namespace

// The stretch, the replays that would explain it, then the finding with
// its numbers.
// long: its message is long.
void BelowBdpUnexplainedRule::Check(const RuleContext& x,
                                    RuleOutput* out) const {
  const int best = x.best;
  const std::optional<size_t> exit = SlowStartExit(x, best);
  const size_t from = exit.value_or(x.samples.size());
  const Stretch below = x.samples.Longest(
      [&](size_t i) {
        const std::optional<double> cap = x.samples.captured(i);
        if (!cap.has_value()) return -1;
        return *cap < kBelowBdp * x.bdp_bytes ? 1 : 0;
      },
      from);
  if (!below.found || below.span_s() < x.min_stretch_s) {
    out->notes.push_back(
        "below_bdp_unexplained: the captured cwnd was not below 80% of the BDP "
        "for a lasting "
        "stretch after slow start");
    return;
  }
  // Does any replayed controller stay as low there?
  std::vector<std::string> reproducing;
  for (size_t c = 0; c < x.evidence->choices.size(); ++c) {
    std::vector<double> cwnd;
    for (size_t i = below.first; i <= below.last; ++i)
      cwnd.push_back(x.samples.at(c, i).cwnd_bytes);
    if (Median(cwnd) < kBelowBdp * x.bdp_bytes)
      reproducing.push_back(x.evidence->choices[c].spec);
  }
  if (!reproducing.empty()) {
    out->notes.push_back(
        absl::StrFormat("below_bdp_unexplained: cwnd stayed below the BDP from "
                        "%.3f s to %.3f s, which the "
                        "replay of %s reproduces",
                        below.start_s, below.end_s, reproducing.front()));
    return;
  }
  std::vector<double> captured;
  for (size_t i = below.first; i <= below.last; ++i) {
    if (x.samples.captured(i)) captured.push_back(*x.samples.captured(i));
  }
  Finding f;
  f.kind = "below_bdp_unexplained";
  f.severity = Severity::kCritical;
  f.start_s = below.start_s;
  f.end_s = below.end_s;
  f.message = absl::StrFormat(
      "From %.3f s to %.3f s the sender was cwnd-limited with cwnd at a median "
      "%s packets, below "
      "the %s-packet BDP, and no replayed reference controller stays that low "
      "on the same ACKs: "
      "something the models do not capture (an implementation difference, a "
      "cap such as "
      "snd_cwnd_clamp or a delay-based heuristic) held the window down.",
      f.start_s, f.end_s, Pkts(Median(captured), x.mss_bytes),
      Pkts(x.bdp_bytes, x.mss_bytes));
  f.evidence.push_back(
      absl::StrCat("captured cwnd: ", x.evidence->replay->source_description));
  f.evidence.push_back(absl::StrFormat(
      "%d replayed controllers, all above 80%% of the BDP there",
      x.evidence->choices.size()));
  out->findings.push_back(std::move(f));
}

}  // namespace ccreplay
