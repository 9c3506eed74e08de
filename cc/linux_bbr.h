// `bbr:linux`: Linux net/ipv4/tcp_bbr.c (BBR v1 with its later fixes) as
// in 6.18, read at torvalds/linux 02dc96ef (the model is unchanged since;
// 6.18 differs only in accessor names), with lib/win_minmax.c's windowed
// max. In the kernel's own fixed point: bandwidth in packets/µs << 24
// (BW_SCALE), gains in 1/256 (BBR_SCALE).
//
// - Model per ACK (bbr_update_model()): max bandwidth over 10 packet-timed
//   rounds of delivery-rate samples (app-limited samples only when they
//   raise it), ACK-aggregation `extra_acked` over 5-10 rounds, the PROBE_BW
//   gain cycle, full-bandwidth detection (3 rounds without 25 % growth),
//   DRAIN until inflight <= BDP, min RTT over 10 s with PROBE_RTT (cwnd 4
//   for max(200 ms, one round)) when it expires.
// - cwnd (bbr_set_cwnd()): cwnd_gain x BDP + extra_acked + 3 TSO quanta,
//   rounded up to even (+2 in the 1.25 phase); approached by slow start
//   before the pipe is full, snapped down to it after; packet conservation
//   in the first round of Recovery.
// - Pacing rate: pacing_gain x bw x 99 %, never lowered before full bw.
//
// What a replay cannot give the model, and what stands in for it:
// - The PROBE_BW starting phase is random in the kernel
//   (get_random_u32_below(7)); here it is LinuxBbrOptions::start_phase.
// - EDT pacing state (tp->tcp_wstamp_ns): the packets "in network at EDT"
//   are taken as those in flight (the earliest departure is now).
// - rs->losses comes from the replay's loss marking (RFC 6675 IsLost on
//   SACK), not the kernel's RACK; rs->is_ack_delayed is false.
// - The long-term (policer) bandwidth mode (bbr_lt_bw_sampling()) counts
//   tp->lost as the sum of those rs->losses; bbr_undo_cwnd()'s reset of
//   it is not modelled (the sender has no undo hook).
// - Without AckEvent::rate_sample there is no bandwidth sample and no round.
#ifndef CCREPLAY_CC_LINUX_BBR_H_
#define CCREPLAY_CC_LINUX_BBR_H_

#include <cstdint>
#include <memory>
#include <optional>

#include "absl/strings/string_view.h"
#include "cc/bbr_ack_aggregation.h"
#include "cc/bbr_rate_sample.h"
#include "cc/linux_tcp_sender.h"

namespace ccreplay {

enum class BbrMode { kStartup, kDrain, kProbeBw, kProbeRtt };
absl::string_view BbrModeName(BbrMode mode);

struct LinuxBbrOptions {
  ControllerOptions base;
  // The gain-cycle phase every entry into PROBE_BW starts in: the kernel
  // sets cycle_idx = 7 - rand(7) and advances it, so one of 0, 2..7.
  uint32_t start_phase = 2;
  // tcp_bbr.c's constants that a counterfactual varies (spec options
  // probe_rtt_ms=, full_bw_cnt=, extra_acked_win=, extra_acked_max_ms=):
  // bbr_probe_rtt_mode_ms (200; 0 turns PROBE_RTT off, as the kernel's
  // "bbr_probe_rtt_mode_ms > 0" test in bbr_update_min_rtt() does),
  // bbr_full_bw_cnt (3 rounds), bbr_extra_acked_win_rtts (5 rounds; the
  // kernel's 5-bit round counter saturates at 31, so 32 or more never ages
  // the estimate) and bbr_extra_acked_max_us (100 ms).
  int64_t probe_rtt_mode_us = 200'000;
  uint32_t full_bw_cnt = 3;
  uint32_t extra_acked_win_rounds = 5;
  uint32_t extra_acked_max_us = 100'000;
};

// lib/win_minmax.c: Kathleen Nichols' windowed max, keeping the best,
// second and third best samples spread over the window.
class WindowedMax {
 public:
  uint32_t Get() const { return s_[0].value; }
  void Reset(uint32_t time, uint32_t value);
  // minmax_running_max(): `window` in the unit of `time` (here rounds).
  uint32_t Update(uint32_t window, uint32_t time, uint32_t value);

