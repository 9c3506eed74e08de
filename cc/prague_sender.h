// `prague:v05`, `prague:v06`, `prague:v07`: the Linux TCP Prague module of
// each era, each cited to its repository and commit:
//
// v0.5 (L4STeam/l4steam.github.io @ 0125ddd7, tcp_prague.c, spring 2020):
//   target 10 ms stored in 128 us units (78 = 9.984 ms), 100 rounds before
//   RTT independence, alpha 20 bits starting at 1; a CE cut adds
//   round(alpha * snd_cwnd / 2) to a signed backlog `cwnd_cnt` (2^-20
//   segments) computed from the not-yet-reduced snd_cwnd, and snd_cwnd moves
//   at most one segment per ACK toward it; the .ssthresh hook returns
//   max(cwnd, ssthresh).
// v0.6 (ij1/linux-accecn @ 06e9a045): as v0.5 with 25 ms, 500 rounds, an
//   `in_loss` flag (no increase until Open) and .ssthresh = ssthresh.
// v0.7 (L4STeam/linux @ 893e1479, 2024): 25 ms, 4 rounds, alpha 24 bits
//   starting at 0 with one halving of the window at the first CE
//   (prague_alpha_mode 0); the window is the fraction `frac_cwnd`, cuts
//   compound on it (frac_cwnd -= alpha * frac_cwnd / 2), snd_cwnd steps one
//   segment per ACK toward ceil(frac_cwnd); the increase is normalized to
//   MTU_SYS = 1500 bytes. Window mode only (prague_cwnd_mode 0, the netdev
//   submission's default); the rate mode for windows of at most 4 packets
//   and the MSS reduction are not modelled.
//
// All versions: the increase per non-CE acknowledged segment is
// ai_ack_increase / cwnd with ai = 2^20 (srtt/T)^2 once `round` (counted
// only outside slow start, once per EWMA period) reaches the transition; in
// RTT-independent mode the alpha EWMA (g = 1/16, F = delivered_ce /
// delivered in packets) and the CE cut run at most once per T. srtt includes
// queueing delay. Additive increase continues during CWR (cong_control).
// tcp_mss_to_mtu() is taken as MSS + 52 (IPv4, TCP with timestamps).
#ifndef CCREPLAY_CC_PRAGUE_SENDER_H_
#define CCREPLAY_CC_PRAGUE_SENDER_H_

#include <cstdint>
#include <memory>
#include <optional>

#include "cc/linux_tcp_sender.h"
#include "cc/round_tracker.h"

namespace ccreplay {

enum class PragueVersion { kV05, kV06, kV07 };

// prague_rtt_scaling (v0.5/v0.6). v0.7 has only the RATE law; kNone there
// is a counterfactual (no scaling, no T-gating), not a kernel setting.
enum class RttScaling { kNone, kRate, kScalable, kAdditive };

struct PragueOptions {
  ControllerOptions base;
  PragueVersion version = PragueVersion::kV07;
  RttScaling rtt_scaling = RttScaling::kRate;
  int64_t target_us = 25000;       // prague_rtt_target
  uint32_t transition_rounds = 4;  // prague_rtt_transition
};

// The module defaults of a version (target, transition, RATE).
PragueOptions DefaultPragueOptions(PragueVersion version);

class PragueSender final : public LinuxTcpSender {
 public:
  static constexpr int64_t kOneCwnd = int64_t{1} << 20;  // ONE_CWND

  explicit PragueSender(const PragueOptions& options);

  // ai_ack_increase (2^-20 units) once the transition is over, exactly as
  // the version's integer code computes it from srtt.
  static uint64_t ScaledAiAckIncrease(PragueVersion version, RttScaling scaling,
                                      int64_t target_us, int64_t srtt_us);

  std::unique_ptr<CongestionController> Clone() const override {
    return std::make_unique<PragueSender>(*this);
  }
  std::optional<double> pacing_rate_bps() const override;
  ControllerState state() const override;

  uint64_t ai_ack_increase() const { return ai_ack_increase_; }
  int64_t cwnd_cnt() const { return cwnd_cnt_; }
  uint64_t frac_cwnd() const { return frac_cwnd_; }
  uint32_t round() const { return round_; }
  double alpha() const;

 protected:
  uint32_t Ssthresh() override;
  bool HasCongControl() const override { return true; }
  void CongControl(const AckEvent& ack, uint32_t acked, uint32_t ce) override;
  void SetState(CaState new_state) override;
  void OnCaEventLoss() override { EnterLoss(); }

 private:
  bool v07() const { return options_.version == PragueVersion::kV07; }
  uint32_t alpha_bits() const { return v07() ? 24 : 20; }
  uint32_t mtu_bytes() const { return mss_bytes() + 52; }
  bool IsRttIndep() const;
  bool TargetRttElapsed() const;
  int64_t TargetRttUs() const;
  void RecomputeAi();
  void UpdateCwnd(int64_t acked, uint32_t ce, bool cwnd_limited);
  // prague_update_cwnd()'s two halves: the increase for `acked` segments
  // (frac_cwnd in v0.7, cwnd_cnt before), then snd_cwnd moved at most one
  // segment towards it.
  void AddIncrease(int64_t acked);
  void AdjustSndCwnd();
  void UpdateAlpha();
  void NewRound();
  void EnterCwr();
  void EnterLoss();
  uint32_t FracToSndCwnd() const;

  PragueOptions options_;
  uint64_t upscaled_alpha_;
  uint64_t ai_ack_increase_ = kOneCwnd;
  int64_t cwnd_cnt_ = 0;    // v0.5/v0.6 carry, 2^-20 segments
  uint64_t frac_cwnd_ = 0;  // v0.7 window, 2^-20 segments
  bool in_loss_ = false;
  bool saw_ce_ = false;
  uint32_t round_ = 0;
  RoundTracker ewma_period_;
  uint64_t old_delivered_ = 0;
  uint64_t old_delivered_ce_ = 0;
  int64_t alpha_stamp_us_ = 0;
  int64_t cwr_stamp_us_ = INT64_MIN / 2;  // no cut yet
};

}  // namespace ccreplay

#endif  // CCREPLAY_CC_PRAGUE_SENDER_H_
