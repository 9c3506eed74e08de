#include "cc/ngtcp2_sender.h"

#include <algorithm>

namespace ccreplay {
namespace {

// lib/ngtcp2_cc.c ngtcp2_cc_*_cc_on_ack_recv(): target_cwnd is 289 / 100
// of the larger of the initial window and the delivery-rate BDP.
constexpr uint64_t kTargetCwndPercent = 289;

}  // namespace

uint64_t Ngtcp2Sender::InitialWindowBytes(uint64_t mss_bytes) {
  return std::min(10 * mss_bytes, std::max<uint64_t>(2 * mss_bytes, 14720));
}

Ngtcp2Sender::Ngtcp2Sender(uint32_t mss_bytes)
    : mss_bytes_(mss_bytes), cwnd_bytes_(InitialWindowBytes(mss_bytes)) {}

void Ngtcp2Sender::OnAck(const AckEvent& ack) {
  OnAckStart(ack);
  if (!ack.acked_packets.empty()) {
    for (const AckedPacket& packet : ack.acked_packets) {
      OnPacketAckedUnlessHeld(ack, packet.send_order, packet.bytes);
    }
  } else {
    // Without the packets (a TCP timeline): equal shares, the remainder on
    // the last, all judged by the newest packet.
    const uint64_t packets = PerPacketSteps(ack, mss_bytes_);
    for (uint64_t i = 0; i < packets && ack.bytes_acked > 0; ++i) {
      OnPacketAckedUnlessHeld(
          ack, ack.largest_acked_send_order,
          ack.bytes_acked / packets +
              (i + 1 == packets ? ack.bytes_acked % packets : 0));
    }
  }
  // lib/ngtcp2_conn.c conn_verify_ecn(): a CE increase is a congestion
  // event when the newest packet acknowledged was sent after recovery
  // began. Its recovery starts now; packets still in flight count as sent
  // before it only up to the newest one acknowledged (the ACK does not say
  // how many were sent since).
  if (HasCeFeedback(ack) &&
      ack.largest_acked_send_order >= recovery_start_order_)
    CongestionEvent(ack.largest_acked_send_order + 1);
  UpdateTarget(ack);
}

void Ngtcp2Sender::OnPacketAckedUnlessHeld(const AckEvent& ack,
                                           int64_t send_order,
                                           uint64_t packet_bytes) {
  // on_pkt_acked: no growth for a packet sent at or before the recovery
  // start (in_congestion_recovery(); a Handshake-space packet, -1, and a
  // packet of unknown order are never held back), nor above the cap.
  if (send_order >= 0 && send_order < recovery_start_order_) return;
  if (target_cwnd_bytes_ > 0 && target_cwnd_bytes_ < cwnd_bytes_) return;
  OnPacketAcked(ack, packet_bytes);
}

void Ngtcp2Sender::OnLoss(const LossEvent& loss) {
  // The timeline reports a loss only for a packet sent after the current
  // recovery period began (RFC 9002 section 7.3.2, as
  // in_congestion_recovery() tests it).
  CongestionEvent(loss.send_order);
}

void Ngtcp2Sender::CongestionEvent(int64_t send_order) {
  recovery_start_order_ = send_order;
  Reduce();
}

void Ngtcp2Sender::UpdateTarget(const AckEvent& ack) {
  max_delivery_rate_bytes_per_s_ =
      std::max(max_delivery_rate_bytes_per_s_, ack.delivery_rate_bytes_per_s);
  // ngtcp2 needs an RTT sample (min_rtt set); a millisecond log may round
  // min_rtt to 0, so the smoothed RTT tells whether there was one.
  if (max_delivery_rate_bytes_per_s_ == 0 || ack.srtt_us <= 0) return;
  // AckEvent's 0 means "no value": the smallest positive min_rtt seen.
  if (ack.min_rtt_us > 0 && (min_rtt_us_ == 0 || ack.min_rtt_us < min_rtt_us_))
    min_rtt_us_ = ack.min_rtt_us;
  const uint64_t bdp_bytes = max_delivery_rate_bytes_per_s_ *
                             static_cast<uint64_t>(min_rtt_us_) / 1000000;
  target_cwnd_bytes_ = std::max(InitialWindowBytes(mss_bytes_), bdp_bytes) *
                       kTargetCwndPercent / 100;
}

ControllerState Ngtcp2Sender::state() const {
  ControllerState s;
  s.phase = InSlowStart() ? Phase::kSlowStart : Phase::kCongestionAvoidance;
  return s;
}

}  // namespace ccreplay
