// `quicly:cubic-legacy`: quicly's CUBIC before PR #678 (h2o/quicly
// lib/cc-cubic.c @ b11d3634, last changed in bd1b26e2; PR #683 keeps the
// file as "cubic-legacy"), RFC 8312 in bytes with MSS = the real MTU:
//
//   W_cubic(t) = C (t - K)^3 mtu + W_max               (RFC 8312 eq. 1)
//   K          = cbrt(W_max / mtu * (1 - beta) / C)     (eq. 2, W_max only)
//   W_est(t)   = W_max beta + 3(1 - beta)/(1 + beta) t / srtt * mtu  (eq. 4)
//   per ACK:   W_cubic(t) < W_est(t): cwnd = max(cwnd, W_est(t))
//              else cwnd += (W_cubic(t + srtt) / cwnd - 1) * mtu if larger
//   loss/CE:   W_max = cwnd (uint32), times (1 + beta) / 2 below the last
//              W_max (fast convergence); cwnd *= 0.5 leaving slow start,
//              else beta = 0.7; cwnd >= 2 mtu; t restarts at the event
//   slow start: cwnd += bytes acknowledged, cwnd-limited or not
//
// with C = 0.4. The increase is per ACK (frame), not per byte; t is shifted
// by idle periods: by the gap since the last send when a packet is the only
// one in flight (cubic_on_sent(), after Linux commit 30927520), or by the
// idle time of an idle restart (replay has no sends). Normalization does not
// apply (the file never reads it).
#ifndef CCREPLAY_CC_QUICLY_CUBIC_LEGACY_H_
#define CCREPLAY_CC_QUICLY_CUBIC_LEGACY_H_

#include <cstdint>
#include <memory>

#include "cc/quicly_sender.h"

namespace ccreplay {

class QuiclyCubicLegacy final : public QuiclySender {
 public:
  static constexpr double kC = 0.4;     // QUICLY_CUBIC_C
  static constexpr double kBeta = 0.7;  // QUICLY_CUBIC_BETA

  explicit QuiclyCubicLegacy(const ControllerOptions& options);

  std::unique_ptr<CongestionController> Clone() const override {
    return std::make_unique<QuiclyCubicLegacy>(*this);
  }
  void OnPacketSent(const PacketSentEvent& sent) override;
  void OnIdleRestart(const IdleRestartEvent& idle) override;

  // For tests.
  uint64_t w_max_bytes() const { return w_max_bytes_; }
  double k_seconds() const { return k_s_; }

 protected:
  void Grow(const AckEvent& ack) override;
  double Beta(bool /*ecn*/) const override { return kBeta; }
  void OnCongestion(const CongestionEvent& event) override;

 private:
  // W_cubic(t) in bytes, truncated as calc_w_cubic()'s uint32_t result.
  double WCubicBytes(double t_s) const;

  uint64_t w_max_bytes_ = 0;
  uint64_t w_last_max_bytes_ = 0;
  double k_s_ = 0;
  bool avoidance_started_ = false;
  int64_t avoidance_start_us_ = 0;
  bool sent_before_ = false;
  int64_t last_sent_us_ = 0;
};

}  // namespace ccreplay

#endif  // CCREPLAY_CC_QUICLY_CUBIC_LEGACY_H_
