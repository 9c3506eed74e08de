#include "reports/path_estimates.h"

#include "gtest/gtest.h"
#include "reports/rules/rule_test_support.h"

namespace ccreplay {
namespace {

// 20 Mb/s, 40 ms (a BDP of 100 kB, 69.1 packets of 1448 bytes), Linux
// CUBIC, and a 200 kB buffer: two BDPs, which its slow start overshoots,
// so the flow loses packets and recovers them with SACK.
SimulationConfig LossyPath() {
  SimulationConfig config;
  config.rate_bps = 20'000'000;
  config.base_rtt_ns = 40 * kMsNs;
  config.buffer_bytes = 200'000;
  config.sample_interval_ns = 10 * kMsNs;
  FlowConfig flow;
  flow.cc_spec = "cubic:linux";
  config.flows.push_back(flow);
  return config;
}

// Before the simulator's receiver reported SACK blocks newest first (RFC
// 2018 section 4), it reported the lowest three ranges, hid arrivals above
// them until holes filled, and this flow's rate read as 25.6 Mb/s (a BDP
// of 131 kB).
TEST(PathEstimatesTest, LossDoesNotInflateTheRate) {
  SimulatedCapture c;
  SimulateAndDiagnose(LossyPath(), 10'000 * kMsNs, "lossy", 0, false, c);
  ASSERT_NE(c.sim, nullptr);
  // The case needs loss: cumulative ACKs that jump after SACK recovery.
  EXPECT_GT(c.sim->flow_stats(0).sender.retransmissions, 5u);
  const proto::Estimates& e = c.run.diagnosis.result.estimates();
  EXPECT_FALSE(e.bottleneck_rate_is_lower_bound());
  // The simulator's link carries 20 Mb/s of payload (bottleneck.cc
  // serializes packet_bytes). tshark agrees: `tshark -r X.pcap -q -z
  // io,stat,1,"SUM(tcp.len)tcp.len"` shows 2.50 MB of payload a second
  // once the queue has built.
  EXPECT_NEAR(e.bottleneck_rate_bps(), 20e6, 0.05 * 20e6);
  constexpr double kBdpBytes = 20e6 / 8 * 0.040;
  EXPECT_NEAR(e.bdp_bytes(), kBdpBytes, 0.05 * kBdpBytes);
}

}  // namespace
}  // namespace ccreplay
