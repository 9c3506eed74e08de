// The findings that need the flow's ACKs replayed through reference
// controllers (reports/controller_choice.h picks them): model_divergence,
// slow_start_exit_early, rtt_scaling_slow_growth, mtu_normalization_gap,
// ce_overreaction and below_bdp_unexplained. Each rule states the data it
// needs; when that is missing it adds no finding and says why in `notes`
// (the report's "How this was computed").
#ifndef CCREPLAY_REPORTS_REPLAY_FINDINGS_H_
#define CCREPLAY_REPORTS_REPLAY_FINDINGS_H_

#include <optional>
#include <string>
#include <vector>

#include "replay/replay_session.h"
#include "reports/controller_choice.h"
#include "reports/fitted_simulation.h"
#include "reports/flow_observation.h"
#include "reports/path_estimates.h"
#include "reports/report_model.h"

namespace ccreplay {

struct ReplayEvidence {
  const ReplayResult* replay = nullptr;
  // One per replay->controllers, same order.
  std::vector<ReplayChoice> choices;
  // Seconds to subtract from a series time (relative to
  // replay->start_us) to get the report's time (from the flow's first
  // packet).
  double offset_s = 0;
  // The fitted path for closed-loop evidence; nullopt: no simulation.
  std::optional<FittedPath> path;
};

struct ReplayFindings {
  std::vector<Finding> findings;
  std::vector<std::string> notes;  // Which checks ran, which could not.
};

ReplayFindings FindFromReplay(const ReplayEvidence& evidence,
                              const PathEstimates& estimates,
                              const FlowObserver& observed,
                              uint32_t packet_bytes, double flow_duration_s);

// The claimed controller whose replay fits the captured cwnd best (lowest
// median error); -1 when none was compared.
int BestFittingClaimed(const ReplayEvidence& evidence);

}  // namespace ccreplay

#endif  // CCREPLAY_REPORTS_REPLAY_FINDINGS_H_
