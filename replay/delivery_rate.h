// The sender's delivery-rate estimator, as Linux's net/ipv4/tcp_rate.c
// (6.18) runs it, rebuilt from a capture: each transmission records the
// connection's delivery state (tcp_rate_skb_sent()); each ACK takes the
// newest packet it (S)ACKed (SackScoreboard picks it, as
// tcp_rate_skb_delivered() does) and forms the sample of tcp_rate_gen():
// packets delivered since that packet was sent, over the longer of its
// send phase and its ACK phase.
//
// What a capture cannot give, and what stands in for it:
// - tp->app_limited is set by tcp_rate_check_app_limited() when the write
//   queue holds less than one MSS; a capture shows only its traces: a
//   new-data segment shorter than the MSS (then the sender had nothing
//   more to send), and new data leaving after a departure gap that neither
//   an ACK nor the pacing clock explains (a write after a bubble whose
//   sub-MSS tail Nagle held; AckTimelineBuilder::MarkWriteAfterBubble()).
//   Either marks the "bubble" here. A socket buffer that ran dry while
//   cwnd- or pacing-limited is not seen.
// - Times are the capture's, not the sender's clock (a sender-side capture
//   is within microseconds of it).
#ifndef CCREPLAY_REPLAY_DELIVERY_RATE_H_
#define CCREPLAY_REPLAY_DELIVERY_RATE_H_

#include <cstdint>
#include <optional>

#include "cc/congestion_controller.h"

namespace ccreplay {

// TCP_SKB_CB(skb)->tx: the delivery state when a packet was last sent.
struct RateSnapshot {
  uint64_t delivered = 0;    // tp->delivered
  int64_t delivered_ns = 0;  // tp->delivered_mstamp; 0: no snapshot
  int64_t first_tx_ns = 0;   // tp->first_tx_mstamp
  bool app_limited = false;  // tp->app_limited was set
  // BBRv3's tx.in_flight and tx.lost (DeliveryRateSample); 0: untracked.
  uint64_t in_flight = 0;
  uint64_t lost = 0;
};

// The newest packet an ACK delivered: its snapshot and its last send time.
struct DeliveredPacket {
  RateSnapshot tx;
  int64_t sent_ns = 0;
};

class DeliveryRateEstimator {
 public:
  // tcp_rate_skb_sent(), for a transmission at `send_ns` when
  // `nothing_outstanding` (packets_out == 0); `in_flight_packets` counts it
  // too (0 when the caller does not know, as the replay).
  RateSnapshot OnSend(int64_t send_ns, bool nothing_outstanding,
                      uint64_t in_flight_packets = 0);
  // tp->lost grows: `packets` newly marked lost.
  void OnLoss(uint64_t packets) { lost_ += packets; }
  // tcp_rate_check_app_limited() after new data shorter than the MSS: the
  // bubble lasts until the packets now in flight are delivered.
  void MarkAppLimited(uint64_t packets_in_flight);
  // tcp_rate_gen() for an ACK at `ack_ns` that newly delivered
  // `packets_delivered` packets; nullopt when it gives no valid sample (no
  // snapshot, SACK reneging, interval below `min_rtt_us`).
  std::optional<DeliveryRateSample> OnAck(
      int64_t ack_ns, uint64_t packets_delivered,
      const std::optional<DeliveredPacket>& newest, int64_t min_rtt_us,
      bool reneged);

  uint64_t delivered() const { return delivered_; }
  // tp->app_limited is set: a bubble not yet delivered.
  bool app_limited() const { return app_limited_; }

 private:
  uint64_t delivered_ = 0;
  uint64_t lost_ = 0;  // tp->lost
  int64_t delivered_ns_ = 0;
  int64_t first_tx_ns_ = 0;
  // tp->app_limited: 0 when not limited, else the delivered count that ends
  // the bubble. tcp_init_sock() starts it at ~0U, which the first ACK clears.
  uint64_t app_limited_until_ = 0;
  bool app_limited_ = true;
};

}  // namespace ccreplay

#endif  // CCREPLAY_REPLAY_DELIVERY_RATE_H_
