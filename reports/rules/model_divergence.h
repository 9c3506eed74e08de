// model_divergence: the replay of the best-fitting claimed controller
// leaves the captured cwnd (replay/divergence.h's ±25 % band for a few
// RTTs): where it happens and how large the error is over the flow.
#ifndef CCREPLAY_REPORTS_RULES_MODEL_DIVERGENCE_H_
#define CCREPLAY_REPORTS_RULES_MODEL_DIVERGENCE_H_

#include "reports/rules/finding_rule.h"

namespace ccreplay {

class ModelDivergenceRule : public FindingRule {
 public:
  absl::string_view kind() const override { return "model_divergence"; }
  RuleInput input() const override { return RuleInput::kReplay; }
  void Check(const RuleContext& x, RuleOutput* out) const override;
};

}  // namespace ccreplay

#endif  // CCREPLAY_REPORTS_RULES_MODEL_DIVERGENCE_H_
