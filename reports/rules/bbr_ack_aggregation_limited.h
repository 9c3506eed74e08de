// bbr_ack_aggregation_limited: a BBR flow whose ACKs came in bursts larger
// than the ACK-aggregation allowance its model held (extra_acked), so that
// after the pipe was full its flight filled cwnd (gain x BDP + extra_acked)
// and it delivered less than its own bandwidth estimate. Linux commit
// 78dc70ebaa38 ("tcp_bbr: adapt cwnd based on ack aggregation
// estimation", 2019) gives the mechanism: with cwnd at 2 BDP, "if packets
// were acked in bursts after long delays ... BBR's sending was halted";
// extra_acked (tcp_bbr.c bbr_update_ack_aggregation(), Linux 6.18) is a
// max over 5-10 rounds, at most cwnd per sample and 100 ms of bandwidth
// (bbr_extra_acked_max_us), so bursts rarer than the window, or longer
// than the cap, still stall the sender.
#ifndef CCREPLAY_REPORTS_RULES_BBR_ACK_AGGREGATION_LIMITED_H_
#define CCREPLAY_REPORTS_RULES_BBR_ACK_AGGREGATION_LIMITED_H_

#include "reports/rules/finding_rule.h"

namespace ccreplay {

class BbrAckAggregationLimitedRule : public FindingRule {
 public:
  absl::string_view kind() const override {
    return "bbr_ack_aggregation_limited";
  }
  RuleInput input() const override { return RuleInput::kReplay; }
  void Check(const RuleContext& x, RuleOutput* out) const override;
};

}  // namespace ccreplay

#endif  // CCREPLAY_REPORTS_RULES_BBR_ACK_AGGREGATION_LIMITED_H_
