// Simulated packets per second of wall time (replay/sim/).
#include <cstdint>
#include <memory>
#include <string>

#include "benchmark/benchmark.h"
#include "replay/sim/path_profile.h"
#include "replay/sim/simulation.h"

namespace ccreplay {
namespace {

// Two flows on a profile for `seconds` of simulated time; items = packets.
// `jitter`: the mtu-normalization experiment's setting (ACK every 2, 25 ms
// maximum ACK delay, one service time of sender jitter).
void RunProfile(benchmark::State& state, const std::string& profile_name,
                const std::string& cc, int64_t seconds, bool jitter = false) {
  const PathProfile profile = *FindPathProfile(profile_name);
  SimulationConfig config;
  config.rate_bps = profile.rate_bps;
  config.base_rtt_ns = profile.base_rtt_us * 1000;
  config.buffer_bytes = profile.buffer_bytes();
  FlowConfig large;
  large.cc_spec = cc;
  large.packet_bytes = 1462;
  if (jitter) {
    large.delayed_ack_ns = 25'000'000;
    config.sender_jitter.kind = SenderJitterSpec::Kind::kServiceTime;
  }
  FlowConfig small = large;
  small.packet_bytes = 1280;
  config.flows = {large, small};
  uint64_t packets = 0;
  for (auto _ : state) {
    std::unique_ptr<Simulation> sim = *Simulation::Create(config);
    sim->RunUntil(seconds * 1'000'000'000);
    packets += sim->packets_sent();
  }
  state.SetItemsProcessed(static_cast<int64_t>(packets));
}

void BM_SimulateRenoDsl(benchmark::State& state) {
  RunProfile(state, "DSL", "reno", 60);
}
void BM_SimulateCubic5G(benchmark::State& state) {
  RunProfile(state, "5G", "cubic", 10);
}
// The slowest profile of the mtu-normalization experiment: 440 Mbit/s and a
// 9,000-packet buffer, as the experiment runs it.
void BM_SimulateRenoAuOfficeJitter(benchmark::State& state) {
  RunProfile(state, "au@Office", "reno", 30, /*jitter=*/true);
}

// One paced Prague flow at 1 Gbit/s with AccECN feedback and CE marking.
void BM_SimulatePragueGigabit(benchmark::State& state) {
  SimulationConfig config;
  config.rate_bps = 1'000'000'000;
  config.base_rtt_ns = 400'000;
  config.buffer_bytes = 12'500'000;
  config.ce_sojourn_threshold_ns = 5'000'000;
  FlowConfig flow;
  flow.cc_spec = "prague:v05";
  flow.pacing = true;
  flow.ack_every = 16;
  flow.delayed_ack_ns = 50'000;
  config.flows = {flow};
  uint64_t packets = 0;
  for (auto _ : state) {
    std::unique_ptr<Simulation> sim = *Simulation::Create(config);
    sim->RunUntil(1'000'000'000);
    packets += sim->packets_sent();
  }
  state.SetItemsProcessed(static_cast<int64_t>(packets));
}

BENCHMARK(BM_SimulateRenoDsl)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_SimulateCubic5G)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_SimulateRenoAuOfficeJitter)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_SimulatePragueGigabit)->Unit(benchmark::kMillisecond);

}  // namespace
}  // namespace ccreplay

BENCHMARK_MAIN();
