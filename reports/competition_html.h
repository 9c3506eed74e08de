// The multi-flow report as one self-contained HTML page: the shared view
// first (verdict, the compared pairs, the plots on the shared axis, the
// flows' facts), then each flow's own diagnosis in a <details> section
// (#flow-a, #flow-b, ...) rendered by the single-flow renderer
// (reports/html_report.h), its ids prefixed ("a-plot-cwnd").
#ifndef CCREPLAY_REPORTS_COMPETITION_HTML_H_
#define CCREPLAY_REPORTS_COMPETITION_HTML_H_

#include <string>

#include "absl/types/span.h"
#include "reports/competition.h"

namespace ccreplay {

// `flows` are those `report` was made from, in the same order.
std::string RenderMultiFlowHtml(const MultiFlowReport& report,
                                absl::Span<const CompetitorRun> flows);

// The id prefix of flow `id`'s section ("a-"), and its <details> id
// ("flow-a").
std::string FlowSectionPrefix(uint32_t id);
std::string FlowSectionId(uint32_t id);

}  // namespace ccreplay

#endif  // CCREPLAY_REPORTS_COMPETITION_HTML_H_
