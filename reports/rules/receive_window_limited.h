// receive_window_limited: the receive window, not cwnd, held the sender for
// a good share of the data phase (a warning: the receiver or its buffer
// sizing, not congestion control, set the rate).
#ifndef CCREPLAY_REPORTS_RULES_RECEIVE_WINDOW_LIMITED_H_
#define CCREPLAY_REPORTS_RULES_RECEIVE_WINDOW_LIMITED_H_

#include "reports/rules/finding_rule.h"

namespace ccreplay {

class ReceiveWindowLimitedRule : public FindingRule {
 public:
  absl::string_view kind() const override { return "receive_window_limited"; }
  RuleInput input() const override { return RuleInput::kTimeline; }
  void Check(const RuleContext& x, RuleOutput* out) const override;
};

}  // namespace ccreplay

#endif  // CCREPLAY_REPORTS_RULES_RECEIVE_WINDOW_LIMITED_H_
