// `quicly:reno`: quicly's Reno after PR #678 (h2o/quicly lib/cc-pico.c @
// 01aa5e7c, calc_bytes_per_mtu_increase() and pico_on_lost()): one real MTU
// per cwnd bytes acknowledged, beta 0.5 for loss and ECN-CE alike
// (QUICLY_BETA_RENO). With normalization (PR #686) the interval is
// max(1, cwnd * mtu / reference), integer, so cwnd grows by the reference
// size per RTT whatever the packet size; slow start is unchanged.
#ifndef CCREPLAY_CC_QUICLY_RENO_H_
#define CCREPLAY_CC_QUICLY_RENO_H_

#include <memory>

#include "cc/quicly_sender.h"

namespace ccreplay {

class QuiclyReno final : public QuiclySender {
 public:
  explicit QuiclyReno(const ControllerOptions& options);

  std::unique_ptr<CongestionController> Clone() const override {
    return std::make_unique<QuiclyReno>(*this);
  }

 protected:
  uint64_t CaBytesPerMtuIncrease() const override;
  double Beta(bool /*ecn*/) const override { return kBetaReno; }
};

}  // namespace ccreplay

#endif  // CCREPLAY_CC_QUICLY_RENO_H_
