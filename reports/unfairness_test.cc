// Issue 19's first Done-when: two-flow simulator exports (a 1462-byte and a
// 1280-byte flow of Reno or CUBIC, the small one with and without MTU
// normalization, on three of quicly's path profiles), each flow diagnosed
// from the export as `ccreplay diagnose --cc SPEC` does, then attributed:
// the share ratio must be the simulator's own, the packet-size cause named
// exactly when normalization is off, and the fitted simulation's normalized
// ratio that of the simulator with normalization on, both averaged over
// the paths the capture cannot tell apart.
#include "reports/unfairness.h"

#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <memory>
#include <string>
#include <tuple>
#include <vector>

#include "absl/strings/str_cat.h"
#include "gtest/gtest.h"
#include "replay/sim/path_profile.h"
#include "replay/sim/pcap_export.h"
#include "replay/sim/simulation.h"
#include "reports/diagnose_session.h"
#include "reports/fitted_simulation.h"

namespace ccreplay {
namespace {

constexpr int64_t kS = 1'000'000'000;
constexpr uint32_t kLargeBytes = 1462;
constexpr uint32_t kSmallBytes = 1280;
// The reference's paths around the profile's own and runs on each
// (NormalizedPredictionWithinThreeHundredths): 1024, so that its standard
// error (0.003) leaves the bound to the prediction's.
constexpr int kTruePaths = 1024;
constexpr int kTrueRunsPerPath = 1;

struct Case {
  std::string profile;
  int64_t duration_ns;
};

// The profile's path with the 1462-byte flow (flow 0) and the 1280-byte
// one (flow 1, normalize=1462 when `normalize`) of `spec`, sender jitter
// on (Floyd and Jacobson's randomization against drop-tail phase effects,
// replay/sim/sender_jitter.h, as the fitted simulation has).
SimulationConfig PairConfig(const PathProfile& profile, const std::string& spec,
                            bool normalize) {
  SimulationConfig config;
  config.rate_bps = profile.rate_bps;
  config.base_rtt_ns = profile.base_rtt_us * 1000;
  config.buffer_bytes = profile.buffer_bytes();
  FlowConfig large, small;
  large.cc_spec = spec;
  large.packet_bytes = kLargeBytes;
  small.cc_spec = normalize ? absl::StrCat(spec, ":normalize=1462") : spec;
  small.packet_bytes = kSmallBytes;
  config.flows = {large, small};
  config.sender_jitter.kind = SenderJitterSpec::Kind::kServiceTime;
  return config;
}

// One closed-loop run (seed 1) as the simulator counted it and as the
// diagnosis of its export saw it.
struct PairRun {
  double sim_small_over_large = 0;  // bottleneck egress, whole run
  CompetitorFacts large, small;
  UnfairnessAttribution attribution;
  bool small_is_lesser = false;
  std::optional<FittedPath> shared;
  // Each flow's own fit.
  std::optional<FittedPath> large_path, small_path;
};

// Runs PairConfig, diagnoses both flows of the export and attributes the
// gap on their shared fitted path. Each flow is diagnosed with `--cc spec`,
// or with `--cc` of its own spec (normalize=1462 on the small flow when
// `normalize`) when `claim_own_spec`.
void RunPair(const Case& c, const std::string& spec, bool normalize,
             PairRun& out, bool claim_own_spec = false) {
  absl::StatusOr<PathProfile> profile = FindPathProfile(c.profile);
  ASSERT_TRUE(profile.ok()) << profile.status();
  const std::string path =
      absl::StrCat(::testing::TempDir(), "/ccreplay_unfairness_", getpid(), "_",
                   c.profile, spec, normalize, ".pcap");
  absl::StatusOr<std::unique_ptr<Simulation>> sim = SimulateToPcap(
      PairConfig(*profile, spec, normalize), c.duration_ns, path);
  ASSERT_TRUE(sim.ok()) << sim.status();
  out.sim_small_over_large =
      static_cast<double>((*sim)->flow_stats(1).egress_bytes) /
      (*sim)->flow_stats(0).egress_bytes;
  std::vector<DiagnoseRun> runs;
  for (const char* flow : {"0", "1"}) {
    DiagnoseOptions options;
    options.input = path;
    options.flow = flow;
    options.simulate = false;
    // --cc: the controller both flows ran.
    options.specs = {claim_own_spec && normalize && flow[0] == '1'
                         ? absl::StrCat(spec, ":normalize=1462")
                         : spec};
    absl::StatusOr<DiagnoseRun> run = DiagnoseInput(options);
    ASSERT_TRUE(run.ok()) << run.status();
    runs.push_back(*std::move(run));
  }
  unlink(path.c_str());
  out.large = runs[0].competitor;
  out.small = runs[1].competitor;
  ASSERT_GT(CommonIntervalThroughput(out.large, out.small), 0);
  const std::optional<FittedPath> shared =
      SharedFittedPath(out.large, out.small, runs[0].diagnosis.fitted_path,
                       runs[1].diagnosis.fitted_path);
  ASSERT_TRUE(shared.has_value());
  out.shared = shared;
  out.large_path = runs[0].diagnosis.fitted_path;
  out.small_path = runs[1].diagnosis.fitted_path;
  out.attribution = AttributeUnfairness(out.large, out.small, shared, true);
  out.small_is_lesser = out.attribution.lesser == out.small.flow_index;
}

const UnfairnessCause* CauseOf(const UnfairnessAttribution& u,
                               const std::string& kind) {
  for (const UnfairnessCause& c : u.causes) {
    if (c.kind == kind) return &c;
  }
  return nullptr;
}

// A 1280 / 1462 ratio oriented as the attribution's lesser / greater.
double Oriented(const PairRun& run, double small_over_large) {
  return run.small_is_lesser ? small_over_large : 1 / small_over_large;
}

// Two bulk flows' facts as a diagnosis fills them, without a path.
CompetitorFacts Facts(uint32_t index, uint32_t packet_bytes,
                      const std::string& controller, double min_rtt_ms,
                      double throughput_bps) {
  CompetitorFacts f;
  f.flow_index = index;
  f.label = absl::StrCat("flow ", index);
  f.packet_bytes = packet_bytes;
  f.controller = controller;
  f.min_rtt_ms = min_rtt_ms;
  f.throughput_bps = throughput_bps;
  f.end_s = 10;
  return f;
}

TEST(CommonIntervalThroughputTest, MeasuresBothFlowsFromTheLaterStart) {
  CompetitorFacts a, b;
  a.start_s = 0;
  a.end_s = 10;
  a.delivered = {{0, 0}, {5, 5'000'000}, {10, 10'000'000}};
  b.start_s = 2;
  b.end_s = 12;
  b.delivered = {{2, 0}, {12, 5'000'000}};
  // [2, 10]: a delivers 8 MB (linear between its samples), b 4 MB.
  EXPECT_DOUBLE_EQ(CommonIntervalThroughput(a, b), 8);
  EXPECT_DOUBLE_EQ(*a.throughput_bps, 8e6);
  EXPECT_DOUBLE_EQ(*b.throughput_bps, 4e6);
}

TEST(AttributeUnfairnessTest, RttCauseFollowsTheControllersExponent) {
  // Mathis et al.: Reno's throughput ∝ 1/RTT at equal loss; CUBIC's
  // ∝ RTT^-1/4 (RFC 9438 section 5.1).
  const UnfairnessAttribution reno =
      AttributeUnfairness(Facts(1, 1448, "reno", 20, 10e6),
                          Facts(2, 1448, "reno", 40, 5e6), std::nullopt, false);
  EXPECT_EQ(reno.lesser, 2u);
  EXPECT_DOUBLE_EQ(reno.share_ratio, 0.5);
  ASSERT_NE(CauseOf(reno, "rtt"), nullptr) << reno.message;
  EXPECT_DOUBLE_EQ(CauseOf(reno, "rtt")->explained_ratio, 0.5);
  EXPECT_EQ(CauseOf(reno, "packet_size"), nullptr);
  const UnfairnessAttribution cubic = AttributeUnfairness(
      Facts(1, 1448, "cubic", 20, 10e6), Facts(2, 1448, "cubic", 40, 9e6),
      std::nullopt, false);
  ASSERT_NE(CauseOf(cubic, "rtt"), nullptr) << cubic.message;
  EXPECT_NEAR(CauseOf(cubic, "rtt")->explained_ratio, std::pow(2, -0.25),
              1e-12);
  // Within kRttTolerance (10 %): the same path delay, no cause.
  const UnfairnessAttribution same =
      AttributeUnfairness(Facts(1, 1448, "reno", 20, 10e6),
                          Facts(2, 1448, "reno", 21, 9e6), std::nullopt, false);
  EXPECT_TRUE(same.causes.empty()) << same.message;
}

TEST(AttributeUnfairnessTest, PacketSizeNamedOnlyWithoutNormalization) {
  CompetitorFacts large = Facts(1, 1462, "reno", 30, 10e6);
  CompetitorFacts small = Facts(2, 1280, "reno", 30, 8e6);
  large.ca_growth_bytes_per_rtt = 1462;
  small.ca_growth_bytes_per_rtt = 1280;
  const UnfairnessAttribution off =
      AttributeUnfairness(large, small, std::nullopt, false);
  ASSERT_NE(CauseOf(off, "packet_size"), nullptr) << off.message;
  EXPECT_NEAR(CauseOf(off, "packet_size")->explained_ratio,
              std::sqrt(1280.0 / 1462), 1e-12);
  EXPECT_NE(off.message.find("got 0.80 of flow 1's throughput"),
            std::string::npos)
      << off.message;
  small.normalize_bytes = 1462;
  small.ca_growth_bytes_per_rtt = 1462;
  EXPECT_EQ(CauseOf(AttributeUnfairness(large, small, std::nullopt, false),
                    "packet_size"),
            nullptr);
}

TEST(AttributeUnfairnessTest, ClaimedNormalizationIsSaidToBeTheClaims) {
  CompetitorFacts large = Facts(1, 1462, "cubic", 30, 10e6);
  CompetitorFacts small = Facts(2, 1280, "cubic", 30, 8e6);
  large.ca_growth_bytes_per_rtt = 1462;
  small.ca_growth_bytes_per_rtt = 1400;
  small.normalization_claimed = true;
  const UnfairnessAttribution u =
      AttributeUnfairness(large, small, std::nullopt, false);
  ASSERT_NE(CauseOf(u, "packet_size"), nullptr) << u.message;
  EXPECT_NE(u.message.find("the claimed controller cubic's setting, not a "
                           "measurement"),
            std::string::npos)
      << u.message;
  small.normalization_claimed = false;
  EXPECT_EQ(AttributeUnfairness(large, small, std::nullopt, false)
                .message.find("claimed controller"),
            std::string::npos);
}

TEST(AttributeUnfairnessTest, StatedQueueIsSaidWhereBothInputsStateIt) {
  CompetitorFacts large = Facts(1, 1448, "cubic", 40, 10e6);
  CompetitorFacts small = Facts(2, 1188, "cubic", 40, 9e6);
  EXPECT_NE(AttributeUnfairness(large, small, std::nullopt, false)
                .message.find("The queue's admission policy is not visible "
                              "in the capture."),
            std::string::npos);
  large.queue = BundleQueue{"pfifo", 70};
  // One input states it: not the pair's queue.
  UnfairnessAttribution u =
      AttributeUnfairness(large, small, std::nullopt, false);
  EXPECT_FALSE(u.queue.has_value());
  small.queue = BundleQueue{"pfifo", 70};
  u = AttributeUnfairness(large, small, std::nullopt, false);
  ASSERT_TRUE(u.queue.has_value());
  EXPECT_NE(u.message.find("The bottleneck's queue (pfifo, 70 packets, as "
                           "the input states it) admits by packet count, "
                           "neutral to packet size."),
            std::string::npos)
      << u.message;
  large.queue = small.queue = BundleQueue{"bfifo", 100000};
  u = AttributeUnfairness(large, small, std::nullopt, false);
  EXPECT_NE(u.message.find("(bfifo, 100000 bytes, as the input states it) "
                           "admits an arrival when its bytes fit, which "
                           "favours small packets (RFC 7141 section "
                           "4.2.1.2)."),
            std::string::npos)
      << u.message;
  // Without simulation, no counterfactual.
  EXPECT_FALSE(u.predicted_ratio_packet_count_admission.has_value());
}

// The shared fitted path admits as the stated queue does: byte-fit only
// when both inputs state the same bfifo.
TEST(SharedFittedPathTest, ByteFitOnlyWhereBothStateABfifo) {
  CompetitorFacts a = Facts(1, 1448, "cubic", 40, 10e6);
  CompetitorFacts b = Facts(2, 1188, "cubic", 40, 9e6);
  FittedPath fa;
  fa.rate_bps = 20'000'000;
  fa.base_rtt_ns = 40'000'000;
  fa.buffer_bytes = 100'000;
  const auto admission = [&] {
    return SharedFittedPath(a, b, fa, fa)->admission;
  };
  EXPECT_EQ(admission(), AdmissionPolicy::kPacketSizeNeutral);
  a.queue = BundleQueue{"bfifo", 100000};
  EXPECT_EQ(admission(), AdmissionPolicy::kPacketSizeNeutral);
  b.queue = BundleQueue{"pfifo", 70};
  EXPECT_EQ(admission(), AdmissionPolicy::kPacketSizeNeutral);
  b.queue = BundleQueue{"bfifo", 100000};
  EXPECT_EQ(admission(), AdmissionPolicy::kByteFit);
  // One flow's fit alone is the shared path, admitting as stated too.
  EXPECT_EQ(SharedFittedPath(a, b, fa, std::nullopt)->admission,
            AdmissionPolicy::kByteFit);
  EXPECT_NE(
      SharedFittedPath(a, b, fa, fa)->Describe().find("(byte-fit admission)"),
      std::string::npos);
}

// Where the large-packet flow got less through a byte-fit queue, the
// admission is a cause of its gap, proven by the counterfactual: Reno
// 1462 and 1280 bytes on 10 Mb/s, 20 ms, a 20-packet bfifo (29,240
// bytes), 20 s, the large flow the lesser as its capture measured. The
// simulation gives the large flow 1.35 of the small one's throughput with
// byte-fit and 1.59 admitting every arrival as a full-size packet (Reno's
// growth in its own packets favours it either way): byte-fit accounts for
// a factor of 0.85 against it.
TEST(AttributeUnfairnessTest, ByteFitIsACauseWhereTheLargeFlowGotLess) {
  CompetitorFacts large = Facts(1, 1462, "reno", 20, 4e6);
  CompetitorFacts small = Facts(2, 1280, "reno", 20, 5e6);
  large.end_s = small.end_s = 20;
  large.queue = small.queue = BundleQueue{"bfifo", 29240};
  FittedPath path;
  path.rate_bps = 10'000'000;
  path.base_rtt_ns = 20'000'000;
  path.buffer_bytes = 29240;
  path.duration_ns = 20'000'000'000;
  path.admission = AdmissionPolicy::kByteFit;
  const UnfairnessAttribution u = AttributeUnfairness(large, small, path, true);
  ASSERT_TRUE(u.predicted_ratio_as_is.has_value()) << u.message;
  ASSERT_TRUE(u.predicted_ratio_packet_count_admission.has_value());
  const UnfairnessCause* admission = CauseOf(u, "admission");
  ASSERT_NE(admission, nullptr) << u.message;
  EXPECT_NEAR(admission->explained_ratio,
              u.predicted_ratio_as_is->mean /
                  u.predicted_ratio_packet_count_admission->mean,
              1e-12);
  EXPECT_LT(admission->explained_ratio, 0.9);
  EXPECT_NE(admission->message.find("admitted 1280-byte packets where "
                                    "1462-byte ones did not fit"),
            std::string::npos)
      << admission->message;
  // Named as a cause, the counterfactual is not said again.
  EXPECT_EQ(u.message.find("the fitted simulation gives 1.59 instead of "
                           "1.35."),
            std::string::npos)
      << u.message;
}

TEST(AttributeUnfairnessTest, NoThroughputGivesNoNumberThatIsNotFinite) {
  const UnfairnessAttribution u =
      AttributeUnfairness(Facts(1, 1448, "reno", 20, 0),
                          Facts(2, 1448, "reno", 20, 0), std::nullopt, false);
  EXPECT_EQ(u.share_ratio, 0);
  EXPECT_EQ(u.message.find("nan"), std::string::npos) << u.message;
  EXPECT_EQ(u.message.find("inf"), std::string::npos) << u.message;
}

// The lab's two flows (MSS 1448 and 1188, CUBIC) through one 20 Mb/s
// pfifo of 70 packets (meta.json): the shared path's buffer is what the
// queue held when it dropped. 70 packets of the flows' mix: 845 and 967
// packets per second (9.79 and 9.19 Mb/s of payload over the common
// interval, this test's throughputs), so 1309 payload bytes on average,
// 91.6 kB. Measured: 85.8 kB (0.94); the flows' joint pipe less the BDP
// gave 86.2 kB.
TEST(SharedFittedPathTest, LabBufferIsWhatThePfifoHeld) {
  const std::string dir = std::string(CCREPLAY_TESTDATA_DIR) +
                          "/lab/two_mss_1448_1188_shared_20mbit_40ms";
  std::vector<DiagnoseRun> runs;
  for (const char* flow : {"0", "1"}) {
    DiagnoseOptions options;
    options.input = dir;
    options.flow = flow;
    options.simulate = false;
    absl::StatusOr<DiagnoseRun> run = DiagnoseInput(options);
    ASSERT_TRUE(run.ok()) << run.status();
    runs.push_back(*std::move(run));
  }
  CompetitorFacts a = runs[0].competitor, b = runs[1].competitor;
  ASSERT_GT(CommonIntervalThroughput(a, b), 0);
  const std::optional<FittedPath> shared = SharedFittedPath(
      a, b, runs[0].diagnosis.fitted_path, runs[1].diagnosis.fitted_path);
  ASSERT_TRUE(shared.has_value());
  const double packets_per_s = *a.throughput_bps / 8 / a.packet_bytes +
                               *b.throughput_bps / 8 / b.packet_bytes;
  const double mean_packet_bytes =
      (*a.throughput_bps + *b.throughput_bps) / 8 / packets_per_s;
  EXPECT_NEAR(shared->buffer_bytes / (70 * mean_packet_bytes), 1, 0.10)
      << shared->Describe();
  // 40 ms of delay line (meta.json delay_ms).
  EXPECT_NEAR(shared->base_rtt_ns * 1e-6, 40, 1) << shared->Describe();
}

// A hold read at the link's rate stays within RFC 1122's 0.5 s: a flow
// that had half of a 2 Mb/s link fitted 490 ms with 40 ms of service at
// its own 1 Mb/s; at 2 Mb/s that would be 490 + 40 x (1 - 1/2) = 510 ms.
TEST(SharedFittedPathTest, HoldReadAtTheLinkRateStaysWithinHalfASecond) {
  CompetitorFacts a, b;
  a.throughput_bps = 1e6;
  b.throughput_bps = 1e6;
  a.end_s = b.end_s = 10;
  FittedPath fa;
  fa.rate_bps = 1'000'000;
  fa.base_rtt_ns = 100'000'000;
  fa.delayed_ack_ns = 490'000'000;
  fa.delayed_ack_service_ns = 40'000'000;
  fa.delayed_ack_measured = true;
  FittedPath fb = fa;
  fb.delayed_ack_ns = 100'000'000;
  std::optional<FittedPath> shared = SharedFittedPath(a, b, fa, fb);
  ASSERT_TRUE(shared.has_value());
  EXPECT_EQ(shared->rate_bps, 2'000'000);
  EXPECT_EQ(shared->delayed_ack_ns, 500'000'000);
  // Below the bound the rescaling is kept: 300 + 20 = 320 ms.
  fa.delayed_ack_ns = 300'000'000;
  shared = SharedFittedPath(a, b, fa, fb);
  ASSERT_TRUE(shared.has_value());
  EXPECT_EQ(shared->delayed_ack_ns, 320'000'000);
}

class UnfairnessTest
    : public ::testing::TestWithParam<std::tuple<std::string, Case>> {};

TEST_P(UnfairnessTest, ShareRatioIsTheSimulatorsAndPacketSizeIsNamed) {
  const auto& [spec, c] = GetParam();
  PairRun off, on;
  RunPair(c, spec, false, off);
  RunPair(c, spec, true, on);
  for (const PairRun* run : {&off, &on}) {
    const UnfairnessAttribution& u = run->attribution;
    SCOPED_TRACE(u.message);
    // Delivered bytes over the common interval against the simulator's
    // bottleneck egress over the run (measured: within 0.002 in all 12).
    EXPECT_NEAR(u.share_ratio, Oriented(*run, run->sim_small_over_large), 0.01);
    // The shared path against the profile's: the base RTT from the
    // minimum RTT less the packet's service time at the link's rate, or
    // the handshake (measured: within 0.1 % on all 12; at each flow's own
    // share of the rate Reno on bdp40 read 98.0 ms), the buffer from the
    // RTT at the loss episodes (measured: 0.91-1.00 of the profile's in
    // all 12).
    absl::StatusOr<PathProfile> profile = FindPathProfile(c.profile);
    ASSERT_TRUE(profile.ok());
    EXPECT_NEAR(run->shared->base_rtt_ns * 1e-3, profile->base_rtt_us,
                0.005 * profile->base_rtt_us);
    EXPECT_NEAR(static_cast<double>(run->shared->buffer_bytes) /
                    profile->buffer_bytes(),
                0.955, 0.055);
    // The receiver's hold, the simulator's 40 ms (SimulationConfig), from
    // the gaps between an ACK sent at once and the timer's next, less the
    // lone segment's service at the link's rate (FlowObserver::AckHoldUs,
    // SharedFittedPath). Measured: 40.0 ms on all 12 (the excess RTT of
    // such ACKs read 25-48 ms; each flow's own fit, at its share of the
    // rate, 35-37 ms on the 1 Mb/s profile).
    EXPECT_TRUE(run->shared->delayed_ack_measured);
    EXPECT_NEAR(run->shared->delayed_ack_ns, 40 * 1e6, 0.5e6);
    ASSERT_TRUE(u.predicted_ratio_as_is.has_value());
    ASSERT_TRUE(u.predicted_ratio_normalized.has_value());
  }
  // Where the growth cannot tell normalization on from off, the claimed
  // controller decides, and the message says so.
  for (const PairRun* run : {&off, &on}) {
    if (run->small.normalization_claimed) {
      EXPECT_NE(run->attribution.message.find("claimed controller"),
                std::string::npos)
          << run->attribution.message;
    }
  }
  // CUBIC's growth per RTT does not tell normalization apart on these
  // paths (PacketSizeNamedExactlyWithoutNormalization below, where the
  // claimed controller decides): asserted for Reno only, whose growth
  // decides against the claim (--cc reno on the normalized flow).
  if (spec != "reno") return;
  EXPECT_FALSE(off.small.normalization_claimed);
  EXPECT_FALSE(on.small.normalization_claimed);
  const UnfairnessCause* size = CauseOf(off.attribution, "packet_size");
  ASSERT_NE(size, nullptr) << off.attribution.message;
  // Reno grows one packet per RTT: sqrt(1280 / 1462) = 0.936 (Mathis).
  EXPECT_NEAR(size->explained_ratio, std::sqrt(1280.0 / 1462), 0.02);
  EXPECT_EQ(CauseOf(on.attribution, "packet_size"), nullptr)
      << on.attribution.message;
}

// Where the captured growth cannot tell normalization on from off (CUBIC's
// replays grow alike on these paths), the claimed controller decides: each
// flow diagnosed with --cc of the controller it ran, the packet-size cause
// is named exactly when normalization is off (Reno's growth decides by
// itself, ShareRatioIsTheSimulatorsAndPacketSizeIsNamed).
TEST_P(UnfairnessTest, PacketSizeNamedExactlyWithoutNormalization) {
  const auto& [spec, c] = GetParam();
  PairRun off, on;
  RunPair(c, spec, false, off, true);
  RunPair(c, spec, true, on, true);
  for (const PairRun* run : {&off, &on}) {
    const UnfairnessAttribution& u = run->attribution;
    SCOPED_TRACE(u.message);
    EXPECT_EQ(CauseOf(u, "packet_size") != nullptr, run == &off);
  }
}

// The simulator's ratio with normalization on, as the prediction is
// made: over PathsWithinUncertainty of the profile's own path (its rate,
// base RTT, buffer and the simulator's receiver: an ACK every 2 segments
// or after 40 ms) with the fit's uncertainty `u`, kPaths paths x kSeeds
// runs, the 1280-byte flow's bytes over the 1462-byte flow's over the
// whole run, the large flow first as in PairConfig (on the profile's path
// alone this gives the simulator's own ratio to the last digit, measured
// at 9595ef4).
RatioOverPaths TruePathRatio(const PathProfile& profile, const Case& c,
                             const std::string& spec, const FitUncertainty& u) {
  FittedPath truth;
  truth.rate_bps = profile.rate_bps;
  truth.base_rtt_ns = profile.base_rtt_us * 1000;
  truth.buffer_bytes = profile.buffer_bytes();
  truth.duration_ns = c.duration_ns;
  truth.delayed_ack_measured = true;
  truth.uncertainty = u;
  SimulatedFlow large, small;
  large.spec = spec;
  large.packet_bytes = kLargeBytes;
  small.spec = spec;
  small.packet_bytes = kSmallBytes;
  small.normalize_bytes = kLargeBytes;
  absl::StatusOr<RatioOverPaths> r = SimulatedThroughputRatioOverPaths(
      PathsWithinUncertainty(truth, kTruePaths), large, small, 0,
      kTrueRunsPerPath);
  if (!r.ok() || !(r->mean > 0) || !(r->low > 0)) return RatioOverPaths{};
  // As small / large.
  return RatioOverPaths{1 / r->mean, 1 / r->high, 1 / r->low, r->paths};
}

// The Done-when's bound: the fitted simulation's normalized prediction
// within 0.03 of the simulator's ratio with normalization on, both as
// averages over the paths the capture cannot tell apart.
//
// Why an average: the share ratio is a rugged function of the path. At
// 9595ef4 (issue 19, unfair3), on the profile's own path, a 1e-4 change of
// the rate moved a 24-seed ratio by 0.03-0.09 with no trend, and so did
// the fitted path's small errors (ACK hold 42 ms against 40, buffer 0.94
// of the profile's); the simulator's single run, or 24 seeds on the one
// path, is one sample of that function, and no fit short of the exact path
// met 0.03 against it (then 6 of 12). Means over 5 rate perturbations of
// 1e-4 of the profile's path and of the fitted path agreed within 0.031.
// So the prediction (reports/unfairness.cc) is the mean over 64 paths the
// capture cannot tell apart from the fitted one, one run each
// (PathsWithinUncertainty, within the fit's own uncertainty, printed
// below), and the reference is the same kind of mean, kTruePaths (1024)
// paths around the profile's own path with the same uncertainty.
//
// Measured at main b5249b0 + the shared fit's hold and base RTT read at
// the link's rate, 2026-12-02 (`nice build/reports/unfairness_tests
// --gtest_filter='*NormalizedPrediction*'`; the off-run predicts from the
// un-normalized export, the on-run from the normalized one), predicted
// (64 paths) against the simulator (1024 paths):
//   reno  DSL        off 0.842 vs 0.846; on 0.844 vs 0.842
//   reno  bdp40      off 0.859 vs 0.884; on 0.865 vs 0.884
//   reno  congested  off 0.915 vs 0.904; on 0.905 vs 0.904
//   cubic DSL        off 0.826 vs 0.847; on 0.843 vs 0.851
//   cubic bdp40      off 0.856 vs 0.845; on 0.857 vs 0.850
//   cubic congested  off 0.913 vs 0.905; on 0.914 vs 0.905
// 12 of 12 within 0.03 (largest 0.025, reno bdp40 off). A single run's
// ratio over the paths has an sd of about 0.10 on every case, so the
// prediction's mean has a standard error of about 0.10 / sqrt(64) =
// 0.013, the reference's 0.10 / sqrt(1024) = 0.003: the bound is 2.3
// standard errors of their difference. With 128 reference paths (0.009)
// reno congested's reference read 0.885 and its off-run missed by 0.030
// on noise alone; with 512 prediction paths every case is within 0.021.
// What had kept reno congested out was a bias, not noise: the receiver's
// 40 ms hold fitted as 25-29 ms (the excess RTT of lone ACKs over full
// ones, sent at different queues) and, once read from the ACK gaps, as
// 35-37 ms at each flow's share of the rate; 512 prediction paths then
// gave 0.848 against 0.904. The runs are seeded, so each figure is
// reproducible; a change of the fit or the simulator moves them within
// those errors. Wall time per case, nice on the shared 2-core machine:
// DSL 33-36 s, bdp40 6 s, congested 3-4 s.
TEST_P(UnfairnessTest, NormalizedPredictionWithinThreeHundredths) {
  const auto& [spec, c] = GetParam();
  absl::StatusOr<PathProfile> profile = FindPathProfile(c.profile);
  ASSERT_TRUE(profile.ok()) << profile.status();
  PairRun off, on;
  RunPair(c, spec, false, off, true);
  RunPair(c, spec, true, on, true);
  for (const PairRun* run : {&off, &on}) {
    const UnfairnessAttribution& u = run->attribution;
    SCOPED_TRACE(u.message);
    ASSERT_TRUE(u.predicted_ratio_normalized.has_value());
    const RatioOverPaths truth =
        TruePathRatio(*profile, c, spec, run->shared->uncertainty);
    ASSERT_GT(truth.mean, 0);
    const PredictedRatio& p = *u.predicted_ratio_normalized;
    printf(
        "%s %s %s: predicted %.3f (%.3f-%.3f) paths %d simulator %.3f "
        "(%.3f-%.3f)"
        " uncertainty rate %.4f rtt %.2f ms queue %.2f ms hold %.2f ms\n",
        spec.c_str(), c.profile.c_str(), run == &off ? "off" : "on", p.mean,
        p.low, p.high, static_cast<int>(p.paths), Oriented(*run, truth.mean),
        Oriented(*run, truth.low), Oriented(*run, truth.high),
        run->shared->uncertainty.rate_fraction,
        run->shared->uncertainty.base_rtt_ns / 1e6,
        run->shared->uncertainty.buffer_delay_ns / 1e6,
        run->shared->uncertainty.delayed_ack_ns / 1e6);
    EXPECT_NEAR(p.mean, Oriented(*run, truth.mean), 0.03);
    // The spread is reported the way round the mean is.
    EXPECT_LE(p.low, p.mean);
    EXPECT_GE(p.high, p.mean);
  }
}

INSTANTIATE_TEST_SUITE_P(
    QuiclyProfiles, UnfairnessTest,
    ::testing::Combine(::testing::Values("reno", "cubic"),
                       ::testing::Values(Case{"DSL", 60 * kS},
                                         Case{"bdp40", 120 * kS},
                                         Case{"congested", 120 * kS})),
    [](const ::testing::TestParamInfo<UnfairnessTest::ParamType>& info) {
      return absl::StrCat(std::get<0>(info.param), "_",
                          std::get<1>(info.param).profile);
    });

}  // namespace
}  // namespace ccreplay
