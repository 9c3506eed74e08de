// The window machinery quicly's controllers share, in bytes, as
// h2o/quicly lib/cc-pico.c @ 01aa5e7c (after PRs #678/#686: Reno, CUBIC,
// Cuback and Pico all in that file) does it:
//
// - One recovery period per congestion event: quicly sets recovery_end to
//   the next packet number and ignores losses and growth for packets below
//   it. Without packet numbers the period lasts until data sent after the
//   event is acknowledged: delivered >= delivered-at-event + flight-at-event
//   (the convention of byte_counting_sender.h).
// - Slow start and Reno/Pico/Cuback congestion avoidance through one ACK
//   counter (pico_on_acked): cwnd grows by one real MTU each time
//   `bytes_to_mtu_increase` bytes have been acknowledged, and an ACK can
//   span several intervals. The interval is one MTU in slow start, and the
//   profile's own (CaBytesPerMtuIncrease()) in congestion avoidance.
//   Nothing grows while not cwnd-limited.
// - Congestion event (pico_on_lost; also for ECN-CE, which quicly reports as
//   a zero-byte loss): cwnd *= 0.5 when leaving slow start (the 2x overshoot
//   of slow start), else the profile's beta; cwnd >= 2 MTU
//   (QUICLY_MIN_CWND); ssthresh = cwnd. The BDP estimate handed to the
//   profile is the cwnd before reduction, or cwnd / 2 (>= 2 MTU) on the
//   first event.
// - quicly never collapses cwnd on a PTO or persistent congestion (the
//   callback is gone from cc.h after #678), so an RTO-kind loss is an
//   ordinary congestion event; a profile may override that.
// Not modelled: Rapid Start, jumpstart, undo of spurious losses
// (cc_on_late_ack), multipath LIA.
//
// MTU normalization (PR #686, QUICLY_CC_REFERENCE_MTU): `normalize_bytes`
// replaces the real MTU in congestion-avoidance growth only; ReferenceMtu().
#ifndef CCREPLAY_CC_QUICLY_SENDER_H_
#define CCREPLAY_CC_QUICLY_SENDER_H_

#include <cstdint>
#include <optional>

#include "cc/congestion_controller.h"
#include "cc/round_tracker.h"

namespace ccreplay {

class QuiclySender : public CongestionController {
 public:
  // include/quicly/cc.h @ 01aa5e7c.
  static constexpr double kBetaLoss = 0.7;  // QUICLY_BETA_LOSS
  static constexpr double kBetaEcn = 0.85;  // QUICLY_BETA_ECN (ABE, RFC 8511)
  static constexpr double kBetaReno = 0.5;  // QUICLY_BETA_RENO
  static constexpr uint64_t kMinCwndMtus = 2;  // QUICLY_MIN_CWND

  // quicly_cc_calc_initial_cwnd(): max(packets, 2) * min(mtu, 1472). quicly
  // passes its own transport parameter max_udp_payload_size (1472 by
  // default), not the egress size (1280 until the peer's is known).
  static uint64_t InitialWindowBytes(uint32_t packets, uint32_t mtu_bytes);

  // CongestionController:
  void OnAck(const AckEvent& ack) final;
  void OnLoss(const LossEvent& loss) final;
  void OnPacketSent(const PacketSentEvent& sent) override;
  void OnIdleRestart(const IdleRestartEvent& idle) override;
  uint64_t cwnd_bytes() const final { return cwnd_bytes_; }
  double cwnd_segments() const final {
    return static_cast<double>(cwnd_bytes_) / mtu_bytes_;
  }
  uint64_t ssthresh_bytes() const final { return ssthresh_bytes_; }
  std::optional<double> pacing_rate_bps() const final { return std::nullopt; }
  ControllerState state() const final;

  // Bytes still to be acknowledged before the next one-MTU increase
  // (quicly's state.pico.bytes_to_mtu_increase; 0 = recomputed at the next
  // ACK). For tests.
  uint64_t bytes_to_mtu_increase() const { return bytes_to_mtu_increase_; }

 protected:
  QuiclySender(const ControllerOptions& options, uint64_t initial_window_bytes);
  // With quicly's initial window, InitialWindowBytes(iw, mss).
  explicit QuiclySender(const ControllerOptions& options)
      : QuiclySender(options,
                     InitialWindowBytes(options.initial_window_segments,
                                        options.mss_bytes)) {}

  // What one congestion event tells the profile; cwnd is already reduced.
  struct CongestionEvent {
    bool ecn = false;
    double beta = kBetaLoss;
    uint64_t cwnd_before_bytes = 0;
    uint64_t bdp_bytes = 0;  // cwnd before, or cwnd / 2 on the first event
    uint64_t previous_ssthresh_bytes = kNoSsthreshBytes;
  };

  // Growth for an ACK outside recovery. The default is quicly's ACK counter
  // (slow start and congestion avoidance), cwnd-limited ACKs only.
  virtual void Grow(const AckEvent& ack);
  // The congestion-avoidance interval of the ACK counter.
  virtual uint64_t CaBytesPerMtuIncrease() const { return cwnd_bytes_; }
  virtual double Beta(bool ecn) const { return ecn ? kBetaEcn : kBetaLoss; }
  // Called after cwnd was reduced, before ssthresh is set to it.
  virtual void OnCongestion(const CongestionEvent& /*event*/) {}
  // An RTO-kind loss after its congestion event; quicly does nothing more.
  virtual void OnTimeoutLoss() {}
  // Whether ECN-CE feedback reduces cwnd before the same ACK's growth
  // (RFC 9002 appendix B.6 processes ECN first) or after it (quicly).
  virtual bool CeBeforeGrowth() const { return false; }
  // Counts `bytes` acknowledged against the ACK counter (pico_on_acked).
  void CountAckedBytes(uint64_t bytes);
  // The packet size congestion-avoidance growth is computed with.
  double ReferenceMtu() const {
    return normalize_bytes_ > 0 ? normalize_bytes_ : mtu_bytes_;
  }
  bool InSlowStart() const { return cwnd_bytes_ < ssthresh_bytes_; }
  // Ends the recovery period now (RFC 9002 persistent congestion).
  void EndRecovery() { in_recovery_ = false; }

  uint64_t cwnd_bytes_;
  uint64_t ssthresh_bytes_ = kNoSsthreshBytes;
  uint32_t mtu_bytes_;
  uint32_t normalize_bytes_;
  int64_t now_us_ = 0;
  int64_t srtt_us_ = 0;
  uint64_t bytes_to_mtu_increase_ = 0;
  int64_t num_loss_episodes_ = 0;

 private:
  void OnCongestionSignal(bool ecn, uint64_t flight_bytes);

  bool in_recovery_ = false;
  bool last_signal_ecn_ = false;
  uint64_t recovery_end_bytes_ = 0;  // delivered bytes that end recovery
  uint64_t bytes_in_flight_ = 0;
  RoundTracker rounds_;
  int64_t rounds_outside_slow_start_ = 0;
};

}  // namespace ccreplay

#endif  // CCREPLAY_CC_QUICLY_SENDER_H_
