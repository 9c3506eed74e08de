// bbr:linux in the closed-loop simulator, checked against what BBR's
// authors publish about it (Cardwell et al., "BBR: Congestion-Based
// Congestion Control", ACM Queue 14(5), 2016; the comments and constants of
// Linux 6.18 net/ipv4/tcp_bbr.c).
#include <algorithm>
#include <cmath>
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

// Packets of the kernel's quantization budget at 20 Mbit/s: 3 TSO bursts of
// bbr_min_tso_segs() = 2 segments (bbr_quantization_budget()).
constexpr uint64_t kQuantaPackets = 3 * 2;

uint64_t Percentile(std::vector<uint64_t> values, double fraction) {
  std::sort(values.begin(), values.end());
  return values[static_cast<size_t>(fraction * (values.size() - 1))];
}

// The paper's steady state: BBR paces at the bottleneck rate with about one
// BDP in flight, so it fills the link and keeps the queue near empty
// (Cardwell et al. 2016, "Queue" and "Steady state" sections). Its queue in
// PROBE_BW is what the kernel's inflight target allows beyond the BDP (the
// quantization budget) and, during the 1.25 phase, a quarter BDP more for
// one round (tcp_bbr.c: "pacing_gain > 1.0 ... a quarter of a BDP").
class BbrFillsThePath : public ::testing::TestWithParam<uint64_t> {};

TEST_P(BbrFillsThePath, AtTheLinkRateWithANearEmptyQueue) {
  const uint64_t buffer_bytes = GetParam() * kBdpBytes;
  std::unique_ptr<Simulation> sim = OneBbrFlow(buffer_bytes);
  const std::vector<BbrSample> samples = RunSampled(*sim, 20 * kS);
  // STARTUP and DRAIN end within 1 s (15 rounds of 40 ms).
  const BbrSample& start = samples[2000 - 1];
  const BbrSample& end = samples.back();
  ASSERT_EQ(start.mode, BbrMode::kProbeBw);
  const uint64_t drops_after_drain = sim->flow_stats(0).drops;
  std::vector<uint64_t> queue;
  for (const BbrSample& s : samples) {
    if (s.time_ns > start.time_ns && s.mode == BbrMode::kProbeBw) {
      queue.push_back(s.queue_bytes);
    }
  }
  const double utilization =
      static_cast<double>(end.egress_bytes - start.egress_bytes) /
      (kRateBps / 8.0 * static_cast<double>(end.time_ns - start.time_ns) / kS);
  // Measured 2026-12-02: 0.987 for both buffers; PROBE_RTT's
  // 250 ms at 4 packets costs 1.3 % of 18 s.
  EXPECT_GE(utilization, 0.95);
  EXPECT_LE(utilization, 1.0);
  // Measured: median 6 packets (8688 B), p99 22 packets (31856 B).
  EXPECT_LE(Percentile(queue, 0.5), kQuantaPackets * kPacketBytes);
  EXPECT_LE(Percentile(queue, 0.99),
            kBdpBytes / 4 + (kQuantaPackets + 2) * kPacketBytes);
  // STARTUP's 2/ln 2 overshoot may drop packets in a 1 BDP buffer; the
  // steady state never does.
  RunSampled(*sim, 20 * kS);
  EXPECT_EQ(sim->flow_stats(0).drops, drops_after_drain);
  // The windowed-max bandwidth estimate is the link rate (a payload rate:
  // the simulator models no headers), within 5 %.
  EXPECT_NEAR(end.bw_bps, kRateBps, 0.05 * kRateBps);
}

INSTANTIATE_TEST_SUITE_P(OneAndFourBdp, BbrFillsThePath,
                         ::testing::Values(1, 4));

