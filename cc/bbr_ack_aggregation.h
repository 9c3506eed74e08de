// BBR's estimate of ACK aggregation, shared by bbr:linux and bbr:v3:
// bbr_update_ack_aggregation() and bbr_ack_aggregation_cwnd() (Linux 6.18
// net/ipv4/tcp_bbr.c; google/bbr v3 tcp_bbr.c at 001a430b differs only in
// the window, 1 round before the pipe is full). The excess of packets
// (S)ACKed over bw x time since the epoch began, max-filtered over two
// windows of `window_rounds` rounds, is added to cwnd to keep sending
// through inter-ACK silences.
#ifndef CCREPLAY_CC_BBR_ACK_AGGREGATION_H_
#define CCREPLAY_CC_BBR_ACK_AGGREGATION_H_

#include <algorithm>
#include <cstdint>

namespace ccreplay {

class BbrAckAggregation {
 public:
  // bbr_extra_acked_win_rtts, bbr_extra_acked_max_us,
  // bbr_ack_epoch_acked_reset_thresh.
  static constexpr uint32_t kWindowRounds = 5;
  static constexpr uint32_t kMaxUs = 100'000;
  static constexpr uint32_t kEpochAckedResetThresh = 1u << 20;

  // A new sampling epoch at `now_us` (connection start, CA_EVENT_TX_START).
  void RestartEpoch(int64_t now_us) {
    epoch_start_us_ = now_us;
    epoch_acked_ = 0;
  }
  // One valid rate sample that (S)ACKed `acked_sacked` packets at
  // `delivered_mstamp_us`, with `bw` in packets/µs << 24.
  void Update(bool round_start, uint32_t window_rounds,
              int64_t delivered_mstamp_us, uint32_t bw, uint32_t acked_sacked,
              uint32_t cwnd);
  // max(extra_acked[0], extra_acked[1]).
  uint32_t extra_acked() const {
    return std::max(extra_acked_[0], extra_acked_[1]);
  }
  // bbr_ack_aggregation_cwnd() with extra_acked_gain = 1: at most
  // `max_us` (bbr_extra_acked_max_us, 100 ms) of `bw`.
  uint32_t Cwnd(uint32_t bw, uint32_t max_us = kMaxUs) const;

 private:
  int64_t epoch_start_us_ = 0;
  uint32_t epoch_acked_ = 0;
  uint32_t extra_acked_[2] = {0, 0};
  uint32_t window_age_rounds_ = 0;
  uint32_t window_index_ = 0;
};

}  // namespace ccreplay

#endif  // CCREPLAY_CC_BBR_ACK_AGGREGATION_H_
