#include "cc/prague_sender.h"

#include <algorithm>

#include "absl/numeric/int128.h"

namespace ccreplay {
namespace {

constexpr uint32_t kMinCwnd = 2;       // MIN_CWND
constexpr uint32_t kShiftG = 4;        // PRAGUE_SHIFT_G: g = 1/16
constexpr uint32_t kRttUnitShift = 7;  // v0.5/v0.6 RTT_UNIT: 128 us
// MAX_SCALED_RTT is 100 ms in microseconds; v0.5/v0.6 compare it with an RTT
// in 128 us units (so the cap is really 12.8 s), v0.7 with srtt_us << 3.
constexpr int64_t kMaxScaledRttUs = 100000;
constexpr uint64_t kMtuSysBytes = 1500;            // v0.7 MTU_SYS
constexpr uint64_t kMinimumRateBytesPerS = 12500;  // v0.7 MINIMUM_RATE

// round(2^20 * rtt^2 / target^2) as prague_rate_scaled_ai_ack_increase().
uint64_t RateScaled(uint64_t rtt, uint64_t target) {
  if (rtt >= target) return PragueSender::kOneCwnd;
  const absl::uint128 divisor = absl::uint128(target) * target;
  const absl::uint128 increase = (absl::uint128(rtt) << 20) * rtt;
  return absl::Uint128Low64((increase + (divisor >> 1)) / divisor);
}

}  // namespace

PragueOptions DefaultPragueOptions(PragueVersion version) {
  PragueOptions options;
  options.version = version;
  switch (version) {
    case PragueVersion::kV05:
      options.target_us = 10000;
      options.transition_rounds = 100;
      break;
    case PragueVersion::kV06:
      options.target_us = 25000;
      options.transition_rounds = 500;
      break;
    case PragueVersion::kV07:
      options.target_us = 25000;
      options.transition_rounds = 4;
      break;
  }
  return options;
}

uint64_t PragueSender::ScaledAiAckIncrease(PragueVersion version,
                                           RttScaling scaling,
                                           int64_t target_us, int64_t srtt_us) {
  if (version == PragueVersion::kV07) {
    // srtt_us and the target are compared in the kernel's 1/8 us units.
    if (scaling == RttScaling::kNone) return kOneCwnd;
    return RateScaled(uint64_t(srtt_us) << 3, uint64_t(target_us) << 3);
  }
  const uint64_t rtt = uint64_t(srtt_us) >> kRttUnitShift;
  const uint64_t target = uint64_t(target_us) >> kRttUnitShift;
  switch (scaling) {
    case RttScaling::kNone:
      return kOneCwnd;
    case RttScaling::kRate:
      return RateScaled(rtt, target);
    case RttScaling::kAdditive:  // prague_dynamic_rtt_target(): T + srtt
      return RateScaled(rtt, target + rtt);
    case RttScaling::kScalable: {
      // prague_scalable_ai_ack_increase(): R0 ~= 16 ms, R1 ~= 1.5 ms.
      const uint64_t r0 = (1 << 14) >> kRttUnitShift;
      const uint64_t r1 = ((1 << 10) + (1 << 9)) >> kRttUnitShift;
      uint64_t increase = (kOneCwnd >> 3) * r0;
      increase += kOneCwnd * std::min(rtt > r1 ? rtt - r1 : 0, r0);
      increase *= rtt;
      const uint64_t divisor = r0 * r0;
      return (increase + (divisor >> 1)) / divisor;
    }
  }
  return kOneCwnd;
}

PragueSender::PragueSender(const PragueOptions& options)
    : LinuxTcpSender(options.base),
      options_(options),
      // v0.5/v0.6 start at alpha = 1; v0.7 (alpha_mode 0) at 0.
      upscaled_alpha_(options.version == PragueVersion::kV07
                          ? 0
                          : (uint64_t{1} << 20) << kShiftG) {
  frac_cwnd_ = uint64_t{snd_cwnd_} << 20;
}

double PragueSender::alpha() const {
  return static_cast<double>(upscaled_alpha_ >> kShiftG) /
         static_cast<double>(uint64_t{1} << alpha_bits());
}

bool PragueSender::IsRttIndep() const {
  return options_.rtt_scaling != RttScaling::kNone && !InSlowStart() &&
         round_ >= options_.transition_rounds;
}

int64_t PragueSender::TargetRttUs() const {
  if (v07()) return options_.target_us;
  int64_t units = options_.target_us >> kRttUnitShift;
  if (options_.rtt_scaling == RttScaling::kAdditive) {
    units += srtt_us() >> kRttUnitShift;
  }
  return units << kRttUnitShift;
}

bool PragueSender::TargetRttElapsed() const {
  return TargetRttUs() <= now_us() - alpha_stamp_us_;
}

void PragueSender::RecomputeAi() {
  // prague_ai_ack_increase().
  const int64_t rtt = v07() ? srtt_us() << 3 : srtt_us() >> kRttUnitShift;
  const int64_t max_rtt = v07() ? kMaxScaledRttUs << 3 : kMaxScaledRttUs;
  if (options_.rtt_scaling == RttScaling::kNone ||
      round_ < options_.transition_rounds || rtt == 0 || rtt > max_rtt) {
    ai_ack_increase_ = kOneCwnd;
    return;
  }
  ai_ack_increase_ = ScaledAiAckIncrease(options_.version, options_.rtt_scaling,
                                         options_.target_us, srtt_us());
}

uint32_t PragueSender::Ssthresh() {
  // v0.5 prague_ssthresh() returns max(cwnd, ssthresh); later ssthresh.
  if (options_.version == PragueVersion::kV05) {
    return std::max(snd_cwnd_, snd_ssthresh_);
  }
  return snd_ssthresh_;
}

void PragueSender::CongControl(const AckEvent& ack, uint32_t acked,
                               uint32_t ce) {
  // prague_cong_control(): update_cwnd, then the EWMA if its period is over.
  const bool e2e_rtt_elapsed = ewma_period_.OnAck(ack.bytes_acked);
  UpdateCwnd(acked, ce, ack.cwnd_limited);
  if (e2e_rtt_elapsed && (options_.rtt_scaling == RttScaling::kNone ||
                          !IsRttIndep() || TargetRttElapsed())) {
    UpdateAlpha();
  }
}

void PragueSender::UpdateCwnd(int64_t acked, uint32_t ce, bool cwnd_limited) {
  if (ce > 0) {
    if (v07() && !saw_ce_) frac_cwnd_ = (frac_cwnd_ + 1) >> 1;
    saw_ce_ = true;
    acked -= ce;  // increase only for segments that were not CE-marked
  }
  const bool no_increase =
      acked <= 0 || !cwnd_limited ||
      (options_.version != PragueVersion::kV05 && in_loss_);
  if (!no_increase) {
    if (InSlowStart()) {
      acked = SlowStart(static_cast<uint32_t>(acked));
      if (v07()) frac_cwnd_ = uint64_t{snd_cwnd_} << 20;
      if (acked == 0) {
        RecomputeAi();  // prague_cwnd_changed()
        return;
      }
    }
    AddIncrease(acked);
  }
  AdjustSndCwnd();
}

void PragueSender::AddIncrease(int64_t acked) {
  if (v07()) {
    absl::uint128 increase =
        absl::uint128(static_cast<uint64_t>(acked)) * ai_ack_increase_;
    if (frac_cwnd_ != 0) {
      increase = ((increase << 20) + frac_cwnd_ / 2) / frac_cwnd_;
    }
    increase = increase * kMtuSysBytes / mtu_bytes();
    frac_cwnd_ += std::max<uint64_t>(acked, absl::Uint128Low64(increase));
  } else {
    // round(acked * ai / cwnd); normalized, times reference / mss (the
    // same rounding: with reference = mss this is the kernel's formula).
    const uint64_t growth = options_.base.normalize_bytes > 0
                                ? options_.base.normalize_bytes
                                : mss_bytes();
    const absl::uint128 divisor = absl::uint128(snd_cwnd_) * mss_bytes();
    const absl::uint128 increase =
        (absl::uint128(static_cast<uint64_t>(acked)) * ai_ack_increase_ *
             growth +
         divisor / 2) /
        divisor;
    cwnd_cnt_ += static_cast<int64_t>(
        std::max<uint64_t>(acked, absl::Uint128Low64(increase)));
  }
}

void PragueSender::AdjustSndCwnd() {
  // adjust: snd_cwnd moves at most one segment per ACK.
  if (v07()) {
    const uint32_t target = FracToSndCwnd();
    if (snd_cwnd_ > target) {
      --snd_cwnd_;
      snd_ssthresh_ = snd_cwnd_;
      RecomputeAi();
    } else if (snd_cwnd_ < target) {
      ++snd_cwnd_;
      RecomputeAi();
    }
    return;
  }
  if (cwnd_cnt_ <= -kOneCwnd) {
    cwnd_cnt_ += kOneCwnd;
    --snd_cwnd_;
    if (snd_cwnd_ < kMinCwnd) {
      snd_cwnd_ = kMinCwnd;
      cwnd_cnt_ = 0;  // "No point in applying further reductions"
    }
    snd_ssthresh_ = snd_cwnd_;
    RecomputeAi();
  } else if (cwnd_cnt_ >= kOneCwnd) {
    cwnd_cnt_ -= kOneCwnd;
    ++snd_cwnd_;
    RecomputeAi();
  }
}

uint32_t PragueSender::FracToSndCwnd() const {
  const uint64_t cwnd = (frac_cwnd_ + kOneCwnd - 1) >> 20;
  return static_cast<uint32_t>(std::max<uint64_t>(cwnd, kMinCwnd));
}

void PragueSender::UpdateAlpha() {
  // prague_update_alpha(): nothing before the first CE (an AQM exists).
  if (saw_ce_) {
    uint64_t ecn_segs = delivered_ce_packets() - old_delivered_ce_;
    if (ecn_segs > 0) {
      const uint64_t acked_segs = delivered_packets() - old_delivered_;
      ecn_segs <<= alpha_bits();
      ecn_segs /= std::max<uint64_t>(1, acked_segs);
    }
    const uint64_t alpha =
        upscaled_alpha_ - (upscaled_alpha_ >> kShiftG) + ecn_segs;
    alpha_stamp_us_ = now_us();
    upscaled_alpha_ = std::min((uint64_t{1} << alpha_bits()) << kShiftG, alpha);
  }
  NewRound();
}

void PragueSender::NewRound() {
  ewma_period_.StartRound(bytes_in_flight());
  old_delivered_ce_ = delivered_ce_packets();
  old_delivered_ = delivered_packets();
  if (!InSlowStart()) {
    ++round_;
    if (round_ == 0) round_ = options_.transition_rounds;
  }
  RecomputeAi();
}

void PragueSender::SetState(CaState new_state) {
  switch (new_state) {
    case CaState::kRecovery:
      EnterLoss();
      break;
    case CaState::kCwr:
      EnterCwr();
      break;
    case CaState::kOpen:
      in_loss_ = false;
      break;
    case CaState::kLoss:
      break;
  }
}

void PragueSender::EnterCwr() {
  // At most one cut per target RTT once RTT-independent.
  if (IsRttIndep() && TargetRttUs() > now_us() - cwr_stamp_us_) return;
  cwr_stamp_us_ = now_us();
  const uint64_t alpha = upscaled_alpha_ >> kShiftG;
  const uint64_t max_alpha = uint64_t{1} << alpha_bits();
  if (v07()) {
    // Compounds on the already-reduced fractional window.
    const absl::uint128 reduction =
        (absl::uint128(alpha) * frac_cwnd_ + max_alpha) >> (alpha_bits() + 1);
    frac_cwnd_ -= absl::Uint128Low64(reduction);
    return;
  }
  // From the integer snd_cwnd, whatever backlog is still pending.
  const absl::uint128 reduction =
      (absl::uint128(alpha) * (uint64_t{snd_cwnd_} << 20) + max_alpha) >>
      (alpha_bits() + 1);
  cwnd_cnt_ -= static_cast<int64_t>(absl::Uint128Low64(reduction));
}

void PragueSender::EnterLoss() {
  if (v07()) {
    frac_cwnd_ -= frac_cwnd_ >> 1;
  } else {
    cwnd_cnt_ -= (int64_t{snd_cwnd_} << 19) + (cwnd_cnt_ >> 1);
    RecomputeAi();
  }
  in_loss_ = true;
}

std::optional<double> PragueSender::pacing_rate_bps() const {
  // prague_update_pacing_rate(): mtu * max(cwnd, in flight) / srtt, 200 %
  // while cwnd < ssthresh / 2, else 100 %.
  if (srtt_us() <= 0) return std::nullopt;
  const double window =
      static_cast<double>(v07() ? frac_cwnd_ >> 20 : uint64_t{snd_cwnd_});
  double rate = static_cast<double>(mtu_bytes()) *
                std::max<double>(window, packets_in_flight()) * 1e6 / srtt_us();
  if (v07()) rate = std::max<double>(rate, kMinimumRateBytesPerS);
  if (snd_cwnd_ < snd_ssthresh_ / 2) rate *= 2;
  return rate * 8;
}

ControllerState PragueSender::state() const {
  ControllerState s = LinuxTcpSender::state();
  s.alpha = alpha();
  s.ai_factor = static_cast<double>(ai_ack_increase_) / kOneCwnd;
  s.rounds_since_slow_start = round_;
  s.backlog_segments =
      v07() ? (static_cast<double>(frac_cwnd_) - double(snd_cwnd_) * kOneCwnd) /
                  kOneCwnd
            : static_cast<double>(cwnd_cnt_) / kOneCwnd;
  return s;
}

}  // namespace ccreplay
