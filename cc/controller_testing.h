// Test helpers: synthetic ACK streams for the controller tests.
#ifndef CCREPLAY_CC_CONTROLLER_TESTING_H_
#define CCREPLAY_CC_CONTROLLER_TESTING_H_

#include <cstdint>

#include "cc/congestion_controller.h"

namespace ccreplay {
namespace testing {

// An ACK of `segments` full segments of `mss_bytes`, cwnd-limited, with
// `in_flight_bytes` still outstanding afterwards.
inline AckEvent SegmentAck(int64_t time_us, uint32_t segments,
                           uint32_t mss_bytes, uint64_t in_flight_bytes,
                           int64_t srtt_us = 10000) {
  AckEvent ack;
  ack.time_us = time_us;
  ack.bytes_acked = uint64_t{segments} * mss_bytes;
  ack.packets_delivered = segments;
  ack.rtt_sample_us = srtt_us;
  ack.srtt_us = srtt_us;
  ack.min_rtt_us = srtt_us;
  ack.bytes_in_flight = in_flight_bytes;
  ack.cwnd_limited = true;
  ack.mss_bytes = mss_bytes;
  return ack;
}

// An ACK (frame) of `bytes` newly acknowledged bytes, as quicly's
// cc_on_acked() takes it; `in_flight_bytes` remain outstanding afterwards.
inline AckEvent BytesAck(int64_t time_us, uint64_t bytes, uint32_t mss_bytes,
                         uint64_t in_flight_bytes, int64_t srtt_us = 0,
                         bool cwnd_limited = true) {
  AckEvent ack;
  ack.time_us = time_us;
  ack.bytes_acked = bytes;
  ack.srtt_us = srtt_us;
  ack.bytes_in_flight = in_flight_bytes;
  ack.cwnd_limited = cwnd_limited;
  ack.mss_bytes = mss_bytes;
  return ack;
}

// A fast-retransmit loss with `in_flight_bytes` outstanding.
inline LossEvent FastRetransmit(int64_t time_us, uint64_t in_flight_bytes) {
  LossEvent loss;
  loss.time_us = time_us;
  loss.kind = LossEvent::Kind::kFastRetransmit;
  loss.bytes_lost = 0;
  loss.bytes_in_flight = in_flight_bytes;
  return loss;
}

}  // namespace testing
}  // namespace ccreplay

#endif  // CCREPLAY_CC_CONTROLLER_TESTING_H_
