// bbr_probe_rtt_stall: a BBR flow's replay (bbr:linux) entered PROBE_RTT,
// where tcp_bbr.c holds cwnd at 4 packets for max(200 ms, one round) once
// the min RTT is 10 s old; what each entry cost in delivery against the
// rate before it, on a flow of at least 10 s.
#ifndef CCREPLAY_REPORTS_RULES_BBR_PROBE_RTT_STALL_H_
#define CCREPLAY_REPORTS_RULES_BBR_PROBE_RTT_STALL_H_

#include "reports/rules/finding_rule.h"

namespace ccreplay {

class BbrProbeRttStallRule : public FindingRule {
 public:
  absl::string_view kind() const override { return "bbr_probe_rtt_stall"; }
  RuleInput input() const override { return RuleInput::kReplay; }
  void Check(const RuleContext& x, RuleOutput* out) const override;
};

}  // namespace ccreplay

#endif  // CCREPLAY_REPORTS_RULES_BBR_PROBE_RTT_STALL_H_
