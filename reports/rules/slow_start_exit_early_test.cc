#include "reports/rules/slow_start_exit_early.h"

#include <cstdio>
#include <string>

#include "gtest/gtest.h"
#include "replay/series.h"
#include "reports/rules/rule_test_support.h"

namespace ccreplay {
namespace {

// 50 Mb/s, 40 ms: a BDP of 250 kB (172.7 packets of 1448 bytes), a buffer
// no window here reaches, Linux CUBIC with HyStart. With `competitor`, a
// Reno flow starts 200 ms earlier, builds a queue in its slow start and
// stops at 400 ms.
SimulationConfig HystartPath(bool competitor) {
  SimulationConfig config;
  config.rate_bps = 50'000'000;
  config.base_rtt_ns = 40 * kMsNs;
  config.buffer_bytes = 4'000'000;
  config.sample_interval_ns = 10 * kMsNs;
  FlowConfig flow;
  flow.cc_spec = "cubic:linux";
  flow.start_ns = competitor ? 200 * kMsNs : 0;
  config.flows.push_back(flow);
  if (competitor) {
    FlowConfig reno;
    reno.cc_spec = "reno";
    reno.stop_ns = 400 * kMsNs;
    config.flows.push_back(reno);
  }
  return config;
}

// The first sample of the simulated flow 0 out of slow start; null if none.
const SeriesSample* SimulatedExit(const Simulation& sim) {
  for (const SeriesSample& s : sim.flow_series()[0].samples) {
    if (s.phase != Phase::kSlowStart) return &s;
  }
  return nullptr;
}

// The first sample of flow 0 at or after `from_us` with cwnd >= `bytes`.
const SeriesSample* SimulatedCwndReaches(const Simulation& sim, int64_t from_us,
                                         double bytes) {
  for (const SeriesSample& s : sim.flow_series()[0].samples) {
    if (s.time_us >= from_us && s.cwnd_bytes >= bytes) return &s;
  }
  return nullptr;
}

// The numbers of "with cwnd at C packets, S% of the B-packet BDP".
struct ExitFigures {
  double cwnd_packets = 0, share_percent = 0, bdp_packets = 0;
};
ExitFigures ParseExit(const std::string& message) {
  ExitFigures e;
  const size_t at = message.find("with cwnd at ");
  if (at == std::string::npos) return e;
  std::sscanf(message.c_str() + at,
              "with cwnd at %lf packets, %lf%% of the %lf-packet BDP",
              &e.cwnd_packets, &e.share_percent, &e.bdp_packets);
  return e;
}

TEST(SlowStartExitEarlyTest, FiresWhenAnotherFlowsQueueEndsHystart) {
  // The capture's flows by first packet: the competitor is 0, ours 1. The
  // report's clock starts at our SYN, which the export writes one base RTT
  // before the flow starts (pcap_export.cc): 160 ms.
  constexpr double kSynS = 0.160;
  constexpr double kBdpBytes = 50e6 / 8 * 0.040;
  SimulatedCapture c;
  SimulateAndDiagnose(HystartPath(true), 12'000 * kMsNs, "hystartq", 1, false,
                      c);
  const proto::Finding* f = FindingOf(c.run, "slow_start_exit_early");
  ASSERT_NE(f, nullptr) << "flow 1";
  // Ground truth: the simulated CUBIC's own exit, HyStart's delay increase
  // (delay_min 40 ms + 5 ms): `tshark -r X.pcap -Y "tcp.stream==1 &&
  // tcp.analysis.ack_rtt" -T fields -e frame.time_relative -e
  // tcp.analysis.ack_rtt` shows our RTT at 41.9 ms at 0.282 s and 76.9 ms
  // at 0.358 s (capture clock: our SYN at 0.200 s), the competitor's queue.
  // The series is sampled every 10 ms: the exit lies in (sample - 10 ms,
  // sample].
  const SeriesSample* exit = SimulatedExit(*c.sim);
  ASSERT_NE(exit, nullptr);
  const double sim_exit_s = exit->time_us * 1e-6 - kSynS;
  EXPECT_GT(f->start_s(), sim_exit_s - 0.011);
  EXPECT_LE(f->start_s(), sim_exit_s + 0.001);
  // No loss at all (tshark: no tcp.analysis.retransmission in stream 1).
  EXPECT_EQ(c.sim->flow_stats(0).sender.retransmissions, 0u);
  // cwnd at the exit: the simulator's (36 packets), within two packets (the
  // rule takes the largest flight within one RTT after it; tshark's
  // tcp.analysis.bytes_in_flight peaks at 55024 bytes, 38 packets, from
  // 0.355 s to 0.6 s).
  const ExitFigures e = ParseExit(f->message());
  EXPECT_NEAR(e.cwnd_packets, exit->cwnd_bytes / 1448.0, 2.0) << f->message();
  // The BDP is the path's (50 Mb/s x 40 ms = 172.7 packets), within 3%,
  // and the share is cwnd / BDP, well under half.
  EXPECT_NEAR(e.bdp_packets, kBdpBytes / 1448, 0.03 * kBdpBytes / 1448);
  EXPECT_NEAR(e.share_percent, 100 * exit->cwnd_bytes / kBdpBytes, 2.0);
  EXPECT_LT(e.share_percent, 30);
  // The stretch ends when cwnd reaches 80% of the BDP: the simulator's
  // cwnd does so within 0.1 s of it, and the flight first reaches 200 kB
  // at 1.754 s on the capture's clock, 1.554 s on the report's (tshark
  // as above with -e tcp.analysis.bytes_in_flight).
  const SeriesSample* reached =
      SimulatedCwndReaches(*c.sim, exit->time_us, 0.8 * kBdpBytes);
  ASSERT_NE(reached, nullptr);
  EXPECT_NEAR(f->end_s(), reached->time_us * 1e-6 - kSynS, 0.1);
  EXPECT_NEAR(f->end_s(), 1.554, 0.05);
  EXPECT_GT(f->end_s() - f->start_s(), 1.0);
}

TEST(SlowStartExitEarlyTest, SilentWhenHystartEndsNearTheBdp) {
  // Alone on the path, HyStart leaves slow start near the BDP.
  SimulatedCapture c;
  SimulateAndDiagnose(HystartPath(false), 10'000 * kMsNs, "hystart1", 0, false,
                      c);
  EXPECT_EQ(FindingOf(c.run, "slow_start_exit_early"), nullptr);
  EXPECT_TRUE(MethodSays(c.run, "(not early)"));
  const SeriesSample* exit = SimulatedExit(*c.sim);
  ASSERT_NE(exit, nullptr);
  EXPECT_GE(exit->cwnd_bytes, 0.5 * 50e6 / 8 * 0.040);
}

}  // namespace
}  // namespace ccreplay
