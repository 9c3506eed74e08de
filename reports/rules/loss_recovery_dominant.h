// loss_recovery_dominant: the sender spent a good share of the data phase
// retransmitting (a warning: loss, not the window's growth, set the rate).
#ifndef CCREPLAY_REPORTS_RULES_LOSS_RECOVERY_DOMINANT_H_
#define CCREPLAY_REPORTS_RULES_LOSS_RECOVERY_DOMINANT_H_

#include "reports/rules/finding_rule.h"

namespace ccreplay {

class LossRecoveryDominantRule : public FindingRule {
 public:
  absl::string_view kind() const override { return "loss_recovery_dominant"; }
  RuleInput input() const override { return RuleInput::kTimeline; }
  void Check(const RuleContext& x, RuleOutput* out) const override;
};

}  // namespace ccreplay

#endif  // CCREPLAY_REPORTS_RULES_LOSS_RECOVERY_DOMINANT_H_
