#include "cc/ngtcp2_cubic.h"

#include <algorithm>

namespace ccreplay {
namespace {

constexpr int64_t kNsPerSecond = 1000000000;
// HyStart++ (RFC 9406 section 4.3; lib/ngtcp2_cc.c NGTCP2_HS_*).
constexpr uint64_t kHyStartMinSsthreshSegments = 16;
constexpr uint32_t kHyStartRttSamples = 8;
constexpr int64_t kHyStartMinEtaUs = 4000;
constexpr int64_t kHyStartMaxEtaUs = 16000;

}  // namespace

uint64_t Ngtcp2Cubic::IntegerCubeRoot(uint64_t n) {
  if (n == 0) return 0;
  const int leading_zeros = __builtin_clzll(n);
  uint64_t a = uint64_t{1} << ((64 - leading_zeros) / 3 + 1);
  while (a * a * a > n) a = (2 * a + n / a / a) / 3;
  return a;
}

void Ngtcp2Cubic::OnAckStart(const AckEvent& ack) {
  if (round_closed_) {
    // on_pkt_sent: the first packet sent after the round closed opens the
    // next one.
    round_closed_ = false;
    round_end_bytes_ = closed_at_bytes_ + 1;
    last_round_min_rtt_us_ = current_round_min_rtt_us_;
    current_round_min_rtt_us_ = kNoRtt;
    rtt_sample_count_ = 0;
  }
  if (ack.rtt_sample_us > 0) {  // new_rtt_sample
    current_round_min_rtt_us_ =
        std::min(current_round_min_rtt_us_, ack.rtt_sample_us);
    ++rtt_sample_count_;
  }
  delivered_bytes_ += ack.bytes_acked;
  if (delivered_bytes_ >= round_end_bytes_) {
    round_closed_ = true;
    closed_at_bytes_ = delivered_bytes_ + ack.bytes_in_flight;
  }
}

void Ngtcp2Cubic::HyStartCheck() {
  if (last_round_min_rtt_us_ == kNoRtt || current_round_min_rtt_us_ == kNoRtt ||
      cwnd_bytes_ < kHyStartMinSsthreshSegments * mss_bytes_ ||
      rtt_sample_count_ < kHyStartRttSamples) {
    return;
  }
  const int64_t eta_us = std::clamp(last_round_min_rtt_us_ / 8,
                                    kHyStartMinEtaUs, kHyStartMaxEtaUs);
  if (current_round_min_rtt_us_ >= last_round_min_rtt_us_ + eta_us) {
    w_last_max_bytes_ = cwnd_bytes_;
    ssthresh_bytes_ = cwnd_bytes_;
  }
}

void Ngtcp2Cubic::StartEpoch(int64_t time_ns) {
  epoch_start_ns_ = time_ns;
  if (cwnd_bytes_ < w_last_max_bytes_) {
    k_seconds_ = IntegerCubeRoot((w_last_max_bytes_ - cwnd_bytes_) * 10 / 4 /
                                 mss_bytes_);
    origin_point_bytes_ = w_last_max_bytes_;
  } else {
    k_seconds_ = 0;
    origin_point_bytes_ = cwnd_bytes_;
  }
  w_tcp_bytes_ = cwnd_bytes_;
  pending_add_ = 0;
  pending_w_add_ = 0;
}

uint64_t Ngtcp2Cubic::CubicTargetBytes(int64_t time_ns, int64_t srtt_ns) const {
  const uint64_t t_ns = static_cast<uint64_t>(time_ns - *epoch_start_ns_);
  // Times in 1/1024 s.
  const uint64_t tx = (t_ns << 10) / kNsPerSecond;
  const uint64_t kx = k_seconds_ << 10;
  const uint64_t dt = tx > kx ? tx - kx : kx - tx;
  const uint64_t delta =
      (mss_bytes_ * ((((dt * dt) >> 10) * dt) >> 10) * 4 / 10) >> 10;
  const uint64_t target =
      tx > kx ? origin_point_bytes_ + delta : origin_point_bytes_ - delta;
  const uint64_t threshold =
      (target *
       (((t_ns + static_cast<uint64_t>(srtt_ns)) << 10) / kNsPerSecond)) >>
      10;
  if (threshold < cwnd_bytes_) return cwnd_bytes_;
  if (2 * threshold > 3 * cwnd_bytes_) return cwnd_bytes_ * 3 / 2;
  return threshold;
}

void Ngtcp2Cubic::OnPacketAcked(const AckEvent& ack, uint64_t packet_bytes) {
  if (InSlowStart()) {
    cwnd_bytes_ += packet_bytes;
    HyStartCheck();
    return;
  }
  const int64_t now_ns = ack.time_us * 1000;
  if (!epoch_start_ns_.has_value()) StartEpoch(now_ns);
  const uint64_t target = CubicTargetBytes(now_ns, ack.srtt_us * 1000);
  uint64_t add = 0;
  if (target > cwnd_bytes_) {
    const uint64_t m = pending_add_ + mss_bytes_ * (target - cwnd_bytes_);
    add = m / cwnd_bytes_;
    pending_add_ = m % cwnd_bytes_;
  } else {
    const uint64_t m = pending_add_ + mss_bytes_;
    add = m / (100 * cwnd_bytes_);
    pending_add_ = m % (100 * cwnd_bytes_);
  }
  const uint64_t m = pending_w_add_ + mss_bytes_ * packet_bytes;
  w_tcp_bytes_ += m / cwnd_bytes_;
  pending_w_add_ = m % cwnd_bytes_;
  if (w_tcp_bytes_ > cwnd_bytes_) {
    add =
        std::max(add, mss_bytes_ * (w_tcp_bytes_ - cwnd_bytes_) / cwnd_bytes_);
  }
  cwnd_bytes_ += add;
}

void Ngtcp2Cubic::Reduce() {
  epoch_start_ns_.reset();
  // Fast convergence: 0.85 of cwnd when below the previous maximum.
  w_last_max_bytes_ =
      cwnd_bytes_ < w_last_max_bytes_ ? cwnd_bytes_ * 17 / 10 / 2 : cwnd_bytes_;
  ssthresh_bytes_ = std::max(cwnd_bytes_ * 7 / 10, 2 * mss_bytes_);
  cwnd_bytes_ = ssthresh_bytes_;
}

}  // namespace ccreplay
