// bbr_long_term_mode: a BBR flow's replay (bbr:linux) judged the path
// policed: tcp_bbr.c's long-term sampling saw two intervals of 4-16 rounds,
// each ended by a loss, with at least 20 % loss and consistent delivery
// rates, and paced at their average (lt_bw) for up to 48 rounds.
#ifndef CCREPLAY_REPORTS_RULES_BBR_LONG_TERM_MODE_H_
#define CCREPLAY_REPORTS_RULES_BBR_LONG_TERM_MODE_H_

#include "reports/rules/finding_rule.h"

namespace ccreplay {

class BbrLongTermModeRule : public FindingRule {
 public:
  absl::string_view kind() const override { return "bbr_long_term_mode"; }
  RuleInput input() const override { return RuleInput::kReplay; }
  void Check(const RuleContext& x, RuleOutput* out) const override;
};

}  // namespace ccreplay

#endif  // CCREPLAY_REPORTS_RULES_BBR_LONG_TERM_MODE_H_
