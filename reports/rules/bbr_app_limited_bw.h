// bbr_app_limited_bw: the bandwidth estimate a BBR sender resumed with
// after an application-limited phase was the application's rate, not the
// path's. Linux 6.18 tcp_bbr.c bbr_update_bw() passes an application-
// limited rate sample (tcp_rate.c) to the 10-round max filter only when it
// is at least the filter's max ("to continue to send at the last measured
// network rate"), and with no sample passed, minmax_running_max() never
// runs and nothing in the filter ages: an application-limited phase never
// lowers the estimate, however long it lasts. So a kept application-
// limited sample under-estimates the path only when the filter held no
// measurement of the path above it: the flow was application-limited from
// its start. It is then still in STARTUP (bbr_check_full_bw_reached()
// skips application-limited rounds), whose gain of 2.89 regains the path
// in log_2.89 of the shortfall rounds: the finding (info) gives those
// rounds and the delivery they cost against the path's rate.
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
