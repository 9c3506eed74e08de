#include "reports/rules/receive_window_limited.h"

#include <vector>

#include "gtest/gtest.h"
#include "replay/series.h"
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

TEST(ReceiveWindowLimitedTest, FiresWhenTheWindowIsWellBelowTheBdp) {
  // 20 Mb/s, 40 ms: a BDP of 100 kB against a 30 kB receive window, which
  // the export advertises in every ACK (scale 0: it fits 16 bits).
  constexpr uint64_t kRwnd = 30'000;
  constexpr int64_t kDurationNs = 5000 * kMsNs;
  SimulationConfig config = SmallWindowPath(kRwnd);
  config.base_rtt_ns = 40 * kMsNs;
  SimulatedCapture c;
  SimulateAndDiagnose(config, kDurationNs, "rwnd30k", 0, false, c);
  const proto::Finding* f = FindingOf(c.run, "receive_window_limited");
  ASSERT_NE(f, nullptr);
  EXPECT_EQ(f->severity(), "warning");
  // Ground truth: the simulator's cwnd outgrows the window in slow start
  // and stays above it; the finding starts within two RTTs of that sample
  // and runs to the end of the flow.
  const std::vector<SeriesSample>& samples = c.sim->flow_series()[0].samples;
  double limited_from_s = -1;
  for (const SeriesSample& s : samples) {
    if (s.cwnd_bytes >= kRwnd) {
      limited_from_s = s.time_us * 1e-6;
      break;
    }
  }
  ASSERT_GE(limited_from_s, 0);
  EXPECT_LT(limited_from_s, 0.2);
  EXPECT_NEAR(f->start_s(), limited_from_s, 0.08);
  EXPECT_GT(f->end_s(), 0.9 * kDurationNs * 1e-9);
  int inside = 0, window_bound = 0;
  for (const SeriesSample& s : samples) {
    const double t = s.time_us * 1e-6;
    if (t < f->start_s() || t > f->end_s()) continue;
    ++inside;
    if (s.cwnd_bytes >= kRwnd && s.bytes_in_flight + 3 * 1448 > kRwnd) {
      ++window_bound;
    }
  }
  ASSERT_GT(inside, 0);
  EXPECT_GE(10 * window_bound, 9 * inside);
  // No loss: the window, not the path, held the flow back.
  EXPECT_EQ(c.sim->flow_stats(0).sender.retransmissions, 0u);
}

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
