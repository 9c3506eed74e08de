// Every diagnosis rule, in the order the report lists their findings
// before sorting by severity: the timeline's, then the replay's.
#ifndef CCREPLAY_REPORTS_RULES_REGISTRY_H_
#define CCREPLAY_REPORTS_RULES_REGISTRY_H_

#include <string>
#include <vector>

#include "absl/types/span.h"
#include "reports/rules/finding_rule.h"

namespace ccreplay {

absl::Span<const FindingRule* const> FindingRules();

// The rule whose kind() is `kind`; null for none.
const FindingRule* RuleOfKind(absl::string_view kind);

// The kinds of the rules that read `input`, joined with ", ".
std::string RuleKinds(RuleInput input);

}  // namespace ccreplay

#endif  // CCREPLAY_REPORTS_RULES_REGISTRY_H_
