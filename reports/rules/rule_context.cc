#include "reports/rules/rule_context.h"

#include <algorithm>

#include "reports/rules/rule_helpers.h"

namespace ccreplay {

std::optional<double> ReplaySamples::captured(size_t i) const {
  const std::optional<uint64_t>& c = e_->replay->captured_cwnd_bytes[i];
  return c.has_value() ? std::optional<double>(static_cast<double>(*c))
                       : std::nullopt;
}

Stretch ReplaySamples::Longest(const std::function<int(size_t)>& pred,
                               size_t from) const {
  Stretch best, current;
  for (size_t i = from; i < size(); ++i) {
    const int v = pred(i);
    if (v < 0) continue;
    if (v == 0) {
      current.found = false;
      continue;
    }
    if (!current.found) {
      current.found = true;
      current.first = i;
      current.start_s = t(i);
    }
    current.last = i;
    current.end_s = t(i);
    if (!best.found || current.span_s() > best.span_s()) best = current;
  }
  return best;
}

double BbrRecordTime(const RuleContext& x, const BbrStateRecord& r) {
  return r.time_us * 1e-6 - x.evidence->offset_s;
}

std::vector<BbrRun> BbrRuns(
    const BbrStateTrace& trace,
    const std::function<bool(const BbrStateRecord&)>& in_state) {
  std::vector<BbrRun> runs;
  const std::vector<BbrStateRecord>& r = trace.records;
  for (size_t i = 0; i < r.size(); ++i) {
    if (!in_state(r[i])) continue;
    BbrRun run{i, i};
    while (run.end < r.size() && in_state(r[run.end])) ++run.end;
    runs.push_back(run);
    i = run.end;
  }
  return runs;
}

RuleContext MakeRuleContext(const FlowObserver& observed,
                            const PathEstimates& estimates,
                            const ReplayEvidence* evidence,
                            uint32_t packet_bytes, double flow_duration_s) {
  RuleContext x;
  x.observed = &observed;
  x.estimates = &estimates;
  x.limiter_runs = LimiterRuns(observed);
  x.data_s = observed.bins().size() * observed.bin_width_s();
  x.packet_bytes = std::max<uint32_t>(packet_bytes, 1);
  x.mss_bytes = x.packet_bytes;
  x.bdp_bytes = estimates.bdp_bytes;
  x.duration_s = flow_duration_s;
  if (evidence == nullptr) return x;
  x.evidence = evidence;
  x.samples = ReplaySamples(*evidence);
  x.best = BestFittingClaimed(*evidence);
  for (const ReplayedController& c : evidence->replay->controllers) {
    if (c.bbr_state.has_value()) {
      x.bbr = &*c.bbr_state;
      break;
    }
  }
  std::vector<double> srtt;
  if (!evidence->replay->controllers.empty()) {
    for (const SeriesSample& s :
         evidence->replay->controllers[0].series.samples) {
      if (s.srtt_us > 0) srtt.push_back(s.srtt_us * 1e-6);
    }
  }
  x.typical_srtt_s = srtt.empty() ? estimates.base_rtt_s : Median(srtt);
  x.min_stretch_s = std::max(kMinStretchRtts * x.typical_srtt_s,
                             kMinStretchShare * x.duration_s);
  return x;
}

}  // namespace ccreplay
