// `quicly:pico`: quicly's Pico (h2o/quicly lib/cc-pico.c @ 01aa5e7c,
// pico_bytes_per_mtu_increase()): Reno-like byte counting whose
// congestion-avoidance interval mimics CUBIC's period. At each congestion
// event, with the BDP estimate W (cwnd before reduction; cwnd / 2 on the
// first), srtt in ms and the event's beta (0.7 loss, 0.85 ECN-CE):
//
//   interval = min(W * beta,
//                  A / (1 - beta) * 1000 * cbrt((1 - beta) / 0.4 * W / mtu)
//                    / srtt * mtu)
//
// where A = (1 + 2 * cbrt(1/2)) / 2 ~= 1.2937 amortizes one fast-convergence
// period with one normal one. Before the first event the interval is
// initial cwnd * 0.7. Pico ignores normalization (it is computed with the
// real MTU), so this profile takes no `normalize` option.
#ifndef CCREPLAY_CC_QUICLY_PICO_H_
#define CCREPLAY_CC_QUICLY_PICO_H_

#include <cstdint>
#include <memory>

#include "cc/quicly_sender.h"

namespace ccreplay {

class QuiclyPico final : public QuiclySender {
 public:
  explicit QuiclyPico(const ControllerOptions& options);

  std::unique_ptr<CongestionController> Clone() const override {
    return std::make_unique<QuiclyPico>(*this);
  }

  // The interval above, clamped to [1, 2^32 - 1] and truncated as quicly's
  // uint32_t does.
  static uint64_t BytesPerMtuIncrease(uint64_t bdp_bytes, double srtt_ms,
                                      uint32_t mtu_bytes, double beta);

 protected:
  uint64_t CaBytesPerMtuIncrease() const override {
    return bytes_per_mtu_increase_;
  }
  void OnCongestion(const CongestionEvent& event) override;

 private:
  uint64_t bytes_per_mtu_increase_;
};

}  // namespace ccreplay

#endif  // CCREPLAY_CC_QUICLY_PICO_H_
