#include "reports/replay_summary.h"

#include <algorithm>
#include <cstdint>
#include <limits>

#include "replay/captured_cwnd.h"

namespace ccreplay {
namespace {

// The proto's counts are uint32; a flow with 2^32 ACKs saturates.
uint32_t Count(uint64_t n) {
  return static_cast<uint32_t>(
      std::min<uint64_t>(n, std::numeric_limits<uint32_t>::max()));
}

}  // namespace

const char* ReplayRoleName(ReplayRole role) {
  switch (role) {
    case ReplayRole::kRttScalingOff:
      return "rtt_scaling_off";
    case ReplayRole::kNormalizationOn:
      return "normalization_on";
    case ReplayRole::kClaimed:
      break;
  }
  return "claimed";
}

proto::Replay SummarizeReplay(const ReplayEvidence& evidence,
                              const std::string& controller_reason,
                              double bdp_bytes) {
  const ReplayResult& r = *evidence.replay;
  proto::Replay out;
  out.set_captured_source(CapturedSourceName(r.source));
  out.set_captured_description(r.source_description);
  out.set_controller_reason(controller_reason);
  out.set_acks(Count(r.acks));
  if (r.captured_mean_cwnd_bytes.has_value()) {
    out.set_captured_mean_cwnd_bytes(*r.captured_mean_cwnd_bytes);
    if (bdp_bytes > 0) {
      out.set_captured_mean_cwnd_bdp_fraction(*r.captured_mean_cwnd_bytes /
                                              bdp_bytes);
    }
  }
  const int best = BestFittingClaimed(evidence);
  for (size_t c = 0; c < r.controllers.size(); ++c) {
    const ReplayedController& replayed = r.controllers[c];
    const ReplayChoice& choice = evidence.choices[c];
    const DivergenceSummary& d = replayed.divergence;
    proto::ReplayedController* o = out.add_controllers();
    o->set_spec(replayed.spec);
    o->set_role(ReplayRoleName(choice.role));
    o->set_base_spec(choice.base_spec);
    o->set_best_fit(static_cast<int>(c) == best);
    for (const ReplayChoice& other : evidence.choices) {
      if (other.role != ReplayRole::kClaimed &&
          other.base_spec == choice.spec) {
        o->add_counterfactual_specs(other.spec);
      }
    }
    o->set_compared_samples(Count(d.samples));
    if (d.median_abs_err_pct)
      o->set_median_abs_error_pct(*d.median_abs_err_pct);
    if (d.p95_abs_err_pct) o->set_p95_abs_error_pct(*d.p95_abs_err_pct);
    if (d.first_divergence_us) {
      // Divergence times are on the replay's clock; series times are from
      // r.start_us, and the report's are offset_s earlier.
      o->set_first_divergence_s((*d.first_divergence_us - r.start_us) * 1e-6 -
                                evidence.offset_s);
    }
    if (replayed.mean_cwnd_bytes) {
      o->set_mean_cwnd_bytes(*replayed.mean_cwnd_bytes);
      if (bdp_bytes > 0) {
        o->set_mean_cwnd_bdp_fraction(*replayed.mean_cwnd_bytes / bdp_bytes);
      }
    }
  }
  return out;
}

}  // namespace ccreplay
