// bbr_startup_exit_early: in a BBR flow's replay (bbr:linux),
// full-bandwidth detection (3 rounds with under 25 % growth) ended STARTUP
// while the bandwidth estimate was well below what the flow measured
// later: a noisy path (cross traffic, ACK thinning) or a path whose rate
// rose flattened three rounds of samples, and PROBE_BW's 1.25 probes then
// had to find the rest.
#ifndef CCREPLAY_REPORTS_RULES_BBR_STARTUP_EXIT_EARLY_H_
#define CCREPLAY_REPORTS_RULES_BBR_STARTUP_EXIT_EARLY_H_

#include "reports/rules/finding_rule.h"

namespace ccreplay {

class BbrStartupExitEarlyRule : public FindingRule {
 public:
  absl::string_view kind() const override { return "bbr_startup_exit_early"; }
  RuleInput input() const override { return RuleInput::kReplay; }
  void Check(const RuleContext& x, RuleOutput* out) const override;
};

}  // namespace ccreplay

#endif  // CCREPLAY_REPORTS_RULES_BBR_STARTUP_EXIT_EARLY_H_
