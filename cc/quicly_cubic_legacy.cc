#include "cc/quicly_cubic_legacy.h"

#include <algorithm>
#include <cmath>

namespace ccreplay {
namespace {

// A window no sender reaches (4 PiB): the bound of the windows computed in
// double below. Converting a double past uint64_t's range is undefined
// (quicly's own uint32_t cwnd has the same fault); a capture whose clock
// jumps by years puts t_s, and so W_cubic and W_est, there (fuzzing).
constexpr double kMaxWindowBytes = 4503599627370496.0;  // 2^52

uint64_t WindowBytes(double bytes) {
  return static_cast<uint64_t>(std::min(bytes, kMaxWindowBytes));
}

}  // namespace

QuiclyCubicLegacy::QuiclyCubicLegacy(const ControllerOptions& options)
    : QuiclySender(options) {}

double QuiclyCubicLegacy::WCubicBytes(double t_s) const {
  const double tk = t_s - k_s_;
  return std::floor(kC * tk * tk * tk * mtu_bytes_ +
                    static_cast<double>(w_max_bytes_));
}

void QuiclyCubicLegacy::Grow(const AckEvent& ack) {
  // "TODO: respect cc_limited": slow start grows on every ACK.
  if (InSlowStart()) {
    cwnd_bytes_ += ack.bytes_acked;
    return;
  }
  if (srtt_us_ <= 0) return;  // W_est divides by srtt
  const double t_s = static_cast<double>(now_us_ - avoidance_start_us_) / 1e6;
  const double rtt_s = static_cast<double>(srtt_us_) / 1e6;
  const double w_cubic = WCubicBytes(t_s);
  const double w_est =
      std::floor(static_cast<double>(w_max_bytes_) * kBeta +
                 3 * (1 - kBeta) / (1 + kBeta) * (t_s / rtt_s) * mtu_bytes_);
  const double cwnd = static_cast<double>(cwnd_bytes_);
  if (w_cubic < w_est) {
    // RFC 8312 section 4.2, TCP-friendly region; never shrinks cwnd.
    if (w_est > cwnd) cwnd_bytes_ = WindowBytes(w_est);
    return;
  }
  // Sections 4.3/4.4: one MTU-scaled step per ACK.
  const double target = WCubicBytes(t_s + rtt_s);
  if (target > cwnd) {
    cwnd_bytes_ += WindowBytes((target / cwnd - 1) * mtu_bytes_);
  }
}

void QuiclyCubicLegacy::OnCongestion(const CongestionEvent& event) {
  avoidance_started_ = true;
  avoidance_start_us_ = now_us_;
  // RFC 8312 section 4.6, fast convergence (w_last_max starts at 0).
  w_max_bytes_ = event.cwnd_before_bytes;
  if (w_max_bytes_ < w_last_max_bytes_) {
    w_last_max_bytes_ = w_max_bytes_;
    w_max_bytes_ = static_cast<uint64_t>(static_cast<double>(w_max_bytes_) *
                                         (1.0 + kBeta) / 2.0);
  } else {
    w_last_max_bytes_ = w_max_bytes_;
  }
  k_s_ = std::cbrt(static_cast<double>(w_max_bytes_) / mtu_bytes_ *
                   ((1 - kBeta) / kC));
}

void QuiclyCubicLegacy::OnPacketSent(const PacketSentEvent& sent) {
  QuiclySender::OnPacketSent(sent);
  if (sent.bytes_in_flight <= sent.bytes && avoidance_started_ &&
      sent_before_ && sent.time_us > last_sent_us_) {
    avoidance_start_us_ += sent.time_us - last_sent_us_;
  }
  sent_before_ = true;
  last_sent_us_ = sent.time_us;
}

void QuiclyCubicLegacy::OnIdleRestart(const IdleRestartEvent& idle) {
  QuiclySender::OnIdleRestart(idle);
  if (avoidance_started_ && idle.idle_us > 0) {
    avoidance_start_us_ += idle.idle_us;
  }
}

}  // namespace ccreplay
