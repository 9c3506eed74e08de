#include "cc/hystart_plus_plus.h"

#include <algorithm>

namespace ccreplay {

HyStartPlusPlus::Step HyStartPlusPlus::OnAck(const AckEvent& ack,
                                             double smss_bytes) {
  Step step;
  if (phase_ == Phase::kDone) return step;
  // Section 4.2: keep track of the minimum observed RTT. The sample of the
  // ACK that acknowledges windowEnd belongs to the round it ends.
  if (ack.rtt_sample_us > 0) {
    current_round_min_rtt_us_ =
        std::min(current_round_min_rtt_us_, ack.rtt_sample_us);
    ++rtt_sample_count_;
  }
  // Section 4.2: cwnd += min(N, L * SMSS), divided by CSS_GROWTH_DIVISOR
  // in CSS.
  step.increase_bytes =
      std::min(static_cast<double>(ack.bytes_acked), kL * smss_bytes);
  if (phase_ == Phase::kConservative) {
    step.increase_bytes /= kCssGrowthDivisor;
  }
  if (rtt_sample_count_ >= kNRttSample) CheckDelay();
  if (rounds_.OnAck(ack.bytes_acked)) {
    // Section 4.2: "If CSS_ROUNDS rounds are complete, enter congestion
    // avoidance by setting the ssthresh to the current cwnd".
    if (phase_ == Phase::kConservative && ++css_rounds_ >= kCssRounds) {
      step.enter_congestion_avoidance = true;
      phase_ = Phase::kDone;
      return step;
    }
    rounds_.StartRound(ack.bytes_in_flight);
    StartRound();
  }
  return step;
}

void HyStartPlusPlus::StartRound() {
  last_round_min_rtt_us_ = current_round_min_rtt_us_;
  current_round_min_rtt_us_ = kNoRtt;
  rtt_sample_count_ = 0;
}

void HyStartPlusPlus::CheckDelay() {
  if (phase_ == Phase::kSlowStart) {
    if (current_round_min_rtt_us_ == kNoRtt ||
        last_round_min_rtt_us_ == kNoRtt) {
      return;
    }
    const int64_t rtt_thresh_us =
        std::clamp(last_round_min_rtt_us_ / kMinRttDivisor, kMinRttThreshUs,
                   kMaxRttThreshUs);
    if (current_round_min_rtt_us_ >= last_round_min_rtt_us_ + rtt_thresh_us) {
      css_baseline_min_rtt_us_ = current_round_min_rtt_us_;
      css_rounds_ = 0;
      phase_ = Phase::kConservative;
    }
  } else if (current_round_min_rtt_us_ < css_baseline_min_rtt_us_) {
    // Section 4.2: the slow start exit was spurious; resume slow start.
    css_baseline_min_rtt_us_ = kNoRtt;
    phase_ = Phase::kSlowStart;
  }
}

}  // namespace ccreplay
