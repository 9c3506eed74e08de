// bbr_app_limited_bw: after an application-limited phase, bbr:linux's
// bandwidth estimate stayed well below the path's rate for rounds while
// the flow had data to send. tcp_bbr.c bbr_update_bw() (Linux 6.18) lets
// an application-limited rate sample (tcp_rate.c) into the 10-round max
// filter only when it does not lower the estimate, so the estimate leaving
// such a phase is the phase's best sample, not the path's rate; STARTUP
// regains the rate in a few rounds (its gain of 2.89 triples the rate per
// round), PROBE_BW only by 25 % per 8-round gain cycle.
#ifndef CCREPLAY_REPORTS_RULES_BBR_APP_LIMITED_BW_H_
#define CCREPLAY_REPORTS_RULES_BBR_APP_LIMITED_BW_H_

#include "reports/rules/finding_rule.h"

namespace ccreplay {

class BbrAppLimitedBwRule : public FindingRule {
 public:
  absl::string_view kind() const override { return "bbr_app_limited_bw"; }
  RuleInput input() const override { return RuleInput::kReplay; }
  void Check(const RuleContext& x, RuleOutput* out) const override;
};

}  // namespace ccreplay

#endif  // CCREPLAY_REPORTS_RULES_BBR_APP_LIMITED_BW_H_
