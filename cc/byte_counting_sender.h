// The window machinery shared by the RFC (byte-counting) profiles `reno` and
// `cubic`, in bytes:
//
// - Slow start: cwnd grows by the bytes acknowledged, up to ssthresh; the
//   rest carries into congestion avoidance (RFC 9002 section 7.3.1; RFC 3465
//   byte counting without the L limit, since ACKs covering many segments are
//   the norm in captures).
// - Congestion events, at most one per window (RFC 5681 section 3.2, RFC
//   3168 section 6.1.2, RFC 9002 section 7.3.2): a fast retransmit or ECN
//   feedback sets ssthresh = max(FlightSize * beta, 2 * SMSS) and cwnd to it;
//   no growth until data sent after the event is acknowledged.
// - RTO: ssthresh as above, cwnd = 1 SMSS (RFC 5681 section 3.1 loss
//   window), then slow start.
// - Restart after idle longer than the RTO: cwnd = min(IW, cwnd) (RFC 5681
//   section 4.1).
// - No growth while not cwnd-limited (RFC 7661 section 4.2; RFC 9438 section
//   5.8).
// - With `hystart_plus_plus`, the initial slow start is HyStart++'s (RFC
//   9406, cc/hystart_plus_plus.h): per-ACK growth capped at 8 SMSS, CSS,
//   and ssthresh = cwnd at its end.
#ifndef CCREPLAY_CC_BYTE_COUNTING_SENDER_H_
#define CCREPLAY_CC_BYTE_COUNTING_SENDER_H_

#include <cstdint>
#include <optional>

#include "cc/congestion_controller.h"
#include "cc/hystart_plus_plus.h"
#include "cc/round_tracker.h"

namespace ccreplay {

class ByteCountingSender : public CongestionController {
 public:
  // CongestionController:
  void OnAck(const AckEvent& ack) final;
  void OnLoss(const LossEvent& loss) final;
  void OnPacketSent(const PacketSentEvent& sent) final;
  void OnIdleRestart(const IdleRestartEvent& idle) final;
  uint64_t cwnd_bytes() const final;
  double cwnd_segments() const final { return cwnd_bytes_ / mss_bytes_; }
  uint64_t ssthresh_bytes() const final;
  std::optional<double> pacing_rate_bps() const final { return std::nullopt; }
  ControllerState state() const override;

 protected:
  explicit ByteCountingSender(const ControllerOptions& options);

  // Growth in congestion avoidance for `bytes_acked` (cwnd-limited only).
  virtual void CongestionAvoidance(const AckEvent& ack,
                                   uint64_t bytes_acked) = 0;
  // Multiplicative decrease factor for a loss or an ECN signal.
  virtual double Beta(bool ecn) const = 0;
  // Smallest cwnd after a reduction, in segments.
  virtual double MinWindowSegments(bool ecn) const = 0;
  // Called before cwnd is reduced (cwnd still holds its prior value).
  virtual void OnCongestionEvent(bool /*ecn*/) {}
  virtual void OnTimeout() {}
  // ACK received while not cwnd-limited, and restart after idle.
  virtual void OnAppLimited(const AckEvent& /*ack*/) {}
  virtual void OnIdle(int64_t /*idle_us*/) {}

  // The bytes that count as one segment of growth in congestion avoidance:
  // the reference size when normalizing, else the real MSS.
  double growth_bytes() const {
    return options_.normalize_bytes > 0 ? options_.normalize_bytes : mss_bytes_;
  }
  bool InSlowStart() const { return cwnd_bytes_ < ssthresh_bytes_; }

  double cwnd_bytes_;
  double ssthresh_bytes_;
  double mss_bytes_;
  int64_t now_us_ = 0;
  int64_t srtt_us_ = 0;

 private:
  enum class Reduction { kNone, kCwr, kRecovery, kTimeout };
  void Reduce(bool ecn, uint64_t flight_bytes);
  // Slow-start growth for a cwnd-limited ACK; returns the bytes left over
  // for congestion avoidance.
  uint64_t SlowStart(uint64_t bytes_acked,
                     const std::optional<HyStartPlusPlus::Step>& step);

  ControllerOptions options_;
  Reduction reduction_ = Reduction::kNone;
  uint64_t high_mark_bytes_ = 0;
  uint64_t bytes_in_flight_ = 0;
  RoundTracker rounds_;
  int64_t rounds_outside_slow_start_ = 0;
  std::optional<HyStartPlusPlus> hystart_;  // only with hystart_plus_plus
};

}  // namespace ccreplay

#endif  // CCREPLAY_CC_BYTE_COUNTING_SENDER_H_
