// slow_start_exit_early: the best-fitting claimed controller left slow
// start before any loss or CE mark with cwnd well below the BDP (a
// delay-based exit such as HyStart), leaving congestion avoidance to fill
// the rest.
#ifndef CCREPLAY_REPORTS_RULES_SLOW_START_EXIT_EARLY_H_
#define CCREPLAY_REPORTS_RULES_SLOW_START_EXIT_EARLY_H_

#include "reports/rules/finding_rule.h"

namespace ccreplay {

class SlowStartExitEarlyRule : public FindingRule {
 public:
  absl::string_view kind() const override { return "slow_start_exit_early"; }
  RuleInput input() const override { return RuleInput::kReplayAndBdp; }
  void Check(const RuleContext& x, RuleOutput* out) const override;
};

}  // namespace ccreplay

#endif  // CCREPLAY_REPORTS_RULES_SLOW_START_EXIT_EARLY_H_
