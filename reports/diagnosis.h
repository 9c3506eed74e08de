// Turns one flow's observed timeline into a diagnosis: path estimates, the
// limiter in force per interval, findings with their evidence, and the
// report page and JSON. This slice draws on the ACK timeline alone; the
// findings that need a replay of reference controllers (rtt_scaling_slow_
// growth, mtu_normalization_gap, ce_overreaction, below_bdp_unexplained,
// model_divergence) attach to the same structures when replay provides
// them.
#ifndef CCREPLAY_REPORTS_DIAGNOSIS_H_
#define CCREPLAY_REPORTS_DIAGNOSIS_H_

#include <string>
#include <vector>

#include "parsers/flow_table.h"
#include "proto/report.pb.h"
#include "replay/ack_timeline.h"
#include "reports/flow_observation.h"
#include "reports/path_estimates.h"
#include "reports/report_model.h"

namespace ccreplay {

// What limited the sender over one stretch of time.
enum class Limiter { kCwnd, kRwnd, kApp, kRecovery, kUnknown };
const char* LimiterName(Limiter limiter);  // "cwnd", "rwnd", ...

struct LimiterRun {
  Limiter limiter = Limiter::kUnknown;
  double start_s = 0;
  double end_s = 0;
};

// Per bin, the limiter that most ACKs reported (a bin with a retransmission
// is in recovery), joined into runs. Bins without ACKs extend the run
// before them.
std::vector<LimiterRun> LimiterRuns(const FlowObserver& observed);

struct DiagnosisInput {
  std::string input_path;
  const Flow* flow = nullptr;
  FlowSummary summary;
  TimelineStats stats;
  const FlowObserver* observed = nullptr;
};

struct Diagnosis {
  proto::Diagnosis result;
  ReportPage page;
};

Diagnosis Diagnose(const DiagnosisInput& input);

}  // namespace ccreplay

#endif  // CCREPLAY_REPORTS_DIAGNOSIS_H_
