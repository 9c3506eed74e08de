// `ngtcp2:cubic`: ngtcp2's CUBIC as Debian 12 ships it (ngtcp2 0.12.1,
// lib/ngtcp2_cc.c ngtcp2_cc_cubic_cc_*), which differs from RFC 9438:
// - integer arithmetic in 1/1024 s: K is an integer number of seconds
//   (ngtcp2_cbrt() of 2.5 * (W_max - cwnd) / mss), and the target is
//   W_cubic(t) scaled by (t + srtt) in seconds, clamped to [cwnd, 1.5 cwnd];
//   below cwnd it adds mss / (100 cwnd) per packet;
// - the Reno-friendly W_est (w_tcp) grows by mss * packet / cwnd per packet
//   (alpha = 1) from the start of each epoch, and wins whenever above cwnd;
// - beta 0.7 (ssthresh = cwnd * 7 / 10, floor 2 * mss) and fast
//   convergence W_max = cwnd * 0.85 when cwnd is below the previous W_max;
// - slow start ends without loss by HyStart++ (RFC 9406 section 4.2 delay
//   increase: 8 RTT samples per round, eta = last round's min RTT / 8 in
//   [4 ms, 16 ms], cwnd >= 16 mss) straight into congestion avoidance with
//   W_max = cwnd: no Conservative Slow Start phase.
// A round starts with the first packet sent after the previous round's
// last packet was acknowledged (window_end); here: once the bytes in flight
// at that moment, and one more byte, have been delivered.
#ifndef CCREPLAY_CC_NGTCP2_CUBIC_H_
#define CCREPLAY_CC_NGTCP2_CUBIC_H_

#include <cstdint>
#include <memory>
#include <optional>

#include "cc/ngtcp2_sender.h"

namespace ccreplay {

class Ngtcp2Cubic final : public Ngtcp2Sender {
 public:
  explicit Ngtcp2Cubic(uint32_t mss_bytes) : Ngtcp2Sender(mss_bytes) {}

  std::unique_ptr<CongestionController> Clone() const override {
    return std::make_unique<Ngtcp2Cubic>(*this);
  }

  // ngtcp2_cbrt(): the integer cube root by Newton's method from above.
  static uint64_t IntegerCubeRoot(uint64_t n);

 protected:
  // Ngtcp2Sender:
  void OnAckStart(const AckEvent& ack) override;
  void OnPacketAcked(const AckEvent& ack, uint64_t packet_bytes) override;
  void Reduce() override;

 private:
  static constexpr int64_t kNoRtt = INT64_MAX;

  void HyStartCheck();
  void StartEpoch(int64_t time_ns);
  // The cwnd the cubic curve asks for at `time_ns` (target in ngtcp2).
  uint64_t CubicTargetBytes(int64_t time_ns, int64_t srtt_ns) const;

  uint64_t w_last_max_bytes_ = 0;
  uint64_t w_tcp_bytes_ = 0;
  uint64_t origin_point_bytes_ = 0;
  std::optional<int64_t> epoch_start_ns_;
  uint64_t k_seconds_ = 0;
  uint64_t pending_add_ = 0;
  uint64_t pending_w_add_ = 0;

  // HyStart++ rounds.
  uint64_t delivered_bytes_ = 0;
  uint64_t round_end_bytes_ = 1;  // The first ACK ends the first round.
  bool round_closed_ = false;
  uint64_t closed_at_bytes_ = 0;  // delivered + flight when it closed.
  int64_t current_round_min_rtt_us_ = kNoRtt;
  int64_t last_round_min_rtt_us_ = kNoRtt;
  uint32_t rtt_sample_count_ = 0;
};

}  // namespace ccreplay

#endif  // CCREPLAY_CC_NGTCP2_CUBIC_H_