 private:
  struct Sample {
    uint32_t time = 0;
    uint32_t value = 0;
  };
  uint32_t UpdateSubwindows(uint32_t window, const Sample& sample);
  Sample s_[3];
};

class LinuxBbr final : public LinuxTcpSender {
 public:
  static constexpr int kBwScale = 24;  // BW_SCALE: bw in pkts/µs << 24
  static constexpr int kBbrScale = 8;  // BBR_SCALE: gains in 1/256
  static constexpr uint32_t kBbrUnit = 1u << kBbrScale;
  static constexpr uint32_t kCycleLength = 8;  // CYCLE_LEN
  // bbr_high_gain = 2/ln 2, the smallest gain that doubles the sending
  // rate each round like slow start: 256 * 2885 / 1000 + 1 = 739.
  static constexpr uint32_t kHighGain = kBbrUnit * 2885 / 1000 + 1;
  // bbr_drain_gain = 1/high_gain, drains STARTUP's queue in one round: 88.
  static constexpr uint32_t kDrainGain = kBbrUnit * 1000 / 2885;
  // bbr_cwnd_gain: steady-state cwnd of 2 BDP tolerates delayed ACKs.
  static constexpr uint32_t kCwndGain = kBbrUnit * 2;
  // bbr_pacing_gain[]: probe (1.25), drain (0.75), then cruise (1.0) x 6.
  static constexpr uint32_t kPacingGainCycle[kCycleLength] = {
      kBbrUnit * 5 / 4, kBbrUnit * 3 / 4, kBbrUnit, kBbrUnit,
      kBbrUnit,         kBbrUnit,         kBbrUnit, kBbrUnit};
  static constexpr uint32_t kBwFilterRounds = kCycleLength + 2;  // bbr_bw_rtts
  static constexpr int64_t kMinRttWindowUs = 10'000'000;         // 10 s
  static constexpr int64_t kProbeRttModeUs = 200'000;            // 200 ms
  static constexpr uint32_t kCwndMinTarget = 4;  // bbr_cwnd_min_target
  // Full pipe: bw grew by less than 25 % for 3 non-app-limited rounds.
  static constexpr uint32_t kFullBwThresh = kBbrUnit * 5 / 4;
  static constexpr uint32_t kFullBwCount = 3;
  static constexpr uint32_t kPacingMarginPercent = 1;
  // Below 1.2 Mbit/s one segment per TSO burst, else two (bbr_min_tso_segs).
  static constexpr uint64_t kMinTsoRateBps = 1'200'000;
  // Long-term (policer) sampling: an interval lasts 4..16 rounds
  // (bbr_lt_intvl_min_rtts); it is lossy at lost/delivered >= 50/256
  // (bbr_lt_loss_thresh, 20 %); two intervals are consistent within 1/8 of
  // lt_bw (bbr_lt_bw_ratio) or 4 kbit/s (bbr_lt_bw_diff, in bytes/s); lt_bw
  // is then used for 48 rounds (bbr_lt_bw_max_rtts).
  static constexpr uint32_t kLtIntervalMinRounds = 4;
  static constexpr uint32_t kLtLossThresh = 50;
  static constexpr uint32_t kLtBwRatio = kBbrUnit / 8;
  static constexpr uint64_t kLtBwDiffBytesPerSec = 4000 / 8;
  static constexpr uint32_t kLtBwMaxRounds = 48;

  explicit LinuxBbr(const LinuxBbrOptions& options);

