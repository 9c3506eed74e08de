#include "reports/rules/receive_window_limited.h"

#include "gtest/gtest.h"
#include "reports/rules/rule_test_support.h"

namespace ccreplay {
namespace {

// 20 Mb/s, 20 ms: a BDP of 50 kB, with the receiver's window.
SimulationConfig SmallWindowPath(uint64_t receive_window_bytes) {
  SimulationConfig config;
  config.rate_bps = 20'000'000;
  config.base_rtt_ns = 20 * kMsNs;
  config.buffer_bytes = 100'000;
  config.sample_interval_ns = 10 * kMsNs;
  FlowConfig flow;
  flow.cc_spec = "reno";
  flow.receive_window_bytes = receive_window_bytes;
  config.flows.push_back(flow);
  return config;
}

// No firing test yet: replay/sim/pcap_export.cc does not write the
// simulated receiver's window into its ACKs, so a capture of a small-window
// run does not show the limit (see the branch report).

TEST(ReceiveWindowLimitedTest, SilentWhenTheWindowExceedsTheBdp) {
  SimulatedCapture c;
  SimulateAndDiagnose(SmallWindowPath(1'000'000), 5000 * kMsNs, "rwnd1m", 0,
                      false, c);
  EXPECT_EQ(FindingOf(c.run, "receive_window_limited"), nullptr);
}

TEST(ReceiveWindowLimitedTest, SilentOnAnEmptyTimeline) {
  const FlowObserver observed(0);
  const PathEstimates estimates;
  const RuleContext x = MakeRuleContext(observed, estimates, nullptr, 1448, 0);
  RuleOutput out;
  ReceiveWindowLimitedRule().Check(x, &out);
  EXPECT_TRUE(out.findings.empty());
}

}  // namespace
}  // namespace ccreplay
