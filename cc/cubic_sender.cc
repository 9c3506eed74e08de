#include "cc/cubic_sender.h"

#include <algorithm>
#include <cmath>

#include "absl/base/macros.h"

namespace ccreplay {

double CubicSender::WCubicBytes(double t_s) const {
  const double dt = t_s - k_s_;
  return kC * dt * dt * dt * growth_bytes() + w_max_bytes_;
}

void CubicSender::StartEpoch() {
  epoch_running_ = true;
  epoch_start_us_ = now_us_;
  cwnd_epoch_bytes_ = cwnd_bytes_;
  w_est_bytes_ = cwnd_bytes_;
  // Without a congestion event yet, or after an RTO (section 4.8), the curve
  // starts at the current window: K = 0.
  if (w_max_bytes_ == 0 || after_timeout_) {
    w_max_bytes_ = cwnd_bytes_;
    after_timeout_ = false;
  }
  k_s_ = std::cbrt((w_max_bytes_ - cwnd_epoch_bytes_) / (kC * growth_bytes()));
}

void CubicSender::CongestionAvoidance(const AckEvent& ack,
                                      uint64_t bytes_acked) {
  if (!epoch_running_) StartEpoch();
  last_ack_us_ = ack.time_us;
  const double acked = static_cast<double>(bytes_acked);
  // Reduce() keeps cwnd at or above the minimum window, a timeout at 1 MSS.
  ABSL_ASSERT(cwnd_bytes_ > 0 && mss_bytes_ > 0);

  const double alpha = w_est_bytes_ >= cwnd_prior_bytes_ ? 1.0 : kAlphaCubic;
  w_est_bytes_ += alpha * acked / cwnd_bytes_ * growth_bytes();
  const double w_est_steps =
      std::floor((w_est_bytes_ - cwnd_epoch_bytes_) / mss_bytes_);
  const double w_est_applied = cwnd_epoch_bytes_ + w_est_steps * mss_bytes_;

  const double t_s = (now_us_ - epoch_start_us_) / 1e6;
  if (WCubicBytes(t_s) < w_est_applied) {
    cwnd_bytes_ = w_est_applied;  // Reno-friendly region
    return;
  }
  const double target = std::clamp(WCubicBytes(t_s + srtt_us_ / 1e6),
                                   cwnd_bytes_, 1.5 * cwnd_bytes_);
  cwnd_bytes_ += (target - cwnd_bytes_) * acked / cwnd_bytes_;
}

void CubicSender::OnCongestionEvent(bool /*ecn*/) {
  epoch_running_ = false;
  // Section 4.7, fast convergence.
  w_max_bytes_ =
      cwnd_bytes_ < w_max_bytes_ ? cwnd_bytes_ * (1 + kBeta) / 2 : cwnd_bytes_;
  cwnd_prior_bytes_ = cwnd_bytes_;
}

void CubicSender::OnTimeout() {
  epoch_running_ = false;
  after_timeout_ = true;
}

void CubicSender::OnAppLimited(const AckEvent& ack) {
  // Section 5.8: t does not advance while the sender is not cwnd-limited.
  if (epoch_running_) epoch_start_us_ += ack.time_us - last_ack_us_;
  last_ack_us_ = ack.time_us;
}

void CubicSender::OnIdle(int64_t idle_us) {
  if (epoch_running_) epoch_start_us_ += idle_us;
}

}  // namespace ccreplay
