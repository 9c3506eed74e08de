// What ngtcp2's Reno and CUBIC share, as Debian 12 ships them (ngtcp2
// 0.12.1+dfsg-1+deb12u1, lib/ngtcp2_cc.c; the ACK processing order of
// lib/ngtcp2_rtb.c ngtcp2_rtb_recv_ack()):
//
// - cwnd and ssthresh in bytes, grown per acknowledged packet
//   (on_pkt_acked), with max_tx_udp_payload_size (`mss=`) as the unit;
// - initial window min(10 * mss, max(2 * mss, 14720))
//   (ngtcp2_cc_compute_initcwnd(), RFC 9002 section 7.2);
// - no growth for a packet sent before the current recovery period began
//   (in_congestion_recovery()), one reduction per recovery period;
// - the growth cap: no growth while cwnd is above
//   target_cwnd = 2.89 * max(initial window, max delivery rate * min_rtt)
//   (on_ack_recv; the rate is the running maximum of the delivery-rate
//   samples, lib/ngtcp2_rst.c), a deviation from RFC 9002 / RFC 9438;
// - a floor of 2 * mss after a reduction.
// - ACKs of the Initial and Handshake spaces grow cwnd too (one ngtcp2_cc
//   for the three spaces; the QUIC timeline delivers them);
// - each acknowledged packet is judged by its own send time and size
//   (AckEvent::acked_packets), in packet-number order.
// Not modelled: persistent congestion (the QUIC timeline does not report
// it) and the restoration after a spurious loss (CUBIC's
// on_spurious_congestion: a packet declared lost that is acked later).
#ifndef CCREPLAY_CC_NGTCP2_SENDER_H_
#define CCREPLAY_CC_NGTCP2_SENDER_H_

#include <cstdint>
#include <optional>

#include "cc/congestion_controller.h"

namespace ccreplay {

class Ngtcp2Sender : public CongestionController {
 public:
  // CongestionController:
  void OnAck(const AckEvent& ack) final;
  void OnLoss(const LossEvent& loss) final;
  void OnPacketSent(const PacketSentEvent& /*sent*/) final {}
  void OnIdleRestart(const IdleRestartEvent& /*idle*/) final {}
  uint64_t cwnd_bytes() const final { return cwnd_bytes_; }
  double cwnd_segments() const final {
    return static_cast<double>(cwnd_bytes_) / mss_bytes_;
  }
  uint64_t ssthresh_bytes() const final { return ssthresh_bytes_; }
  std::optional<double> pacing_rate_bps() const final { return std::nullopt; }
  ControllerState state() const final;

  // ngtcp2_cc_compute_initcwnd().
  static uint64_t InitialWindowBytes(uint64_t mss_bytes);

 protected:
  explicit Ngtcp2Sender(uint32_t mss_bytes);

  // Before the packets of `ack` are processed (new_rtt_sample).
  virtual void OnAckStart(const AckEvent& /*ack*/) {}
  // One acknowledged packet of `packet_bytes` that may grow cwnd (outside
  // recovery, below the cap), at `ack`'s time (on_pkt_acked).
  virtual void OnPacketAcked(const AckEvent& ack, uint64_t packet_bytes) = 0;
  // The reduction of a new congestion event (congestion_event): sets
  // cwnd_bytes_ and ssthresh_bytes_.
  virtual void Reduce() = 0;

  bool InSlowStart() const { return cwnd_bytes_ < ssthresh_bytes_; }

  const uint64_t mss_bytes_;
  uint64_t cwnd_bytes_;
  uint64_t ssthresh_bytes_ = kNoSsthreshBytes;

 private:
  // A congestion event that begins recovery: packets with a smaller send
  // order than `send_order` were sent before it.
  void CongestionEvent(int64_t send_order);
  // One acknowledged packet, `send_order` as AckedPacket::send_order:
  // OnPacketAcked() unless recovery or the cap holds it back.
  void OnPacketAckedUnlessHeld(const AckEvent& ack, int64_t send_order,
                               uint64_t packet_bytes);
  void UpdateTarget(const AckEvent& ack);

  // congestion_recovery_start_ts, as a send order; -1 before the first
  // congestion event.
  int64_t recovery_start_order_ = -1;
  uint64_t max_delivery_rate_bytes_per_s_ = 0;
  uint64_t target_cwnd_bytes_ = 0;  // 0: no cap yet.
  int64_t min_rtt_us_ = 0;          // 0: none yet.
};

}  // namespace ccreplay

#endif  // CCREPLAY_CC_NGTCP2_SENDER_H_
