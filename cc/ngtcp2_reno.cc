#include "cc/ngtcp2_reno.h"

#include <algorithm>

namespace ccreplay {

void Ngtcp2Reno::OnPacketAcked(const AckEvent& /*ack*/, uint64_t packet_bytes) {
  if (InSlowStart()) {
    cwnd_bytes_ += packet_bytes;
    return;
  }
  const uint64_t m = mss_bytes_ * packet_bytes + pending_add_;
  pending_add_ = m % cwnd_bytes_;
  cwnd_bytes_ += m / cwnd_bytes_;
}

void Ngtcp2Reno::Reduce() {
  cwnd_bytes_ = std::max(cwnd_bytes_ >> 1, 2 * mss_bytes_);
  ssthresh_bytes_ = cwnd_bytes_;
  pending_add_ = 0;
}

}  // namespace ccreplay
