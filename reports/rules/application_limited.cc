#include "reports/rules/application_limited.h"

#include <optional>
#include <utility>

#include "reports/rules/rule_helpers.h"

namespace ccreplay {

void ApplicationLimitedRule::Check(const RuleContext& x,
                                   RuleOutput* out) const {
  std::optional<Finding> f =
      LimiterFinding(x, Limiter::kApp, kind(), Severity::kInfo,
                     "The application had nothing more to send");
  if (f.has_value()) out->findings.push_back(*std::move(f));
}

}  // namespace ccreplay
