// The two reference experiments in a reduced form (fewer profiles, runs and
// seconds) that still checks the direction of their findings.
#include <cmath>
#include <string>
#include <vector>

#include "cc/registry.h"
#include "gtest/gtest.h"
#include "replay/sim/mtu_experiment.h"
#include "replay/sim/prague_experiment.h"

namespace ccreplay {
namespace {

// The experiment's options for `controller` on the named profiles, 20 runs
// per profile and setting (10 start offsets x 2 flow orders).
MtuExperimentOptions TwentyRuns(const std::string& controller,
                                const std::vector<std::string>& profiles) {
  MtuExperimentOptions options;
  options.controllers = {controller};
  options.profiles.clear();
  for (const std::string& name : profiles)
    options.profiles.push_back(*FindPathProfile(name));
  options.start_offsets = 10;
  return options;
}

// Reno's congestion-avoidance growth is one packet per RTT, so a 1280-byte
// flow adds 1280/1462 = 0.875 of the bytes per RTT that a 1462-byte flow
// does; with the same loss events AIMD shares follow the additive increase
// (Chiu and Jain 1989), so T1280/T1462 < 1. Normalization (1462 bytes of
// growth per RTT for both, quicly PR #686) removes that bias. The runs use
// the experiment's default sender jitter (one bottleneck service time,
// sender_jitter.h); with it, these 4 runs per profile give bdp40
// 0.908 -> 0.951 and LTE 0.868 -> 0.888 (without jitter 0.772 -> 0.972 and
// 0.813 -> 0.972; `ccreplay experiment mtu-normalization --profile
// bdp40,LTE --start_offsets 2 --controllers reno [--sender_jitter off]`):
// the direction asserted here holds either way, the size of the gap does
// not (see docs/experiments.md, experiment 1). These figures are from
// ccreplay's own bottleneck and receiver and the jitter, which the
// experiment no longer uses by default (quicly's are), so the test sets
// them (`--in_service until_last_bit --delivery at_last_bit
// --recovery_acks every_packet_while_hole --sender_jitter service`).
TEST(MtuExperiment, RenoSmallPacketsLoseAndNormalizationNarrowsTheGap) {
  MtuExperimentOptions options;
  options.sender_jitter = {SenderJitterSpec::Kind::kServiceTime, 0};
  options.in_service = InServiceAccounting::kUntilLastBit;
  options.delivery = BottleneckDelivery::kAtLastBit;
  options.recovery_acks = RecoveryAcks::kEveryPacketWhileHole;
  options.controllers = {"reno"};
  options.profiles = {*FindPathProfile("bdp40"), *FindPathProfile("LTE")};
  options.start_offsets = 2;  // 4 runs per profile and setting
  absl::StatusOr<MtuExperimentResult> result = RunMtuExperiment(options);
  ASSERT_TRUE(result.ok()) << result.status();
  ASSERT_EQ(result->rows.size(), 1u);
  const MtuControllerResult& reno = result->rows[0];
  EXPECT_EQ(result->runs, 16);
  for (const MtuProfileResult& profile : reno.profiles) {
    SCOPED_TRACE(profile.name);
    EXPECT_LT(profile.ratio_without, 0.95);
    EXPECT_LT(std::abs(1 - profile.ratio_with),
              std::abs(1 - profile.ratio_without));
    EXPECT_GE(profile.min_measured_periods, 6);
    EXPECT_EQ(profile.capped_runs, 0);
  }
  EXPECT_LT(reno.ratio_without, reno.ratio_with);
  EXPECT_GT(reno.gsd_without, 1.0);
}

// The experiment's defaults (quicly's bottleneck and receiver, no jitter)
// on one small profile: Reno on bdp40 (2 Mbit/s, 100 ms, a 17-packet
// buffer), 20 runs (10 start phases x 2 flow orders). The runs are
// deterministic (no jitter, no random loss); measured with the packet
// delivered at the start of its transmission (quicly's, the default since
// 2026-12-03) with `ccreplay experiment mtu-normalization --controllers
// reno --profile bdp40 --runs 20`: 0.7037 (standard error 0.0231) without
// normalization, 1.1983 (0.0231) with it; bytes ratios 0.6965 and 1.1974.
// The tolerance is two standard errors, which the other models fall
// outside: delivery at the last bit gave 0.7849 -> 1.0471 (commit ca0cb8e),
// and, each with delivery at the last bit too, ours for the packet in
// service 0.8189 -> 0.7452, ours for recovery ACKs 0.9875 -> 0.8463, the
// sender jitter 0.8486 -> 0.9764 (docs/experiments.md).
TEST(MtuExperiment, QuiclyModelRenoOnBdp40) {
  MtuExperimentOptions options = TwentyRuns("reno", {"bdp40"});
  absl::StatusOr<MtuExperimentResult> result = RunMtuExperiment(options);
  ASSERT_TRUE(result.ok()) << result.status();
  EXPECT_EQ(result->runs, 40);
  const MtuProfileResult& bdp40 = result->rows[0].profiles[0];
  EXPECT_NEAR(bdp40.ratio_without, 0.7037, 2 * 0.0231);
  EXPECT_NEAR(bdp40.ratio_with, 1.1983, 2 * 0.0231);
  EXPECT_NEAR(bdp40.stderr_without, 0.0231, 0.01);
  EXPECT_NEAR(bdp40.stderr_with, 0.0231, 0.01);
  EXPECT_NEAR(bdp40.bytes_ratio_without, 0.6965, 2 * 0.0231);
  EXPECT_NEAR(bdp40.bytes_ratio_with, 1.1974, 2 * 0.0231);
  EXPECT_GE(bdp40.min_measured_periods, 6);
  EXPECT_EQ(bdp40.capped_runs, 0);
  // One profile: the geometric mean is its ratio, the GSD 1.
  EXPECT_DOUBLE_EQ(result->rows[0].ratio_without, bdp40.ratio_without);
  EXPECT_DOUBLE_EQ(result->rows[0].bytes_ratio_with, bdp40.bytes_ratio_with);
  EXPECT_DOUBLE_EQ(result->rows[0].gsd_with, 1.0);
}

// quicly's own simulator before PR #686, side by side: h2o/quicly
// t/simulator.c @ b11d3634 (byte-fit tail drop, its CUBIC =
// quicly:cubic-legacy, no normalization), built locally with a patch that
// only adds a per-flow `-m` (never committed), and run per profile as the
// experiment runs (10 start offsets x 2 flow orders, -s on the later flow;
// the window from both flows' third drop cluster until both had seven
// more; bytes from its bottleneck "dequeue" lines):
//   simulator -d 0.1 -q 0.1 -b 125000 -l 900 -c cubic -- -m 1280|1462 \
//     -- -m 1462|1280 -s K*0.01   (bdp20; bdp40: -b 250000 -l 300, every
//                                   window over within 23 s)
// gives T1280/T1462 = 1.041 (standard error 0.052) on bdp20 and 1.080
// (0.042) on bdp40. The experiment in quicly's configuration (packet
// delivered at the start of transmission, the millisecond clocks at both
// ends, byte-fit admission) gives 1.0897 (0.0499) and 1.0139 (0.0417):
// within two standard errors of the difference on both. Delivering at the
// last bit instead gives 0.9919 and 0.8955, the second 3 standard errors
// below quicly's; packet-size-neutral admission 0.72 on bdp20 (the small
// flow loses the residual space).
TEST(MtuExperiment, MatchesQuiclysOwnSimulatorBeforePr686) {
  MtuExperimentOptions options =
      TwentyRuns("quicly:cubic-legacy", {"bdp20", "bdp40"});
  options.admission = AdmissionPolicy::kByteFit;
  options.timer_granularity_ns = 1'000'000;
  options.sender_clock_ns = 1'000'000;
  absl::StatusOr<MtuExperimentResult> result = RunMtuExperiment(options);
  ASSERT_TRUE(result.ok()) << result.status();
  const struct {
    double mean, standard_error;
  } quicly[] = {{1.041, 0.052}, {1.080, 0.042}};
  for (int i = 0; i < 2; ++i) {
    const MtuProfileResult& p = result->rows[0].profiles[i];
    SCOPED_TRACE(p.name);
    EXPECT_NEAR(p.ratio_without, quicly[i].mean,
                2 * std::hypot(p.stderr_without, quicly[i].standard_error));
    // A controller without normalize= runs unchanged in both settings.
    EXPECT_EQ(p.ratio_without, p.ratio_with);
  }
}

// The outcome rests on the two flows' loop timing: 25 us more base RTT
// for the 1280-byte flow (0.025 % of bdp40's 100 ms) moves T1280/T1462
// without normalization from 1.0223 (standard error 0.0497) to 0.9195
// (0.0651), quicly:cubic in quicly's configuration (`ccreplay experiment
// mtu-normalization --controllers quicly:cubic --profile bdp40 --runs 20
// --timer_granularity 1ms --sender_clock 1ms [--small_flow_extra_rtt
// 25us]`). Deterministic runs; the tolerance is two standard errors.
TEST(MtuExperiment, TwentyFiveMicrosecondsOfLoopMoveTheOutcome) {
  MtuExperimentOptions options = TwentyRuns("quicly:cubic", {"bdp40"});
  options.timer_granularity_ns = 1'000'000;
  options.sender_clock_ns = 1'000'000;
  absl::StatusOr<MtuExperimentResult> same = RunMtuExperiment(options);
  options.small_flow_extra_rtt_ns = 25'000;
  absl::StatusOr<MtuExperimentResult> later = RunMtuExperiment(options);
  ASSERT_TRUE(same.ok() && later.ok());
  const MtuProfileResult& a = same->rows[0].profiles[0];
  const MtuProfileResult& b = later->rows[0].profiles[0];
  EXPECT_NEAR(a.ratio_without, 1.0223, 2 * 0.0497);
  EXPECT_NEAR(b.ratio_without, 0.9195, 2 * 0.0651);
  EXPECT_NE(a.ratio_without, b.ratio_without);
}

// quicly's Cuback (quicly:cuback, normalize=1462 by default) under the
// experiment's defaults on bdp40, 20 runs: the setting without
// normalization must run normalize=off, not the profile's default (before
// NormalizationSettingSpec both settings ran the default, normalized).
// Measured with delivery at the start of transmission (the default since
// 2026-12-03) with `ccreplay experiment mtu-normalization --controllers
// quicly:cuback --profile bdp40 --runs 20`: 0.9519 (standard error 0.0260)
// without, 0.9867 (0.0283) with; bytes ratios 0.9490 and 0.9760 (at the
// last bit, commit 64400f8: 0.6960 and 1.1160). Deterministic runs (no
// jitter, the same seeds in both settings), so two settings running the
// same spec give the same ratio to the last bit: they must differ. The
// tolerance of the figures is two standard errors.
TEST(MtuExperiment, QuiclyModelCubackOnBdp40) {
  MtuExperimentOptions options = TwentyRuns("quicly:cuback", {"bdp40"});
  absl::StatusOr<MtuExperimentResult> result = RunMtuExperiment(options);
  ASSERT_TRUE(result.ok()) << result.status();
  EXPECT_EQ(result->runs, 40);
  const MtuProfileResult& bdp40 = result->rows[0].profiles[0];
  EXPECT_NE(bdp40.ratio_without, bdp40.ratio_with);
  EXPECT_NEAR(bdp40.ratio_without, 0.9519, 2 * 0.0260);
  EXPECT_NEAR(bdp40.ratio_with, 0.9867, 2 * 0.0283);
  EXPECT_NEAR(bdp40.bytes_ratio_without, 0.9490, 2 * 0.0260);
  EXPECT_NEAR(bdp40.bytes_ratio_with, 0.9760, 2 * 0.0283);
  EXPECT_GE(bdp40.min_measured_periods, 6);
  EXPECT_EQ(bdp40.capped_runs, 0);
}

// The two settings' specs: normalization set, or explicitly off, whatever
// the profile's default (the quicly profiles default to normalize=1462, so
// leaving the option at its default would normalize "without" too).
TEST(MtuExperiment, NormalizationSettingSpecSetsOffExplicitly) {
  EXPECT_EQ(*NormalizationSettingSpec("quicly:cubic", false, 1462),
            "quicly:cubic,normalize=off");
  EXPECT_EQ(*NormalizationSettingSpec("quicly:cuback", true, 1462),
            "quicly:cuback,normalize=1462");
  EXPECT_EQ(*NormalizationSettingSpec("cubic", false, 1462),
            "cubic:normalize=off");
  EXPECT_EQ(*NormalizationSettingSpec("reno", true, 1300),
            "reno:normalize=1300");
  // A normalize= the spec sets itself is replaced in place.
  EXPECT_EQ(
      *NormalizationSettingSpec("quicly:reno,normalize=1300,iw=4", false, 1462),
      "quicly:reno,normalize=off,iw=4");
  // The "off" spec really builds an unnormalized controller.
  absl::StatusOr<ControllerSpec> off = ControllerSpec::Parse(
      *NormalizationSettingSpec("quicly:cubic", false, 1462));
  ASSERT_TRUE(off.ok()) << off.status();
  EXPECT_EQ(off->Value("normalize"), "off");
  // quicly:cubic-legacy predates PR #686 and has no normalize= option: it
  // runs as given in both settings.
  EXPECT_EQ(*NormalizationSettingSpec("quicly:cubic-legacy", false, 1462),
            "quicly:cubic-legacy");
  EXPECT_EQ(*NormalizationSettingSpec("quicly:cubic-legacy,iw=4", true, 1462),
            "quicly:cubic-legacy,iw=4");
  EXPECT_EQ(NormalizationSettingSpec("vegas", true, 1462).status().code(),
            absl::StatusCode::kInvalidArgument);
}

TEST(MtuExperiment, RejectsUnknownControllers) {
  MtuExperimentOptions options;
  options.controllers = {"vegas"};
  EXPECT_EQ(RunMtuExperiment(options).status().code(),
            absl::StatusCode::kInvalidArgument);
}

// With RTT scaling in force when cwnd collapses (transition = 0 rounds),
// Prague v0.5 regrows at (srtt / 10 ms)^2 ~ 1/625 segment per RTT and the
// 1 Gbit/s link stays mostly idle; without scaling it refills in ~35 RTTs
// (docs/experiments.md, "Experiment 2").
TEST(PragueExperiment, ScalingInForceAtTheDipUnderUtilizes) {
  PragueExperimentOptions options;
  options.profiles = {"prague:v05"};
  options.ack_every = {16};
  options.transition_rounds = 0;
  options.duration_ns = 2'000'000'000;
  absl::StatusOr<PragueExperimentResult> result = RunPragueExperiment(options);
  ASSERT_TRUE(result.ok()) << result.status();
  ASSERT_EQ(result->rows.size(), 2u);
  const PragueRow& scaled = result->rows[0];
  const PragueRow& unscaled = result->rows[1];
  EXPECT_EQ(scaled.profile, "prague:v05,transition=0");
  EXPECT_TRUE(scaled.rtt_scaling);
  EXPECT_FALSE(unscaled.rtt_scaling);
  EXPECT_LT(scaled.utilization, 0.5);
  EXPECT_LE(scaled.min_cwnd_after_ss_segments, 4);
  EXPECT_GT(unscaled.utilization, 0.95);
  EXPECT_GT(unscaled.utilization_second_half, 0.99);
}

// The model's finding for the version defaults (100 rounds before scaling):
// the stale-cwnd backlog still walks cwnd down to 2 segments with thinned
// ACKs, but before the transition, so the unscaled increase refills the
// link and utilization stays near 1 with scaling on.
TEST(PragueExperiment, DefaultTransitionRecoversBeforeScaling) {
  PragueExperimentOptions options;
  options.profiles = {"prague:v05"};
  options.ack_every = {16};
  options.duration_ns = 1'000'000'000;
  absl::StatusOr<PragueExperimentResult> result = RunPragueExperiment(options);
  ASSERT_TRUE(result.ok()) << result.status();
  const PragueRow& scaled = result->rows[0];
  EXPECT_TRUE(scaled.rtt_scaling);
  EXPECT_LE(scaled.min_cwnd_after_ss_segments, 3);
  EXPECT_GT(scaled.utilization_second_half, 0.99);
}

// docs/experiments.md "Experiment 2", 2026-12-01 ablation: with the v0.5
// defaults, a receiver that holds ACKs for 500 us (16 segments per ACK at
// 1 Gbit/s instead of ~5 with a 50 us flush) slows the backlog's walk down,
// the collapse to 2 segments ends after the 100-round transition and the
// regrowth is scaled: 0.317 of the link over 4 s with scaling, 0.990
// without (`ccreplay experiment prague-rtt-scaling --preset gro_flush`).
TEST(PragueExperiment, GroFlushPresetUnderUtilizesOnlyWithScaling) {
  PragueExperimentOptions options = GroFlushPreset();
  options.threads = 1;
  absl::StatusOr<PragueExperimentResult> result = RunPragueExperiment(options);
  ASSERT_TRUE(result.ok()) << result.status();
  ASSERT_EQ(result->rows.size(), 2u);
  const PragueRow& scaled = result->rows[0];
  const PragueRow& unscaled = result->rows[1];
  EXPECT_EQ(scaled.profile, "prague:v05");
  EXPECT_TRUE(scaled.rtt_scaling);
  EXPECT_NEAR(scaled.utilization, 0.317, 0.01);
  EXPECT_LT(scaled.utilization_second_half, 0.4);
  EXPECT_EQ(scaled.min_cwnd_after_ss_segments, 2);
  EXPECT_GT(unscaled.utilization, 0.98);
  EXPECT_GT(unscaled.utilization_second_half, 0.999);
}

}  // namespace
}  // namespace ccreplay
