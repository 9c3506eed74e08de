#include "reports/rules/below_bdp_unexplained.h"

#include <cstdio>
#include <string>

#include "gtest/gtest.h"
#include "replay/series.h"
#include "reports/rules/rule_test_support.h"

namespace ccreplay {
namespace {

constexpr uint32_t kClampPackets = 30;
constexpr int64_t kClampFromNs = 3000 * kMsNs;

// 20 Mb/s, 40 ms: a BDP of 100 kB (69.1 packets of 1448 bytes), a buffer
// no window reaches in 3 s, Linux CUBIC. With `clamped`, the sender's
// window is capped at 30 packets from 3 s on, as a sock_ops BPF program
// setting TCP_BPF_SNDCWND_CLAMP would (the kernel's snd_cwnd_clamp; no
// reference controller models it).
SimulationConfig ClampedPath(bool clamped) {
  SimulationConfig config;
  config.rate_bps = 20'000'000;
  config.base_rtt_ns = 40 * kMsNs;
  config.buffer_bytes = 1'000'000;
  config.sample_interval_ns = 10 * kMsNs;
  FlowConfig flow;
  flow.cc_spec = "cubic:linux";
  if (clamped) {
    flow.cwnd_clamp_packets = kClampPackets;
    flow.cwnd_clamp_from_ns = kClampFromNs;
  }
  config.flows.push_back(flow);
  return config;
}

// The first sample from which flow 0's flight stays within `bytes`.
const SeriesSample* FlightHeldFrom(const Simulation& sim, uint64_t bytes) {
  const SeriesSample* from = nullptr;
  for (const SeriesSample& s : sim.flow_series()[0].samples) {
    if (s.bytes_in_flight > bytes) {
      from = nullptr;
    } else if (from == nullptr) {
      from = &s;
    }
  }
  return from;
}

TEST(BelowBdpUnexplainedTest, FiresWhenAClampHoldsTheWindow) {
  // The report's clock starts at the SYN, one base RTT before the flow
  // (pcap_export.cc).
  constexpr double kSynS = -0.040;
  constexpr double kBdpPackets = 20e6 / 8 * 0.040 / 1448;
  SimulatedCapture c;
  SimulateAndDiagnose(ClampedPath(true), 10'000 * kMsNs, "clamp30", 0, false,
                      c);
  const proto::Finding* f = FindingOf(c.run, "below_bdp_unexplained");
  ASSERT_NE(f, nullptr);
  EXPECT_EQ(f->severity(), "critical");
  // Ground truth: the simulator's flight falls to the clamp once the queue
  // built before 3 s has drained, and stays there to the end. tshark agrees:
  // `tshark -r X.pcap -Y "tcp.len>0" -T fields -e frame.time_relative -e
  // tcp.analysis.bytes_in_flight` (capture clock = report clock) shows the
  // last send before the clamp at 3.039 s with 466256 bytes in flight, none
  // until 3.2095 s, then 41992 to 43440 bytes (29 to 30 packets) to the end.
  const SeriesSample* held =
      FlightHeldFrom(*c.sim, uint64_t{kClampPackets} * 1448);
  ASSERT_NE(held, nullptr);
  EXPECT_GT(held->time_us * 1e-6, kClampFromNs * 1e-9);
  EXPECT_NEAR(f->start_s(), held->time_us * 1e-6 - kSynS, 0.05);
  EXPECT_NEAR(f->start_s(), 3.2095, 0.02);
  EXPECT_GT(f->end_s(), 9.9);
  EXPECT_EQ(c.sim->flow_stats(0).sender.retransmissions, 0u);
  // The median cwnd is the clamp (the flight above), the BDP the path's
  // (20 Mb/s x 40 ms = 69.1 packets) within 5%; tshark -z io,stat,1 shows
  // 2.77 MB a second before the clamp (the link's 20 Mb/s with headers),
  // 1.10 MB after.
  EXPECT_NE(f->message().find("at a median 30.0 packets"), std::string::npos)
      << f->message();
  double bdp_packets = 0;
  const size_t at = f->message().find("below the ");
  ASSERT_NE(at, std::string::npos);
  std::sscanf(f->message().c_str() + at, "below the %lf-packet BDP",
              &bdp_packets);
  EXPECT_NEAR(bdp_packets, kBdpPackets, 0.05 * kBdpPackets);
}

TEST(BelowBdpUnexplainedTest, SilentWithoutTheClamp) {
  SimulatedCapture c;
  SimulateAndDiagnose(ClampedPath(false), 10'000 * kMsNs, "noclamp", 0, false,
                      c);
  EXPECT_EQ(FindingOf(c.run, "below_bdp_unexplained"), nullptr);
  EXPECT_TRUE(MethodSays(
      c.run, "below_bdp_unexplained: the captured cwnd was not below 80%"));
}

}  // namespace
}  // namespace ccreplay
