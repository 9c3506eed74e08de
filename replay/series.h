// Per-flow time series: what `diagnose` draws for one sender, whether the
// samples come from replaying a capture (replay/) or from the closed-loop
// simulator (replay/sim/). One plain struct per sample, no behaviour: the
// producer fills it, reports/ reads it.
//
// Samples are taken on a fixed time grid (not per packet), so memory grows
// with the report's resolution, not with the number of packets.
#ifndef CCREPLAY_REPLAY_SERIES_H_
#define CCREPLAY_REPLAY_SERIES_H_

#include <cstdint>
#include <string>
#include <vector>

#include "cc/congestion_controller.h"

namespace ccreplay {

struct SeriesSample {
  int64_t time_us = 0;  // since the start of the capture or simulation
  uint64_t cwnd_bytes = 0;
  uint64_t ssthresh_bytes = kNoSsthreshBytes;  // kNoSsthreshBytes: not set
  Phase phase = Phase::kSlowStart;
  double alpha = -1;       // ControllerState::alpha; -1 when none
  double ai_factor = 1.0;  // ControllerState::ai_factor
  uint64_t bytes_in_flight = 0;
  // Bytes delivered (cumulative) and the delivery rate over the interval
  // that ends at this sample.
  uint64_t delivered_bytes = 0;
  double throughput_bps = 0;
  // Bottleneck backlog at this instant; -1 where it is not known (captures).
  int64_t queue_bytes = -1;
  // The sender's smoothed RTT (RFC 6298), including queueing; 0 before the
  // first sample.
  int64_t srtt_us = 0;
};

struct FlowSeries {
  std::string label;  // e.g. the controller spec, "reno:mss=1280"
  std::vector<SeriesSample> samples;
};

}  // namespace ccreplay

#endif  // CCREPLAY_REPLAY_SERIES_H_
