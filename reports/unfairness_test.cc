// Issue 19's first Done-when: two-flow simulator exports (a 1462-byte and a
// 1280-byte flow of Reno or CUBIC, the small one with and without MTU
// normalization, on three of quicly's path profiles), each flow diagnosed
// from the export as `ccreplay diagnose` does, then attributed: the share
// ratio must be the simulator's own, the packet-size cause named exactly
// when normalization is off, and the fitted simulation's normalized ratio
// that of the simulator's run with normalization on.
#include "reports/unfairness.h"

#include <unistd.h>

#include <algorithm>
#include <memory>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "gtest/gtest.h"
#include "replay/sim/path_profile.h"
#include "replay/sim/pcap_export.h"
#include "replay/sim/simulation.h"
#include "reports/diagnose_session.h"

namespace ccreplay {
namespace {

constexpr int64_t kS = 1'000'000'000;
constexpr uint32_t kLargeBytes = 1462;
constexpr uint32_t kSmallBytes = 1280;
// As many seeds as the fitted simulation runs (reports/unfairness.cc).
constexpr int kRuns = 8;

// The 1280-byte flow's bottleneck egress over the 1462-byte flow's, summed
// over seeds 1..kRuns of `config`.
double SimulatorRatio(SimulationConfig config, int64_t duration_ns) {
  double small = 0, large = 0;
  for (int seed = 1; seed <= kRuns; ++seed) {
    config.seed = seed;
    absl::StatusOr<std::unique_ptr<Simulation>> sim =
        Simulation::Create(config);
    if (!sim.ok()) return 0;
    (*sim)->RunUntil(duration_ns);
    large += (*sim)->flow_stats(0).egress_bytes;
    small += (*sim)->flow_stats(1).egress_bytes;
  }
  return small / large;
}

struct Case {
  std::string profile;
  int64_t duration_ns;
};

// The closed loop as run and as the diagnosis of its export saw it.
struct PairRun {
  double sim_small_over_large = 0;  // bottleneck egress, whole run
  // The same over kRuns seeds (the exported run's and kRuns - 1 more).
  double sim_mean_small_over_large = 0;
  CompetitorFacts large, small;
  UnfairnessAttribution attribution;
  bool small_is_lesser = false;
};

// Runs the 1462-byte flow (flow 0) and the 1280-byte one (flow 1, with
// normalize=1462 when `normalize`) of `spec` on `profile`, diagnoses both
// flows of the export and attributes the gap on their shared fitted path.
void RunPair(const Case& c, const std::string& spec, bool normalize,
             PairRun& out) {
  absl::StatusOr<PathProfile> profile = FindPathProfile(c.profile);
  ASSERT_TRUE(profile.ok()) << profile.status();
  SimulationConfig config;
  config.rate_bps = profile->rate_bps;
  config.base_rtt_ns = profile->base_rtt_us * 1000;
  config.buffer_bytes = profile->buffer_bytes();
  FlowConfig large, small;
  large.cc_spec = spec;
  large.packet_bytes = kLargeBytes;
  small.cc_spec = normalize ? absl::StrCat(spec, ":normalize=1462") : spec;
  small.packet_bytes = kSmallBytes;
  config.flows = {large, small};
  // Floyd and Jacobson's randomization against drop-tail phase effects
  // (replay/sim/sender_jitter.h), as the fitted simulation has.
  config.sender_jitter.kind = SenderJitterSpec::Kind::kServiceTime;
  const std::string path =
      absl::StrCat(::testing::TempDir(), "/ccreplay_unfairness_", getpid(), "_",
                   c.profile, spec, normalize, ".pcap");
  absl::StatusOr<std::unique_ptr<Simulation>> sim =
      SimulateToPcap(config, c.duration_ns, path);
  ASSERT_TRUE(sim.ok()) << sim.status();
  out.sim_small_over_large =
      static_cast<double>((*sim)->flow_stats(1).egress_bytes) /
      (*sim)->flow_stats(0).egress_bytes;
  out.sim_mean_small_over_large = SimulatorRatio(config, c.duration_ns);
  std::vector<DiagnoseRun> runs;
  for (const char* flow : {"0", "1"}) {
    DiagnoseOptions options;
    options.input = path;
    options.flow = flow;
    options.simulate = false;
    options.specs = {spec};  // --cc: the controller both flows ran
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
  std::printf("fitted: %s | %s | shared %s\n",
              runs[0].diagnosis.fitted_path->Describe().c_str(),
              runs[1].diagnosis.fitted_path->Describe().c_str(),
              shared->Describe().c_str());
  std::printf("specs %s norm=%d | %s norm=%d\n", out.large.controller.c_str(),
              out.large.normalize_bytes.value_or(0),
              out.small.controller.c_str(),
              out.small.normalize_bytes.value_or(0));
  out.attribution = AttributeUnfairness(out.large, out.small, shared, true);
  {
    FittedPath truth = *shared;
    truth.rate_bps = config.rate_bps;
    truth.base_rtt_ns = config.base_rtt_ns;
    truth.buffer_bytes = shared->buffer_bytes;
    truth.delayed_ack_ns = 40'000'000;
    truth.duration_ns = c.duration_ns;
    UnfairnessAttribution t =
        AttributeUnfairness(out.large, out.small, truth, true);
    std::printf("TRUTHPATH pred %.4f norm %.4f\n",
                t.predicted_ratio_as_is.value_or(-1),
                t.predicted_ratio_normalized.value_or(-1));
  }
  out.small_is_lesser = out.attribution.lesser == out.small.flow_index;
}

bool HasCause(const UnfairnessAttribution& u, const std::string& kind) {
  return std::any_of(u.causes.begin(), u.causes.end(),
                     [&](const UnfairnessCause& c) { return c.kind == kind; });
}

// The simulator's ratio oriented as the attribution's lesser / greater.
double Oriented(const PairRun& run, double small_over_large) {
  return run.small_is_lesser ? small_over_large : 1 / small_over_large;
}

class UnfairnessTest
    : public ::testing::TestWithParam<std::tuple<std::string, Case>> {};

TEST_P(UnfairnessTest, SharesCausesAndNormalizedPrediction) {
  const auto& [spec, c] = GetParam();
  PairRun off, on;
  RunPair(c, spec, false, off);
  RunPair(c, spec, true, on);
  for (const PairRun* run : {&off, &on}) {
    const UnfairnessAttribution& u = run->attribution;
    SCOPED_TRACE(u.message);
    std::printf(
        "%s %s normalize=%d: sim %.4f share %.4f growth %.0f/%.0f "
        "predicted %.4f normalized %.4f (on-run sim %.4f)\n",
        c.profile.c_str(), spec.c_str(), run == &on, run->sim_small_over_large,
        Oriented(*run, u.share_ratio),
        run->small.ca_growth_bytes_per_rtt.value_or(-1),
        run->large.ca_growth_bytes_per_rtt.value_or(-1),
        u.predicted_ratio_as_is.value_or(-1),
        u.predicted_ratio_normalized.value_or(-1),
        on.sim_mean_small_over_large);
    std::printf("  %s\n", u.message.c_str());
    EXPECT_NEAR(u.share_ratio, Oriented(*run, run->sim_small_over_large), 0.01);
    EXPECT_EQ(HasCause(u, "packet_size"), run == &off);
    ASSERT_TRUE(u.predicted_ratio_normalized.has_value());
    EXPECT_NEAR(*u.predicted_ratio_normalized,
                Oriented(*run, on.sim_mean_small_over_large), 0.03);
  }
}

INSTANTIATE_TEST_SUITE_P(
    QuiclyProfiles, UnfairnessTest,
    ::testing::Combine(::testing::Values("reno", "cubic"),
                       ::testing::Values(Case{"DSL", 60 * kS},
                                         Case{"bdp40", 120 * kS},
                                         Case{"congested", 120 * kS})));

}  // namespace
}  // namespace ccreplay
