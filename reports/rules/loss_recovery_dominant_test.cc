#include "reports/rules/loss_recovery_dominant.h"

#include "gtest/gtest.h"
#include "reports/rules/rule_test_support.h"

namespace ccreplay {
namespace {

// 20 Mb/s, 10 ms, Linux Reno, with random loss after the bottleneck.
SimulationConfig LossyPath(double random_loss) {
  SimulationConfig config;
  config.rate_bps = 20'000'000;
  config.base_rtt_ns = 10 * kMsNs;
  config.buffer_bytes = 144'800;
  config.random_loss = random_loss;
  config.sample_interval_ns = 10 * kMsNs;
  FlowConfig flow;
  flow.cc_spec = "reno:linux";
  config.flows.push_back(flow);
  return config;
}

TEST(LossRecoveryDominantTest, FiresUnderHeavyRandomLoss) {
  // `ccreplay simulate --rate 20mbit --delay 10 --buffer 100p
  // --random_loss 0.1 --cc reno:linux --duration 10`, diagnosed: 30% of the
  // data phase in recovery.
  SimulatedCapture c;
  SimulateAndDiagnose(LossyPath(0.1), 10'000 * kMsNs, "loss10", 0, false, c);
  const proto::Finding* f = FindingOf(c.run, "loss_recovery_dominant");
  ASSERT_NE(f, nullptr);
  EXPECT_EQ(f->severity(), "warning");
  // Ground truth: the simulator's controller is in recovery for most of
  // its 10 ms samples inside the finding's stretch.
  int samples = 0, recovering = 0;
  for (const SeriesSample& s : c.sim->flow_series()[0].samples) {
    const double t = s.time_us * 1e-6;
    if (t < f->start_s() || t > f->end_s()) continue;
    ++samples;
    if (s.phase == Phase::kRecovery) ++recovering;
  }
  ASSERT_GT(samples, 0);
  EXPECT_GE(2 * recovering, samples);
  // The limiter share the finding quotes is the simulator's loss doing:
  // about one packet in ten retransmitted.
  const SenderStats& stats = c.sim->flow_stats(0).sender;
  EXPECT_NEAR(static_cast<double>(stats.retransmissions) / stats.packets_sent,
              0.1, 0.03);
}

TEST(LossRecoveryDominantTest, SilentWithoutLoss) {
  SimulatedCapture c;
  SimulateAndDiagnose(LossyPath(0), 5'000 * kMsNs, "loss0", 0, false, c);
  EXPECT_EQ(FindingOf(c.run, "loss_recovery_dominant"), nullptr);
}

}  // namespace
}  // namespace ccreplay
