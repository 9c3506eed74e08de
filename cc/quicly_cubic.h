// `quicly:cubic`: quicly's CUBIC after PR #678 (h2o/quicly lib/cc-pico.c @
// 01aa5e7c, cubic_on_acked() and cubic_on_congestion()), RFC 9438 with
// quicly's choices:
//
//   W_max  = cwnd_prior, or (cwnd_prior + cwnd_epoch) / 2 under fast
//            convergence (RFC 9438 section 4.7); cwnd_epoch = ssthresh
//   K      = cbrt((W_max - cwnd) / (C * ref)), computed when the clock
//            (re)starts, from the cwnd then
//   W_est += alpha * bytes_acked / cwnd * ref   (cwnd-limited ACKs only);
//            alpha = 3(1 - 0.7)/(1 + 0.7) after a loss, the ABE alpha
//            (1.8 * 0.15) / (0.2 * 1.85) after ECN-CE, 1 once W_est >=
//            cwnd_prior; exposed as cwnd_epoch + whole real MTUs
//   Reno-friendly (W_cubic(t) < W_est exposed): cwnd = W_est exposed
//   else: target = clamp(W_cubic(t + srtt), cwnd, 1.5 cwnd);
//         cwnd += (target / cwnd - 1) * bytes_acked, truncated
//   congestion: cwnd_prior = BDP estimate (cwnd / 2 on leaving slow start,
//         so K = 0 then); beta 0.7, 0.85 for ECN-CE (QUICLY_BETA_ECN)
//
// with C = 0.4 and ref the real MTU, or the reference size when normalizing
// (PR #686: C * ref, the K denominator and the W_est increment). The clock
// runs only while cwnd-limited: it stops (K to be recomputed) on an ACK that
// is not, and on idle, and restarts at the next cwnd-limited ACK
// (cubic_set_cc_limited(); quicly takes the flag from its send side).
// std::cbrt stands in for quicly's fast_cbrt() (relative error ~3.5e-5).
#ifndef CCREPLAY_CC_QUICLY_CUBIC_H_
#define CCREPLAY_CC_QUICLY_CUBIC_H_

#include <cstdint>
#include <memory>

#include "cc/quicly_sender.h"

namespace ccreplay {

// RFC 9438 section 4.3 AIMD friendliness, CALC_FRIENDLY_ALPHA in
// lib/cc-pico.c: loss matches Reno's 0.5, ECN-CE Reno's ABE 0.8.
constexpr double QuiclyFriendlyAlpha(double beta_reno, double beta_cubic) {
  return ((1 + beta_reno) * (1 - beta_cubic)) /
         ((1 - beta_reno) * (1 + beta_cubic));
}

class QuiclyCubic final : public QuiclySender {
 public:
  static constexpr double kC = 0.4;  // QUICLY_CUBIC_C
  static constexpr double kAlphaLoss = QuiclyFriendlyAlpha(0.5, kBetaLoss);
  static constexpr double kAlphaEcn = QuiclyFriendlyAlpha(0.8, kBetaEcn);
  // Fast convergence: (1 + beta) / 2 * cwnd_prior when cwnd_epoch is
  // beta * cwnd_prior, with either beta.
  static double FastConvergenceWMax(double cwnd_prior, double cwnd_epoch) {
    return (cwnd_prior + cwnd_epoch) / 2;
  }

  explicit QuiclyCubic(const ControllerOptions& options);

  std::unique_ptr<CongestionController> Clone() const override {
    return std::make_unique<QuiclyCubic>(*this);
  }
  void OnIdleRestart(const IdleRestartEvent& idle) override;

  // For tests: the running epoch.
  double w_est_bytes() const { return w_est_bytes_; }
  double cwnd_prior_bytes() const { return cwnd_prior_bytes_; }
  bool fast_convergence() const { return fast_convergence_; }
  double WMaxBytes() const;

 protected:
  void Grow(const AckEvent& ack) override;
  void OnCongestion(const CongestionEvent& event) override;

 private:
  void SetCwndLimited(bool cwnd_limited);
  uint64_t ExposedWEst() const;
  double WCubicBytes(double t_s) const;
  void CubicRegion(const AckEvent& ack);

  double w_est_bytes_ = 0;  // 0: congestion avoidance not started
  double cwnd_prior_bytes_ = 0;
  bool fast_convergence_ = false;
  bool by_ecn_ = false;
  bool cwnd_limited_ = true;
  bool clock_running_ = false;
  int64_t epoch_start_us_ = 0;
  bool k_known_ = false;
  double k_s_ = 0;
};

}  // namespace ccreplay

#endif  // CCREPLAY_CC_QUICLY_CUBIC_H_
