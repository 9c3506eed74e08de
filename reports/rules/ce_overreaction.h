// ce_overreaction: for the same CE feedback, the best-fitting claimed
// controller cuts far more than the reference for that feedback (Prague
// v0.7 for AccECN) and holds cwnd well below it for a lasting stretch.
#ifndef CCREPLAY_REPORTS_RULES_CE_OVERREACTION_H_
#define CCREPLAY_REPORTS_RULES_CE_OVERREACTION_H_

#include "reports/rules/finding_rule.h"

namespace ccreplay {

class CeOverreactionRule : public FindingRule {
 public:
  absl::string_view kind() const override { return "ce_overreaction"; }
  RuleInput input() const override { return RuleInput::kReplayAndBdp; }
  void Check(const RuleContext& x, RuleOutput* out) const override;
};

}  // namespace ccreplay

#endif  // CCREPLAY_REPORTS_RULES_CE_OVERREACTION_H_
