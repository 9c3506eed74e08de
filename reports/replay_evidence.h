// A flow's replay through reference controllers as the diagnosis reads it:
// the controllers' series beside the captured cwnd, why each controller was
// replayed (reports/controller_choice.h), and the fitted path for
// closed-loop evidence.
#ifndef CCREPLAY_REPORTS_REPLAY_EVIDENCE_H_
#define CCREPLAY_REPORTS_REPLAY_EVIDENCE_H_

#include <optional>
#include <string>
#include <vector>

#include "replay/replay_session.h"
#include "reports/controller_choice.h"
#include "reports/fitted_simulation.h"

namespace ccreplay {

struct ReplayEvidence {
  const ReplayResult* replay = nullptr;
  // One per replay->controllers, same order.
  std::vector<ReplayChoice> choices;
  // An input named the claimed controllers (ControllerChoice::named).
  bool controller_named = false;
  // Seconds to subtract from a series time (relative to
  // replay->start_us) to get the report's time (from the flow's first
  // packet).
  double offset_s = 0;
  // The fitted path for closed-loop evidence; nullopt: no simulation.
  std::optional<FittedPath> path;
};

// The median error of controller `c`'s replay against the captured cwnd, in
// percent; +infinity when nothing was compared (so it sorts last; it never
// reaches an output).
double MedianErrorPct(const ReplayEvidence& evidence, int c);
// The same for a person: "12.3%", or "n/a" when nothing was compared
// (reports/figure_format.h).
std::string MedianErrorText(const ReplayEvidence& evidence, int c);

// The claimed controller whose replay fits the captured cwnd best (lowest
// median error); -1 when none was compared.
int BestFittingClaimed(const ReplayEvidence& evidence);

}  // namespace ccreplay

#endif  // CCREPLAY_REPORTS_REPLAY_EVIDENCE_H_
