#include "replay/delivery_rate.h"

#include <algorithm>

namespace ccreplay {

RateSnapshot DeliveryRateEstimator::OnSend(int64_t send_ns,
                                           bool nothing_outstanding,
                                           uint64_t in_flight_packets) {
  // With nothing in flight the sample starts at this send: any ACK after it
  // shows what the network delivered since.
  if (nothing_outstanding) {
    first_tx_ns_ = send_ns;
    delivered_ns_ = send_ns;
  }
  return RateSnapshot{delivered_,   delivered_ns_,     first_tx_ns_,
                      app_limited_, in_flight_packets, lost_};
}

void DeliveryRateEstimator::MarkAppLimited(uint64_t packets_in_flight) {
  app_limited_ = true;
  app_limited_until_ = std::max<uint64_t>(delivered_ + packets_in_flight, 1);
}

std::optional<DeliveryRateSample> DeliveryRateEstimator::OnAck(
    int64_t ack_ns, uint64_t packets_delivered,
    const std::optional<DeliveredPacket>& newest, int64_t min_rtt_us,
    bool reneged) {
  delivered_ += packets_delivered;
  // "Clear app limited if bubble is acked and gone."
  if (app_limited_ && delivered_ > app_limited_until_) app_limited_ = false;
  if (packets_delivered > 0) delivered_ns_ = ack_ns;
  if (!newest.has_value() || newest->tx.delivered_ns == 0 || reneged) {
    return std::nullopt;
  }
  // tcp_rate_skb_delivered(): the send phase runs from the first send of
  // the window to this packet's, which starts the next window.
  first_tx_ns_ = newest->sent_ns;
  const int64_t send_us = (newest->sent_ns - newest->tx.first_tx_ns) / 1000;
  const int64_t ack_us = (ack_ns - newest->tx.delivered_ns) / 1000;
  DeliveryRateSample rs;
  rs.prior_delivered_packets = newest->tx.delivered;
  rs.delivered_packets =
      static_cast<int64_t>(delivered_ - newest->tx.delivered);
  rs.app_limited = newest->tx.app_limited;
  rs.tx_in_flight_packets = newest->tx.in_flight;
  rs.lost_packets = lost_ - newest->tx.lost;
  rs.interval_us = std::max(send_us, ack_us);
  // "Normally we expect interval_us >= min-rtt."
  if (rs.interval_us < min_rtt_us) rs.interval_us = -1;
  return rs;
}

}  // namespace ccreplay