  std::unique_ptr<CongestionController> Clone() const override {
    return std::make_unique<LinuxBbr>(*this);
  }
  std::optional<double> pacing_rate_bps() const override;
  bool needs_pacing() const override { return true; }
  ControllerState state() const override;

  BbrMode mode() const { return mode_; }
  // bbr_bw() in the kernel's unit (lt_bw while it is used, else the
  // max filter's), and as ss prints it (bit/s, from bbr_get_info()).
  uint32_t bw() const { return lt_use_bw_ ? lt_bw_ : max_bw(); }
  double bw_bps() const;
  // bbr_max_bw(): the windowed max filter alone.
  uint32_t max_bw() const { return bw_filter_.Get(); }
  double max_bw_bps() const { return BwToBps(max_bw()); }
  // tp->delivered, tp->lost, and the segment size, for the state trace
  // (replay/bbr_state_trace.h).
  using LinuxTcpSender::delivered_packets;
  using LinuxTcpSender::mss_bytes;
  uint64_t lost_packets() const { return lost_packets_; }
  // Long-term (policer) mode: bbr->lt_use_bw, lt_bw (kernel unit, and
  // bit/s), and the loss ratio of the interval that ended the last lt
  // sampling (lost/delivered, 0 before any).
  bool lt_use_bw() const { return lt_use_bw_; }
  uint32_t lt_bw() const { return lt_bw_; }
  double lt_bw_bps() const { return BwToBps(lt_bw_); }
  double lt_loss_ratio() const { return lt_loss_ratio_; }
  // The rate sample the last ACK gave bbr_main().
  const BbrRateSample& last_rate_sample() const { return last_rs_; }
  // bbr->min_rtt_us; nullopt before any RTT sample.
  std::optional<uint32_t> min_rtt_us() const;
  uint32_t pacing_gain() const { return pacing_gain_; }
  uint32_t cwnd_gain() const { return cwnd_gain_; }
  uint32_t cycle_index() const { return cycle_idx_; }
  bool full_bw_reached() const { return full_bw_reached_; }
  uint32_t extra_acked() const { return ack_aggregation_.extra_acked(); }
  uint32_t round_count() const { return rtt_cnt_; }

 protected:
  uint32_t Ssthresh() override;
  void SetState(CaState new_state) override;
  void OnTxStart(const IdleRestartEvent& idle) override;
  void ReduceOnRecoveryEntry(uint32_t acked, bool data_acked,
                             uint64_t in_flight) override;
  bool HasCongControl() const override { return true; }
  void CongControl(const AckEvent& ack, uint32_t acked, uint32_t ce) override;

 private:
  using RateSample = BbrRateSample;
  // The order of enum tcp_ca_state, which tcp_bbr.c compares with < and >=.
  static int Rank(CaState state) { return static_cast<int>(state); }

  void InitOnFirstAck(const AckEvent& ack);
  // bbr_update_model() and its steps, in the kernel's order.
  void UpdateBw(const RateSample& rs);
  // bbr_lt_bw_sampling() and its helpers.
  void LtBwSampling(const RateSample& rs);
  void LtBwIntervalDone(uint32_t bw);
  void ResetLtBwSampling();
  void ResetLtBwSamplingInterval();
  double BwToBps(uint32_t bw) const;
  bool IsNextCyclePhase(const RateSample& rs) const;
  void AdvanceCyclePhase();
  void CheckFullBwReached(const RateSample& rs);
  void CheckDrain();
  void UpdateMinRtt(const RateSample& rs);
  void CheckProbeRttDone();
  void UpdateGains();
  void ResetProbeBwMode();
  void SaveCwnd();
  // bbr_set_pacing_rate(), bbr_set_cwnd() and the recovery rule.
  void SetPacingRate(uint32_t bw, uint32_t gain);
  void SetCwnd(const RateSample& rs, uint32_t bw, uint32_t gain);
  bool RecoverOrRestore(const RateSample& rs, uint32_t in_flight,
                        uint32_t* new_cwnd);

