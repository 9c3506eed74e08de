#include "cc/linux_bbr.h"

#include <algorithm>

namespace ccreplay {
namespace {

constexpr uint64_t kBwUnit = uint64_t{1} << LinuxBbr::kBwScale;
constexpr uint32_t kInitCwnd = 10;  // TCP_INIT_CWND
// bbr_tso_segs_goal() caps a burst at GSO_LEGACY_MAX_SIZE - 1 -
// MAX_TCP_HEADER bytes (64 KiB less the 320-byte header room of x86-64);
// it binds only above ~530 Mbit/s.
constexpr uint64_t kTsoMaxBytes = 65536 - 1 - 320;
constexpr uint32_t kPacingShift = 10;  // sk_pacing_shift default: 1 ms
constexpr uint32_t kMaxTsoSegs = 0x7F;

}  // namespace

absl::string_view BbrModeName(BbrMode mode) {
  switch (mode) {
    case BbrMode::kStartup:
      return "STARTUP";
    case BbrMode::kDrain:
      return "DRAIN";
    case BbrMode::kProbeBw:
      return "PROBE_BW";
    case BbrMode::kProbeRtt:
      return "PROBE_RTT";
  }
  return "?";
}

void WindowedMax::Reset(uint32_t time, uint32_t value) {
  s_[0] = s_[1] = s_[2] = Sample{time, value};
}

uint32_t WindowedMax::Update(uint32_t window, uint32_t time, uint32_t value) {
  const Sample sample{time, value};
  // A new max, or nothing left in the window: forget earlier samples.
  if (value >= s_[0].value || time - s_[2].time > window) {
    Reset(time, value);
    return value;
  }
  if (value >= s_[1].value) {
    s_[2] = s_[1] = sample;
  } else if (value >= s_[2].value) {
    s_[2] = sample;
  }
  return UpdateSubwindows(window, sample);
}

uint32_t WindowedMax::UpdateSubwindows(uint32_t window, const Sample& sample) {
  const uint32_t dt = sample.time - s_[0].time;
  if (dt > window) {
    // The best expired: promote the 2nd and 3rd choices (twice if the
    // 2nd expired too).
    s_[0] = s_[1];
    s_[1] = s_[2];
    s_[2] = sample;
    if (sample.time - s_[0].time > window) {
      s_[0] = s_[1];
      s_[1] = s_[2];
      s_[2] = sample;
    }
  } else if (s_[1].time == s_[0].time && dt > window / 4) {
    s_[2] = s_[1] = sample;  // a 2nd choice from the 2nd quarter
  } else if (s_[2].time == s_[1].time && dt > window / 2) {
    s_[2] = sample;  // a 3rd choice from the last half
  }
  return s_[0].value;
}

LinuxBbr::LinuxBbr(const LinuxBbrOptions& options)
    : LinuxTcpSender(options.base), bbr_options_(options) {
  bbr_options_.start_phase %= kCycleLength;
  bw_filter_.Reset(0, 0);
}

void LinuxBbr::InitOnFirstAck(const AckEvent& ack) {
  // bbr_init() runs when the connection is established, with the
  // handshake's RTT in tcp_min_rtt() and srtt; the first ACK stands in.
  initialized_ = true;
  if (ack.min_rtt_us > 0) min_rtt_us_ = static_cast<uint32_t>(ack.min_rtt_us);
  min_rtt_stamp_us_ = now_us();
  ack_aggregation_.RestartEpoch(now_us());
  ResetLtBwSampling();
  // bbr_init_pacing_rate_from_rtt(): high_gain x init cwnd / RTT (1 ms
  // without a sample).
  int64_t rtt_us = 1000;
  if (ack.srtt_us > 0) {
    rtt_us = ack.srtt_us;
    has_seen_rtt_ = true;
  }
  const uint64_t bw = uint64_t{snd_cwnd_} * kBwUnit / rtt_us;
  pacing_rate_bytes_per_sec_ = RateBytesPerSec(bw, kHighGain);
}

void LinuxBbr::CongControl(const AckEvent& ack, uint32_t acked,
                           uint32_t /*ce*/) {
  if (!initialized_) InitOnFirstAck(ack);
  if (acked > 0) delivered_mstamp_us_ = now_us();
  const RateSample rs = BbrRateSampleOf(ack, acked, mss_bytes());
  last_rs_ = rs;
  lost_packets_ += rs.losses;  // tcp_ack() marked them before bbr_main()
  // bbr_main() -> bbr_update_model().
  UpdateBw(rs);
  if (rs.acked_sacked > 0 && rs.delivered >= 0 && rs.interval_us > 0) {
    ack_aggregation_.Update(round_start_, bbr_options_.extra_acked_win_rounds,
                            delivered_mstamp_us_, bw(), rs.acked_sacked,
                            snd_cwnd_);
  }
  if (mode_ == BbrMode::kProbeBw && IsNextCyclePhase(rs)) AdvanceCyclePhase();
  CheckFullBwReached(rs);
  CheckDrain();
  UpdateMinRtt(rs);
  UpdateGains();
  SetPacingRate(bw(), pacing_gain_);
  SetCwnd(rs, bw(), cwnd_gain_);
}

void LinuxBbr::UpdateBw(const RateSample& rs) {
  round_start_ = false;
  if (rs.delivered < 0 || rs.interval_us <= 0) return;  // not valid
  // A round ends when the packet acked was sent after the round began.
  if (rs.prior_delivered >= next_rtt_delivered_) {
    next_rtt_delivered_ = delivered_packets();
    ++rtt_cnt_;
    round_start_ = true;
    packet_conservation_ = false;
  }
  LtBwSampling(rs);
  const uint64_t sample = static_cast<uint64_t>(rs.delivered) * kBwUnit /
                          static_cast<uint64_t>(rs.interval_us);
  const auto bw_sample =
      static_cast<uint32_t>(std::min<uint64_t>(sample, UINT32_MAX));
  // App-limited samples only when they do not lower the estimate.
  if (!rs.app_limited || bw_sample >= max_bw()) {
    bw_filter_.Update(kBwFilterRounds, rtt_cnt_, bw_sample);
  }
}

// Token-bucket policers are common (Flach et al., "An Internet-Wide
// Analysis of Traffic Policing", SIGCOMM 2016): two consecutive intervals
// of 4..16 rounds, each ended by a loss, with >= 20 % loss and consistent
// delivery rates mean a policer; lt_bw, their average, is then used for 48
// rounds (bbr_lt_bw_sampling()).
void LinuxBbr::LtBwSampling(const RateSample& rs) {
  if (lt_use_bw_) {
    if (mode_ == BbrMode::kProbeBw && round_start_ &&
        ++lt_rtt_cnt_ >= kLtBwMaxRounds) {
      ResetLtBwSampling();  // stop using lt_bw
      ResetProbeBwMode();   // restart gain cycling
    }
    return;
  }
  // Sample from the first loss on, when the policer's tokens are spent.
  if (!lt_is_sampling_) {
    if (rs.losses == 0) return;
    ResetLtBwSamplingInterval();
    lt_is_sampling_ = true;
  }
  if (rs.app_limited) {  // out of data: the rate would be underestimated
    ResetLtBwSampling();
    return;
  }
  if (round_start_) ++lt_rtt_cnt_;
  if (lt_rtt_cnt_ < kLtIntervalMinRounds) return;
  if (lt_rtt_cnt_ > 4 * kLtIntervalMinRounds) {
    ResetLtBwSampling();  // interval too long
    return;
  }
  if (rs.losses == 0) return;  // end the interval on a loss
  const uint64_t lost = lost_packets_ - lt_last_lost_;
  const uint64_t delivered = delivered_packets() - lt_last_delivered_;
  if (delivered == 0 || (lost << kBbrScale) < kLtLossThresh * delivered) {
    return;
  }
  const int64_t t_ms = delivered_mstamp_us_ / 1000 - lt_last_stamp_ms_;
  if (t_ms < 1) return;  // less than a millisecond: wait
  lt_loss_ratio_ = static_cast<double>(lost) / static_cast<double>(delivered);
  const uint64_t bw = delivered * kBwUnit / static_cast<uint64_t>(t_ms * 1000);
  LtBwIntervalDone(static_cast<uint32_t>(std::min<uint64_t>(bw, UINT32_MAX)));
}

// bbr_lt_bw_interval_done(): a second interval within 1/8 or 4 kbit/s of
// the first one's rate means a policer.
void LinuxBbr::LtBwIntervalDone(uint32_t bw) {
  if (lt_bw_ > 0) {
    const uint32_t diff = bw > lt_bw_ ? bw - lt_bw_ : lt_bw_ - bw;
    if (uint64_t{diff} * kBbrUnit <= uint64_t{kLtBwRatio} * lt_bw_ ||
        RateBytesPerSec(diff, kBbrUnit) <= kLtBwDiffBytesPerSec) {
      lt_bw_ = static_cast<uint32_t>((uint64_t{bw} + lt_bw_) >> 1);
      lt_use_bw_ = true;
      pacing_gain_ = kBbrUnit;  // try to avoid drops
      lt_rtt_cnt_ = 0;
      return;
    }
  }
  lt_bw_ = bw;
  ResetLtBwSamplingInterval();
}

void LinuxBbr::ResetLtBwSampling() {
  lt_bw_ = 0;
  lt_use_bw_ = false;
  lt_is_sampling_ = false;
  ResetLtBwSamplingInterval();
}

void LinuxBbr::ResetLtBwSamplingInterval() {
  lt_last_stamp_ms_ = delivered_mstamp_us_ / 1000;
  lt_last_delivered_ = delivered_packets();
  lt_last_lost_ = lost_packets_;
  lt_rtt_cnt_ = 0;
}

bool LinuxBbr::IsNextCyclePhase(const RateSample& rs) const {
  // bbr_is_next_cycle_phase(): a probe phase ends at one min RTT once
  // inflight reached its target or packets were lost.
  const bool is_full_length =
      delivered_mstamp_us_ - cycle_mstamp_us_ > int64_t{min_rtt_us_};
  if (pacing_gain_ == kBbrUnit) return is_full_length;
  const uint32_t inflight = PacketsInNetAtEdt(rs.prior_in_flight);
  if (pacing_gain_ > kBbrUnit) {
    return is_full_length &&
           (rs.losses > 0 || inflight >= Inflight(max_bw(), pacing_gain_));
  }
  return is_full_length || inflight <= Inflight(max_bw(), kBbrUnit);
}

void LinuxBbr::AdvanceCyclePhase() {
  cycle_idx_ = (cycle_idx_ + 1) % kCycleLength;
  cycle_mstamp_us_ = delivered_mstamp_us_;
}

void LinuxBbr::ResetProbeBwMode() {
  mode_ = BbrMode::kProbeBw;
  // The kernel's random cycle_idx, then one advance, lands on start_phase.
  cycle_idx_ = (bbr_options_.start_phase + kCycleLength - 1) % kCycleLength;
  AdvanceCyclePhase();
}

void LinuxBbr::CheckFullBwReached(const RateSample& rs) {
  if (full_bw_reached_ || !round_start_ || rs.app_limited) return;
  const uint64_t threshold = (uint64_t{full_bw_} * kFullBwThresh) >> kBbrScale;
  if (max_bw() >= threshold) {
    full_bw_ = max_bw();
    full_bw_cnt_ = 0;
    return;
  }
  ++full_bw_cnt_;
  full_bw_reached_ = full_bw_cnt_ >= bbr_options_.full_bw_cnt;
}

void LinuxBbr::CheckDrain() {
  if (mode_ == BbrMode::kStartup && full_bw_reached_) {
    mode_ = BbrMode::kDrain;
    snd_ssthresh_ = Inflight(max_bw(), kBbrUnit);
  }
  if (mode_ == BbrMode::kDrain &&
      PacketsInNetAtEdt(static_cast<uint32_t>(packets_in_flight())) <=
          Inflight(max_bw(), kBbrUnit)) {
    ResetProbeBwMode();  // the queue is estimated drained
  }
}

void LinuxBbr::UpdateMinRtt(const RateSample& rs) {
  const bool filter_expired = now_us() > min_rtt_stamp_us_ + kMinRttWindowUs;
  if (rs.rtt_us >= 0 && (rs.rtt_us <= int64_t{min_rtt_us_} || filter_expired)) {
    min_rtt_us_ = static_cast<uint32_t>(rs.rtt_us);
    min_rtt_stamp_us_ = now_us();
  }
  if (bbr_options_.probe_rtt_mode_us > 0 && filter_expired && !idle_restart_ &&
      mode_ != BbrMode::kProbeRtt) {
    mode_ = BbrMode::kProbeRtt;  // dip, drain the queue
    SaveCwnd();
    probe_rtt_done_stamp_us_.reset();
  }
  if (mode_ == BbrMode::kProbeRtt) {
    // Hold at most 4 packets for max(200 ms, one round).
    if (!probe_rtt_done_stamp_us_.has_value() &&
        packets_in_flight() <= kCwndMinTarget) {
      probe_rtt_done_stamp_us_ = now_us() + bbr_options_.probe_rtt_mode_us;
      probe_rtt_round_done_ = false;
      next_rtt_delivered_ = delivered_packets();
    } else if (probe_rtt_done_stamp_us_.has_value()) {
      if (round_start_) probe_rtt_round_done_ = true;
      if (probe_rtt_round_done_) CheckProbeRttDone();
    }
  }
  if (rs.delivered > 0) idle_restart_ = false;
}

void LinuxBbr::CheckProbeRttDone() {
  if (!probe_rtt_done_stamp_us_.has_value() ||
      now_us() <= *probe_rtt_done_stamp_us_) {
    return;
  }
  min_rtt_stamp_us_ = now_us();  // wait a while until the next PROBE_RTT
  snd_cwnd_ = std::max(snd_cwnd_, prior_cwnd_);
  if (full_bw_reached_) {
    ResetProbeBwMode();
  } else {
    mode_ = BbrMode::kStartup;
  }
}

void LinuxBbr::UpdateGains() {
  switch (mode_) {
    case BbrMode::kStartup:
      pacing_gain_ = kHighGain;
      cwnd_gain_ = kHighGain;
      break;
    case BbrMode::kDrain:
      pacing_gain_ = kDrainGain;
      cwnd_gain_ = kHighGain;  // keep cwnd
      break;
    case BbrMode::kProbeBw:
      // A policed flow holds its rate (lt_use_bw).
      pacing_gain_ = lt_use_bw_ ? kBbrUnit : kPacingGainCycle[cycle_idx_];
      cwnd_gain_ = kCwndGain;
      break;
    case BbrMode::kProbeRtt:
      pacing_gain_ = kBbrUnit;
      cwnd_gain_ = kBbrUnit;
      break;
  }
}

void LinuxBbr::SaveCwnd() {
  // bbr_save_cwnd(): the last known good cwnd, to restore after loss
  // recovery or PROBE_RTT.
  if (Rank(prev_ca_state_) < Rank(CaState::kRecovery) &&
      mode_ != BbrMode::kProbeRtt) {
    prior_cwnd_ = snd_cwnd_;
  } else {
    prior_cwnd_ = std::max(prior_cwnd_, snd_cwnd_);
  }
}

void LinuxBbr::SetPacingRate(uint32_t bw, uint32_t gain) {
  const uint64_t rate = RateBytesPerSec(bw, gain);
  if (!has_seen_rtt_ && srtt_us() > 0) {
    has_seen_rtt_ = true;
    pacing_rate_bytes_per_sec_ =
        RateBytesPerSec(uint64_t{snd_cwnd_} * kBwUnit / srtt_us(), kHighGain);
  }
  if (full_bw_reached_ || rate > pacing_rate_bytes_per_sec_) {
    pacing_rate_bytes_per_sec_ = rate;
  }
}

bool LinuxBbr::RecoverOrRestore(const RateSample& rs, uint32_t in_flight,
                                uint32_t* new_cwnd) {
  // bbr_set_cwnd_to_recover_or_restore(): packet conservation in the
  // first round of Recovery, the saved cwnd back when it ends.
  const CaState state = ca_state();
  uint32_t cwnd = snd_cwnd_;
  // An ACK for P packets releases at most 2P: the losses come off first.
  if (rs.losses > 0) cwnd = std::max<int64_t>(int64_t{cwnd} - rs.losses, 1);
  if (state == CaState::kRecovery && prev_ca_state_ != CaState::kRecovery) {
    packet_conservation_ = true;
    next_rtt_delivered_ = delivered_packets();  // start a round now
    cwnd = in_flight + rs.acked_sacked;
  } else if (Rank(prev_ca_state_) >= Rank(CaState::kRecovery) &&
             Rank(state) < Rank(CaState::kRecovery)) {
    cwnd = std::max(cwnd, prior_cwnd_);
    packet_conservation_ = false;
  }
  prev_ca_state_ = state;
  if (packet_conservation_) {
    *new_cwnd = std::max(cwnd, in_flight + rs.acked_sacked);
    return true;
  }
  *new_cwnd = cwnd;
  return false;
}

void LinuxBbr::SetCwnd(const RateSample& rs, uint32_t bw, uint32_t gain) {
  uint32_t cwnd = snd_cwnd_;
  if (rs.acked_sacked > 0 &&
      !RecoverOrRestore(rs, static_cast<uint32_t>(packets_in_flight()),
                        &cwnd)) {
    // bbr_ack_aggregation_cwnd(), only once the pipe was full in v1.
    const uint32_t aggregation =
        full_bw_reached_
            ? ack_aggregation_.Cwnd(bw, bbr_options_.extra_acked_max_us)
            : 0;
    uint32_t target = Bdp(bw, gain) + aggregation;
    target = QuantizationBudget(target);
    // Slow start toward the target; cut to it only once the pipe was full.
    if (full_bw_reached_) {
      cwnd = std::min(cwnd + rs.acked_sacked, target);
    } else if (cwnd < target || delivered_packets() < kInitCwnd) {
      cwnd += rs.acked_sacked;
    }
    cwnd = std::max(cwnd, kCwndMinTarget);
  }
  snd_cwnd_ = cwnd;
  if (mode_ == BbrMode::kProbeRtt) {
    snd_cwnd_ = std::min(snd_cwnd_, kCwndMinTarget);
  }
}

uint32_t LinuxBbr::Ssthresh() {
  SaveCwnd();  // bbr_ssthresh(): entering recovery, keep ssthresh
  return snd_ssthresh_;
}

void LinuxBbr::SetState(CaState new_state) {
  if (new_state != CaState::kLoss) return;
  // bbr_set_state(): an RTO ends the round and restarts full-bw detection.
  prev_ca_state_ = CaState::kLoss;
  full_bw_ = 0;
  round_start_ = true;
  RateSample rs;
  rs.losses = 1;
  LtBwSampling(rs);
}

void LinuxBbr::ReduceOnRecoveryEntry(uint32_t acked, bool /*data_acked*/,
                                     uint64_t in_flight) {
  // The kernel enters Recovery before bbr_main() on the ACK that reveals the
  // loss; redo that ACK's bbr_set_cwnd() as it would run in Recovery.
  if (acked == 0) return;
  RateSample rs;
  rs.acked_sacked = acked;
  uint32_t cwnd = snd_cwnd_;
  RecoverOrRestore(rs, static_cast<uint32_t>(in_flight), &cwnd);
  snd_cwnd_ =
      mode_ == BbrMode::kProbeRtt ? std::min(cwnd, kCwndMinTarget) : cwnd;
}

void LinuxBbr::OnTxStart(const IdleRestartEvent& idle) {
  // bbr_cwnd_event(CA_EVENT_TX_START) acts only for an app-limited sender
  // ("event == CA_EVENT_TX_START && tp->app_limited"): a bulk sender whose
  // whole flight one ACK (after an ACK gap) cleared keeps its ACK
  // aggregation epoch, and with it the burst's extra_acked.
  if (!idle.app_limited) return;
  idle_restart_ = true;
  ack_aggregation_.RestartEpoch(now_us());
  if (mode_ == BbrMode::kProbeBw) {
    SetPacingRate(bw(), kBbrUnit);
  } else if (mode_ == BbrMode::kProbeRtt) {
    CheckProbeRttDone();
  }
}

uint64_t LinuxBbr::RateBytesPerSec(uint64_t rate, uint32_t gain) const {
  return BbrRateBytesPerSec(rate, mss_bytes(), gain);
}

uint32_t LinuxBbr::Bdp(uint32_t bw, uint32_t gain) const {
  if (min_rtt_us_ == UINT32_MAX) return kInitCwnd;  // no RTT sample yet
  return BbrBdpPackets(bw, min_rtt_us_, gain);
}

uint32_t LinuxBbr::TsoSegsGoal() const {
  const uint64_t bytes =
      std::min(pacing_rate_bytes_per_sec_ >> kPacingShift, kTsoMaxBytes);
  const uint32_t min_segs =
      pacing_rate_bytes_per_sec_ < kMinTsoRateBps / 8 ? 1 : 2;
  const auto segs = std::max(
      static_cast<uint32_t>(bytes / std::max<uint32_t>(mss_bytes(), 1)),
      min_segs);
  return std::min(segs, kMaxTsoSegs);
}

uint32_t LinuxBbr::QuantizationBudget(uint32_t cwnd) const {
  // One skb each in the sender's qdisc, its TSO engine and the receiver's
  // GRO/delayed-ACK engine; even, so that delayed ACKs do not stall; two
  // more in the 1.25 phase so that probing exceeds the BDP.
  cwnd += 3 * TsoSegsGoal();
  cwnd = (cwnd + 1) & ~1u;
  if (mode_ == BbrMode::kProbeBw && cycle_idx_ == 0) cwnd += 2;
  return cwnd;
}

uint32_t LinuxBbr::Inflight(uint32_t bw, uint32_t gain) const {
  return QuantizationBudget(Bdp(bw, gain));
}

uint32_t LinuxBbr::PacketsInNetAtEdt(uint32_t inflight_now) const {
  // The earliest departure time is taken as now (see the header), so
  // nothing is delivered before it.
  if (pacing_gain_ > kBbrUnit) return inflight_now + TsoSegsGoal();
  return inflight_now;
}

double LinuxBbr::bw_bps() const { return BwToBps(bw()); }

double LinuxBbr::BwToBps(uint32_t bw) const {
  return BbrBwToBps(bw, mss_bytes());
}

std::optional<uint32_t> LinuxBbr::min_rtt_us() const {
  if (min_rtt_us_ == UINT32_MAX) return std::nullopt;
  return min_rtt_us_;
}

std::optional<double> LinuxBbr::pacing_rate_bps() const {
  if (!initialized_) return std::nullopt;
  return 8.0 * static_cast<double>(pacing_rate_bytes_per_sec_);
}

ControllerState LinuxBbr::state() const {
  ControllerState s = LinuxTcpSender::state();
  s.phase = BbrReportPhase(s.phase, mode_);
  return s;
}

double BbrBwToBps(uint32_t bw, uint32_t mss_bytes) {
  const uint64_t bytes_per_sec =
      (uint64_t{bw} * mss_bytes * 1'000'000) >> LinuxBbr::kBwScale;
  return 8.0 * static_cast<double>(bytes_per_sec);
}

uint64_t BbrRateBytesPerSec(uint64_t bw, uint32_t mss_bytes, uint32_t gain) {
  uint64_t rate = bw * mss_bytes;
  rate *= gain;
  rate >>= LinuxBbr::kBbrScale;
  rate *= 1'000'000 / 100 * (100 - LinuxBbr::kPacingMarginPercent);
  return rate >> LinuxBbr::kBwScale;
}

uint32_t BbrBdpPackets(uint32_t bw, uint32_t min_rtt_us, uint32_t gain) {
  const uint64_t w = uint64_t{bw} * min_rtt_us;
  return static_cast<uint32_t>(
      (((w * gain) >> LinuxBbr::kBbrScale) + kBwUnit - 1) / kBwUnit);
}

Phase BbrReportPhase(Phase phase, BbrMode mode) {
  if (phase != Phase::kSlowStart && phase != Phase::kCongestionAvoidance) {
    return phase;
  }
  return mode == BbrMode::kStartup ? Phase::kSlowStart
                                   : Phase::kCongestionAvoidance;
}

}  // namespace ccreplay
