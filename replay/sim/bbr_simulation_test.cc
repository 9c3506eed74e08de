// bbr:linux in the closed-loop simulator, checked against what BBR's
// authors publish about it (Cardwell et al., "BBR: Congestion-Based
// Congestion Control", ACM Queue 14(5), 2016; the comments and constants of
// Linux 6.18 net/ipv4/tcp_bbr.c).
#include <algorithm>
#include <cstdint>
#include <memory>
#include <vector>

#include "cc/linux_bbr.h"
#include "gtest/gtest.h"
#include "replay/sim/simulation.h"

namespace ccreplay {
namespace {

constexpr int64_t kMs = 1'000'000;
constexpr int64_t kS = 1'000'000'000;
constexpr int64_t kRateBps = 20'000'000;
constexpr int64_t kRttNs = 40 * kMs;
constexpr uint32_t kPacketBytes = 1448;
// The path's BDP: 20 Mbit/s x 40 ms = 100 kB.
constexpr uint64_t kBdpBytes = kRateBps / 8 * kRttNs / kS;

// One millisecond of a BBR flow: its model and the bottleneck's queue.
struct BbrSample {
  int64_t time_ns = 0;
  BbrMode mode = BbrMode::kStartup;
  uint32_t pacing_gain = 0;
  double pacing_rate_bps = 0;
  double bw_bps = 0;
  uint32_t cwnd_packets = 0;
  uint64_t queue_bytes = 0;
  uint64_t egress_bytes = 0;
};

std::unique_ptr<Simulation> OneBbrFlow(uint64_t buffer_bytes) {
  SimulationConfig config;
  config.rate_bps = kRateBps;
  config.base_rtt_ns = kRttNs;
  config.buffer_bytes = buffer_bytes;
  FlowConfig flow;
  flow.cc_spec = "bbr:linux";
  flow.packet_bytes = kPacketBytes;
  config.flows.push_back(flow);
  absl::StatusOr<std::unique_ptr<Simulation>> sim = Simulation::Create(config);
  EXPECT_TRUE(sim.ok()) << sim.status();
  return std::move(*sim);
}

std::vector<BbrSample> RunSampled(Simulation& sim, int64_t end_ns) {
  std::vector<BbrSample> samples;
  for (int64_t t = kMs; t <= end_ns; t += kMs) {
    sim.RunUntil(t);
    const auto& bbr = dynamic_cast<const LinuxBbr&>(sim.sender(0).controller());
    BbrSample s;
    s.time_ns = t;
    s.mode = bbr.mode();
    s.pacing_gain = bbr.pacing_gain();
    s.pacing_rate_bps = bbr.pacing_rate_bps().value_or(0);
    s.bw_bps = bbr.bw_bps();
    s.cwnd_packets = bbr.snd_cwnd();
    s.queue_bytes = sim.bottleneck().queued_bytes();
    s.egress_bytes = sim.flow_stats(0).egress_bytes;
    samples.push_back(s);
  }
  return samples;
}

TEST(BbrSimulationTest, Explore) {
  std::unique_ptr<Simulation> sim = OneBbrFlow(kBdpBytes);
  const std::vector<BbrSample> samples = RunSampled(*sim, 25 * kS);
  BbrMode last = BbrMode::kStartup;
  uint32_t last_gain = 0;
  for (const BbrSample& s : samples) {
    if (s.mode != last || (s.time_ns < 3 * kS && s.pacing_gain != last_gain) || s.time_ns % (500 * kMs) == 0) {
      printf("%7.3f %-9s gain %3u pace %6.2f bw %6.2f cwnd %3u q %6llu eg %llu\n",
             s.time_ns * 1e-9, std::string(BbrModeName(s.mode)).c_str(), s.pacing_gain,
             s.pacing_rate_bps / 1e6, s.bw_bps / 1e6, s.cwnd_packets,
             (unsigned long long)s.queue_bytes, (unsigned long long)s.egress_bytes);
    }
    last = s.mode;
    last_gain = s.pacing_gain;
  }
  const FlowStats st = sim->flow_stats(0);
  printf("drops %llu retrans %llu\n", (unsigned long long)st.drops, (unsigned long long)st.sender.retransmissions);
}

}  // namespace
}  // namespace ccreplay
