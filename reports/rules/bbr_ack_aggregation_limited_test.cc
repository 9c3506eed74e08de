#include "reports/rules/bbr_ack_aggregation_limited.h"

#include <cstdio>
#include <string>

#include "gtest/gtest.h"
#include "replay/series.h"
#include "reports/rules/rule_test_support.h"

namespace ccreplay {
namespace {

// 50 Mb/s, 5 ms, a buffer of 1 BDP, one bbr:linux flow for 10 s whose ACKs
// the return path holds for `hold_ms` every 600 ms (FlowConfig::
// ack_hold_ns: a Wi-Fi client off its channel, a cellular link's
// scheduler); series every 10 ms.
SimulationConfig HeldAcksPath(int64_t hold_ms) {
  SimulationConfig config;
  config.rate_bps = 50'000'000;
  config.base_rtt_ns = 5 * kMsNs;
  config.buffer_bytes = 31'250;
  config.sample_interval_ns = 10 * kMsNs;
  FlowConfig flow;
  flow.cc_spec = "bbr:linux";
  flow.ack_hold_ns = hold_ms * kMsNs;
  flow.ack_hold_period_ns = 600 * kMsNs;
  config.flows.push_back(flow);
  return config;
}

// The numbers of the finding's message.
struct Figures {
  double waited_pct = 0, delivered_mbps = 0, delivered_pct = 0, bw_mbps = 0;
  int silences = 0;
  double median_silence_ms = 0, longest_silence_ms = 0;
  double burst = 0, at_rate = 0, extra_acked = 0;
};
Figures Parse(const std::string& m) {
  Figures f;
  const size_t at = m.find("waited on a full cwnd ");
  if (at == std::string::npos) return f;
  std::sscanf(m.c_str() + at,
              "waited on a full cwnd %lf%% of the time and the flow delivered "
              "%lf Mb/s, %lf%% of its own bandwidth estimate (median %lf "
              "Mb/s): the ACKs stopped %d times, for a median %lf ms (longest "
              "%lf ms), and each burst that ended a silence acknowledged a "
              "median %lf packets where the estimated rate would have "
              "delivered %lf; the ACK-aggregation allowance extra_acked was a "
              "median %lf",
              &f.waited_pct, &f.delivered_mbps, &f.delivered_pct, &f.bw_mbps,
              &f.silences, &f.median_silence_ms, &f.longest_silence_ms,
              &f.burst, &f.at_rate, &f.extra_acked);
  return f;
}

// The simulated sender's share of 10-ms samples from `from_us` on whose
// flight filled cwnd within a packet.
double SimulatedCwndLimitedShare(const Simulation& sim, int64_t from_us) {
  int limited = 0, all = 0;
  for (const SeriesSample& s : sim.flow_series()[0].samples) {
    if (s.time_us < from_us) continue;
    ++all;
    limited += s.bytes_in_flight + 1448 >= s.cwnd_bytes;
  }
  return all > 0 ? static_cast<double>(limited) / all : 0;
}

TEST(BbrAckAggregationLimitedTest, FiresWhenAckSilencesOutlastTheAllowance) {
  SimulatedCapture c;
  SimulateAndDiagnose(HeldAcksPath(150), 10'000 * kMsNs, "ackhold150", 0, false,
                      c, {"bbr:linux"});
  const proto::Finding* f = FindingOf(c.run, "bbr_ack_aggregation_limited");
  ASSERT_NE(f, nullptr);
  const Figures g = Parse(f->message());
  // The silences are the configured holds after the pipe was full: `tshark
  // -r X.pcap -Y tcp.srcport==5201 -T fields -e frame.time_relative` shows
  // 16 gaps of 150.1-150.5 ms from 0.607 s to 9.607 s (the one at the
  // handshake and two 10.6-ms gaps in STARTUP come before the pipe was full
  // at 0.24 s).
  EXPECT_EQ(g.silences, 16) << f->message();
  EXPECT_NEAR(g.median_silence_ms, 150, 1);
  EXPECT_NEAR(g.longest_silence_ms, 150, 1);
  // The model's estimate is the path's rate: a 150-ms silence is 647
  // packets of 1448 bytes at 50 Mb/s, more than extra_acked's cap of 100 ms
  // of bandwidth (432), so the bursts fall short of it (measured: bursts
  // of 288 packets, extra_acked 259).
  EXPECT_NEAR(g.bw_mbps, 50, 0.5);
  EXPECT_NEAR(g.at_rate, 50e6 * 0.150 / (8 * 1448), 5);
  EXPECT_LT(g.extra_acked, 50e6 * 0.100 / (8 * 1448));
  EXPECT_LT(g.burst, g.at_rate);
  // Delivery: the simulator's bottleneck egress over the run is 41.6 Mb/s
  // (`ccreplay simulate --rate 50mbit --delay 5ms --cc bbr:linux
  // --ack_hold 150ms --ack_hold_period 600ms`); the finding's figure is
  // from the pipe's filling on, so a little higher. Measured 42.34.
  const double sim_mbps = c.sim->flow_stats(0).egress_bytes * 8 / 10e6;
  EXPECT_NEAR(g.delivered_mbps, sim_mbps, 0.03 * sim_mbps);
  EXPECT_LT(g.delivered_pct, 90);
  // The time on a full cwnd against the simulated sender's own, sampled
  // every 10 ms from 0.3 s: measured 16% (rule) and 16.1% (simulator).
  const double sim_share = SimulatedCwndLimitedShare(*c.sim, 300'000);
  EXPECT_NEAR(g.waited_pct, 100 * sim_share, 2);
  EXPECT_GE(g.waited_pct, 10);
}

// The counterfactual: the fitted path with the measured silences as ACK
// holds, with bbr:linux and with an allowance kept between silences and
// capped at the silence's length; against the same two specs simulated on
// the true path (HeldAcksPath(150)).
TEST(BbrAckAggregationLimitedTest, CounterfactualAllowanceOnTheFittedPath) {
  const SimulationConfig config = HeldAcksPath(150);
  constexpr int64_t kEndNs = 10'000 * kMsNs;
  SimulatedCapture c;
  SimulateAndDiagnose(config, kEndNs, "ackhold150_cf", 0, true, c,
                      {"bbr:linux"});
  const proto::Finding* f = FindingOf(c.run, "bbr_ack_aggregation_limited");
  ASSERT_NE(f, nullptr);
  CounterfactualFigures g;
  ASSERT_TRUE(ParseCounterfactual(*f, &g)) << f->DebugString();
  const double capacity = 50e6 / 8 * 10;
  const double truth_base =
      100 * SimulatedShare(config, "bbr:linux", kEndNs, capacity);
  const double truth_cf =
      100 * SimulatedShare(config, g.spec, kEndNs, capacity);
  // Measured 2026-12-02: the fitted path (rate the model's median 50.00
  // Mb/s, 5.00 ms, a 952 kB buffer where the true one is 31 kB: the queue
  // was fitted from RTTs the holds inflate) 85.5 % -> 90.0 %, the true path
  // 83.15 % -> 86.94 %.
  EXPECT_EQ(g.spec, "bbr:linux,extra_acked_win=32,extra_acked_max_ms=151");
  EXPECT_GT(g.counterfactual_pct, g.base_pct) << f->DebugString();
  EXPECT_NEAR(g.counterfactual_pct - g.base_pct, truth_cf - truth_base, 1.5)
      << f->DebugString() << " truth " << truth_base << " -> " << truth_cf;
  EXPECT_NEAR(g.base_pct, truth_base, 3) << f->DebugString();
}

TEST(BbrAckAggregationLimitedTest, SilentWhenTheAllowanceCoversTheSilences) {
  // 50-ms holds: extra_acked (217 packets) covers them, the queue the rest.
  SimulatedCapture c;
  SimulateAndDiagnose(HeldAcksPath(50), 10'000 * kMsNs, "ackhold50", 0, false,
                      c, {"bbr:linux"});
  EXPECT_EQ(FindingOf(c.run, "bbr_ack_aggregation_limited"), nullptr);
  EXPECT_TRUE(MethodSays(c.run, "bbr_ack_aggregation_limited: after the pipe"));
  EXPECT_GT(c.sim->flow_stats(0).egress_bytes * 8 / 10e6, 48);
}

}  // namespace
}  // namespace ccreplay
