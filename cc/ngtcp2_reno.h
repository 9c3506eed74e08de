// `ngtcp2:reno`: ngtcp2's Reno as Debian 12 ships it (ngtcp2 0.12.1,
// lib/ngtcp2_cc.c ngtcp2_cc_reno_cc_*): slow start adds each acknowledged
// packet's size; congestion avoidance adds mss * packet / cwnd bytes per
// packet, carrying the integer remainder (pending_add); a congestion event
// halves cwnd (NGTCP2_LOSS_REDUCTION_FACTOR_BITS = 1), floor 2 * mss, and
// sets ssthresh to it. The shared rules and the growth cap:
// cc/ngtcp2_sender.h.
#ifndef CCREPLAY_CC_NGTCP2_RENO_H_
#define CCREPLAY_CC_NGTCP2_RENO_H_

#include <cstdint>
#include <memory>

#include "cc/ngtcp2_sender.h"

namespace ccreplay {

class Ngtcp2Reno final : public Ngtcp2Sender {
 public:
  explicit Ngtcp2Reno(uint32_t mss_bytes) : Ngtcp2Sender(mss_bytes) {}

  std::unique_ptr<CongestionController> Clone() const override {
    return std::make_unique<Ngtcp2Reno>(*this);
  }

 protected:
  // Ngtcp2Sender:
  void OnPacketAcked(const AckEvent& ack, uint64_t packet_bytes) override;
  void Reduce() override;

 private:
  uint64_t pending_add_ = 0;  // Remainder of mss * bytes / cwnd.
};

}  // namespace ccreplay

#endif  // CCREPLAY_CC_NGTCP2_RENO_H_
