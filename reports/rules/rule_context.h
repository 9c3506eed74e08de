// What the diagnosis rules (reports/rules/) read: the observed timeline and
// its limiters, the path estimates, and, when the flow was replayed, the
// replay's samples on the report's clock with the figures every replay
// rule shares (the best-fitting claimed controller, the BDP in bytes, the
// typical RTT, how long a stretch must last).
#ifndef CCREPLAY_REPORTS_RULES_RULE_CONTEXT_H_
#define CCREPLAY_REPORTS_RULES_RULE_CONTEXT_H_

#include <cstdint>
#include <functional>
#include <optional>
#include <vector>

#include "replay/conformance/conformance.h"
#include "reports/flow_observation.h"
#include "reports/limiter_runs.h"
#include "reports/path_estimates.h"
#include "reports/replay_evidence.h"

namespace ccreplay {

// A stretch counts when it lasts this many typical RTTs (a controller's
// steady behaviour, not one reaction) and this share of the flow.
inline constexpr double kMinStretchRtts = 20;
inline constexpr double kMinStretchShare = 0.05;

// A run of replay samples [first, last], from start_s to end_s.
struct Stretch {
  bool found = false;
  size_t first = 0, last = 0;
  double start_s = 0, end_s = 0;
  double span_s() const { return end_s - start_s; }
};

// The samples of a replay on the report's clock.
class ReplaySamples {
 public:
  ReplaySamples() = default;
  explicit ReplaySamples(const ReplayEvidence& e) : e_(&e) {}
  size_t size() const {
    return e_ == nullptr ? 0 : e_->replay->captured_cwnd_bytes.size();
  }
  const SeriesSample& at(size_t controller, size_t i) const {
    return e_->replay->controllers[controller].series.samples[i];
  }
  // Sample i's time in the report (controller 0's clock: all share it).
  double t(size_t i) const { return at(0, i).time_us * 1e-6 - e_->offset_s; }
  // The captured cwnd at sample i, nullopt where it is not known.
  std::optional<double> captured(size_t i) const;
  // A time on the divergence tracker's clock (that of the timeline).
  double TrackerTime(int64_t us) const {
    return (us - e_->replay->start_us) * 1e-6 - e_->offset_s;
  }
  // The longest run of samples from `from` where `pred` is 1; -1
  // (unknown) neither extends nor breaks a run.
  Stretch Longest(const std::function<int(size_t)>& pred,
                  size_t from = 0) const;

 private:
  const ReplayEvidence* e_ = nullptr;
};

struct RuleContext {
  // The timeline (never null once made).
  const FlowObserver* observed = nullptr;
  const PathEstimates* estimates = nullptr;
  std::vector<LimiterRun> limiter_runs;
  double data_s = 0;  // The binned timeline's length.

  // The replay; null when the flow was not replayed, and then nothing
  // below is filled.
  const ReplayEvidence* evidence = nullptr;
  ReplaySamples samples;
  int best = -1;              // BestFittingClaimed(*evidence).
  uint32_t packet_bytes = 1;  // The flow's largest payload, at least 1.
  double mss_bytes = 1448;    // packet_bytes as a double.
  double bdp_bytes = 0;
  // The median srtt of the first replayed controller, else the base RTT.
  double typical_srtt_s = 0;
  double duration_s = 0;  // The flow's length in the report.
  // kMinStretchRtts typical RTTs or kMinStretchShare of the flow.
  double min_stretch_s = 0;
  // The captured cwnd checked against its family's RFC rules (the replay's
  // pass); null when the flow was not replayed.
  const ConformanceResult* conformance = nullptr;
  // DiagnosisInput::conformance_not_checked.
  std::string conformance_not_checked;
  // A BBR flow's bbr:linux replay, ACK by ACK (replay/bbr_state_trace.h):
  // the first replayed controller that kept one; null for every other
  // flow, and then the BBR rules stay silent.
  const BbrStateTrace* bbr = nullptr;
};

// A BBR state record's time on the report's clock (x.bbr must be set).
double BbrRecordTime(const RuleContext& x, const BbrStateRecord& r);

// The runs of records [first, end) in which `in_state` holds, end being
// the first record after the run (records.size() when it lasts to the
// end).
struct BbrRun {
  size_t first = 0, end = 0;
};
std::vector<BbrRun> BbrRuns(
    const BbrStateTrace& trace,
    const std::function<bool(const BbrStateRecord&)>& in_state);

// `evidence` may be null (no replay); it and `observed` and `estimates`
// must outlive the context.
RuleContext MakeRuleContext(const FlowObserver& observed,
                            const PathEstimates& estimates,
                            const ReplayEvidence* evidence,
                            uint32_t packet_bytes, double flow_duration_s);

}  // namespace ccreplay

#endif  // CCREPLAY_REPORTS_RULES_RULE_CONTEXT_H_
