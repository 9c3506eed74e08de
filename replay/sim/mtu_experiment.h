// `ccreplay experiment mtu-normalization`: does a flow of 1280-byte packets
// get less throughput than a competing flow of 1462-byte packets with the
// same controller, and does MTU normalization (RFC 7141 section 2.3, quicly
// PR #686) close the gap?
//
// For every profile of path_profile.h: two long-lived flows share the
// bottleneck (packet-size-neutral tail drop, ACK every 2 packets, 25 ms
// maximum ACK delay as RFC 9000 section 18.2's default and quicly's
// QUICLY_DELAYED_ACK_TIMEOUT, no pacing, as quicly's simulator); twenty runs
// per profile and setting: ten start offsets spread over one base RTT, in
// both flow orders. Where ccreplay's simulator and quicly's t/simulator.c
// differ, the experiment takes quicly's side by default and keeps ours as
// an option (MtuExperimentOptions): the packet in service leaves the buffer
// when its transmission starts, the receiver ACKs at once only the packet
// that reveals a gap, and senders have no jitter. Run r of every profile,
// setting and controller uses seed `seed` * 1000003 + r, so the two
// settings see the same random streams (common random numbers) when the
// optional sender jitter (sender_jitter.h) is on.
// Each run measures both flows' bottleneck egress from the moment both have
// had two complete congestion-avoidance periods after slow start (their
// third congestion episode) until each has had at least six more complete
// periods (seven more episodes), capped at `max_simulated_s`. No run is
// filtered.
// Two estimators of a profile's T1280 / T1462: the mean over its runs of
// each run's ratio (with its standard error, sample sd / sqrt(n)), and the
// ratio of the bytes summed over the runs. Per controller and estimator: the
// geometric mean over profiles and the geometric standard deviation
// exp(sd(ln ratio)) (sample sd, n - 1).
#ifndef CCREPLAY_REPLAY_SIM_MTU_EXPERIMENT_H_
#define CCREPLAY_REPLAY_SIM_MTU_EXPERIMENT_H_

#include <cstdint>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "replay/sim/bottleneck.h"
#include "replay/sim/path_profile.h"
#include "replay/sim/receiver.h"
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
  // quicly's t/simulator.c has no sender jitter (its endpoints send when
  // quicly_send() is called); kServiceTime is ccreplay's remedy for
  // drop-tail phase effects (sender_jitter.h).
  SenderJitterSpec sender_jitter = {SenderJitterSpec::Kind::kOff, 0};
  // quicly's bottleneck: the packet in service leaves the buffer when its
  // transmission starts (bottleneck.h); kUntilLastBit is ours.
  InServiceAccounting in_service = InServiceAccounting::kDequeueAtStart;
  // quicly's bottleneck also forwards that packet to the receiver at once
  // (bottleneck.h); kAtLastBit is ours.
  BottleneckDelivery delivery = BottleneckDelivery::kAtStart;
  // PR 686's quicly simulator admits by the largest packet's size
  // (packet-size-neutral); kByteFit is quicly's before it (`-B` after).
  AdmissionPolicy admission = AdmissionPolicy::kPacketSizeNeutral;
  // quicly's receiver: one immediate ACK per new gap (receiver.h);
  // kEveryPacketWhileHole is ours.
  RecoveryAcks recovery_acks = RecoveryAcks::kOnNewGap;
  // The receivers' ACK timers on quicly's millisecond clock
  // (FlowConfig::timer_granularity_ns); 0, ours: ACKs leave when due.
  int64_t timer_granularity_ns = 0;
  // The senders' RTT estimates and their controllers' time on quicly's
  // millisecond clock (FlowConfig::sender_clock_ns); 0, ours: exact.
  int64_t sender_clock_ns = 0;
  // Added to the 1280-byte flow's base RTT (>= 0): a probe of how much the
  // outcome rests on the two flows' loop timing (drop-tail phase
  // effects); 0, both flows the path's.
  int64_t small_flow_extra_rtt_ns = 0;
  uint64_t seed = 1;
  int threads = 0;  // 0: one per core
};

struct MtuProfileResult {
  std::string name;
  // Mean over the runs of T1280 / T1462, and its standard error.
  double ratio_without = 0;
  double ratio_with = 0;
  double stderr_without = 0;
  double stderr_with = 0;
  // Summed T1280 bytes over summed T1462 bytes.
  double bytes_ratio_without = 0;
  double bytes_ratio_with = 0;
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
  // The same over the profiles' bytes ratios.
  double bytes_ratio_without = 0;
  double bytes_gsd_without = 0;
  double bytes_ratio_with = 0;
  double bytes_gsd_with = 0;
  std::vector<MtuProfileResult> profiles;
};

struct MtuExperimentResult {
  std::vector<MtuControllerResult> rows;
  uint64_t packets_simulated = 0;
  int runs = 0;
};

// The controller spec both flows run in one setting: `controller` with
// normalize=`reference_bytes` when `normalize`, else with normalize=off
// set explicitly (the quicly profiles default to normalize=1462), either
// replacing a normalize= the spec sets itself. A profile that takes no
// normalize= option (quicly:cubic-legacy, which predates PR 686) runs as
// given in both settings: a baseline that never normalizes, as quicly's
// simulator before the PR ran. InvalidArgument when the spec does not
// parse.
absl::StatusOr<std::string> NormalizationSettingSpec(
    const std::string& controller, bool normalize, uint32_t reference_bytes);

// InvalidArgument for a controller spec the registry refuses.
absl::StatusOr<MtuExperimentResult> RunMtuExperiment(
    const MtuExperimentOptions& options);

}  // namespace ccreplay

#endif  // CCREPLAY_REPLAY_SIM_MTU_EXPERIMENT_H_
