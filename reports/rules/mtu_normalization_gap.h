// mtu_normalization_gap: small packets (at most
// kNormalizationGapPacketBytes) whose congestion-avoidance growth follows
// the replay without MTU normalization rather than the one with it
// (RFC 7141 section 2.3; quicly PR #686), on the same ACKs.
#ifndef CCREPLAY_REPORTS_RULES_MTU_NORMALIZATION_GAP_H_
#define CCREPLAY_REPORTS_RULES_MTU_NORMALIZATION_GAP_H_

#include "reports/rules/finding_rule.h"

namespace ccreplay {

class MtuNormalizationGapRule : public FindingRule {
 public:
  absl::string_view kind() const override { return "mtu_normalization_gap"; }
  RuleInput input() const override { return RuleInput::kReplay; }
  void Check(const RuleContext& x, RuleOutput* out) const override;
};

}  // namespace ccreplay

#endif  // CCREPLAY_REPORTS_RULES_MTU_NORMALIZATION_GAP_H_
