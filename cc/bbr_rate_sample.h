// tcp_rate.c's rate_sample as both BBRs' bbr_main() reads it (Linux 6.18
// net/ipv4/tcp_rate.c, google/bbr v3 adds `lost` and `tx_in_flight`),
// made from one ACK of the replay or the simulator. One struct and one
// builder for bbr:linux and bbr:v3; v3 adds its own per-ACK context.
#ifndef CCREPLAY_CC_BBR_RATE_SAMPLE_H_
#define CCREPLAY_CC_BBR_RATE_SAMPLE_H_

#include <algorithm>
#include <cstdint>

#include "cc/congestion_controller.h"

namespace ccreplay {

struct BbrRateSample {
  int64_t delivered = -1;
  uint64_t prior_delivered = 0;
  int64_t interval_us = -1;
  bool app_limited = false;
  int64_t rtt_us = -1;
  uint32_t acked_sacked = 0;
  uint32_t losses = 0;        // Newly marked lost by this ACK.
  uint64_t lost = 0;          // Lost since the sampled packet was sent (v3).
  uint64_t tx_in_flight = 0;  // In flight when it was sent (v3).
  uint32_t prior_in_flight = 0;
};

// The sample of `ack`, which delivered `acked` packets, for a sender of
// `mss_bytes` segments: prior_in_flight in packets, rounded up.
inline BbrRateSample BbrRateSampleOf(const AckEvent& ack, uint32_t acked,
                                     uint32_t mss_bytes) {
  BbrRateSample rs;
  if (ack.rate_sample.has_value()) {
    const DeliveryRateSample& s = *ack.rate_sample;
    rs.delivered = s.delivered_packets;
    rs.prior_delivered = s.prior_delivered_packets;
    rs.interval_us = s.interval_us;
    rs.app_limited = s.app_limited;
    rs.lost = s.lost_packets;
    rs.tx_in_flight = s.tx_in_flight_packets;
  }
  if (ack.rtt_sample_us > 0) rs.rtt_us = ack.rtt_sample_us;
  rs.acked_sacked = acked;
  rs.losses = static_cast<uint32_t>(ack.packets_newly_lost);
  const uint64_t mss = std::max<uint32_t>(mss_bytes, 1);
  rs.prior_in_flight = static_cast<uint32_t>(
      (ack.bytes_in_flight + ack.bytes_acked + mss - 1) / mss);
  return rs;
}

}  // namespace ccreplay

#endif  // CCREPLAY_CC_BBR_RATE_SAMPLE_H_
