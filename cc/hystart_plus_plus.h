// HyStart++ (RFC 9406 sections 4.2 and 4.3) for the RFC profiles (`reno`,
// `cubic`, `rfc9002:newreno` with `hystart=1`), in bytes:
//
// - Rounds (section 4.2): a round ends when windowEnd, snd_nxt at its
//   start, is acknowledged; without sequence numbers, once the bytes in
//   flight at its start have been delivered (cc/round_tracker.h). At each
//   round start lastRoundMinRTT = currentRoundMinRTT, currentRoundMinRTT =
//   infinity, rttSampleCount = 0; each ACK with an RTT sample lowers
//   currentRoundMinRTT and counts one sample.
// - Slow start: cwnd += min(N, L * SMSS) per ACK, L = 8 for an unpaced
//   sender (section 4.3). Once rttSampleCount >= N_RTT_SAMPLE = 8 and both
//   minima are valid: RttThresh = clamp(lastRoundMinRTT / 8, 4 ms, 16 ms);
//   if currentRoundMinRTT >= lastRoundMinRTT + RttThresh, cssBaselineMinRtt
//   = currentRoundMinRTT and Conservative Slow Start (CSS) begins.
// - CSS: cwnd += min(N, L * SMSS) / CSS_GROWTH_DIVISOR (4) per ACK. Once
//   rttSampleCount >= 8 in a round, currentRoundMinRTT < cssBaselineMinRtt
//   means the exit was spurious: back to slow start. CSS lasts at most
//   CSS_ROUNDS = 5 rounds, the round it began in being the first; then
//   ssthresh = cwnd and congestion avoidance.
// - Loss or ECN in slow start or CSS ends slow start the usual way (the
//   host's reduction); HyStart++ then stays off for the rest of the
//   connection: section 4.3 uses it only for the initial slow start.
#ifndef CCREPLAY_CC_HYSTART_PLUS_PLUS_H_
#define CCREPLAY_CC_HYSTART_PLUS_PLUS_H_

#include <cstdint>

#include "cc/congestion_controller.h"
#include "cc/round_tracker.h"

namespace ccreplay {

class HyStartPlusPlus {
 public:
  // Section 4.3 constants (RECOMMENDED values).
  static constexpr int64_t kMinRttThreshUs = 4000;
  static constexpr int64_t kMaxRttThreshUs = 16000;
  static constexpr int64_t kMinRttDivisor = 8;
  static constexpr uint32_t kNRttSample = 8;
  static constexpr double kCssGrowthDivisor = 4;
  static constexpr int kCssRounds = 5;
  static constexpr double kL = 8;  // unpaced sender
  static constexpr int64_t kNoRtt = INT64_MAX;

  enum class Phase { kSlowStart, kConservative, kDone };

  // What one ACK asks of the host controller.
  struct Step {
    // The slow-start (or CSS) increase for this ACK, to be applied if the
    // host grows on it (cwnd-limited); 0 once HyStart++ is done.
    double increase_bytes = 0;
    // Set ssthresh = cwnd (after the increase): CSS_ROUNDS are complete.
    bool enter_congestion_avoidance = false;
  };

  // For every ACK while the host is in slow start and outside any
  // reduction, before it grows. `smss_bytes` is the host's SMSS.
  Step OnAck(const AckEvent& ack, double smss_bytes);
  // A loss or ECN signal (or the end of CSS): slow start is over for good.
  void OnCongestionEvent() { phase_ = Phase::kDone; }

  Phase phase() const { return phase_; }
  bool active() const { return phase_ != Phase::kDone; }
  int64_t css_baseline_min_rtt_us() const { return css_baseline_min_rtt_us_; }

 private:
  void StartRound();
  // The section 4.2 checks once this round has N_RTT_SAMPLE samples.
  void CheckDelay();

  Phase phase_ = Phase::kSlowStart;
  RoundTracker rounds_;
  int64_t current_round_min_rtt_us_ = kNoRtt;
  int64_t last_round_min_rtt_us_ = kNoRtt;
  uint32_t rtt_sample_count_ = 0;
  int64_t css_baseline_min_rtt_us_ = kNoRtt;
  int css_rounds_ = 0;  // CSS rounds begun, the entry round included
};

}  // namespace ccreplay

#endif  // CCREPLAY_CC_HYSTART_PLUS_PLUS_H_
