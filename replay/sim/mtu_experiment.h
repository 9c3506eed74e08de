// `ccreplay experiment mtu-normalization`: does a flow of 1280-byte packets
// get less throughput than a competing flow of 1462-byte packets with the
// same controller, and does MTU normalization (RFC 7141 section 2.3, quicly
// PR #686) close the gap?
//
// For every profile of path_profile.h: two long-lived flows share the
// bottleneck (packet-size-neutral tail drop, ACK every 2 packets, 25 ms
// maximum ACK delay as RFC 9000 section 18.2's default, no pacing, as
// quicly's simulator); twenty runs per profile and setting: ten start
// offsets spread over one base RTT, in both flow orders. By default every
// packet leaves its sender after a random delay uniform in [0, one
// bottleneck service time of a 1462-byte packet] (sender_jitter.h: Floyd
// and Jacobson's remedy for drop-tail phase effects, which otherwise decide
// which flow loses at each overflow); run r of every profile, setting and
// controller uses seed `seed` * 1000003 + r, so the two settings see the
// same random streams (common random numbers). Each run measures
// both flows' bottleneck egress from the moment both have had two complete
// congestion-avoidance periods after slow start (their third congestion
// episode) until each has had at least six more complete periods (seven
// more episodes), capped at `max_simulated_s`. No run is filtered.
// The profile's ratio is the arithmetic mean over its runs of
// T1280 / T1462; per controller, the geometric mean over profiles and the
// geometric standard deviation exp(sd(ln ratio)) (sample sd, n - 1).
#ifndef CCREPLAY_REPLAY_SIM_MTU_EXPERIMENT_H_
#define CCREPLAY_REPLAY_SIM_MTU_EXPERIMENT_H_

#include <cstdint>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "replay/sim/path_profile.h"
#include "replay/sim/sender_jitter.h"

namespace ccreplay {

struct MtuExperimentOptions {
  std::vector<std::string> controllers = {"reno", "cubic"};
  std::vector<PathProfile> profiles = PathProfiles();
  int start_offsets = 10;  // runs per setting = 2 * start_offsets
  int warmup_periods = 2;
  int measured_periods = 6;
  double max_simulated_s = 3600;
  uint32_t large_packet_bytes = 1462;
  uint32_t small_packet_bytes = 1280;
  uint32_t reference_bytes = 1462;  // kReferenceMtuBytes
  SenderJitterSpec sender_jitter = {SenderJitterSpec::Kind::kServiceTime, 0};
  uint64_t seed = 1;
  int threads = 0;  // 0: one per core
};

struct MtuProfileResult {
  std::string name;
  double ratio_without = 0;
  double ratio_with = 0;
  // Fewest complete periods any flow had in its measured window, over the
  // runs of both settings, and how many runs hit the time cap.
  int min_measured_periods = 0;
  int capped_runs = 0;
  double simulated_s = 0;  // summed over the runs
};

struct MtuControllerResult {
  std::string controller;
  double ratio_without = 0;
  double gsd_without = 0;
  double ratio_with = 0;
  double gsd_with = 0;
  std::vector<MtuProfileResult> profiles;
};

struct MtuExperimentResult {
  std::vector<MtuControllerResult> rows;
  uint64_t packets_simulated = 0;
  int runs = 0;
};

// InvalidArgument for a controller spec the registry refuses.
absl::StatusOr<MtuExperimentResult> RunMtuExperiment(
    const MtuExperimentOptions& options);

}  // namespace ccreplay

#endif  // CCREPLAY_REPLAY_SIM_MTU_EXPERIMENT_H_
