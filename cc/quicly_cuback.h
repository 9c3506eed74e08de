// `quicly:cuback`: Cuback, quicly's ACK-driven CUBIC (h2o/quicly PR #678,
// lib/cc-pico.c @ 01aa5e7c, cuback_cwnd_to_bytes_sent() and
// cuback_bytes_per_mtu_increase()). It follows CUBIC's two curves, W_cubic
// and the Reno-friendly one, indexed by bytes acknowledged instead of time:
// the bandwidth at the last congestion event (BDP estimate / srtt) converts
// time to bytes. bytes_sent(w), the bytes acknowledged since the epoch when
// cwnd reaches w, is the smaller of the two curves' inverses:
//
//   bytes_cubic(w) = bandwidth * (K + cbrt((w - W_max) / (C * ref)))
//   bytes_reno(w)  = (w' - W_epoch)(w' + W_epoch - mtu) / (2 alpha ref)
//                  + (w - prior)(w + prior - mtu) / (2 ref)  if w > prior
//     w' = min(w, cwnd_prior), W_epoch = ssthresh,
//     K = cbrt((W_max - W_epoch) / (C * ref))
//
// and one real MTU is added each bytes_sent(cwnd + mtu) - bytes_sent(cwnd)
// bytes acknowledged, at least 2 MTU above W_max (the 1.5x per RTT cap of
// RFC 9438). W_max, alpha and fast convergence are as in quicly_cubic.h.
// Normalization (PR #686) puts the reference size in place of ref; w stays
// spaced by the real MTU.
#ifndef CCREPLAY_CC_QUICLY_CUBACK_H_
#define CCREPLAY_CC_QUICLY_CUBACK_H_

#include <cstdint>
#include <memory>

#include "cc/quicly_sender.h"

namespace ccreplay {

class QuiclyCuback final : public QuiclySender {
 public:
  // The curve of one epoch: fixed from one congestion event to the next.
  struct Curve {
    double cwnd_prior_bytes = 0;
    double bandwidth_bytes_per_s = 0;  // 0: no congestion event yet
    bool fast_convergence = false;
    bool by_ecn = false;
  };

  explicit QuiclyCuback(const ControllerOptions& options);

  std::unique_ptr<CongestionController> Clone() const override {
    return std::make_unique<QuiclyCuback>(*this);
  }

  // Bytes to acknowledge for the next one-MTU increase from `cwnd_bytes`,
  // clamped to [1, 2^32 - 1] and truncated as quicly's uint32_t does.
  static uint64_t BytesPerMtuIncrease(const Curve& curve, uint64_t cwnd_bytes,
                                      uint64_t cwnd_epoch_bytes,
                                      uint32_t mtu_bytes,
                                      double reference_mtu_bytes);

  const Curve& curve() const { return curve_; }

 protected:
  uint64_t CaBytesPerMtuIncrease() const override;
  void OnCongestion(const CongestionEvent& event) override;

 private:
  Curve curve_;
};

}  // namespace ccreplay

#endif  // CCREPLAY_CC_QUICLY_CUBACK_H_
