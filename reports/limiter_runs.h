// What limited the sender over each stretch of a flow's timeline: per
// group of bins, the limiter most ACKs reported (replay/ack_timeline.h
// SendLimit), a bin with a retransmission being in recovery.
#ifndef CCREPLAY_REPORTS_LIMITER_RUNS_H_
#define CCREPLAY_REPORTS_LIMITER_RUNS_H_

#include <vector>

#include "reports/flow_observation.h"

namespace ccreplay {

// What limited the sender over one stretch of time.
enum class Limiter { kCwnd, kRwnd, kApp, kRecovery, kUnknown };
const char* LimiterName(Limiter limiter);  // "cwnd", "rwnd", ...
// The words a reader sees: "receive window", "loss recovery", ...
const char* LimiterLabel(Limiter limiter);

struct LimiterRun {
  Limiter limiter = Limiter::kUnknown;
  double start_s = 0;
  double end_s = 0;
};

// Per bin, the limiter that most ACKs reported (a bin with a retransmission
// is in recovery), joined into runs. Bins without ACKs extend the run
// before them.
std::vector<LimiterRun> LimiterRuns(const FlowObserver& observed);

// The total time under `limiter` and its longest stretch.
struct LimiterCoverage {
  double total_s = 0;
  LimiterRun longest;
};
LimiterCoverage CoverageOf(const std::vector<LimiterRun>& runs,
                           Limiter limiter);

}  // namespace ccreplay

#endif  // CCREPLAY_REPORTS_LIMITER_RUNS_H_
