// `rfc9002:newreno`: the QUIC default controller of RFC 9002 section 7 and
// appendix B, in bytes with max_datagram_size = the MTU:
//
// - initial window min(iw * mds, max(14720, 2 * mds)) with iw = 10
//   (section 7.2; appendix B.2 kInitialWindow), minimum window 2 * mds;
// - slow start: cwnd += bytes acknowledged; congestion avoidance: cwnd +=
//   mds * sent_bytes / cwnd per packet acknowledged (B.5), the fractions
//   kept; no increase while not cwnd-limited (section 7.8);
// - one reduction per recovery period (section 7.3.2): ssthresh = cwnd *
//   kLossReductionFactor (0.5), cwnd = max(ssthresh, minimum window), for
//   loss and ECN-CE alike (B.6 processes ECN before the ACK's growth); the
//   period, which RFC 9002 keys on the lost packet's send time, ends when
//   data sent after it is acknowledged (quicly_sender.h's byte mark);
// - persistent congestion (section 7.6.2; an RTO-kind loss here): cwnd =
//   minimum window and the recovery period ends (B.8).
// With `hystart_plus_plus`, the initial slow start is HyStart++'s (RFC
// 9406, cc/hystart_plus_plus.h; RFC 9002 section 7.3.1 allows it), SMSS =
// mds. Pacing is not modelled.
#ifndef CCREPLAY_CC_RFC9002_NEWRENO_H_
#define CCREPLAY_CC_RFC9002_NEWRENO_H_

#include <cstdint>
#include <memory>
#include <optional>

#include "cc/hystart_plus_plus.h"
#include "cc/quicly_sender.h"

namespace ccreplay {

class Rfc9002NewReno final : public QuiclySender {
 public:
  static constexpr double kLossReductionFactor = 0.5;
  static constexpr uint64_t kInitialWindowCapBytes = 14720;

  // Section 7.2.
  static uint64_t InitialWindowBytes(uint32_t packets, uint32_t mds_bytes);

  explicit Rfc9002NewReno(const ControllerOptions& options);

  std::unique_ptr<CongestionController> Clone() const override {
    return std::make_unique<Rfc9002NewReno>(*this);
  }

 protected:
  void Grow(const AckEvent& ack) override;
  double Beta(bool /*ecn*/) const override { return kLossReductionFactor; }
  void OnTimeoutLoss() override;
  bool CeBeforeGrowth() const override { return true; }
  void OnCongestion(const CongestionEvent& /*event*/) override;

 private:
  // Adds `bytes` to cwnd in whole bytes, keeping the fraction.
  void AddGrowth(double bytes);

  // Fractions of B.5's per-packet increase (and of CSS's quarter growth).
  double growth_carry_bytes_ = 0;
  std::optional<HyStartPlusPlus> hystart_;  // only with hystart_plus_plus
};

}  // namespace ccreplay

#endif  // CCREPLAY_CC_RFC9002_NEWRENO_H_
