#include "cc/bbr_ack_aggregation.h"

namespace ccreplay {
namespace {

constexpr uint64_t kBwUnit = uint64_t{1} << 24;  // BW_SCALE

}  // namespace

void BbrAckAggregation::Update(bool round_start, uint32_t window_rounds,
                               int64_t delivered_mstamp_us, uint32_t bw,
                               uint32_t acked_sacked, uint32_t cwnd) {
  if (round_start) {
    window_age_rounds_ = std::min(0x1Fu, window_age_rounds_ + 1);
    if (window_age_rounds_ >= window_rounds) {
      window_age_rounds_ = 0;
      window_index_ ^= 1;
      extra_acked_[window_index_] = 0;
    }
  }
  const auto epoch_us =
      static_cast<uint64_t>(delivered_mstamp_us - epoch_start_us_);
  uint64_t expected_acked = uint64_t{bw} * epoch_us / kBwUnit;
  // A new epoch when ACKs fall behind the rate, or the epoch grew old.
  if (epoch_acked_ <= expected_acked ||
      epoch_acked_ + acked_sacked >= kEpochAckedResetThresh) {
    epoch_acked_ = 0;
    epoch_start_us_ = delivered_mstamp_us;
    expected_acked = 0;
  }
  epoch_acked_ = std::min(0xFFFFFu, epoch_acked_ + acked_sacked);
  const auto extra = static_cast<uint32_t>(
      std::min<uint64_t>(epoch_acked_ - expected_acked, uint64_t{cwnd}));
  extra_acked_[window_index_] = std::max(extra_acked_[window_index_], extra);
}

uint32_t BbrAckAggregation::Cwnd(uint32_t bw, uint32_t max_us) const {
  const auto max_aggr_cwnd =
      static_cast<uint32_t>(uint64_t{bw} * max_us / kBwUnit);
  return std::min(extra_acked(), max_aggr_cwnd);
}

}  // namespace ccreplay
