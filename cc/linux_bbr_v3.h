// `bbr:v3`: BBRv3 as Google publishes it for Linux (google/bbr, branch v3,
// net/ipv4/tcp_bbr.c read at 001a430b3ddbbc6d9173061a74d8b580c757b91b),
// specified in draft-ietf-ccwg-bbr (BBRv3). The kernel's fixed point, as in
// bbr:linux: bandwidth in packets/µs << 24, gains in 1/256.
//
// What v3 changes from bbr:linux (cc/linux_bbr.h):
// - Loss and ECN are signals. Per round trip outside bandwidth probing,
//   loss cuts the short-term bounds bw_lo and inflight_lo by β = 0.3 (to
//   0.7, never below what the last round delivered); ECN (only on a path
//   declared shallow-threshold, TCP_ECN_LOW, with min RTT <= 5 ms) cuts
//   inflight_lo by ecn_alpha / 3. While probing, a sample whose loss rate
//   exceeds 2 % of its tx_in_flight (bbr_loss_thresh), or whose CE rate
//   exceeds 50 %, sets the long-term bound inflight_hi = max(tx_in_flight,
//   0.7 x target inflight) (bbr_handle_inflight_too_high(), bbr_beta).
// - PROBE_BW is DOWN (0.91) -> CRUISE (1.0, inflight_hi less 15 % headroom)
//   -> REFILL (1.0, one round) -> UP (1.25, cwnd gain 2.25, inflight_hi
//   grown 1, 2, 4, ... packets per round), probing every 2-3 s or after
//   min(63, BDP) rounds (Reno coexistence), instead of v1's 8-phase cycle.
// - STARTUP paces at 2.77 (4 ln 2) with cwnd gain 2 and also ends on high
//   loss (6 loss events in a Recovery round above 2 %) or ECN (2 rounds
//   above 50 % CE); bw is max(bw_hi over 2 probe cycles) bounded by bw_lo.
// - PROBE_RTT every 5 s (bbr_probe_rtt_win_ms) at half the BDP, not 4
//   packets; no packet conservation in Recovery.
//
// Not modelled, and what stands in: the random probe wait (2 s + rand(1 s))
// and round offset (rand(2)) take their midpoint, 2.5 s, and 0; the
// per-skb loss hook bbr_skb_marked_lost() (which finds the exact lost
// packet at which the loss rate crossed 2 %) is replaced by the ACK's rate
// sample (rs->lost since the newest delivered packet was sent); undo, PLB,
// the fast path and PROBE_RTT's app-limited marking of the sampler are not
// modelled. Without DeliveryRateSample::tx_in_flight_packets (a replay of a
// capture) the loss-rate checks never fire. rs->delivered_ce (CE-marked
// packets over the sample) is taken as those this ACK reports, which
// understates the CE rate bbr_is_inflight_too_high() compares with 50 %;
// the ECN response is not validated in the simulator.
#ifndef CCREPLAY_CC_LINUX_BBR_V3_H_
#define CCREPLAY_CC_LINUX_BBR_V3_H_

#include <cstdint>
#include <memory>
#include <optional>

#include "cc/bbr_ack_aggregation.h"
#include "cc/bbr_rate_sample.h"
#include "cc/linux_bbr.h"
#include "cc/linux_tcp_sender.h"

