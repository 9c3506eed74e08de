// rtt_scaling_slow_growth: after slow start, a Prague profile's RTT
// scaling (reference/prague-and-dctcp.md section 6.2) slowed additive
// increase while cwnd sat below the BDP, the captured cwnd grew far slower
// than Reno's segment per RTT there, and the same ACKs without scaling
// regain the BDP.
#ifndef CCREPLAY_REPORTS_RULES_RTT_SCALING_SLOW_GROWTH_H_
#define CCREPLAY_REPORTS_RULES_RTT_SCALING_SLOW_GROWTH_H_

#include "reports/rules/finding_rule.h"

namespace ccreplay {

class RttScalingSlowGrowthRule : public FindingRule {
 public:
  absl::string_view kind() const override { return "rtt_scaling_slow_growth"; }
  RuleInput input() const override { return RuleInput::kReplayAndBdp; }
  void Check(const RuleContext& x, RuleOutput* out) const override;
};

}  // namespace ccreplay

#endif  // CCREPLAY_REPORTS_RULES_RTT_SCALING_SLOW_GROWTH_H_
