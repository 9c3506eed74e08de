#include "cc/linux_cubic.h"

#include <algorithm>
#include <cstdint>

namespace ccreplay {
namespace {

// Module parameters and precomputed factors (cubictcp_register()).
constexpr uint32_t kBetaScale = 1024;  // BICTCP_BETA_SCALE
constexpr uint32_t kBeta = 717;        // beta = 717/1024
constexpr uint32_t kBicScale = 41;     // C = 41/1024
constexpr uint32_t kBicHzShift = 10;   // BICTCP_HZ: time in 1/1024 s
// beta_scale = 8 * (1024 + 717) / 3 / (1024 - 717) = 15 (integer division).
constexpr uint32_t kFriendlyBetaScale =
    8 * (kBetaScale + kBeta) / 3 / (kBetaScale - kBeta);
constexpr uint64_t kCubeRttScale = kBicScale * 10;  // 410
// cube_factor = 2^40 / (bic_scale * 10): (wmax - cwnd) * cube_factor = K^3.
constexpr uint64_t kCubeFactor =
    (uint64_t{1} << (10 + 3 * kBicHzShift)) / (kBicScale * 10);
constexpr uint32_t kHystartLowWindow = 16;
constexpr int64_t kHystartAckDeltaUs = 2000;
constexpr uint8_t kHystartMinSamples = 8;
constexpr uint32_t kHystartDelayMinUs = 4000;
constexpr uint32_t kHystartDelayMaxUs = 16000;

int Fls64(uint64_t x) { return x == 0 ? 0 : 64 - __builtin_clzll(x); }

}  // namespace

uint32_t LinuxCubicRoot(uint64_t a) {
  // cbrt(x) MSB values for x MSB values in [0..63], refined by hand in the
  // kernel: v = cbrt(x << 18) - 1, cbrt(x) = (v[x] + 10) >> 6.
  static constexpr uint8_t v[] = {
      0,   54,  54,  54,  118, 118, 118, 118, 123, 129, 134, 138, 143,
      147, 151, 156, 157, 161, 164, 168, 170, 173, 176, 179, 181, 185,
      187, 190, 192, 194, 197, 199, 200, 202, 204, 206, 209, 211, 213,
      215, 217, 219, 221, 222, 224, 225, 227, 229, 231, 232, 234, 236,
      237, 239, 240, 242, 244, 245, 246, 248, 250, 251, 252, 254,
  };
  uint32_t b = Fls64(a);
  if (b < 7) return (uint32_t{v[a]} + 35) >> 6;
  b = ((b * 84) >> 8) - 1;
  const auto shift = static_cast<uint32_t>(a >> (b * 3));
  uint32_t x = static_cast<uint32_t>((uint32_t{v[shift]} + 10) << b) >> 6;
  x = 2 * x + static_cast<uint32_t>(a / (uint64_t{x} * (x - 1)));
  return (x * 341) >> 10;
}

LinuxCubic::LinuxCubic(const LinuxCubicOptions& options)
    : LinuxTcpSender(options.base),
      hz_(options.hz),
      hystart_(options.hystart),
      paced_(options.paced),
      gso_max_size_bytes_(options.gso_max_size_bytes),
      mono_offset_us_(options.mono_offset_us) {
  Reset();
}

uint32_t LinuxCubic::Jiffies() const {
  // Like the kernel's INITIAL_JIFFIES, start 300 s before wrapping, so that
  // 0 ("no epoch") never occurs at the start of a trace.
  const uint32_t initial_jiffies = static_cast<uint32_t>(-300 * int64_t{hz_});
  // jiffies advance at whole multiples of TICK_NSEC of CLOCK_MONOTONIC:
  // tick_init_jiffy_update() (kernel/time/tick-sched.c, 6.18) aligns the
  // first period to one, and each later tick adds TICK_NSEC to it. Without
  // the offset, the capture clock's whole ticks stand in.
  const int64_t mono_us = now_us() - mono_offset_us_.value_or(0);
  return initial_jiffies + static_cast<uint32_t>(mono_us * hz_ / 1000000);
}

void LinuxCubic::Reset() {
  // bictcp_reset() clears everything up to `unused`, and `found`.
  cnt_ = last_max_cwnd_ = last_cwnd_ = last_time_ = 0;
  bic_origin_point_ = bic_k_ = delay_min_us_ = epoch_start_ = 0;
  ack_cnt_ = tcp_cwnd_ = 0;
  found_ = false;
  HystartReset();
}

void LinuxCubic::HystartReset() {
  round_start_us_ = last_ack_us_ = now_us();
  // bictcp_hystart_reset(): end_seq = snd_nxt; hystart_update() starts the
  // next round once snd_una is past it, so SACKs in Recovery, which leave
  // snd_una where it is, do not end a round. Without the ACKs' sequence
  // state: once that much more is delivered.
  end_seq_by_una_ = snd_nxt_bytes() > 0;
  end_seq_bytes_ =
      end_seq_by_una_ ? snd_nxt_bytes() : delivered_bytes() + bytes_in_flight();
  curr_rtt_us_ = UINT32_MAX;
  sample_cnt_ = 0;
}

void LinuxCubic::Update(uint32_t acked) {
  // bictcp_update().
  const uint32_t cwnd = snd_cwnd_;
  const uint32_t now = Jiffies();
  ack_cnt_ += acked;
  if (last_cwnd_ == cwnd && static_cast<int32_t>(now - last_time_) <=
                                static_cast<int32_t>(hz_ / 32)) {
    return;
  }
  // The cubic function updates cnt at most once per jiffy.
  if (!(epoch_start_ != 0 && now == last_time_)) {
    last_cwnd_ = cwnd;
    last_time_ = now;
    if (epoch_start_ == 0) {
      epoch_start_ = now;
      ack_cnt_ = acked;
      tcp_cwnd_ = cwnd;
      if (last_max_cwnd_ <= cwnd) {
        bic_k_ = 0;
        bic_origin_point_ = cwnd;
      } else {
        bic_k_ = LinuxCubicRoot(kCubeFactor * (last_max_cwnd_ - cwnd));
        bic_origin_point_ = last_max_cwnd_;
      }
    }
    // t in 1/1024 s, including delay_min (usecs_to_jiffies rounds up).
    uint64_t t = static_cast<uint32_t>(now - epoch_start_);
    t += (uint64_t{delay_min_us_} * hz_ + 999999) / 1000000;
    t = (t << kBicHzShift) / hz_;
    const uint64_t offs = t < bic_k_ ? bic_k_ - t : t - bic_k_;
    const auto delta = static_cast<uint32_t>(
        (kCubeRttScale * offs * offs * offs) >> (10 + 3 * kBicHzShift));
    const uint32_t bic_target =
        t < bic_k_ ? bic_origin_point_ - delta : bic_origin_point_ + delta;
    cnt_ = bic_target > cwnd ? cwnd / (bic_target - cwnd) : 100 * cwnd;
    // Initial growth is capped at 5 % per RTT while no loss has been seen.
    if (last_max_cwnd_ == 0 && cnt_ > 20) cnt_ = 20;
  }
  // TCP friendliness: a Reno window grown per ACK.
  const uint32_t delta = (cwnd * kFriendlyBetaScale) >> 3;
  while (delta > 0 && ack_cnt_ > delta) {
    ack_cnt_ -= delta;
    ++tcp_cwnd_;
  }
  if (tcp_cwnd_ > cwnd) {
    const uint32_t max_cnt = cwnd / (tcp_cwnd_ - cwnd);
    cnt_ = std::min(cnt_, max_cnt);
  }
  // At most 1 segment per 2 acknowledged: 1.5x per RTT.
  cnt_ = std::max(cnt_, 2u);
}

void LinuxCubic::CongAvoid(const AckEvent& /*ack*/, uint32_t acked) {
  if (InSlowStart()) {
    acked = SlowStart(acked);
    if (acked == 0) return;
  }
  Update(acked);
  CongAvoidAi(cnt_, acked);
}

uint32_t LinuxCubic::Ssthresh() {
  // cubictcp_recalc_ssthresh().
  epoch_start_ = 0;
  last_max_cwnd_ = snd_cwnd_ < last_max_cwnd_
                       ? (snd_cwnd_ * (kBetaScale + kBeta)) / (2 * kBetaScale)
                       : snd_cwnd_;
  return std::max((snd_cwnd_ * kBeta) / kBetaScale, 2u);
}

void LinuxCubic::SetState(CaState new_state) {
  if (new_state == CaState::kLoss) Reset();
}

void LinuxCubic::OnTxStart(const IdleRestartEvent& idle) {
  // cubictcp_cwnd_event(CA_EVENT_TX_START): shift the epoch by the idle time.
  const auto delta = static_cast<int32_t>(idle.idle_us * hz_ / 1000000);
  if (epoch_start_ != 0 && delta > 0) {
    const uint32_t now = Jiffies();
    epoch_start_ += delta;
    if (static_cast<int32_t>(epoch_start_ - now) > 0) epoch_start_ = now;
  }
}

void LinuxCubic::PktsAcked(const AckEvent& ack) {
  // cubictcp_acked(), called with a sample (AckEvent::ModuleRttUs()) in
  // every state: in Recovery a duplicate ACK that SACKs original data has
  // one, and with cwnd cut below ssthresh HyStart may set ssthresh to cwnd
  // there (cubic_20ms_small_pon, docs/controllers.md). Discard samples
  // right after a reduction.
  if (epoch_start_ != 0 && static_cast<int32_t>(Jiffies() - epoch_start_) <
                               static_cast<int32_t>(hz_)) {
    return;
  }
  const auto delay =
      static_cast<uint32_t>(std::max<int64_t>(ack.ModuleRttUs(), 1));
  if (delay_min_us_ == 0 || delay_min_us_ > delay) delay_min_us_ = delay;
  if (!found_ && InSlowStart() && hystart_) HystartUpdate(delay);
}

void LinuxCubic::HystartUpdate(uint32_t delay_us) {
  if ((end_seq_by_una_ ? snd_una_bytes() : delivered_bytes()) >
      end_seq_bytes_) {
    HystartReset();
  }
  if (snd_cwnd_ < kHystartLowWindow) return;

  // ACK train (Linux 6.18 tcp_cubic.c hystart_update()):
  // hystart_ack_delay() = min(1 ms, 4 * sk_gso_max_size / sk_pacing_rate);
  // "Pacing might have delayed packets up to RTT/2 during slow start", so
  // the threshold is halved only when the socket is not paced.
  const std::optional<double> rate_bps = pacing_rate_bps();
  uint32_t ack_delay_us = 0;
  if (rate_bps.has_value() && *rate_bps > 0) {
    ack_delay_us = static_cast<uint32_t>(std::min<double>(
        1000, uint64_t{gso_max_size_bytes_} * 4 * 1e6 / (*rate_bps / 8)));
  }
  if (now_us() - last_ack_us_ <= kHystartAckDeltaUs) {
    last_ack_us_ = now_us();
    uint32_t threshold = delay_min_us_ + ack_delay_us;
    if (!paced_) threshold >>= 1;
    if (now_us() - round_start_us_ > threshold) {
      found_ = true;
      snd_ssthresh_ = snd_cwnd_;
    }
  }
  // Delay increase.
  curr_rtt_us_ = std::min(curr_rtt_us_, delay_us);
  if (sample_cnt_ < kHystartMinSamples) {
    ++sample_cnt_;
  } else if (curr_rtt_us_ > delay_min_us_ + std::clamp(delay_min_us_ >> 3,
                                                       kHystartDelayMinUs,
                                                       kHystartDelayMaxUs)) {
    found_ = true;
    snd_ssthresh_ = snd_cwnd_;
  }
}

}  // namespace ccreplay