namespace ccreplay {

enum class BbrV3Phase { kUp, kDown, kCruise, kRefill };  // bbr_pacing_gain[]
absl::string_view BbrV3PhaseName(BbrV3Phase phase);

struct LinuxBbrV3Options {
  ControllerOptions base;
  // The route's ecn_low feature (TCP_ECN_LOW): CE marks are shallow-
  // threshold, so BBRv3 reacts to them.
  bool ecn_low = false;
};

class LinuxBbrV3 final : public LinuxTcpSender {
 public:
  static constexpr int kBwScale = LinuxBbr::kBwScale;
  static constexpr int kBbrScale = LinuxBbr::kBbrScale;
  static constexpr uint32_t kBbrUnit = LinuxBbr::kBbrUnit;
  static constexpr uint32_t kUnset = UINT32_MAX;  // ~0U: no bound yet
  // bbr_startup_pacing_gain: 4 ln 2, the smallest gain that doubles the
  // rate each round while sending what slow start would.
  static constexpr uint32_t kStartupPacingGain = kBbrUnit * 277 / 100 + 1;
  static constexpr uint32_t kStartupCwndGain = kBbrUnit * 2;
  static constexpr uint32_t kDrainGain = kBbrUnit * 1000 / 2885;
  static constexpr uint32_t kCwndGain = kBbrUnit * 2;
  // bbr_bw_probe_cwnd_gain: cwnd gain + 0.25 in PROBE_UP.
  static constexpr uint32_t kProbeUpCwndGainExtra = kBbrUnit / 4;
  static constexpr uint32_t kPacingGain[4] = {
      kBbrUnit * 5 / 4, kBbrUnit * 91 / 100, kBbrUnit, kBbrUnit};
  static constexpr uint32_t kCwndMinTarget = 4;
  static constexpr uint32_t kFullBwThresh = kBbrUnit * 5 / 4;
  static constexpr uint32_t kFullBwCount = 3;
  // bbr_beta: loss cuts to 1 - 0.3; bbr_loss_thresh: 2 % (5/256).
  static constexpr uint32_t kBeta = kBbrUnit * 30 / 100;
  static constexpr uint32_t kLossThresh = kBbrUnit * 2 / 100;
  static constexpr uint32_t kFullLossCount = 6;
  static constexpr uint32_t kEcnThresh = kBbrUnit / 2;
  static constexpr uint32_t kEcnFactor = kBbrUnit / 3;
  static constexpr uint32_t kEcnAlphaGain = kBbrUnit / 16;
  static constexpr uint32_t kEcnReprobeGain = kBbrUnit / 2;
  static constexpr uint32_t kFullEcnCount = 2;
  static constexpr uint32_t kEcnMaxRttUs = 5000;
  static constexpr uint32_t kInflightHeadroom = kBbrUnit * 15 / 100;
  static constexpr uint32_t kProbeMaxRounds = 63;
  // bbr_bw_probe_base_us + the midpoint of bbr_bw_probe_rand_us.
  static constexpr int64_t kProbeWaitUs = 2'500'000;
  static constexpr int64_t kMinRttWindowUs = 10'000'000;
  static constexpr int64_t kProbeRttWindowUs = 5'000'000;
  static constexpr int64_t kProbeRttModeUs = 200'000;
  static constexpr uint32_t kProbeRttCwndGain = kBbrUnit / 2;

  explicit LinuxBbrV3(const LinuxBbrV3Options& options);

  std::unique_ptr<CongestionController> Clone() const override {
    return std::make_unique<LinuxBbrV3>(*this);
  }
  std::optional<double> pacing_rate_bps() const override;
  bool needs_pacing() const override { return true; }
  ControllerState state() const override;

  BbrMode mode() const { return mode_; }
  BbrV3Phase phase() const { return phase_; }
  uint32_t pacing_gain() const { return pacing_gain_; }
  uint32_t cwnd_gain() const { return cwnd_gain_; }
  // bbr_max_bw() and bbr_bw() (bounded by bw_lo), kernel units.
  uint32_t max_bw() const;
  uint32_t bw() const;
  double bw_bps() const;
  // kUnset until loss, ECN or STARTUP's exit sets them.
  uint32_t inflight_hi() const { return inflight_hi_; }
  uint32_t inflight_lo() const { return inflight_lo_; }
  // bbr_target_inflight(): min(BDP with quantization budget, cwnd).
  uint32_t TargetInflight() const;
  std::optional<uint32_t> min_rtt_us() const;
  bool full_bw_reached() const { return full_bw_reached_; }

 protected:
  uint32_t Ssthresh() override;
  void SetState(CaState new_state) override;
  void OnTxStart(const IdleRestartEvent& idle) override;
  // No packet conservation: v3's bbr_set_cwnd() has no Recovery rule.
  void ReduceOnRecoveryEntry(uint32_t, bool, uint64_t) override {}
  bool HasCongControl() const override { return true; }
  void CongControl(const AckEvent& ack, uint32_t acked, uint32_t ce) override;

 private:
  // The rate sample (bbr_rate_sample.h) and v3's per-ACK context.
  struct RateSample : BbrRateSample {
    uint32_t delivered_ce = 0;
    bool is_ece = false;
    bool cwnd_limited = false;
    uint32_t sample_bw = 0;  // bbr_context.sample_bw
  };
  enum class AckPhase {
    kInit,
    kRefilling,
    kProbeStarting,
    kProbeFeedback,
    kProbeStopping
  };