// PROBE_RTT: when the min RTT has not been refreshed for 10 s
// (bbr_min_rtt_win_sec), cwnd drops to 4 packets (bbr_cwnd_min_target) for
// max(200 ms, one round) (bbr_probe_rtt_mode_ms), tcp_bbr.c.
TEST(BbrSimulationTest, ProbeRttEveryTenSecondsAtFourPacketsForTwoHundredMs) {
  std::unique_ptr<Simulation> sim = OneBbrFlow(4 * kBdpBytes);
  const std::vector<BbrSample> samples = RunSampled(*sim, 35 * kS);
  struct Episode {
    int64_t start_ns = 0;
    int64_t end_ns = 0;
    uint32_t max_cwnd = 0;
  };
  std::vector<Episode> episodes;
  for (size_t i = 1; i < samples.size(); ++i) {
    const bool in = samples[i].mode == BbrMode::kProbeRtt;
    if (in && samples[i - 1].mode != BbrMode::kProbeRtt) {
      episodes.push_back({samples[i].time_ns, 0, 0});
    }
    if (in) {
      episodes.back().end_ns = samples[i].time_ns;
      episodes.back().max_cwnd =
          std::max(episodes.back().max_cwnd, samples[i].cwnd_packets);
    }
  }
  // Measured 2026-12-02: entries at 10.207, 20.741 and 31.284 s, each
  // ~255 ms long.
  ASSERT_EQ(episodes.size(), 3u);
  EXPECT_GE(episodes[0].start_ns, 10 * kS);
  EXPECT_LE(episodes[0].start_ns, 11 * kS);
  for (size_t i = 0; i < episodes.size(); ++i) {
    SCOPED_TRACE(i);
    EXPECT_EQ(episodes[i].max_cwnd, LinuxBbr::kCwndMinTarget);
    // 200 ms from when inflight reached 4 packets (the queue drains first),
    // and at least one round.
    const int64_t length_ns = episodes[i].end_ns - episodes[i].start_ns;
    EXPECT_GE(length_ns, 200 * kMs);
    EXPECT_LE(length_ns, 200 * kMs + 3 * kRttNs);
    if (i > 0) {
      // The filter restarts when PROBE_RTT ends: the next one is 10 s after
      // the last min-RTT sample, which comes within a few cycles of it.
      const int64_t gap_ns = episodes[i].start_ns - episodes[i - 1].start_ns;
      EXPECT_GE(gap_ns, 10 * kS + 200 * kMs);
      EXPECT_LE(gap_ns, 11 * kS);
    }
  }
}

// The PROBE_BW gain cycle, bbr_pacing_gain[]: 1.25 (probe), 0.75 (drain),
// then 1.0 for six phases, each about one min RTT long (the 0.75 phase ends
// early once inflight is down to the target, bbr_is_next_cycle_phase()), as
// the pacing rate shows it: gain x bw x 99 % (bbr_pacing_margin_percent).
TEST(BbrSimulationTest, GainCycleIsVisibleInThePacingRate) {
  std::unique_ptr<Simulation> sim = OneBbrFlow(4 * kBdpBytes);
  const std::vector<BbrSample> samples = RunSampled(*sim, 10 * kS);
  struct Run {
    double gain = 0;
    int64_t start_ns = 0;
    int64_t end_ns = 0;
  };
  std::vector<Run> runs;
  for (const BbrSample& s : samples) {
    if (s.time_ns < 2 * kS || s.mode != BbrMode::kProbeBw) continue;
    const double gain = s.pacing_rate_bps / s.bw_bps / 0.99;
    // Every pacing rate is one of the three gains of bw, within 0.5 %.
    const bool known = std::abs(gain - 1.25) < 0.005 ||
                       std::abs(gain - 0.75) < 0.005 ||
                       std::abs(gain - 1.0) < 0.005;
    ASSERT_TRUE(known) << gain << " at " << s.time_ns;
    if (runs.empty() || std::abs(runs.back().gain - gain) > 0.01) {
      runs.push_back({gain, s.time_ns, s.time_ns});
    }
    runs.back().end_ns = s.time_ns;
  }
  const int64_t min_rtt_ns = kRttNs + kPacketBytes * 8 * kS / kRateBps;
  int cycles = 0;
  // Whole runs only: the first and last may be cut by the window.
  for (size_t i = 1; i + 3 < runs.size(); ++i) {
    if (std::abs(runs[i].gain - 1.25) > 0.01) continue;
    SCOPED_TRACE(runs[i].start_ns);
    ++cycles;
    EXPECT_NEAR(runs[i + 1].gain, 0.75, 0.01);
    EXPECT_NEAR(runs[i + 2].gain, 1.0, 0.01);
    const int64_t probe_ns = runs[i].end_ns - runs[i].start_ns + kMs;
    const int64_t drain_ns = runs[i + 1].end_ns - runs[i + 1].start_ns + kMs;
    const int64_t cruise_ns = runs[i + 2].end_ns - runs[i + 2].start_ns + kMs;
    // Measured 2026-12-02: about 49, 35 and 250 ms.
    EXPECT_GE(probe_ns, min_rtt_ns);
    EXPECT_LE(probe_ns, min_rtt_ns + 10 * kMs);
    EXPECT_LE(drain_ns, min_rtt_ns + 2 * kMs);
    EXPECT_GE(cruise_ns, 6 * min_rtt_ns);
    EXPECT_LE(cruise_ns, 6 * (min_rtt_ns + 3 * kMs));
  }
  // 8 s of cycles of about 8 x 41 ms: 24 whole ones.
  EXPECT_GE(cycles, 20);
}

}  // namespace
}  // namespace ccreplay
