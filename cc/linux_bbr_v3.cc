#include "cc/linux_bbr_v3.h"

#include <algorithm>

namespace ccreplay {
namespace {

constexpr uint64_t kBwUnit = uint64_t{1} << LinuxBbrV3::kBwScale;
constexpr uint32_t kBbrUnit = LinuxBbrV3::kBbrUnit;
constexpr uint32_t kUnset = LinuxBbrV3::kUnset;
// bbr_tso_segs_generic(): GSO_LEGACY_MAX_SIZE - 1 - MAX_TCP_HEADER bytes at
// most, the min-RTT allowance halved every 2^9 µs, sysctl_tcp_min_tso_segs.
constexpr uint64_t kGsoMaxBytes = 65536;
constexpr uint64_t kTsoMaxBytes = kGsoMaxBytes - 1 - 320;
constexpr uint32_t kTsoRttShift = 9;
constexpr uint32_t kPacingShift = 10;
constexpr uint32_t kMinTsoSegs = 2;

uint32_t Scale(uint64_t value, uint32_t gain) {
  return static_cast<uint32_t>(
      std::min<uint64_t>((value * gain) >> LinuxBbrV3::kBbrScale, kUnset));
}

}  // namespace

absl::string_view BbrV3PhaseName(BbrV3Phase phase) {
  switch (phase) {
    case BbrV3Phase::kUp:
      return "PROBE_UP";
    case BbrV3Phase::kDown:
      return "PROBE_DOWN";
    case BbrV3Phase::kCruise:
      return "PROBE_CRUISE";
    case BbrV3Phase::kRefill:
      return "PROBE_REFILL";
  }
  return "?";
}

LinuxBbrV3::LinuxBbrV3(const LinuxBbrV3Options& options)
    : LinuxTcpSender(options.base), v3_options_(options) {}

LinuxBbrV3::RateSample LinuxBbrV3::ToRateSample(const AckEvent& ack,
                                                uint32_t acked,
                                                uint32_t ce) const {
  RateSample rs;
  static_cast<BbrRateSample&>(rs) = BbrRateSampleOf(ack, acked, mss_bytes());
  rs.delivered_ce = ce;
  rs.is_ece = HasCeFeedback(ack);
  rs.cwnd_limited = IsCwndLimited(ack);
  // bbr_calculate_bw_sample(): rounded up, to allow growth at low rates.
  if (rs.interval_us > 0 && rs.delivered >= 0) {
    const uint64_t interval = static_cast<uint64_t>(rs.interval_us);
    const uint64_t bw =
        (static_cast<uint64_t>(rs.delivered) * kBwUnit + interval - 1) /
        interval;
    rs.sample_bw = static_cast<uint32_t>(std::min<uint64_t>(bw, kUnset));
  }
  return rs;
}

void LinuxBbrV3::InitOnFirstAck(const AckEvent& ack) {
  // bbr_init() at connection setup; the first ACK stands in (as bbr:linux).
  initialized_ = true;
  init_cwnd_ = std::min(0x7Fu, snd_cwnd_);
  if (ack.min_rtt_us > 0) {
    min_rtt_us_ = probe_rtt_min_us_ = static_cast<uint32_t>(ack.min_rtt_us);
  }
  min_rtt_stamp_us_ = probe_rtt_min_stamp_us_ = now_us();
  ack_aggregation_.RestartEpoch(now_us());
  next_rtt_delivered_ = delivered_packets();
  // "Start sampling ECN mark rate after first full flight is ACKed."
  loss_round_delivered_ = delivered_packets() + 1;
  int64_t rtt_us = 1000;
  if (ack.srtt_us > 0) {
    rtt_us = ack.srtt_us;
    has_seen_rtt_ = true;
  }
  pacing_rate_bytes_per_sec_ = RateBytesPerSec(
      uint64_t{snd_cwnd_} * kBwUnit / rtt_us, kStartupPacingGain);
}

void LinuxBbrV3::CongControl(const AckEvent& ack, uint32_t acked, uint32_t ce) {
  if (!initialized_) InitOnFirstAck(ack);
  if (acked > 0) delivered_mstamp_us_ = now_us();
  const RateSample rs = ToRateSample(ack, acked, ce);
  // bbr_main().
  UpdateRoundStart(rs);
  if (round_start_) {
    rounds_since_probe_ = std::min(rounds_since_probe_ + 1, 0xFFu);
    UpdateEcnAlpha();
  }
  ecn_in_round_ |= ecn_eligible_ && rs.is_ece;
  UpdateLatestDeliverySignals(rs);
  // bbr_update_model().
  UpdateCongestionSignals(rs);
  if (rs.acked_sacked > 0 && rs.delivered >= 0 && rs.interval_us > 0) {
    // A 1-round window before the pipe is full, 5 after.
    ack_aggregation_.Update(
        round_start_, full_bw_reached_ ? BbrAckAggregation::kWindowRounds : 1,
        delivered_mstamp_us_, bw(), rs.acked_sacked, snd_cwnd_);
  }
  CheckLossTooHighInStartup(rs);
  CheckFullBwReached(rs);
  CheckDrain();
  UpdateCyclePhase(rs);
  UpdateMinRtt(rs);
  // Control.
  UpdateGains();
  SetPacingRate(bw(), pacing_gain_);
  SetCwnd(rs, bw(), cwnd_gain_);
  BoundCwndForInflightModel();
  // bbr_advance_latest_delivery_signals(): a new round's filter.
  if (loss_round_start_) {
    bw_latest_ = rs.sample_bw;
    inflight_latest_ =
        static_cast<uint32_t>(std::max<int64_t>(rs.delivered, 0));
  }
  prev_ca_state_ = ca_state();
  loss_in_cycle_ |= rs.lost > 0;
  ecn_in_cycle_ |= rs.delivered_ce > 0;
}

void LinuxBbrV3::UpdateRoundStart(const RateSample& rs) {
  round_start_ = false;
  if (rs.interval_us > 0 && rs.prior_delivered >= next_rtt_delivered_) {
    next_rtt_delivered_ = delivered_packets();
    round_start_ = true;
  }
}

void LinuxBbrV3::UpdateLatestDeliverySignals(const RateSample& rs) {
  loss_round_start_ = false;
  if (rs.interval_us <= 0 || rs.acked_sacked == 0) return;
  bw_latest_ = std::max(bw_latest_, rs.sample_bw);
  inflight_latest_ =
      std::max(inflight_latest_,
               static_cast<uint32_t>(std::max<int64_t>(rs.delivered, 0)));
  if (rs.prior_delivered >= loss_round_delivered_) {
    loss_round_delivered_ = delivered_packets();
    loss_round_start_ = true;
  }
}

void LinuxBbrV3::UpdateCongestionSignals(const RateSample& rs) {
  if (rs.interval_us <= 0 || rs.acked_sacked == 0) return;
  // The max filter's current window (bbr_take_max_bw_sample()).
  if (!rs.app_limited || rs.sample_bw >= max_bw()) {
    bw_hi_[1] = std::max(bw_hi_[1], rs.sample_bw);
  }
  loss_in_round_ |= rs.losses > 0;
  if (!loss_round_start_) return;
  AdaptLowerBounds();
  loss_in_round_ = false;
  ecn_in_round_ = false;
}

void LinuxBbrV3::AdaptLowerBounds() {
  // bbr_adapt_lower_bounds(): once per round, outside bandwidth probing,
  // cut toward what the path delivered in the last round.
  if (IsProbingBandwidth()) return;
  uint32_t ecn_inflight_lo = kUnset;
  if (ecn_in_round_) {
    if (inflight_lo_ == kUnset) inflight_lo_ = snd_cwnd_;
    ecn_inflight_lo =
        Scale(inflight_lo_, kBbrUnit - Scale(ecn_alpha_, kEcnFactor));
  }
  if (loss_in_round_) {
    if (bw_lo_ == kUnset) bw_lo_ = max_bw();
    if (inflight_lo_ == kUnset) inflight_lo_ = snd_cwnd_;
    bw_lo_ = std::max(bw_latest_, Scale(bw_lo_, kBbrUnit - kBeta));
    inflight_lo_ =
        std::max(inflight_latest_, Scale(inflight_lo_, kBbrUnit - kBeta));
  }
  inflight_lo_ = std::min(inflight_lo_, ecn_inflight_lo);
  bw_lo_ = std::max(1u, bw_lo_);
}

void LinuxBbrV3::ResetLowerBounds() {
  bw_lo_ = kUnset;
  inflight_lo_ = kUnset;
}

void LinuxBbrV3::ResetCongestionSignals() {
  loss_in_round_ = ecn_in_round_ = false;
  loss_in_cycle_ = ecn_in_cycle_ = false;
  bw_latest_ = 0;
  inflight_latest_ = 0;
}

int LinuxBbrV3::UpdateEcnAlpha() {
  // bbr_update_ecn_alpha(): DCTCP's EWMA of the CE fraction, g = 1/16,
  // once per round, on a shallow-threshold path at low RTT only.
  if (!ecn_eligible_ && v3_options_.ecn_low && min_rtt_us_ <= kEcnMaxRttUs) {
    ecn_eligible_ = true;
  }
  if (!ecn_eligible_) return -1;
  const uint64_t delivered = delivered_packets() - alpha_last_delivered_;
  const uint64_t delivered_ce =
      delivered_ce_packets() - alpha_last_delivered_ce_;
  if (delivered == 0) return -1;
  const uint32_t ce_ratio =
      static_cast<uint32_t>((delivered_ce << kBbrScale) / delivered);
  const uint32_t alpha = Scale(ecn_alpha_, kBbrUnit - kEcnAlphaGain) +
                         Scale(ce_ratio, kEcnAlphaGain);
  ecn_alpha_ = std::min(alpha, kBbrUnit);
  alpha_last_delivered_ = delivered_packets();
  alpha_last_delivered_ce_ = delivered_ce_packets();
  // bbr_check_ecn_too_high_in_startup().
  if (!full_bw_reached_) {
    startup_ecn_rounds_ = ce_ratio >= kEcnThresh ? startup_ecn_rounds_ + 1 : 0;
    if (startup_ecn_rounds_ >= kFullEcnCount) HandleQueueTooHighInStartup();
  }
  return static_cast<int>(ce_ratio);
}

void LinuxBbrV3::CheckLossTooHighInStartup(const RateSample& rs) {
  // STARTUP ends at a round of Recovery with >= 6 loss events whose loss
  // rate is above 2 %.
  if (full_bw_reached_) return;
  if (rs.losses > 0 && loss_events_in_round_ < 0xF) ++loss_events_in_round_;
  if (loss_round_start_ && ca_state() == CaState::kRecovery &&
      loss_events_in_round_ >= kFullLossCount && IsInflightTooHigh(rs)) {
    HandleQueueTooHighInStartup();
    return;
  }
  if (loss_round_start_) loss_events_in_round_ = 0;
}

void LinuxBbrV3::HandleQueueTooHighInStartup() {
  full_bw_reached_ = true;
  inflight_hi_ = std::max(Inflight(max_bw(), kBbrUnit), inflight_latest_);
}

void LinuxBbrV3::CheckFullBwReached(const RateSample& rs) {
  // A plateau: 3 rounds without a sample 25 % above the last high.
  if (full_bw_now_ || rs.app_limited) return;
  if (rs.sample_bw >= Scale(full_bw_, kFullBwThresh)) {
    ResetFullBw();
    full_bw_ = rs.sample_bw;
    return;
  }
  if (!round_start_) return;
  ++full_bw_cnt_;
  full_bw_now_ = full_bw_cnt_ >= kFullBwCount;
  full_bw_reached_ |= full_bw_now_;
}

void LinuxBbrV3::ResetFullBw() {
  full_bw_ = 0;
  full_bw_cnt_ = 0;
  full_bw_now_ = false;
}

void LinuxBbrV3::CheckDrain() {
  if (mode_ == BbrMode::kStartup && full_bw_reached_) {
    mode_ = BbrMode::kDrain;
    snd_ssthresh_ = Inflight(max_bw(), kBbrUnit);
    ResetCongestionSignals();
  }
  if (mode_ == BbrMode::kDrain &&
      PacketsInNetAtEdt(static_cast<uint32_t>(packets_in_flight())) <=
          Inflight(max_bw(), kBbrUnit)) {
    mode_ = BbrMode::kProbeBw;
    StartProbeDown();
  }
}

void LinuxBbrV3::UpdateCyclePhase(const RateSample& rs) {
  if (!full_bw_reached_) return;
  if (AdaptUpperBounds(rs) || mode_ != BbrMode::kProbeBw) return;
  const uint32_t inflight = PacketsInNetAtEdt(rs.prior_in_flight);
  switch (phase_) {
    case BbrV3Phase::kCruise:
      CheckTimeToProbeBw();
      break;
    case BbrV3Phase::kRefill:
      // A round at the estimated bw: then samples reflect the refill.
      if (round_start_) {
        bw_probe_samples_ = true;
        StartProbeUp(rs);
      }
      break;
    case BbrV3Phase::kUp: {
      // Stop at the inflight_hi that last proved too high, or at a plateau
      // when inflight_hi is not what limits growth.
      bool done = false;
      if (prev_probe_too_high_ && inflight >= inflight_hi_) {
        stopped_risky_probe_ = true;
        done = true;
      } else if (rs.cwnd_limited && snd_cwnd_ >= inflight_hi_) {
        ResetFullBw();
        full_bw_ = rs.sample_bw;
      } else if (full_bw_now_) {
        done = true;
      }
      if (done) {
        prev_probe_too_high_ = false;
        StartProbeDown();
      }
      break;
    }
    case BbrV3Phase::kDown:
      if (CheckTimeToProbeBw()) break;
      // Cruise once the queue is drained and headroom left.
      if (inflight <= InflightWithHeadroom() &&
          inflight <= Inflight(max_bw(), kBbrUnit)) {
        StartProbeCruise();
      }
      break;
  }
}

bool LinuxBbrV3::AdaptUpperBounds(const RateSample& rs) {
  if (ack_phase_ == AckPhase::kProbeStarting && round_start_) {
    ack_phase_ = AckPhase::kProbeFeedback;
  }
  if (ack_phase_ == AckPhase::kProbeStopping && round_start_) {
    // The probe's samples are in: forget the older bw window.
    bw_probe_samples_ = false;
    ack_phase_ = AckPhase::kInit;
    if (mode_ == BbrMode::kProbeBw && !rs.app_limited && bw_hi_[1] != 0) {
      bw_hi_[0] = bw_hi_[1];
      bw_hi_[1] = 0;
    }
    if (mode_ == BbrMode::kProbeBw && stopped_risky_probe_ &&
        !prev_probe_too_high_) {
      StartProbeRefill(0);
      return true;
    }
  }
  if (IsInflightTooHigh(rs)) {
    if (bw_probe_samples_) HandleInflightTooHigh(rs);
    return false;
  }
  if (inflight_hi_ == kUnset) return false;
  // Resilience to random loss: a level seen safe raises the bound.
  if (rs.tx_in_flight > inflight_hi_) {
    inflight_hi_ = static_cast<uint32_t>(rs.tx_in_flight);
  }
  if (mode_ == BbrMode::kProbeBw && phase_ == BbrV3Phase::kUp) {
    ProbeInflightHiUpward(rs);
  }
  return false;
}

bool LinuxBbrV3::IsInflightTooHigh(const RateSample& rs) const {
  // bbr_is_inflight_too_high(): loss above 2 % of what was in flight when
  // the sampled packet left, or CE above 50 % of what was delivered.
  if (rs.lost > 0 && rs.tx_in_flight > 0 &&
      rs.lost > (rs.tx_in_flight * kLossThresh >> kBbrScale)) {
    return true;
  }
  return rs.delivered_ce > 0 && rs.delivered > 0 && ecn_eligible_ &&
         rs.delivered_ce >
             (static_cast<uint64_t>(rs.delivered) * kEcnThresh >> kBbrScale);
}

void LinuxBbrV3::HandleInflightTooHigh(const RateSample& rs) {
  prev_probe_too_high_ = true;
  bw_probe_samples_ = false;  // react once per probe
  if (!rs.app_limited) {
    inflight_hi_ = std::max(
        static_cast<uint32_t>(std::min<uint64_t>(rs.tx_in_flight, kUnset)),
        Scale(TargetInflight(), kBbrUnit - kBeta));
  }
  if (mode_ == BbrMode::kProbeBw && phase_ == BbrV3Phase::kUp) {
    StartProbeDown();
  }
}

void LinuxBbrV3::ProbeInflightHiUpward(const RateSample& rs) {
  if (!rs.cwnd_limited || snd_cwnd_ < inflight_hi_) return;
  // One packet per bw_probe_up_cnt packets acknowledged.
  bw_probe_up_acks_ += rs.acked_sacked;
  if (bw_probe_up_acks_ >= bw_probe_up_cnt_) {
    const uint32_t delta = bw_probe_up_acks_ / bw_probe_up_cnt_;
    bw_probe_up_acks_ -= delta * bw_probe_up_cnt_;
    inflight_hi_ += delta;
  }
  if (round_start_) RaiseInflightHiSlope();
}

void LinuxBbrV3::RaiseInflightHiSlope() {
  // Each round of PROBE_UP doubles the growth: 1, 2, 4, ... packets.
  const uint32_t growth_this_round = 1u << bw_probe_up_rounds_;
  bw_probe_up_rounds_ = std::min(bw_probe_up_rounds_ + 1, 30u);
  bw_probe_up_cnt_ = std::max(snd_cwnd_ / growth_this_round, 1u);
}

bool LinuxBbrV3::CheckTimeToProbeBw() {
  // ECN marks ceased in a cycle without loss: re-probe quickly.
  if (ecn_eligible_ && ecn_in_cycle_ && !loss_in_cycle_ &&
      ca_state() == CaState::kOpen && inflight_hi_ != kUnset) {
    const uint32_t target = std::max(1u, Scale(inflight_hi_, kEcnReprobeGain));
    uint32_t n = 0;
    while ((target >> (n + 1)) > 0) ++n;  // ilog2
    StartProbeRefill(n);
    return true;
  }
  // Wall clock (2-3 s) or Reno's time between losses at this BDP.
  const uint32_t rounds = std::min(kProbeMaxRounds, TargetInflight());
  if (now_us() > cycle_mstamp_us_ + kProbeWaitUs ||
      rounds_since_probe_ >= rounds) {
    StartProbeRefill(0);
    return true;
  }
  return false;
}

void LinuxBbrV3::StartProbeRefill(uint32_t probe_up_rounds) {
  ResetLowerBounds();
  bw_probe_up_rounds_ = probe_up_rounds;
  bw_probe_up_acks_ = 0;
  stopped_risky_probe_ = false;
  ack_phase_ = AckPhase::kRefilling;
  next_rtt_delivered_ = delivered_packets();
  phase_ = BbrV3Phase::kRefill;
}

void LinuxBbrV3::StartProbeUp(const RateSample& rs) {
  ack_phase_ = AckPhase::kProbeStarting;
  next_rtt_delivered_ = delivered_packets();
  cycle_mstamp_us_ = now_us();
  ResetFullBw();
  full_bw_ = rs.sample_bw;
  phase_ = BbrV3Phase::kUp;
  RaiseInflightHiSlope();
}

void LinuxBbrV3::StartProbeDown() {
  ResetCongestionSignals();
  bw_probe_up_cnt_ = kUnset;
  rounds_since_probe_ = 0;  // the kernel's rand(2), at its low end
  cycle_mstamp_us_ = now_us();
  ack_phase_ = AckPhase::kProbeStopping;
  next_rtt_delivered_ = delivered_packets();
  phase_ = BbrV3Phase::kDown;
}

void LinuxBbrV3::StartProbeCruise() {
  if (inflight_lo_ != kUnset)
    inflight_lo_ = std::min(inflight_lo_, inflight_hi_);
  phase_ = BbrV3Phase::kCruise;
}

void LinuxBbrV3::UpdateMinRtt(const RateSample& rs) {
  // Two filters: min RTT over 5 s schedules PROBE_RTT, over 10 s is the
  // model's min_rtt.
  const bool probe_rtt_expired =
      now_us() > probe_rtt_min_stamp_us_ + kProbeRttWindowUs;
  if (rs.rtt_us >= 0 &&
      (rs.rtt_us < int64_t{probe_rtt_min_us_} || probe_rtt_expired)) {
    probe_rtt_min_us_ = static_cast<uint32_t>(rs.rtt_us);
    probe_rtt_min_stamp_us_ = now_us();
  }
  const bool min_rtt_expired = now_us() > min_rtt_stamp_us_ + kMinRttWindowUs;
  if (probe_rtt_min_us_ <= min_rtt_us_ || min_rtt_expired) {
    min_rtt_us_ = probe_rtt_min_us_;
    min_rtt_stamp_us_ = probe_rtt_min_stamp_us_;
  }
  if (probe_rtt_expired && !idle_restart_ && mode_ != BbrMode::kProbeRtt) {
    mode_ = BbrMode::kProbeRtt;
    SaveCwnd();
    probe_rtt_done_stamp_us_.reset();
    ack_phase_ = AckPhase::kProbeStopping;
    next_rtt_delivered_ = delivered_packets();
  }
  if (mode_ == BbrMode::kProbeRtt) {
    if (!probe_rtt_done_stamp_us_.has_value() &&
        packets_in_flight() <= ProbeRttCwnd()) {
      probe_rtt_done_stamp_us_ = now_us() + kProbeRttModeUs;
      probe_rtt_round_done_ = false;
      next_rtt_delivered_ = delivered_packets();
    } else if (probe_rtt_done_stamp_us_.has_value()) {
      if (round_start_) probe_rtt_round_done_ = true;
      if (probe_rtt_round_done_) CheckProbeRttDone();
    }
  }
  if (rs.delivered > 0) idle_restart_ = false;
}

void LinuxBbrV3::CheckProbeRttDone() {
  if (!probe_rtt_done_stamp_us_.has_value() ||
      now_us() <= *probe_rtt_done_stamp_us_) {
    return;
  }
  probe_rtt_min_stamp_us_ = now_us();  // schedule the next PROBE_RTT
  snd_cwnd_ = std::max(snd_cwnd_, prior_cwnd_);
  ExitProbeRtt();
}

void LinuxBbrV3::ExitProbeRtt() {
  ResetLowerBounds();
  if (!full_bw_reached_) {
    mode_ = BbrMode::kStartup;
    return;
  }
  // Inflight is below the BDP now: cruise, probing later.
  mode_ = BbrMode::kProbeBw;
  StartProbeDown();
  StartProbeCruise();
}

void LinuxBbrV3::UpdateGains() {
  switch (mode_) {
    case BbrMode::kStartup:
      pacing_gain_ = kStartupPacingGain;
      cwnd_gain_ = kStartupCwndGain;
      break;
    case BbrMode::kDrain:
      pacing_gain_ = kDrainGain;
      cwnd_gain_ = kStartupCwndGain;
      break;
    case BbrMode::kProbeBw:
      pacing_gain_ = kPacingGain[static_cast<int>(phase_)];
      cwnd_gain_ = kCwndGain;
      if (phase_ == BbrV3Phase::kUp) cwnd_gain_ += kProbeUpCwndGainExtra;
      break;
    case BbrMode::kProbeRtt:
      pacing_gain_ = kBbrUnit;
      cwnd_gain_ = kBbrUnit;
      break;
  }
}

void LinuxBbrV3::SaveCwnd() {
  if (prev_ca_state_ < CaState::kRecovery && mode_ != BbrMode::kProbeRtt) {
    prior_cwnd_ = snd_cwnd_;
  } else {
    prior_cwnd_ = std::max(prior_cwnd_, snd_cwnd_);
  }
}

void LinuxBbrV3::SetPacingRate(uint32_t bw, uint32_t gain) {
  const uint64_t rate = RateBytesPerSec(bw, gain);
  if (!has_seen_rtt_ && srtt_us() > 0) {
    has_seen_rtt_ = true;
    pacing_rate_bytes_per_sec_ = RateBytesPerSec(
        uint64_t{snd_cwnd_} * kBwUnit / srtt_us(), kStartupPacingGain);
  }
  if (full_bw_reached_ || rate > pacing_rate_bytes_per_sec_) {
    pacing_rate_bytes_per_sec_ = rate;
  }
}

void LinuxBbrV3::SetCwnd(const RateSample& rs, uint32_t bw, uint32_t gain) {
  uint32_t cwnd = snd_cwnd_;
  if (rs.acked_sacked > 0) {
    const uint32_t target =
        QuantizationBudget(Bdp(bw, gain) + ack_aggregation_.Cwnd(bw));
    // Slow start toward the target; cut to it only once the pipe was full.
    if (full_bw_reached_) {
      cwnd = std::min(cwnd + rs.acked_sacked, target);
    } else if (cwnd < target || cwnd < 2 * init_cwnd_) {
      cwnd += rs.acked_sacked;
    }
    cwnd = std::max(cwnd, kCwndMinTarget);
  }
  snd_cwnd_ = cwnd;
  if (mode_ == BbrMode::kProbeRtt) {
    snd_cwnd_ = std::min(snd_cwnd_, ProbeRttCwnd());
  }
}

void LinuxBbrV3::BoundCwndForInflightModel() {
  // inflight_hi while probing (all PROBE_BW phases but CRUISE), it less
  // headroom while cruising or in PROBE_RTT; inflight_lo always.
  uint32_t cap = kUnset;
  if (mode_ == BbrMode::kProbeBw && phase_ != BbrV3Phase::kCruise) {
    cap = inflight_hi_;
  } else if (mode_ == BbrMode::kProbeRtt || mode_ == BbrMode::kProbeBw) {
    cap = InflightWithHeadroom();
  }
  cap = std::max(std::min(cap, inflight_lo_), kCwndMinTarget);
  snd_cwnd_ = std::min(cap, snd_cwnd_);
}

uint32_t LinuxBbrV3::Ssthresh() {
  SaveCwnd();
  return snd_ssthresh_;
}

void LinuxBbrV3::SetState(CaState new_state) {
  if (new_state == CaState::kLoss) {
    // An RTO: relearn full bw; loss response needs the cwnd from before.
    prev_ca_state_ = CaState::kLoss;
    ResetFullBw();
    if (!IsProbingBandwidth() && inflight_lo_ == kUnset) {
      inflight_lo_ = std::max(snd_cwnd_, prior_cwnd_);
    }
  } else if (prev_ca_state_ == CaState::kLoss) {
    snd_cwnd_ = std::max(snd_cwnd_, prior_cwnd_);  // bbr_exit_loss_recovery()
  }
}

void LinuxBbrV3::OnTxStart(const IdleRestartEvent& idle) {
  // bbr_cwnd_event(): "if (!tp->app_limited) return;" (google/bbr v3).
  if (!idle.app_limited) return;
  idle_restart_ = true;
  ack_aggregation_.RestartEpoch(now_us());
  if (mode_ == BbrMode::kProbeBw) {
    SetPacingRate(bw(), kBbrUnit);
  } else if (mode_ == BbrMode::kProbeRtt) {
    CheckProbeRttDone();
  }
}

uint64_t LinuxBbrV3::RateBytesPerSec(uint64_t rate, uint32_t gain) const {
  return std::max<uint64_t>(BbrRateBytesPerSec(rate, mss_bytes(), gain), 1);
}

uint32_t LinuxBbrV3::Bdp(uint32_t bw, uint32_t gain) const {
  if (min_rtt_us_ == kUnset) return init_cwnd_;
  return BbrBdpPackets(bw, min_rtt_us_, gain);
}

uint32_t LinuxBbrV3::TsoSegsGoal() const {
  uint64_t bytes = pacing_rate_bytes_per_sec_ >> kPacingShift;
  // 64 KB halved per 512 µs of min RTT: big bursts only on short paths.
  const uint32_t r = min_rtt_us_ >> kTsoRttShift;
  if (r < 32) bytes += kGsoMaxBytes >> r;
  bytes = std::min(bytes, kTsoMaxBytes);
  return std::max(
      static_cast<uint32_t>(bytes / std::max<uint32_t>(mss_bytes(), 1)),
      kMinTsoSegs);
}

uint32_t LinuxBbrV3::QuantizationBudget(uint32_t cwnd) const {
  cwnd = std::max({cwnd, 3 * TsoSegsGoal(), kCwndMinTarget});
  if (mode_ == BbrMode::kProbeBw && phase_ == BbrV3Phase::kUp) cwnd += 2;
  return cwnd;
}

uint32_t LinuxBbrV3::Inflight(uint32_t bw, uint32_t gain) const {
  return QuantizationBudget(Bdp(bw, gain));
}

uint32_t LinuxBbrV3::InflightWithHeadroom() const {
  if (inflight_hi_ == kUnset) return kUnset;
  const uint32_t headroom =
      std::max(1u, Scale(inflight_hi_, kInflightHeadroom));
  return std::max(inflight_hi_ > headroom ? inflight_hi_ - headroom : 0,
                  kCwndMinTarget);
}

uint32_t LinuxBbrV3::PacketsInNetAtEdt(uint32_t inflight_now) const {
  // The earliest departure time is now (as bbr:linux).
  return pacing_gain_ > kBbrUnit ? inflight_now + TsoSegsGoal() : inflight_now;
}

uint32_t LinuxBbrV3::ProbeRttCwnd() const {
  return std::max(kCwndMinTarget, Bdp(bw(), kProbeRttCwndGain));
}

bool LinuxBbrV3::IsProbingBandwidth() const {
  return mode_ == BbrMode::kStartup ||
         (mode_ == BbrMode::kProbeBw &&
          (phase_ == BbrV3Phase::kRefill || phase_ == BbrV3Phase::kUp));
}

uint32_t LinuxBbrV3::TargetInflight() const {
  return std::min(Inflight(bw(), kBbrUnit), snd_cwnd_);
}

uint32_t LinuxBbrV3::max_bw() const { return std::max(bw_hi_[0], bw_hi_[1]); }

uint32_t LinuxBbrV3::bw() const { return std::min(max_bw(), bw_lo_); }

double LinuxBbrV3::bw_bps() const { return BbrBwToBps(bw(), mss_bytes()); }

std::optional<uint32_t> LinuxBbrV3::min_rtt_us() const {
  if (min_rtt_us_ == kUnset) return std::nullopt;
  return min_rtt_us_;
}

std::optional<double> LinuxBbrV3::pacing_rate_bps() const {
  if (!initialized_) return std::nullopt;
  return 8.0 * static_cast<double>(pacing_rate_bytes_per_sec_);
}

ControllerState LinuxBbrV3::state() const {
  ControllerState s = LinuxTcpSender::state();
  s.phase = BbrReportPhase(s.phase, mode_);
  return s;
}

}  // namespace ccreplay
