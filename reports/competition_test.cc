// The multi-flow diagnosis (reports/competition.h, competition_session.h,
// competition_html.h): shares and Jain's index against the simulator's own
// per-flow counts and tshark's, two qlogs as two inputs, the JSON and the
// page.
#include "reports/competition.h"

#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstdio>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "absl/algorithm/container.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_split.h"
#include "gtest/gtest.h"
#include "proto/json_printer.h"
#include "proto/testing/test_data.h"
#include "replay/sim/pcap_export.h"
#include "replay/sim/simulation.h"
#include "reports/competition_html.h"
#include "reports/competition_session.h"

namespace ccreplay {
namespace {

constexpr int64_t kMs = 1'000'000;

TEST(CompetitionTest, JainIndexIsTheFormula) {
  // (sum x)^2 / (n sum x^2): equal shares 1, one flow with all 1/n.
  EXPECT_DOUBLE_EQ(*JainIndex({5.0, 5.0, 5.0}), 1.0);
  EXPECT_DOUBLE_EQ(*JainIndex({7.0, 0.0}), 0.5);
  EXPECT_DOUBLE_EQ(*JainIndex({3.0, 1.0}), 16.0 / 20.0);
  EXPECT_FALSE(JainIndex({}).has_value());
  EXPECT_FALSE(JainIndex({0.0, 0.0}).has_value());
}

TEST(CompetitionTest, OverlappingFlowsAreOneGroupDisjointOnesApart) {
  // 0 and 2 overlap through 1; 3 starts when 2 has ended.
  const std::vector<ActiveSpan> spans = {{0, 2}, {1, 5}, {4, 6}, {6, 9}};
  const std::vector<CompetitorGrouping> groups = GroupCompetitors(spans);
  ASSERT_EQ(groups.size(), 2u);
  EXPECT_EQ(groups[0].flow_ids, (std::vector<uint32_t>{0, 1, 2}));
  EXPECT_EQ(groups[1].flow_ids, (std::vector<uint32_t>{3}));
  EXPECT_EQ(groups[0].method, "overlap only");
  EXPECT_FALSE(groups[0].confidence.has_value());
}

TEST(CompetitionTest, SharedBottleneckGroupsWinOverOverlap) {
  // 0 and 1 detected on one bottleneck; 2 evaluated and crossing none; 3
  // and 4 not evaluated (too short), overlapping each other and the rest.
  const std::vector<ActiveSpan> spans = {
      {0, 9}, {0, 9}, {0, 9}, {1, 5}, {4, 6}};
  SbdResult sbd;
  sbd.groups = {{{0, 1}, 0.8}};
  sbd.flows.resize(5);
  for (uint32_t id = 0; id < 5; ++id) sbd.flows[id].flow_id = id;
  sbd.flows[0].evaluations = sbd.flows[1].evaluations = 20;
  sbd.flows[2].evaluations = 20;
  const std::vector<CompetitorGrouping> groups = GroupCompetitors(spans, &sbd);
  ASSERT_EQ(groups.size(), 3u);
  EXPECT_EQ(groups[0].flow_ids, (std::vector<uint32_t>{0, 1}));
  EXPECT_EQ(groups[0].method, "rfc8382");
  EXPECT_EQ(groups[0].confidence, 0.8);
  EXPECT_EQ(groups[1].flow_ids, (std::vector<uint32_t>{2}));
  EXPECT_EQ(groups[1].method, "rfc8382");
  EXPECT_FALSE(groups[1].confidence.has_value());
  EXPECT_EQ(groups[2].flow_ids, (std::vector<uint32_t>{3, 4}));
  EXPECT_EQ(groups[2].method, "overlap only");
}

TEST(CompetitionTest, FlowListSplitsOnCommasAndRefusesEmptyItems) {
  EXPECT_EQ(*ParseFlowList("1,3"), (std::vector<std::string>{"1", "3"}));
  EXPECT_EQ(*ParseFlowList("10.0.0.1:5201-10.0.0.2:4000, 2"),
            (std::vector<std::string>{"10.0.0.1:5201-10.0.0.2:4000", "2"}));
  EXPECT_FALSE(ParseFlowList("1,,3").ok());
}

// Whether `word` occurs in `text` not within a longer word ("nan", not
// "dominant").
bool HasWord(const std::string& text, const std::string& word) {
  const auto letter = [](char c) {
    return std::isalpha(static_cast<unsigned char>(c));
  };
  for (size_t at = text.find(word); at != std::string::npos;
       at = text.find(word, at + 1)) {
    const size_t end = at + word.size();
    if ((at == 0 || !letter(text[at - 1])) &&
        (end == text.size() || !letter(text[end]))) {
      return true;
    }
  }
  return false;
}

// tshark's delivered bytes per TCP stream of `pcap`: the receiver's highest
// relative ACK (of the packets `ack_filter` keeps) less the SYN's 1, by
// stream index; empty without tshark.
std::map<int, double> TsharkDeliveredBytes(
    const std::string& pcap,
    const std::string& ack_filter = "tcp.srcport==5201") {
  const std::string command =
      absl::StrCat("tshark -r ", pcap, " -Y '", ack_filter,
                   "' -T fields -e tcp.stream -e tcp.ack 2>/dev/null");
  std::map<int, double> delivered;
  FILE* pipe = popen(command.c_str(), "r");
  if (pipe == nullptr) return delivered;
  char line[256];
  while (std::fgets(line, sizeof(line), pipe) != nullptr) {
    int stream = 0;
    double ack = 0;
    if (std::sscanf(line, "%d %lf", &stream, &ack) != 2) continue;
    delivered[stream] = std::max(delivered[stream], ack - 1);
  }
  pclose(pipe);
  return delivered;
}

// Reno with 1462- and 1280-byte packets on a 20 Mb/s, 40 ms path (1 BDP of
// buffer) for 30 s, exported and diagnosed with --flows 0,1.
class TwoRenoFlows : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    SimulationConfig config;
    config.rate_bps = 20'000'000;
    config.base_rtt_ns = 40 * kMs;
    config.buffer_bytes = 100'000;
    FlowConfig large, small;
    large.cc_spec = "reno:mss=1462";
    large.packet_bytes = 1462;
    small.cc_spec = "reno:mss=1280";
    small.packet_bytes = 1280;
    config.flows = {large, small};
    pcap_ = new std::string(
        absl::StrCat(::testing::TempDir(), "/two_reno_", getpid(), ".pcap"));
    absl::StatusOr<std::unique_ptr<Simulation>> sim =
        SimulateToPcap(config, 30'000 * kMs, *pcap_);
    ASSERT_TRUE(sim.ok()) << sim.status();
    sim_ = sim->release();
    MultiFlowOptions options;
    DiagnoseOptions one;
    one.input = *pcap_;
    one.simulate = false;
    options.inputs = {one};
    options.flows = {"0", "1"};
    absl::StatusOr<MultiFlowRun> run = DiagnoseFlows(options);
    ASSERT_TRUE(run.ok()) << run.status();
    run_ = new MultiFlowRun(*std::move(run));
  }
  static void TearDownTestSuite() {
    std::remove(pcap_->c_str());
    delete pcap_;
    delete sim_;
    delete run_;
  }
  static std::string* pcap_;
  static Simulation* sim_;
  static MultiFlowRun* run_;
};
std::string* TwoRenoFlows::pcap_ = nullptr;
Simulation* TwoRenoFlows::sim_ = nullptr;
MultiFlowRun* TwoRenoFlows::run_ = nullptr;

TEST_F(TwoRenoFlows, SharesAreTheSimulatorsAndJainIsTheFormulaOnThem) {
  ASSERT_NE(run_, nullptr);
  const proto::MultiFlowDiagnosis& r = run_->report.result;
  ASSERT_EQ(r.flows_size(), 2);
  ASSERT_EQ(r.groups_size(), 1);
  const proto::CompetitorGroup& g = r.groups(0);
  // One bottleneck, found by RFC 8382 over the whole run (57 instants of
  // 350 ms at which both were congested).
  EXPECT_EQ(g.method(), "rfc8382");
  EXPECT_GT(g.confidence(), 0.9);
  ASSERT_EQ(g.shares_size(), 2);
  // Both flows send from their handshake (one RTT) to the end, 30 s.
  EXPECT_NEAR(g.common_start_s(), 0.08, 0.01);
  EXPECT_NEAR(g.common_end_s(), 30.04, 0.01);
  // The simulator's own count: bytes acknowledged per sender over the run
  // (11.79 and 8.15 Mb/s); the common interval misses only the handshakes.
  const double a = sim_->flow_stats(0).sender.bytes_acked;
  const double b = sim_->flow_stats(1).sender.bytes_acked;
  EXPECT_NEAR(g.shares(0).share(), a / (a + b), 0.01);
  EXPECT_NEAR(g.shares(1).share(), b / (a + b), 0.01);
  EXPECT_LT(g.shares(1).share(), 0.45);  // 1280-byte Reno gets less.
  const double x = g.shares(0).throughput_bps();
  const double y = g.shares(1).throughput_bps();
  EXPECT_DOUBLE_EQ(g.jain_index(), (x + y) * (x + y) / (2 * (x * x + y * y)));
  ASSERT_EQ(g.pairs_size(), 1);
  EXPECT_EQ(g.pairs(0).lesser_flow_id(), 1u);
  EXPECT_EQ(g.pairs(0).greater_flow_id(), 0u);
  EXPECT_NEAR(g.pairs(0).share_ratio(), b / a, 0.01);
  EXPECT_EQ(r.flows(1).packet_bytes(), 1280u);
  // Two loss-based flows: no BBR queue is named.
  EXPECT_FALSE(g.pairs(0).has_standing_queue_median_ms());
  EXPECT_EQ(g.pairs(0).message().find("standing queue"), std::string::npos);
}

TEST_F(TwoRenoFlows, DeliveredBytesAreTsharks) {
  ASSERT_NE(run_, nullptr);
  // tshark -r F -Y tcp.srcport==5201 -T fields -e tcp.stream -e tcp.ack:
  // the highest relative ACK per stream, less 1 for the SYN (44171406 and
  // 30562560 bytes when this was written).
  const std::map<int, double> tshark = TsharkDeliveredBytes(*pcap_);
  if (tshark.empty()) GTEST_SKIP() << "tshark is not installed";
  const proto::MultiFlowDiagnosis& r = run_->report.result;
  for (int i = 0; i < 2; ++i) {
    EXPECT_EQ(r.flows(i).delivered_bytes(), tshark.at(i)) << i;
    EXPECT_EQ(r.flows(i).delivered_bytes(),
              sim_->flow_stats(i).sender.bytes_acked)
        << i;
  }
}

TEST_F(TwoRenoFlows, JsonParsesBackAndThePageHasEachFlowsSection) {
  ASSERT_NE(run_, nullptr);
  const std::string json = PrintJson(run_->report.result);
  proto::MultiFlowDiagnosis back;
  ASSERT_TRUE(ParseJson(json, &back).ok());
  EXPECT_EQ(back.flows(1).diagnosis().sender(), "10.1.0.1:40001");
  ASSERT_EQ(back.plots_size(), 5);  // throughput, share, Jain, cwnd, RTT
  for (const proto::SharedPlot& p : back.plots())
    for (const proto::PlotSeriesData& s : p.series())
      EXPECT_GT(s.t_size(), 10) << p.id() << " " << s.name();
  const std::string html = RenderMultiFlowHtml(run_->report, run_->flows);
  EXPECT_TRUE(absl::StrContains(html, "<details class=\"flow\" id=\"flow-a\""));
  EXPECT_TRUE(absl::StrContains(html, "<details class=\"flow\" id=\"flow-b\""));
  EXPECT_TRUE(absl::StrContains(html, "id=\"shared-plot-share\""));
  EXPECT_TRUE(absl::StrContains(html, "id=\"b-plot-cwnd\""));
  EXPECT_TRUE(absl::StrContains(html, "href=\"#shared-range="));
  EXPECT_FALSE(HasWord(html, "nan"));
  EXPECT_FALSE(HasWord(html, "inf"));
}

TEST(CompetitionTest, TwoQlogsAsTwoInputsGiveTwoFlows) {
  CCREPLAY_PATH_OR_SKIP(
      first, SharedTestData(
                 "quic/ngtcp2_reno_30mbit_pfifo100_40ms/server-0.sqlog.gz"));
  MultiFlowOptions options;
  DiagnoseOptions a, b;
  a.input = first;
  a.simulate = b.simulate = false;
  b.input = TestDataPath("quic/ngtcp2_cubic_20mbit_pfifo12/server.sqlog.gz");
  options.inputs = {a, b};
  absl::StatusOr<MultiFlowRun> run = DiagnoseFlows(options);
  ASSERT_TRUE(run.ok()) << run.status();
  const proto::MultiFlowDiagnosis& r = run->report.result;
  ASSERT_EQ(r.flows_size(), 2);
  EXPECT_EQ(r.flows(0).input(), first);
  EXPECT_EQ(r.flows(1).input(), b.input);
  EXPECT_EQ(r.inputs_size(), 2);
  for (const proto::CompetingFlow& f : r.flows()) {
    EXPECT_FALSE(f.diagnosis().verdict().empty());
    EXPECT_GT(f.delivered_bytes(), 1'000'000u);
  }
  // ngtcp2's qlogs state no reference time: both start at 0, grouped by
  // overlap, not by RFC 8382 (their delays cannot be put side by side).
  ASSERT_EQ(r.groups_size(), 1);
  EXPECT_EQ(r.groups(0).method(), "overlap only");
  EXPECT_FALSE(r.has_start_unix_s());
  // The same input twice is one flow twice: refused.
  options.inputs = {a, a};
  EXPECT_FALSE(DiagnoseFlows(options).ok());
}

// A lab bundle of two real ngtcp2 CUBIC downloads competing, one with
// 1280-byte and one with 1452-byte datagrams, each flow its own server
// qlog (testdata/SOURCES.md): `--flows 0,1` diagnoses both qlogs (once
// refused as "the same flow": both are trace 0 of the same bundle).
TEST(CompetitionTest, AnNgtcp2BundlesTwoQlogsAreTwoFlows) {
  MultiFlowOptions options;
  DiagnoseOptions one;
  one.input =
      TestDataPath("lab/ngtcp2_two_cubic_1280_1452_20mbit_20ms_pfifo40");
  one.simulate = false;
  options.inputs = {one};
  options.flows = {"0", "1"};
  absl::StatusOr<MultiFlowRun> run = DiagnoseFlows(options);
  ASSERT_TRUE(run.ok()) << run.status();
  const proto::MultiFlowDiagnosis& r = run->report.result;
  ASSERT_EQ(r.flows_size(), 2);
  // tshark -r sender.pcap.gz -Y udp.srcport==23190 (23191) -T fields -e
  // udp.length: the largest datagram payload 1,280 (1,452) bytes, 6,523,357
  // (6,548,563) bytes sent in all. What was acknowledged lies between the
  // HTTP body each client downloaded (meta.json download_bytes, 6,250,000)
  // and what the server sent, retransmissions and ACK-only datagrams
  // included.
  const uint32_t sizes[] = {1280, 1452};
  const uint64_t sent[] = {6'523'357, 6'548'563};
  for (int i = 0; i < 2; ++i) {
    const proto::CompetingFlow& f = r.flows(i);
    EXPECT_EQ(f.packet_bytes(), sizes[i]);
    EXPECT_GE(f.delivered_bytes(), 6'250'000u);
    EXPECT_LE(f.delivered_bytes(), sent[i]);
    EXPECT_TRUE(absl::StrContains(f.diagnosis().input(),
                                  absl::StrCat("flow", i, ".sqlog")))
        << f.diagnosis().input();
  }
  // ngtcp2's qlogs state no reference time (reference_time 0, relative
  // times): each is placed by its flow's first datagram in the bundle's
  // sender capture. tshark -r sender.pcap.gz -Y 'udp.port==23191' -c 1 -T
  // fields -e frame.time_epoch: 1796184945.608983 (flow 1, the shared
  // axis's zero); -Y 'udp.port==23190': 1796184945.630507, 21.524 ms later.
  EXPECT_NEAR(r.start_unix_s(), 1796184945.608983, 1e-6);
  EXPECT_NEAR(r.flows(0).start_s(), 0.021524, 1e-6);
  EXPECT_NEAR(r.flows(1).start_s(), 0, 1e-6);
  for (const proto::CompetingFlow& f : r.flows())
    EXPECT_TRUE(absl::StrContains(f.clock(), "sender capture")) << f.clock();
  // On that clock RFC 8382 runs on both flows' RTT samples, as for TCP;
  // 4.5 s of competition is less than its 30 base intervals of 350 ms, so
  // the flows are grouped by overlap, and the method says why.
  ASSERT_EQ(r.groups_size(), 1);
  EXPECT_EQ(r.groups(0).method(), "overlap only");
  for (const char* flow : {"A", "B"}) {
    EXPECT_TRUE(absl::c_any_of(run->report.shared.method,
                               [flow](const std::string& line) {
                                 return absl::StartsWith(
                                     line, absl::StrCat("RFC 8382 on ", flow,
                                                        ": not grouped: too "
                                                        "few delay samples"));
                               }))
        << flow;
  }
  ASSERT_EQ(r.groups(0).pairs_size(), 1);
  EXPECT_EQ(r.groups(0).pairs(0).lesser_flow_id(), r.flows(0).id());
}

const proto::UnfairnessCause* CauseOf(const proto::PairAttribution& pair,
                                      const std::string& kind) {
  for (const proto::UnfairnessCause& c : pair.causes())
    if (c.kind() == kind) return &c;
  return nullptr;
}

// A lab bundle's flows 0 and 1 diagnosed together, simulations on.
absl::StatusOr<MultiFlowRun> DiagnoseBundle(const std::string& bundle) {
  MultiFlowOptions options;
  DiagnoseOptions one;
  one.input = TestDataPath(bundle);
  options.inputs = {one};
  options.flows = {"0", "1"};
  return DiagnoseFlows(options);
}

// The same bundle with the closed-loop counterfactuals: the 1280-byte flow
// got 0.69 of the 1452-byte one's throughput. ngtcp2's CUBIC grows its
// window in units of its own max UDP payload (ngtcp2 lib/ngtcp2_cc.c,
// cc/ngtcp2_cubic.cc), so packet size is a cause, proven by the fitted
// simulation with both flows at 1452 bytes; the 1452-byte flow's growth
// was not measured (too few epochs), so the counterfactual names it.
TEST(CompetitionLabTest, Ngtcp2PairsPacketSizeIsACause) {
  absl::StatusOr<MultiFlowRun> run =
      DiagnoseBundle("lab/ngtcp2_two_cubic_1280_1452_20mbit_20ms_pfifo40");
  ASSERT_TRUE(run.ok()) << run.status();
  const proto::MultiFlowDiagnosis& r = run->report.result;
  ASSERT_EQ(r.groups_size(), 1);
  ASSERT_EQ(r.groups(0).pairs_size(), 1);
  const proto::PairAttribution& pair = r.groups(0).pairs(0);
  SCOPED_TRACE(pair.message());
  // Bytes the server sent over the common interval, from the shared axis's
  // zero (1796184945.608983) + [0.0435, 4.558) s: tshark -r sender.pcap.gz
  // -Y udp.srcport==23190 (23191) -T fields -e frame.time_epoch -e
  // udp.length, summing udp.length - 8: 4,530,233 and 6,531,095, 0.694.
  // Delivered bytes differ from sent by the retransmissions (97 drops of
  // 9,747 packets, meta.json qdisc_stats).
  EXPECT_NEAR(pair.share_ratio(), 4530233.0 / 6531095, 0.01);
  const proto::UnfairnessCause* size = CauseOf(pair, "packet_size");
  ASSERT_NE(size, nullptr);
  // Measured: 0.82 (0.82 as they ran, 1.00 with 1452-byte packets).
  EXPECT_GT(size->explained_ratio(), 0.75);
  EXPECT_LT(size->explained_ratio(), 0.9);
  EXPECT_TRUE(absl::StrContains(pair.message(), "with 1452-byte packets"));
  EXPECT_FALSE(absl::StrContains(pair.message(), "no cause found"));
}

// Issue 20: bbr:linux (flow 0) and cubic:linux (flow 1) through one 20 Mb/s,
// 40 ms bottleneck with 200 kB (2 BDP) of buffer for 20 s, sender jitter on
// (RFC 8382's detection needs the delay noise a real path has), each flow
// diagnosed with its own controller: the pair's standing queue against the
// simulator's own queue.
TEST(CompetitionTest, BbrAgainstCubicKeepsAStandingQueue) {
  SimulationConfig config;
  config.rate_bps = 20'000'000;
  config.base_rtt_ns = 40 * kMs;
  config.buffer_bytes = 200'000;
  config.sample_interval_ns = 10 * kMs;
  config.sender_jitter.kind = SenderJitterSpec::Kind::kServiceTime;
  FlowConfig bbr, cubic;
  bbr.cc_spec = "bbr:linux";
  cubic.cc_spec = "cubic:linux";
  config.flows = {bbr, cubic};
  const std::string pcap =
      absl::StrCat(::testing::TempDir(), "/bbr_cubic_", getpid(), ".pcap");
  absl::StatusOr<std::unique_ptr<Simulation>> sim =
      SimulateToPcap(config, 20'000 * kMs, pcap);
  ASSERT_TRUE(sim.ok()) << sim.status();
  MultiFlowOptions options;
  for (const char* flow : {"0", "1"}) {
    DiagnoseOptions one;
    one.input = pcap;
    one.flow = flow;
    one.simulate = false;
    one.specs = {flow[0] == '0' ? "bbr:linux" : "cubic:linux"};
    options.inputs.push_back(one);
  }
  absl::StatusOr<MultiFlowRun> run = DiagnoseFlows(options);
  unlink(pcap.c_str());
  ASSERT_TRUE(run.ok()) << run.status();
  const proto::MultiFlowDiagnosis& r = run->report.result;
  ASSERT_EQ(r.groups_size(), 1) << run->report.summary_text;
  const proto::CompetitorGroup& g = r.groups(0);
  ASSERT_EQ(g.pairs_size(), 1);
  const proto::PairAttribution& pair = g.pairs(0);
  ASSERT_TRUE(pair.has_standing_queue_median_ms()) << pair.message();
  // The simulator's queue over the common interval, as delay at the
  // bottleneck's rate, on its 10 ms grid.
  std::vector<double> queue_ms;
  for (const PathSample& s : (*sim)->path_series()) {
    const double t = s.time_us * 1e-6;
    if (t < g.common_start_s() || t > g.common_end_s()) continue;
    queue_ms.push_back(s.queue_bytes * 8e3 / config.rate_bps);
  }
  std::sort(queue_ms.begin(), queue_ms.end());
  const double sim_median = queue_ms[queue_ms.size() / 2];
  const double sim_p90 = queue_ms[queue_ms.size() * 9 / 10];
  // Measured: median 62.5 ms (simulator 63.1), 90th percentile 76.4 ms
  // (77.0). tshark on the same export (`ccreplay simulate --rate 20mbit
  // --delay 40ms --buffer 200kB --cc bbr:linux,cubic:linux --duration 20s
  // --sender_jitter service --pcap X`; `tshark -r X -Y tcp.analysis.ack_rtt
  // -T fields -e frame.time_relative -e tcp.analysis.ack_rtt`, both flows,
  // 0.08-20.04 s): median 103.1 ms, 90th percentile 117.0 ms, less the
  // 40.6 ms minimum: 62.5 and 76.4 ms.
  EXPECT_NEAR(pair.standing_queue_median_ms(), sim_median, 0.03 * sim_median);
  EXPECT_NEAR(pair.standing_queue_p90_ms(), sim_p90, 0.03 * sim_p90);
  EXPECT_GT(pair.standing_queue_median_ms(), 55);
  EXPECT_NE(pair.message().find("kept a standing queue"), std::string::npos)
      << pair.message();
  // The shares in the sentence are the group's.
  const double bbr_share = g.shares(0).share();
  EXPECT_NE(pair.message().find(
                absl::StrFormat("flow A took %.0f%%", 100 * bbr_share)),
            std::string::npos)
      << pair.message();
}

// Issue 20 on the lab: a Linux BBR and a Linux CUBIC flow of the built-in
// sender through one 20 Mb/s, 40 ms bottleneck with a 140-packet pfifo
// (about 2 BDP) for 5 s (testdata/SOURCES.md). Each flow is replayed with
// its own controller, against its own tcp_probe events, and the pair's
// standing queue is checked against tshark's RTTs.
TEST(CompetitionLabTest, BbrAgainstCubicKeepsAStandingQueue) {
  absl::StatusOr<MultiFlowRun> run =
      DiagnoseBundle("lab/bbr_cubic_20mbit_40ms_pfifo140");
  ASSERT_TRUE(run.ok()) << run.status();
  ASSERT_EQ(run->flows.size(), 2u);
  // meta.json: flow 0 bbr (port 27750), flow 1 cubic (27751); the
  // selectors "0" and "1" are the capture's flow indexes, which order the
  // CUBIC flow (first SYN) first.
  std::map<std::string, std::string> controller_of;
  for (const CompetitorRun& f : run->flows) {
    const proto::Replay& replay = f.run.diagnosis.result.replay();
    EXPECT_EQ(replay.captured_source(), "tcp_probe");
    ASSERT_GE(replay.controllers_size(), 1);
    const proto::ReplayedController& claimed = replay.controllers(0);
    EXPECT_EQ(claimed.role(), "claimed");
    controller_of[f.run.diagnosis.result.sender()] = claimed.spec();
    // Measured: median and p95 0.025 % for both (2,691 and 2,019
    // compared; `zcat tcp_probe.txt.gz | grep -c 'tcp_probe:.*src=SENDER '`
    // gives 2,691 and 2,019 events).
    ASSERT_TRUE(claimed.has_p95_abs_error_pct());
    EXPECT_LE(claimed.p95_abs_error_pct(), 1.0) << claimed.spec();
  }
  EXPECT_EQ(controller_of["10.86.182.1:27750"], "bbr:linux");
  EXPECT_TRUE(
      absl::StartsWith(controller_of["10.86.182.1:27751"], "cubic:linux"))
      << controller_of["10.86.182.1:27751"];
  const proto::MultiFlowDiagnosis& r = run->report.result;
  ASSERT_EQ(r.groups_size(), 1) << run->report.summary_text;
  ASSERT_EQ(r.groups(0).pairs_size(), 1);
  const proto::PairAttribution& pair = r.groups(0).pairs(0);
  SCOPED_TRACE(pair.message());
  ASSERT_TRUE(pair.has_standing_queue_median_ms());
  // tshark -r sender.pcap.gz -Y 'tcp.analysis.ack_rtt && (tcp.srcport==27740
  // || tcp.srcport==27741)' -T fields -e frame.time_relative -e
  // tcp.analysis.ack_rtt: 4,544 RTTs, the least 40.049 ms; over the common
  // interval (0.105-5.234 s, 4,436) median 104.84 ms and 90th percentile
  // 118.70 ms, less the minimum: 64.79 and 78.65 ms. Measured: 64.99 and
  // 78.74 ms (the pair's per-interval means).
  EXPECT_NEAR(pair.standing_queue_median_ms(), 64.79, 0.02 * 64.79);
  EXPECT_NEAR(pair.standing_queue_p90_ms(), 78.65, 0.02 * 78.65);
  EXPECT_TRUE(absl::StrContains(pair.message(), "kept a standing queue"));
}

// A two-flow lab bundle's group `g` of `r` against tshark: each flow's
// delivered bytes are tshark's (the receiver's highest relative ACK of the
// packets `ack_filter` keeps, less the SYN and the FIN), its share within
// 1 % of tshark's byte share. False, checking nothing, without tshark.
bool SharesAreTsharks(const std::string& bundle, const std::string& ack_filter,
                      const proto::MultiFlowDiagnosis& r,
                      const proto::CompetitorGroup& g) {
  std::map<int, double> tshark = TsharkDeliveredBytes(
      TestDataPath(absl::StrCat(bundle, "/sender.pcap.gz")), ack_filter);
  if (tshark.empty()) return false;
  for (auto& [stream, bytes] : tshark) bytes -= 1;  // the FIN
  EXPECT_EQ(g.shares_size(), 2);
  const double total = tshark.at(0) + tshark.at(1);
  for (int i = 0; i < 2 && i < g.shares_size(); ++i) {
    EXPECT_EQ(r.flows(i).delivered_bytes(), tshark.at(i)) << i;
    EXPECT_NEAR(g.shares(i).share(), tshark.at(i) / total,
                0.01 * tshark.at(i) / total)
        << i;
  }
  return true;
}

// Issue 19's second Done-when on the lab: two Linux CUBIC flows (1448- and
// 1188-byte segments) through one 20 Mb/s, 40 ms bottleneck
// (testdata/SOURCES.md has the command and tshark's figures).
TEST(CompetitionLabTest, SharedBottleneckSharesAndThePacketSizeCause) {
  const std::string bundle = "lab/two_mss_1448_1188_shared_20mbit_40ms";
  absl::StatusOr<MultiFlowRun> run = DiagnoseBundle(bundle);
  ASSERT_TRUE(run.ok()) << run.status();
  const proto::MultiFlowDiagnosis& r = run->report.result;
  ASSERT_EQ(r.groups_size(), 1) << run->report.summary_text;
  const proto::CompetitorGroup& g = r.groups(0);
  EXPECT_EQ(g.method(), "rfc8382");
  // Measured 1.00: grouped at all 30 instants (350 ms each) at which both
  // were congested; one instant less is 0.967, so 0.9 allows three.
  EXPECT_GE(g.confidence(), 0.9);
  // tshark -r sender.pcap.gz -Y 'tcp.srcport==23580 || tcp.srcport==23581'
  // -T fields -e tcp.stream -e tcp.ack: highest relative ACK 24641538 and
  // 23330818, less the SYN and the FIN (the payload bytes of SOURCES.md).
  // Over the common interval (0.084 to 20.220 s; B ran 0.1 s longer)
  // against tshark's whole flows: 0.5158 / 0.4842 against 0.5137 / 0.4863.
  if (!SharesAreTsharks(bundle, "tcp.srcport==23580 || tcp.srcport==23581", r,
                        g)) {
    GTEST_SKIP() << "tshark is not installed";
  }
  ASSERT_EQ(g.pairs_size(), 1);
  const proto::PairAttribution& pair = g.pairs(0);
  EXPECT_EQ(pair.lesser_flow_id(), 1u);
  EXPECT_NEAR(pair.share_ratio(),
              g.shares(1).throughput_bps() / g.shares(0).throughput_bps(),
              1e-12);
  // Linux CUBIC (meta.json's controller, replayed as cubic:linux) counts
  // its growth in its own segments: the small one grows fewer bytes.
  const CompetitorFacts& a = run->flows[0].run.competitor;
  const CompetitorFacts& b = run->flows[1].run.competitor;
  // (with the sender's fitted options: paced=0,hz=250,gso=1500,...).
  EXPECT_TRUE(absl::StartsWith(a.controller, "cubic:linux,")) << a.controller;
  EXPECT_TRUE(absl::StartsWith(b.controller, "cubic:linux,")) << b.controller;
  EXPECT_FALSE(b.normalize_bytes.has_value());
  const proto::UnfairnessCause* size = CauseOf(pair, "packet_size");
  ASSERT_NE(size, nullptr) << pair.message();
  ASSERT_TRUE(a.ca_growth_bytes_per_rtt && b.ca_growth_bytes_per_rtt);
  // Measured 778 and 588 B per RTT (0.76; the segment sizes' ratio is
  // 0.82): sqrt(0.76) = 0.87 (Mathis et al. 1997).
  EXPECT_GT(*b.ca_growth_bytes_per_rtt / *a.ca_growth_bytes_per_rtt, 0.6);
  EXPECT_LT(*b.ca_growth_bytes_per_rtt / *a.ca_growth_bytes_per_rtt, 0.95);
  EXPECT_NEAR(
      size->explained_ratio(),
      std::sqrt(*b.ca_growth_bytes_per_rtt / *a.ca_growth_bytes_per_rtt),
      1e-12);
  EXPECT_TRUE(pair.has_predicted_ratio_as_is());
  EXPECT_TRUE(absl::StartsWith(pair.message(),
                               "flow B, with 1188-byte packets, got 0.94 of "
                               "flow A's throughput; in congestion avoidance"))
      << pair.message();
  EXPECT_TRUE(absl::StrContains(run->report.summary_text, "packet_size 0.87"))
      << run->report.summary_text;
  // meta.json's queue (`tc -s qdisc show` in its qdisc_stats: "qdisc
  // pfifo 10: parent 1:10 limit 70p"): packet count, no counterfactual.
  EXPECT_EQ(pair.queue_qdisc(), "pfifo");
  EXPECT_EQ(pair.queue_limit(), 70);
  EXPECT_FALSE(pair.has_predicted_ratio_packet_count_admission());
  EXPECT_TRUE(absl::StrContains(
      pair.message(),
      "The bottleneck's queue (pfifo, 70 packets, as the input states it) "
      "admits by packet count, neutral to packet size."))
      << pair.message();
}

// Issue 19's admission cause "where it can be seen": the same two flows
// through a bfifo of 100,000 bytes (testdata/SOURCES.md), which admits an
// arrival when its bytes fit, so a 1188-byte segment enters where a
// 1448-byte one is dropped (RFC 7141 section 4.2.1.2). The fitted
// simulation runs the queue as meta.json states it, and once admitting
// every arrival as a full-size packet: byte-fit gives the small flow more.
// Measured at this commit: 0.84 (10th-90th percentile 0.48-1.28) against
// 0.67 (the capture: 0.85). The lab agrees on the direction and size:
// six runs each of `ccreplay lab --transfer builtin --flows
// cubic,cubic:mss=1200 --rate 20mbit --delay 40ms --duration 20s` with
// `--queue 70p` and `--queue 100kB`, alternately, gave the 1188-byte
// flow's bytes over the other's (meta.json bytes_sent) a mean of 0.68
// (pfifo; sd 0.23) and 0.95 (bfifo; sd 0.20), docs/diagnosis.md.
TEST(CompetitionLabTest, ByteFitQueueFavoursTheSmallPackets) {
  const std::string bundle =
      "lab/two_mss_1448_1188_shared_20mbit_40ms_bfifo100k";
  absl::StatusOr<MultiFlowRun> run = DiagnoseBundle(bundle);
  ASSERT_TRUE(run.ok()) << run.status();
  const proto::MultiFlowDiagnosis& r = run->report.result;
  ASSERT_EQ(r.groups_size(), 1) << run->report.summary_text;
  const proto::CompetitorGroup& g = r.groups(0);
  ASSERT_EQ(g.pairs_size(), 1);
  const proto::PairAttribution& pair = g.pairs(0);
  // "qdisc bfifo 10: parent 1:10 limit 100000b" (meta.json qdisc_stats).
  EXPECT_EQ(pair.queue_qdisc(), "bfifo");
  EXPECT_EQ(pair.queue_limit(), 100000);
  ASSERT_TRUE(pair.has_predicted_ratio_as_is());
  ASSERT_TRUE(pair.has_predicted_ratio_packet_count_admission());
  EXPECT_EQ(pair.lesser_flow_id(), 1u);
  // Byte-fit favours the lesser, small-packet flow: no admission cause
  // of its gap, the counterfactual said in words.
  EXPECT_GT(pair.predicted_ratio_as_is(),
            pair.predicted_ratio_packet_count_admission() + 0.1);
  EXPECT_EQ(CauseOf(pair, "admission"), nullptr) << pair.message();
  EXPECT_TRUE(absl::StrContains(
      pair.message(),
      "The bottleneck's queue (bfifo, 100000 bytes, as the input states it) "
      "admits an arrival when its bytes fit, which favours small packets "
      "(RFC 7141 section 4.2.1.2); admitting every arrival as a full-size "
      "packet (packet-size neutral, as a packet-count limit is), the fitted "
      "simulation gives 0.67 instead of 0.84."))
      << pair.message();
  // tshark -r sender.pcap.gz -Y 'tcp.srcport==27700 || tcp.srcport==27701'
  // -T fields -e tcp.stream -e tcp.ack: highest relative ACK 25100290 and
  // 21364738, less the SYN and the FIN.
  if (!SharesAreTsharks(bundle, "tcp.srcport==27700 || tcp.srcport==27701", r,
                        g)) {
    GTEST_SKIP() << "tshark is not installed";
  }
}

// The same two flows through two separate bottlenecks (20 Mb/s 40 ms and
// 12 Mb/s 25 ms): two groups, no pair compared.
TEST(CompetitionLabTest, SeparateBottlenecksAreNotCompared) {
  const std::string bundle =
      "lab/two_mss_1448_1188_apart_20mbit_40ms_12mbit_25ms";
  absl::StatusOr<MultiFlowRun> run = DiagnoseBundle(bundle);
  ASSERT_TRUE(run.ok()) << run.status();
  const proto::MultiFlowDiagnosis& r = run->report.result;
  ASSERT_EQ(r.groups_size(), 2) << run->report.summary_text;
  for (int i = 0; i < 2; ++i) {
    EXPECT_EQ(r.groups(i).method(), "rfc8382");
    ASSERT_EQ(r.groups(i).flow_ids_size(), 1);
    EXPECT_EQ(r.groups(i).flow_ids(0), static_cast<uint32_t>(i));
    EXPECT_EQ(r.groups(i).pairs_size(), 0);
  }
  EXPECT_TRUE(
      absl::StrContains(run->report.shared.verdict,
                        "Flows A and B share no bottleneck: not compared."))
      << run->report.shared.verdict;
  // tshark as above, ports 21380 and 21381: 47841282 and 28573698.
  std::map<int, double> tshark = TsharkDeliveredBytes(
      TestDataPath(absl::StrCat(bundle, "/sender.pcap.gz")),
      "tcp.srcport==21380 || tcp.srcport==21381");
  if (tshark.empty()) GTEST_SKIP() << "tshark is not installed";
  for (int i = 0; i < 2; ++i)
    EXPECT_EQ(r.flows(i).delivered_bytes(), tshark.at(i) - 1) << i;  // FIN
}

}  // namespace
}  // namespace ccreplay
