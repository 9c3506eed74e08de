// application_limited: the sender had nothing more to send for a good
// share of the data phase (information: the application, not the network,
// set the rate).
#ifndef CCREPLAY_REPORTS_RULES_APPLICATION_LIMITED_H_
#define CCREPLAY_REPORTS_RULES_APPLICATION_LIMITED_H_

#include "reports/rules/finding_rule.h"

namespace ccreplay {

class ApplicationLimitedRule : public FindingRule {
 public:
  absl::string_view kind() const override { return "application_limited"; }
  RuleInput input() const override { return RuleInput::kTimeline; }
  void Check(const RuleContext& x, RuleOutput* out) const override;
};

}  // namespace ccreplay

#endif  // CCREPLAY_REPORTS_RULES_APPLICATION_LIMITED_H_
