// rfc_violation: the captured cwnd breaks a rule of the controller family
// the flow claims (replay/conformance/, the checker `ccreplay check` runs),
// beyond the stack's documented deviations. A warning with one evidence
// line per violation group.
#ifndef CCREPLAY_REPORTS_RULES_RFC_VIOLATION_H_
#define CCREPLAY_REPORTS_RULES_RFC_VIOLATION_H_

#include "reports/rules/finding_rule.h"

namespace ccreplay {

class RfcViolationRule : public FindingRule {
 public:
  absl::string_view kind() const override { return "rfc_violation"; }
  RuleInput input() const override { return RuleInput::kReplay; }
  void Check(const RuleContext& x, RuleOutput* out) const override;
};

}  // namespace ccreplay

#endif  // CCREPLAY_REPORTS_RULES_RFC_VIOLATION_H_
