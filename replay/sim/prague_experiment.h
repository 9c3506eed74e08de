// `ccreplay experiment prague-rtt-scaling`: the setup of a May-2020 report
// of Prague under-utilization (docs/experiments.md, "Experiment 2") in the
// simulator. One Prague flow over 1 Gbit/s with 0.4 ms base RTT, CE marking
// above 5 ms sojourn (tc fq ce_threshold 5ms), a buffer of 100 ms (no drops),
// 10 s; Prague v0.5, v0.6 and v0.7, each with RTT scaling (the version's
// default RATE law) and without (rtt_scaling=none); receivers that ACK every 1,
// 2, 4, 8 and 16 segments (GRO-style coalescing) with a 50 us flush timer, like
// GRO flushing at the end of a NAPI poll rather than a 40 ms delayed ACK.
// Pacing on (Prague sets SK_PACING_NEEDED), AccECN feedback, 1448-byte
// packets, no header overhead (BDP = 50,000 bytes = 34.5 packets).
#ifndef CCREPLAY_REPLAY_SIM_PRAGUE_EXPERIMENT_H_
#define CCREPLAY_REPLAY_SIM_PRAGUE_EXPERIMENT_H_

#include <cstdint>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "replay/sim/simulation.h"

namespace ccreplay {

struct PragueExperimentOptions {
  std::vector<std::string> profiles = {"prague:v05", "prague:v06",
                                       "prague:v07"};
  std::vector<uint32_t> ack_every = {1, 2, 4, 8, 16};
  int64_t rate_bps = 1'000'000'000;
  int64_t base_rtt_ns = 400'000;
  int64_t ce_sojourn_threshold_ns = 5'000'000;
  double buffer_s = 0.1;
  int64_t duration_ns = 10'000'000'000;
  int64_t flush_timer_ns = 50'000;
  uint32_t packet_bytes = 1448;
  // The report's sender: 10 Gb/s NICs (the shaper, not the NIC, is the 1
  // Gb/s bottleneck), so a TSO burst reaches the bottleneck at 10 Gb/s.
  // FlowConfig::tso_burst_shift and nic_rate_bps; 0: off (the default).
  uint32_t tso_burst_shift = 0;
  int64_t nic_rate_bps = 0;
  // fq marks a TSO skb whole (SimulationConfig::ce_per_skb).
  bool ce_per_skb = false;
  // >= 0: every version's transition (rounds before RTT scaling) is set to
  // this, and the row's profile names it (e.g. "prague:v05,transition=0").
  int transition_rounds = -1;
  int threads = 0;  // 0: one per core
};

struct PragueRow {
  std::string profile;
  bool rtt_scaling = false;
  uint32_t ack_every = 0;
  double utilization = 0;              // over the whole run
  double utilization_second_half = 0;  // over its last half
  // Lowest cwnd once slow start ended, in segments; -1 if it never ended.
  int64_t min_cwnd_after_ss_segments = -1;
};

struct PragueExperimentResult {
  std::vector<PragueRow> rows;  // profile x scaling (on, off) x ack_every
  uint64_t packets_simulated = 0;
};

// The preset "gro_flush": the ablation's condition under which the v0.5
// defaults stay below the link while rtt_scaling=none fills it
// (docs/experiments.md, "Experiment 2", 2026-12-01 ablation): v0.5 only,
// GRO ACKing every 16 segments with a 500 us flush timeout (the top of the
// 50-500 us range of napi gro_flush_timeout settings), TSO bursts of
// v0.5's own size (prague_burst_shift 12) from a 10 Gbit/s NIC, 4 s.
PragueExperimentOptions GroFlushPreset();

// The simulation of one run: `spec` acknowledged every `ack_every`.
SimulationConfig PragueRunConfig(const PragueExperimentOptions& options,
                                 const std::string& spec, uint32_t ack_every);

absl::StatusOr<PragueExperimentResult> RunPragueExperiment(
    const PragueExperimentOptions& options);

}  // namespace ccreplay

#endif  // CCREPLAY_REPLAY_SIM_PRAGUE_EXPERIMENT_H_