  RateSample ToRateSample(const AckEvent& ack, uint32_t acked,
                          uint32_t ce) const;
  void InitOnFirstAck(const AckEvent& ack);
  // Round and per-round congestion signals.
  void UpdateRoundStart(const RateSample& rs);
  void UpdateLatestDeliverySignals(const RateSample& rs);
  void UpdateCongestionSignals(const RateSample& rs);
  void AdaptLowerBounds();
  void ResetLowerBounds();
  void ResetCongestionSignals();
  int UpdateEcnAlpha();
  // bbr_update_model() steps.
  void CheckLossTooHighInStartup(const RateSample& rs);
  void HandleQueueTooHighInStartup();
  void CheckFullBwReached(const RateSample& rs);
  void ResetFullBw();
  void CheckDrain();
  void UpdateCyclePhase(const RateSample& rs);
  bool AdaptUpperBounds(const RateSample& rs);
  bool IsInflightTooHigh(const RateSample& rs) const;
  void HandleInflightTooHigh(const RateSample& rs);
  void ProbeInflightHiUpward(const RateSample& rs);
  void RaiseInflightHiSlope();
  bool CheckTimeToProbeBw();
  void StartProbeRefill(uint32_t probe_up_rounds);
  void StartProbeUp(const RateSample& rs);
  void StartProbeDown();
  void StartProbeCruise();
  void UpdateMinRtt(const RateSample& rs);
  void CheckProbeRttDone();
  void ExitProbeRtt();
  void UpdateGains();
  void SaveCwnd();
  // Control.
  void SetPacingRate(uint32_t bw, uint32_t gain);
  void SetCwnd(const RateSample& rs, uint32_t bw, uint32_t gain);
  void BoundCwndForInflightModel();
  // Kernel arithmetic.
  uint64_t RateBytesPerSec(uint64_t rate, uint32_t gain) const;
  uint32_t Bdp(uint32_t bw, uint32_t gain) const;
  uint32_t TsoSegsGoal() const;
  uint32_t QuantizationBudget(uint32_t cwnd) const;
  uint32_t Inflight(uint32_t bw, uint32_t gain) const;
  uint32_t InflightWithHeadroom() const;
  uint32_t PacketsInNetAtEdt(uint32_t inflight_now) const;
  uint32_t ProbeRttCwnd() const;
  bool IsProbingBandwidth() const;

  LinuxBbrV3Options v3_options_;
  bool initialized_ = false;
  BbrMode mode_ = BbrMode::kStartup;
  BbrV3Phase phase_ = BbrV3Phase::kUp;
  AckPhase ack_phase_ = AckPhase::kInit;
  CaState prev_ca_state_ = CaState::kOpen;
  uint32_t init_cwnd_ = 10;
  uint32_t min_rtt_us_ = kUnset;
  int64_t min_rtt_stamp_us_ = 0;
  uint32_t probe_rtt_min_us_ = kUnset;
  int64_t probe_rtt_min_stamp_us_ = 0;
  std::optional<int64_t> probe_rtt_done_stamp_us_;
  bool probe_rtt_round_done_ = false;
  bool idle_restart_ = false;
  bool has_seen_rtt_ = false;
  uint64_t next_rtt_delivered_ = 0;
  bool round_start_ = false;
  uint32_t rounds_since_probe_ = 0;
  int64_t cycle_mstamp_us_ = 0;
  int64_t delivered_mstamp_us_ = 0;
  uint32_t pacing_gain_ = kStartupPacingGain;
  uint32_t cwnd_gain_ = kStartupCwndGain;
  uint32_t prior_cwnd_ = 0;
  uint64_t pacing_rate_bytes_per_sec_ = 0;
  // Full-pipe estimator.
  bool full_bw_reached_ = false;
  bool full_bw_now_ = false;
  uint32_t full_bw_ = 0;
  uint32_t full_bw_cnt_ = 0;
  // The model's bounds.
  uint32_t bw_hi_[2] = {0, 0};
  uint32_t bw_lo_ = kUnset;
  uint32_t bw_latest_ = 0;
  uint32_t inflight_latest_ = 0;
  uint32_t inflight_lo_ = kUnset;
  uint32_t inflight_hi_ = kUnset;
  // Loss and ECN rounds.
  uint64_t loss_round_delivered_ = 1;
  bool loss_round_start_ = false;
  bool loss_in_round_ = false;
  bool ecn_in_round_ = false;
  bool loss_in_cycle_ = false;
  bool ecn_in_cycle_ = false;
  uint32_t loss_events_in_round_ = 0;
  bool ecn_eligible_ = false;
  uint32_t ecn_alpha_ = kBbrUnit;  // bbr_ecn_alpha_init
  uint64_t alpha_last_delivered_ = 0;
  uint64_t alpha_last_delivered_ce_ = 0;
  uint32_t startup_ecn_rounds_ = 0;
  // Probing.
  uint32_t bw_probe_up_rounds_ = 0;
  uint32_t bw_probe_up_cnt_ = kUnset;
  uint32_t bw_probe_up_acks_ = 0;
  bool bw_probe_samples_ = false;
  bool prev_probe_too_high_ = false;
  bool stopped_risky_probe_ = false;
  BbrAckAggregation ack_aggregation_;
};

}  // namespace ccreplay

#endif  // CCREPLAY_CC_LINUX_BBR_V3_H_
