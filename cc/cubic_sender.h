// `cubic`: CUBIC as RFC 9438 specifies it, in bytes.
//
//   W_cubic(t) = C * (t - K)^3 + W_max                  (RFC 9438 eq. 1)
//   K = cbrt((W_max - cwnd_epoch) / C)                    (eq. 2)
//   target = clamp(W_cubic(t + RTT), cwnd, 1.5 * cwnd)    (section 4.2)
//   W_est += alpha_cubic * segments_acked / cwnd          (section 4.3)
//     alpha_cubic = 3 (1 - beta) / (1 + beta), then 1 once W_est >= cwnd_prior
//   Reno-friendly region (W_cubic(t) < W_est): cwnd = W_est
//   otherwise: cwnd += (target - cwnd) / cwnd per segment acknowledged
//   loss: W_max = cwnd, or cwnd * (1 + beta) / 2 if cwnd < W_max (fast
//         convergence, section 4.7); ssthresh = FlightSize * beta, beta = 0.7
//   RTO: the next epoch starts with K = 0, W_max = cwnd (section 4.8).
// with C = 0.4 and windows in segments; in bytes every "segment" above is
// the growth size: the real SMSS, or the reference size when normalizing
// (quicly PR #686: C * ref, the K denominator and the W_est increment).
// W_est is applied in whole-SMSS steps above cwnd_epoch (as quicly does):
// a sender only ever uses whole segments. t excludes time spent not
// cwnd-limited or idle (section 5.8).
#ifndef CCREPLAY_CC_CUBIC_SENDER_H_
#define CCREPLAY_CC_CUBIC_SENDER_H_

#include <memory>

#include "cc/byte_counting_sender.h"

namespace ccreplay {

class CubicSender final : public ByteCountingSender {
 public:
  // RFC 9438 section 4.6 and 4.2 (SHOULD values).
  static constexpr double kBeta = 0.7;
  static constexpr double kC = 0.4;  // segments / s^3
  // Section 4.3: 3 (1 - 0.7) / (1 + 0.7) = 0.9 / 1.7.
  static constexpr double kAlphaCubic = 3 * (1 - kBeta) / (1 + kBeta);

  explicit CubicSender(const ControllerOptions& options)
      : ByteCountingSender(options) {}

  std::unique_ptr<CongestionController> Clone() const override {
    return std::make_unique<CubicSender>(*this);
  }

  // Introspection for tests and reports; K and W_max of the running epoch.
  double k_seconds() const { return k_s_; }
  double w_max_bytes() const { return w_max_bytes_; }
  double w_est_bytes() const { return w_est_bytes_; }
  // W_cubic(t) in bytes for the running epoch, t in seconds since its start.
  double WCubicBytes(double t_s) const;

 protected:
  void CongestionAvoidance(const AckEvent& ack, uint64_t bytes_acked) override;
  double Beta(bool /*ecn*/) const override { return kBeta; }
  // Section 4.6: cwnd >= 2 SMSS after a loss, >= 1 SMSS after ECE.
  double MinWindowSegments(bool ecn) const override { return ecn ? 1 : 2; }
  void OnCongestionEvent(bool ecn) override;
  void OnTimeout() override;
  void OnAppLimited(const AckEvent& ack) override;
  void OnIdle(int64_t idle_us) override;

 private:
  void StartEpoch();

  bool epoch_running_ = false;
  bool after_timeout_ = false;
  int64_t epoch_start_us_ = 0;
  int64_t last_ack_us_ = 0;
  double k_s_ = 0;
  double w_max_bytes_ = 0;  // 0 = no congestion event yet
  double cwnd_prior_bytes_ = 0;
  double cwnd_epoch_bytes_ = 0;
  double w_est_bytes_ = 0;
};

}  // namespace ccreplay

#endif  // CCREPLAY_CC_CUBIC_SENDER_H_
