// `reno`: RFC 5681 Reno with byte counting. In congestion avoidance cwnd
// grows by one SMSS each time a full cwnd of bytes has been acknowledged
// (RFC 5681 section 3.1, RFC 3465 section 2.1); loss and ECN halve it
// (RFC 5681 equation 4, RFC 3168 section 6.1.2).
//
// With MTU normalization (quicly PR #686, lib/cc-pico.c) the step is still
// one real SMSS but it comes every cwnd * SMSS / reference bytes, so cwnd
// grows by `reference` bytes per RTT whatever the packet size.
#ifndef CCREPLAY_CC_RENO_SENDER_H_
#define CCREPLAY_CC_RENO_SENDER_H_

#include <memory>

#include "cc/byte_counting_sender.h"

namespace ccreplay {

class RenoSender final : public ByteCountingSender {
 public:
  explicit RenoSender(const ControllerOptions& options)
      : ByteCountingSender(options) {}

  std::unique_ptr<CongestionController> Clone() const override {
    return std::make_unique<RenoSender>(*this);
  }

 protected:
  void CongestionAvoidance(const AckEvent& ack, uint64_t bytes_acked) override;
  double Beta(bool /*ecn*/) const override { return 0.5; }
  double MinWindowSegments(bool /*ecn*/) const override { return 2; }
  void OnCongestionEvent(bool /*ecn*/) override { bytes_acked_ = 0; }
  void OnTimeout() override { bytes_acked_ = 0; }

 private:
  // RFC 3465's bytes_acked, scaled by growth_bytes() so that the threshold
  // cwnd * SMSS is compared exactly (no division).
  double bytes_acked_ = 0;
};

}  // namespace ccreplay

#endif  // CCREPLAY_CC_RENO_SENDER_H_
