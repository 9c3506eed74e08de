#include "reports/rules/receive_window_limited.h"

#include <optional>
#include <utility>

#include "reports/rules/rule_helpers.h"

namespace ccreplay {

void ReceiveWindowLimitedRule::Check(const RuleContext& x,
                                     RuleOutput* out) const {
  std::optional<Finding> f =
      LimiterFinding(x, Limiter::kRwnd, kind(), Severity::kWarning,
                     "The receive window was full");
  if (f.has_value()) out->findings.push_back(*std::move(f));
}

}  // namespace ccreplay
