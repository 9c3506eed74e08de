#include "replay/shared_bottleneck.h"

#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <memory>
#include <string>
#include <vector>

#include "gtest/gtest.h"
#include "parsers/pcap_reader.h"
#include "replay/ack_timeline.h"
#include "replay/sim/pcap_export.h"
#include "replay/sim/simulation.h"

namespace ccreplay {
namespace {

constexpr int64_t kMs = 1'000'000;
constexpr int64_t kS = 1'000'000'000;

// Six 100 ms intervals of delays (us), 10 packets sent in each, one lost in
// the fourth; M = 3, N = 4.
SbdFlowSeries HandSeries() {
  const std::vector<std::vector<int64_t>> delays = {
      {10000, 12000, 11000}, {10000, 30000, 12000, 11000},
      {25000, 26000, 10000}, {9000, 9500, 30000, 31000},
      {10000, 10000, 10000}, {40000, 42000, 10000, 41000}};
  SbdFlowSeries s;
  for (size_t k = 0; k < delays.size(); ++k) {
    const int64_t start_us = static_cast<int64_t>(k) * 100'000;
    for (size_t j = 0; j < delays[k].size(); ++j) {
      s.delays.push_back(
          {start_us + static_cast<int64_t>(j) * 10'000, delays[k][j]});
    }
    for (int j = 0; j < 10; ++j) s.packet_times_us.push_back(start_us + j);
  }
  s.loss_times_us.push_back(350'000);
  return s;
}

SbdParams HandParams() {
  SbdParams p;
  p.t_us = 100'000;
  p.m = 3;
  p.n = 4;
  p.min_samples = 1;
  return p;
}

// The RFC 8382 section 3.2 definitions written out independently in
// python3 (mean_delay: mean of the previous <= M intervals' means;
// skew_base: below minus above it; var_base: |OWD - previous interval's
// mean|; a significant crossing: an interval mean beyond mean_delay
// +- p_v * var_est on the side opposite the last excursion):
//   D=[[10000,12000,11000],[10000,30000,12000,11000],[25000,26000,10000],
//      [9000,9500,30000,31000],[10000,10000,10000],[40000,42000,10000,41000]]
//   M,N,PV=3,4,0.7; E=[sum(d)/len(d) for d in D]
//   md=[None]+[sum(E[max(0,k-M):k])/len(E[max(0,k-M):k]) for k in range(1,6)]
//   sb=[None]+[sum((x<md[k])-(x>md[k]) for x in D[k]) for k in range(1,6)]
//   vb=[None]+[sum(abs(x-E[k-1]) for x in D[k]) for k in range(1,6)]
//   win=lambda k: range(max(1,k-M+1),k+1)
//   ve=lambda k: sum(vb[j] for j in win(k))/sum(len(D[j]) for j in win(k))
//   se=lambda k: sum(sb[j] for j in win(k))/sum(len(D[j]) for j in win(k))
//   reg=[0]+[(E[k]>md[k]+PV*ve(k))-(E[k]<md[k]-PV*ve(k)) for k in range(1,6)]
//   cr=[0]*6; last=0
//   for k in range(1,6):
//     if reg[k]: cr[k]=int(last!=0 and reg[k]!=last); last=reg[k]
//   for k in (2,3,4,5): print(k,se(k),ve(k)/1000,sum(cr[max(0,k-N+1):k+1])/N)
// prints 2 -0.2857142857142857 6.607142857142857 0.0
//        3 -0.18181818181818182 8.068181818181818 0.0
//        4 0.2 9.7375 0.25
//        5 0.09090909090909091 15.011363636363637 0.5
// pkt_loss: the loss at 350 ms over the packets of the last N intervals.
TEST(SharedBottleneckTest, StatisticsMatchTheRfcDefinitions) {
  std::string why_not;
  const std::vector<SbdEvaluation> e =
      EvaluateSbdFlow(HandSeries(), HandParams(), &why_not);
  EXPECT_EQ(why_not, "");
  ASSERT_EQ(e.size(), 4u);  // from the M-th interval on
  const double skew[] = {-0.2857142857142857, -0.18181818181818182, 0.2,
                         0.09090909090909091};
  const double var_ms[] = {6.607142857142857, 8.068181818181818, 9.7375,
                           15.011363636363637};
  const double freq[] = {0, 0, 0.25, 0.5};
  const double loss[] = {0.0 / 30, 1.0 / 40, 1.0 / 40, 1.0 / 40};
  for (int i = 0; i < 4; ++i) {
    SCOPED_TRACE(i);
    EXPECT_EQ(e[i].index, i + 2);
    EXPECT_NEAR(e[i].skew_est, skew[i], 1e-9);
    EXPECT_NEAR(e[i].var_est_us / 1000, var_ms[i], 1e-9);
    EXPECT_NEAR(e[i].freq_est, freq[i], 1e-9);
    ASSERT_TRUE(e[i].pkt_loss.has_value());
    EXPECT_NEAR(*e[i].pkt_loss, loss[i], 1e-12);
  }
}

// RFC 8382 section 3.3.1 step 1 on the hand-built flow, whose skew_est
// runs -0.286, -0.182, 0.200, 0.091 and pkt_loss 0, 0.025, 0.025, 0.025
// (above): below c_s at the first two evaluations; the last two stay
// congested only through the hysteresis (below c_h = 0.3 after a congested
// evaluation), or through a pkt_loss above p_l.
TEST(SharedBottleneckTest, CongestionTestHasHysteresisAndLoss) {
  const SbdFlowSeries s = HandSeries();
  SbdParams p = HandParams();
  SbdResult r = DetectSharedBottlenecks({s}, p);
  EXPECT_EQ(r.flows[0].congested_evaluations, 4);
  EXPECT_TRUE(r.flows[0].congested);
  ASSERT_EQ(r.groups.size(), 1u);
  EXPECT_EQ(r.groups[0].confidence, 1.0);

  p.c_h = p.c_s;  // no hysteresis
  r = DetectSharedBottlenecks({s}, p);
  EXPECT_EQ(r.flows[0].congested_evaluations, 2);
  EXPECT_FALSE(r.flows[0].congested);  // not at most evaluations
  EXPECT_EQ(r.flows[0].why_not,
            "congested at 2 of 4 evaluations: median skew_est -0.045 not "
            "below c_s = -0.01, pkt_loss 0.025 not above p_l = 0.10");
  EXPECT_TRUE(r.groups.empty());

  p.p_l = 0.02;  // the loss alone marks the last three
  r = DetectSharedBottlenecks({s}, p);
  EXPECT_EQ(r.flows[0].congested_evaluations, 4);
}

// RFC 8382 section 3.3.1 steps 2 to 4: a copy of the hand-built flow has
// the same statistics and joins it; the flow with every delay doubled has
// the same skew_est and freq_est (the crossing band scales with var_est)
// but twice the var_est, 50% apart > p_mad = 10%, and is split off.
TEST(SharedBottleneckTest, GroupsSplitByVariability) {
  SbdFlowSeries a = HandSeries();
  SbdFlowSeries copy = a;
  copy.flow_id = 1;
  SbdFlowSeries doubled = a;
  doubled.flow_id = 2;
  for (DelaySample& d : doubled.delays) d.delay_us *= 2;
  const SbdResult r = DetectSharedBottlenecks({a, copy, doubled}, HandParams());
  ASSERT_EQ(r.groups.size(), 2u);
  EXPECT_EQ(r.groups[0].flow_ids, (std::vector<uint32_t>{0, 1}));
  EXPECT_EQ(r.groups[0].confidence, 1.0);
  EXPECT_EQ(r.groups[1].flow_ids, (std::vector<uint32_t>{2}));
  EXPECT_EQ(r.groups[1].confidence, 1.0);
  ASSERT_TRUE(r.flows[2].var_est_ms.has_value());
  EXPECT_NEAR(*r.flows[2].var_est_ms, 2 * *r.flows[0].var_est_ms, 1e-9);
  EXPECT_EQ(r.flows[2].skew_est, r.flows[0].skew_est);
  EXPECT_EQ(r.flows[2].freq_est, r.flows[0].freq_est);
}

// A flow that has not yet filled M intervals, or whose intervals hold too
// few samples, is not evaluated and says why.
TEST(SharedBottleneckTest, TooFewSamplesIsSaidInWords) {
  SbdFlowSeries s = HandSeries();
  s.delays.resize(3);  // the first interval only: no reference for skew
  const SbdResult r = DetectSharedBottlenecks({s}, HandParams());
  ASSERT_EQ(r.flows.size(), 1u);
  EXPECT_FALSE(r.flows[0].congested);
  EXPECT_FALSE(r.flows[0].skew_est.has_value());
  EXPECT_EQ(r.flows[0].why_not,
            "too few delay samples (3): needs 3 base intervals of 100 ms "
            "holding at least 1");
  EXPECT_TRUE(r.groups.empty());

  SbdParams bad = HandParams();
  bad.m = bad.n + 1;
  EXPECT_EQ(DetectSharedBottlenecks({HandSeries()}, bad).flows[0].why_not,
            "the parameters need T > 0 and 1 <= M <= N (T = 100000 us, M = 5, "
            "N = 4)");
}

TEST(SharedBottleneckTest, AHugeAckIsCountedNotListed) {
  // Raw per-packet times only while they stay under the cap: an ACK of
  // 2^40 packets (a corrupt ACK; listed, 8 TiB of times) goes to the base
  // intervals as a count, with the samples before it.
  SbdSeriesBuilder builder(0, SbdParams{}, /*max_raw_samples=*/1000);
  TimelineEvent e;
  e.type = TimelineEvent::Type::kAck;
  e.time_ns = 1'000'000'000;
  e.rtt_sample_us = 20'000;
  e.packets_delivered = 2;
  builder.Add(e);
  e.time_ns = 2'000'000'000;
  e.packets_delivered = uint64_t{1} << 40;
  builder.Add(e);
  const SbdFlowSeries series = builder.Take();
  EXPECT_TRUE(series.packet_times_us.empty());
  ASSERT_EQ(series.intervals.size(), 2u);  // T = 350 ms: intervals 2 and 5.
  EXPECT_EQ(series.intervals[0].packets, 2);
  EXPECT_EQ(series.intervals[1].packets, int64_t{1} << 40);
  EXPECT_EQ(series.intervals[0].num + series.intervals[1].num, 2);
}

// Reads `path` back through the all-flows AckTimelineBuilder into one
// SbdSeriesBuilder per flow; flow ids are `first_id` + the flow index.
std::vector<SbdFlowSeries> SeriesFromCapture(const std::string& path,
                                             uint32_t flows, uint32_t first_id,
                                             size_t max_raw_samples) {
  std::vector<SbdSeriesBuilder> builders;
  for (uint32_t f = 0; f < flows; ++f) {
    builders.emplace_back(f, SbdParams{}, max_raw_samples);
  }
  AckTimelineBuilder timeline([&](const TimelineEvent& e) {
    if (e.flow_index < flows) builders[e.flow_index].Add(e);
  });
  absl::StatusOr<CaptureInfo> info = ReadCapture(path, timeline);
  EXPECT_TRUE(info.ok()) << info.status();
  timeline.Finish();
  std::vector<SbdFlowSeries> out;
  for (SbdSeriesBuilder& b : builders) {
    out.push_back(b.Take());
    out.back().flow_id += first_id;
  }
  return out;
}

std::string TempPcap(const std::string& name) {
  return ::testing::TempDir() + "/ccreplay_sbd_" + std::to_string(getpid()) +
         "_" + name + ".pcap";
}

FlowConfig Bulk(const std::string& cc, uint32_t packet_bytes) {
  FlowConfig f;
  f.cc_spec = cc;
  f.packet_bytes = packet_bytes;
  return f;
}

// Simulates `config` for `duration_ns` into a pcap and reads the flows back.
std::vector<SbdFlowSeries> SimulatedSeries(const SimulationConfig& config,
                                           int64_t duration_ns,
                                           const std::string& name,
                                           uint32_t first_id,
                                           size_t max_raw_samples) {
  const std::string path = TempPcap(name);
  absl::StatusOr<std::unique_ptr<Simulation>> sim =
      SimulateToPcap(config, duration_ns, path);
  EXPECT_TRUE(sim.ok()) << sim.status();
  std::vector<SbdFlowSeries> out =
      SeriesFromCapture(path, config.flows.size(), first_id, max_raw_samples);
  std::remove(path.c_str());
  return out;
}

SimulationConfig Path(int64_t rate_bps, int64_t rtt_ns, uint64_t buffer) {
  SimulationConfig c;
  c.rate_bps = rate_bps;
  c.base_rtt_ns = rtt_ns;
  c.buffer_bytes = buffer;
  return c;
}

std::string Describe(const SbdResult& r) {
  std::string s;
  for (const SbdFlowStats& f : r.flows) {
    s += "flow " + std::to_string(f.flow_id) +
         ": skew=" + std::to_string(f.skew_est.value_or(99)) +
         " var_ms=" + std::to_string(f.var_est_ms.value_or(-1)) +
         " freq=" + std::to_string(f.freq_est.value_or(-1)) +
         " loss=" + std::to_string(f.pkt_loss.value_or(-1)) + " congested " +
         std::to_string(f.congested_evaluations) + "/" +
         std::to_string(f.evaluations) + " " + f.why_not + "\n";
  }
  for (const SbdGroup& g : r.groups) {
    s += "group";
    for (uint32_t id : g.flow_ids) s += " " + std::to_string(id);
    s += " confidence " + std::to_string(g.confidence) + "\n";
  }
  return s;
}

// `simulate --rate 20mbit --delay 40ms --buffer 100kB --cc
// cubic,cubic:mss=1200`: two CUBIC flows through one drop-tail bottleneck
// (buffer 100 kB = one BDP of 20 Mbit/s x 40 ms), seen at the senders. Both
// flows' RTT is the one queue's sawtooth, so every evaluation sees the same
// skew, variability and oscillation.
TEST(SharedBottleneckTest, TwoFlowsThroughOneBottleneckAreOneGroup) {
  SimulationConfig c = Path(20'000'000, 40 * kMs, 100'000);
  c.flows = {Bulk("cubic", 1448), Bulk("cubic:mss=1200", 1200)};
  const int64_t duration_ns = 120 * kS;
  const std::string path = TempPcap("shared");
  ASSERT_TRUE(SimulateToPcap(c, duration_ns, path).ok());
  const auto start = std::chrono::steady_clock::now();
  const std::vector<SbdFlowSeries> series =
      SeriesFromCapture(path, 2, 0, size_t{1} << 30);
  const auto read = std::chrono::steady_clock::now();
  const SbdResult r = DetectSharedBottlenecks(series);
  const auto end = std::chrono::steady_clock::now();
  std::remove(path.c_str());
  auto ms = [](auto d) {
    return std::chrono::duration<double, std::milli>(d).count();
  };
  // 2 flows x 120 s = 240 s of flow.
  std::printf("timeline+builders %.0f ms, detect %.1f ms for 240 s of flow\n",
              ms(read - start), ms(end - read));
  SCOPED_TRACE(Describe(r));
  ASSERT_EQ(r.flows.size(), 2u);
  EXPECT_TRUE(r.flows[0].congested);
  EXPECT_TRUE(r.flows[1].congested);
  ASSERT_EQ(r.groups.size(), 1u);
  EXPECT_EQ(r.groups[0].flow_ids, (std::vector<uint32_t>{0, 1}));
  // Measured 300 of 314 evaluations (0.955): the other 14 split at step 3,
  // var_est differing by more than p_mad = 10% (each flow samples the one
  // queue at its own packets' instants). Grouping at random gives 0.5.
  EXPECT_GE(r.groups[0].confidence, 0.93);

  // The builder past its raw cap sums per interval as it goes: the same
  // statistics.
  const std::vector<SbdFlowSeries> summed =
      SimulatedSeries(c, duration_ns, "shared_summed", 0, 1000);
  ASSERT_FALSE(summed[0].intervals.empty());
  EXPECT_TRUE(summed[0].delays.empty());
  const SbdResult r2 = DetectSharedBottlenecks(summed);
  EXPECT_EQ(Describe(r2), Describe(r));
}

// Two independent bottlenecks (20 Mbit/s, 40 ms and 8 Mbit/s, 100 ms; two
// simulations, one capture's flows merged with the other's): each flow is
// congested, and never grouped with the other.
TEST(SharedBottleneckTest, FlowsOnSeparateBottlenecksAreNotGrouped) {
  SimulationConfig a = Path(20'000'000, 40 * kMs, 100'000);
  a.flows = {Bulk("cubic", 1448)};
  SimulationConfig b = Path(8'000'000, 100 * kMs, 100'000);
  b.flows = {Bulk("reno", 1448)};
  std::vector<SbdFlowSeries> series =
      SimulatedSeries(a, 120 * kS, "separate_a", 0, size_t{1} << 30);
  const std::vector<SbdFlowSeries> other =
      SimulatedSeries(b, 120 * kS, "separate_b", 1, size_t{1} << 30);
  series.insert(series.end(), other.begin(), other.end());
  const SbdResult r = DetectSharedBottlenecks(series);
  SCOPED_TRACE(Describe(r));
  ASSERT_EQ(r.groups.size(), 2u);
  EXPECT_EQ(r.groups[0].flow_ids, (std::vector<uint32_t>{0}));
  EXPECT_EQ(r.groups[1].flow_ids, (std::vector<uint32_t>{1}));
  // Measured: apart at 306 of 314 evaluations (0.975), mostly by freq_est
  // (median 0.14 against 0.04).
  EXPECT_GE(r.groups[0].confidence, 0.95);
  EXPECT_GE(r.groups[1].confidence, 0.95);
}

// A flow whose receive window (30 kB) is under a third of its path's BDP
// (20 Mbit/s x 40 ms = 100 kB) never builds a queue and loses nothing: all
// its RTT samples are the base RTT (the simulator adds no other delay
// variation), so skew_est and var_est are 0 and it crosses no bottleneck.
TEST(SharedBottleneckTest, WindowLimitedFlowIsNotCongested) {
  SimulationConfig c = Path(20'000'000, 40 * kMs, 100'000);
  c.flows = {Bulk("cubic", 1448)};
  c.flows[0].receive_window_bytes = 30'000;
  const SbdResult r = DetectSharedBottlenecks(
      SimulatedSeries(c, 60 * kS, "limited", 0, size_t{1} << 30));
  SCOPED_TRACE(Describe(r));
  ASSERT_EQ(r.flows.size(), 1u);
  EXPECT_FALSE(r.flows[0].congested);
  EXPECT_EQ(r.flows[0].congested_evaluations, 0);
  // Intervals 0 to 171 (60 s / 350 ms), evaluated from the M-th (index 29)
  // on: 143.
  EXPECT_EQ(r.flows[0].evaluations, 143);
  EXPECT_EQ(r.flows[0].skew_est, 0.0);
  EXPECT_EQ(r.flows[0].var_est_ms, 0.0);
  EXPECT_EQ(r.flows[0].pkt_loss, 0.0);
  EXPECT_NE(r.flows[0].why_not.find("congested at 0 of"), std::string::npos);
  EXPECT_TRUE(r.groups.empty());
}

}  // namespace
}  // namespace ccreplay