  // Kernel arithmetic: rates in bytes per second, BDP and quanta in
  // packets.
  uint64_t RateBytesPerSec(uint64_t rate, uint32_t gain) const;
  uint32_t Bdp(uint32_t bw, uint32_t gain) const;
  uint32_t TsoSegsGoal() const;
  uint32_t QuantizationBudget(uint32_t cwnd) const;
  uint32_t Inflight(uint32_t bw, uint32_t gain) const;
  uint32_t PacketsInNetAtEdt(uint32_t inflight_now) const;

  LinuxBbrOptions bbr_options_;
  bool initialized_ = false;
  BbrMode mode_ = BbrMode::kStartup;
  CaState prev_ca_state_ = CaState::kOpen;
  // ~0U in the kernel: no RTT sample yet.
  uint32_t min_rtt_us_ = UINT32_MAX;
  int64_t min_rtt_stamp_us_ = 0;
  std::optional<int64_t> probe_rtt_done_stamp_us_;
  bool probe_rtt_round_done_ = false;
  WindowedMax bw_filter_;
  uint32_t rtt_cnt_ = 0;
  uint64_t next_rtt_delivered_ = 0;
  int64_t cycle_mstamp_us_ = 0;
  // tp->delivered_mstamp: the time of the last ACK that delivered data.
  int64_t delivered_mstamp_us_ = 0;
  bool packet_conservation_ = false;
  bool round_start_ = false;
  bool idle_restart_ = false;
  bool has_seen_rtt_ = false;
  uint32_t pacing_gain_ = kHighGain;
  uint32_t cwnd_gain_ = kHighGain;
  bool full_bw_reached_ = false;
  uint32_t full_bw_cnt_ = 0;
  uint32_t full_bw_ = 0;
  uint32_t cycle_idx_ = 0;
  uint32_t prior_cwnd_ = 0;
  // sk->sk_pacing_rate, bytes per second.
  uint64_t pacing_rate_bytes_per_sec_ = 0;
  BbrAckAggregation ack_aggregation_;
  RateSample last_rs_;
  // tp->lost: packets marked lost so far.
  uint64_t lost_packets_ = 0;
  // Long-term sampling state (struct bbr lt_*); lt_last_stamp in ms.
  bool lt_is_sampling_ = false;
  bool lt_use_bw_ = false;
  uint32_t lt_bw_ = 0;
  uint32_t lt_rtt_cnt_ = 0;
  uint64_t lt_last_delivered_ = 0;
  uint64_t lt_last_lost_ = 0;
  int64_t lt_last_stamp_ms_ = 0;
  double lt_loss_ratio_ = 0;
};

// tcp_bbr.c's unit arithmetic, shared by bbr:linux and bbr:v3 (Linux 6.18
// and google/bbr v3 write it alike). `bw` is in packets per µs << BW_SCALE,
// gains in 1/256.
// bbr_get_info(): bw * mss * USEC_PER_SEC >> BW_SCALE bytes per second, as
// bits per second.
double BbrBwToBps(uint32_t bw, uint32_t mss_bytes);
// bbr_rate_bytes_per_sec(): `bw` at `gain`, less the 1 % pacing margin.
uint64_t BbrRateBytesPerSec(uint64_t bw, uint32_t mss_bytes, uint32_t gain);
// bbr_bdp() once a min RTT exists: bw x min RTT at `gain`, rounded up "to
// avoid a negative feedback loop".
uint32_t BbrBdpPackets(uint32_t bw, uint32_t min_rtt_us, uint32_t gain);
// The report's phase of a BBR sender: STARTUP is slow start, every other
// mode congestion avoidance; recovery and loss states stay as they are.
Phase BbrReportPhase(Phase phase, BbrMode mode);

}  // namespace ccreplay

#endif  // CCREPLAY_CC_LINUX_BBR_H_
