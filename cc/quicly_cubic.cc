#include "cc/quicly_cubic.h"

#include <algorithm>
#include <cmath>

namespace ccreplay {

QuiclyCubic::QuiclyCubic(const ControllerOptions& options)
    : QuiclySender(options) {}

double QuiclyCubic::WMaxBytes() const {
  return fast_convergence_
             ? FastConvergenceWMax(cwnd_prior_bytes_,
                                   static_cast<double>(ssthresh_bytes_))
             : cwnd_prior_bytes_;
}

double QuiclyCubic::WCubicBytes(double t_s) const {
  const double tk = t_s - k_s_;
  return kC * tk * tk * tk * ReferenceMtu() + WMaxBytes();
}

void QuiclyCubic::SetCwndLimited(bool cwnd_limited) {
  cwnd_limited_ = cwnd_limited;
  if (!cwnd_limited) {
    k_known_ = false;
    clock_running_ = false;
  } else if (!clock_running_ && w_est_bytes_ != 0) {
    clock_running_ = true;
    epoch_start_us_ = now_us_;
    k_known_ = false;
  }
}

uint64_t QuiclyCubic::ExposedWEst() const {
  // cubic_quantized_w_est(): whole real MTUs above cwnd_epoch.
  const double epoch = static_cast<double>(ssthresh_bytes_);
  return static_cast<uint64_t>(
      epoch + std::floor((w_est_bytes_ - epoch) / mtu_bytes_) * mtu_bytes_);
}

void QuiclyCubic::Grow(const AckEvent& ack) {
  SetCwndLimited(ack.cwnd_limited);
  if (InSlowStart()) {
    QuiclySender::Grow(ack);
    return;
  }
  if (w_est_bytes_ == 0) {
    // First ACK of congestion avoidance: the epoch starts here (RFC 9438
    // section 4.2, quicly commit 16a3412 of PR #678).
    w_est_bytes_ = static_cast<double>(cwnd_bytes_);
    clock_running_ = cwnd_limited_;
    epoch_start_us_ = now_us_;
    k_known_ = false;
  }
  if (ack.cwnd_limited) {
    const double alpha = w_est_bytes_ >= cwnd_prior_bytes_
                             ? 1.0
                             : (by_ecn_ ? kAlphaEcn : kAlphaLoss);
    // Same evaluation order as quicly, so the sums are bit-identical.
    w_est_bytes_ += alpha * static_cast<double>(ack.bytes_acked) /
                    static_cast<double>(cwnd_bytes_) * ReferenceMtu();
  }
  if (!clock_running_ || ack.bytes_acked == 0) return;
  if (!k_known_) {
    k_s_ = std::cbrt((WMaxBytes() - static_cast<double>(cwnd_bytes_)) /
                     (kC * ReferenceMtu()));
    k_known_ = true;
  }
  CubicRegion(ack);
}

void QuiclyCubic::CubicRegion(const AckEvent& ack) {
  const double t_s = static_cast<double>(now_us_ - epoch_start_us_) / 1e6;
  const uint64_t w_est = ExposedWEst();
  if (WCubicBytes(t_s) < static_cast<double>(w_est)) {
    cwnd_bytes_ = w_est;  // RFC 9438 section 4.3
    return;
  }
  // Sections 4.4 and 4.5, per byte acknowledged rather than per ACK.
  const double cwnd = static_cast<double>(cwnd_bytes_);
  const double target = std::clamp(
      WCubicBytes(t_s + static_cast<double>(srtt_us_) / 1e6), cwnd, 1.5 * cwnd);
  cwnd_bytes_ += static_cast<uint64_t>((target / cwnd - 1) *
                                       static_cast<double>(ack.bytes_acked));
}

void QuiclyCubic::OnCongestion(const CongestionEvent& event) {
  const double previous_w_max =
      fast_convergence_
          ? FastConvergenceWMax(
                cwnd_prior_bytes_,
                static_cast<double>(event.previous_ssthresh_bytes))
          : cwnd_prior_bytes_;
  by_ecn_ = event.ecn;
  k_known_ = false;
  clock_running_ = false;
  w_est_bytes_ = 0;
  const double bdp = static_cast<double>(event.bdp_bytes);
  fast_convergence_ = cwnd_prior_bytes_ != 0 && bdp < previous_w_max;
  cwnd_prior_bytes_ = bdp;
}

void QuiclyCubic::OnIdleRestart(const IdleRestartEvent& idle) {
  QuiclySender::OnIdleRestart(idle);
  SetCwndLimited(false);  // the clock does not run while idle
}

}  // namespace ccreplay
