#include "reports/rules/registry.h"

#include "absl/strings/str_join.h"
#include "reports/rules/application_limited.h"
#include "reports/rules/bbr_ack_aggregation_limited.h"
#include "reports/rules/bbr_app_limited_bw.h"
#include "reports/rules/bbr_long_term_mode.h"
#include "reports/rules/bbr_probe_rtt_stall.h"
#include "reports/rules/bbr_startup_exit_early.h"
#include "reports/rules/below_bdp_unexplained.h"
#include "reports/rules/ce_overreaction.h"
#include "reports/rules/loss_recovery_dominant.h"
#include "reports/rules/model_divergence.h"
#include "reports/rules/mtu_normalization_gap.h"
#include "reports/rules/receive_window_limited.h"
#include "reports/rules/rfc_violation.h"
#include "reports/rules/rtt_scaling_slow_growth.h"
#include "reports/rules/slow_start_exit_early.h"

namespace ccreplay {

absl::Span<const FindingRule* const> FindingRules() {
  static const ReceiveWindowLimitedRule receive_window_limited;
  static const ApplicationLimitedRule application_limited;
  static const LossRecoveryDominantRule loss_recovery_dominant;
  static const ModelDivergenceRule model_divergence;
  static const SlowStartExitEarlyRule slow_start_exit_early;
  static const RttScalingSlowGrowthRule rtt_scaling_slow_growth;
  static const MtuNormalizationGapRule mtu_normalization_gap;
  static const CeOverreactionRule ce_overreaction;
  static const BelowBdpUnexplainedRule below_bdp_unexplained;
  static const RfcViolationRule rfc_violation;
  static const BbrStartupExitEarlyRule bbr_startup_exit_early;
  static const BbrProbeRttStallRule bbr_probe_rtt_stall;
  static const BbrLongTermModeRule bbr_long_term_mode;
  static const BbrAppLimitedBwRule bbr_app_limited_bw;
  static const BbrAckAggregationLimitedRule bbr_ack_aggregation_limited;
  static const FindingRule* const kRules[] = {
      &receive_window_limited,      &application_limited,
      &loss_recovery_dominant,      &model_divergence,
      &slow_start_exit_early,       &rtt_scaling_slow_growth,
      &mtu_normalization_gap,       &ce_overreaction,
      &below_bdp_unexplained,       &rfc_violation,
      &bbr_startup_exit_early,      &bbr_probe_rtt_stall,
      &bbr_long_term_mode,          &bbr_app_limited_bw,
      &bbr_ack_aggregation_limited,
  };
  return kRules;
}

const FindingRule* RuleOfKind(absl::string_view kind) {
  for (const FindingRule* rule : FindingRules()) {
    if (rule->kind() == kind) return rule;
  }
  return nullptr;
}

std::string RuleKinds(RuleInput input) {
  std::vector<absl::string_view> kinds;
  for (const FindingRule* rule : FindingRules()) {
    if (rule->input() == input) kinds.push_back(rule->kind());
  }
  return absl::StrJoin(kinds, ", ");
}

}  // namespace ccreplay
