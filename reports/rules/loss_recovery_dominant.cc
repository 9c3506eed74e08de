#include "reports/rules/loss_recovery_dominant.h"

#include <optional>
#include <utility>

#include "reports/rules/rule_helpers.h"

namespace ccreplay {

void LossRecoveryDominantRule::Check(const RuleContext& x,
                                     RuleOutput* out) const {
  std::optional<Finding> f =
      LimiterFinding(x, Limiter::kRecovery, kind(), Severity::kWarning,
                     "The sender was recovering from loss");
  if (f.has_value()) out->findings.push_back(*std::move(f));
}

}  // namespace ccreplay
