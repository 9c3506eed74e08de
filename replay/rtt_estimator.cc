#include "replay/rtt_estimator.h"

#include <algorithm>
#include <cstdlib>

namespace ccreplay {

void RttEstimator::AddSample(int64_t rtt_us) {
  rtt_us = std::max<int64_t>(rtt_us, 1);
  min_rtt_us_ = min_rtt_us_ == 0 ? rtt_us : std::min(min_rtt_us_, rtt_us);
  Smooth(rtt_us);
}

void RttEstimator::SeedFromHandshake(int64_t rtt_us) {
  if (srtt_us_ == 0 && rtt_us > 0) Smooth(rtt_us);
}

void RttEstimator::Smooth(int64_t rtt_us) {
  if (srtt_us_ == 0) {
    srtt_us_ = rtt_us;
    rttvar_us_ = rtt_us / 2;
    return;
  }
  // RTTVAR first: it uses the SRTT before this sample (RFC 6298 2.3).
  rttvar_us_ = (3 * rttvar_us_ + std::llabs(srtt_us_ - rtt_us)) / 4;
  srtt_us_ = (7 * srtt_us_ + rtt_us) / 8;
}

int64_t RttEstimator::rto_us() const {
  if (srtt_us_ == 0) return kInitialRtoUs;
  const int64_t rto = srtt_us_ + std::max<int64_t>(1, 4 * rttvar_us_);
  return std::clamp(rto, min_rto_us_, kMaxRtoUs);
}

}  // namespace ccreplay
