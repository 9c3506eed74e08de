#include "reports/rules/rfc_violation.h"

#include <string>

#include "absl/strings/match.h"
#include "gtest/gtest.h"
#include "proto/testing/test_data.h"
#include "reports/rules/rule_test_support.h"

namespace ccreplay {
namespace {

// A real ngtcp2 Reno transfer keeps its rules (as `ccreplay check` finds,
// replay/conformance/conformance_test.cc): no finding, and the method says
// how many ACKs were checked.
TEST(RfcViolationRuleTest, QuietOnARealNgtcp2Qlog) {
  DiagnoseOptions options;
  options.input =
      TestDataPath("quic/ngtcp2_reno_20mbit_pfifo12/server.sqlog.gz");
  options.simulate = false;
  absl::StatusOr<DiagnoseRun> run = DiagnoseInput(options);
  ASSERT_TRUE(run.ok()) << run.status();
  EXPECT_EQ(FindingOf(*run, "rfc_violation"), nullptr);
  EXPECT_TRUE(MethodSays(*run, "rfc_violation: 955 ACKs checked"));
}

// An ngtcp2 CUBIC transfer is claimed as ngtcp2:cubic (from its qlog), so
// CUBIC's rules apply (a 0.7 reduction, not Reno's 0.5) with ngtcp2's
// documented deviations: quiet, as `ccreplay check --cc cubic --stack
// ngtcp2` on the same file finds.
TEST(RfcViolationRuleTest, QuietOnARealNgtcp2CubicQlogClaimedAsItsProfile) {
  DiagnoseOptions options;
  options.input =
      TestDataPath("quic/ngtcp2_cubic_20mbit_pfifo12/server.sqlog.gz");
  options.simulate = false;
  absl::StatusOr<DiagnoseRun> run = DiagnoseInput(options);
  ASSERT_TRUE(run.ok()) << run.status();
  EXPECT_EQ(FindingOf(*run, "rfc_violation"), nullptr);
  EXPECT_TRUE(MethodSays(*run, "rfc_violation: 969 ACKs checked"));
}

// Linux lab bundles with tcp_probe keep their family's rules beyond the
// deviations Linux documents, as `ccreplay check DIR` finds (1,779 and
// 8,582 ACKs checked, 0 violations): diagnose checks the same ACKs once
// each (the sender-configuration fit's trial replays once fed the same
// trace again, doubling the count and finding a violation check did not).
// 1,779 with the tcp_probe lines keyed by snd_una: the line written when
// the last ACK arrived is that ACK's cwnd before it; by time it was due
// before an ACK that never came (1,778).
TEST(RfcViolationRuleTest, QuietOnLinuxBundlesCheckingEachAckOnce) {
  struct Case {
    const char* dir;
    const char* method;
  };
  for (const Case& c : {Case{"lab/k618_cubic_20ms_paced_20mbit_pfifo50",
                             "rfc_violation: 1779 ACKs checked"},
                        Case{"lab/two_mss_1448_1188_shared_20mbit_40ms",
                             "rfc_violation: 8582 ACKs checked"}}) {
    DiagnoseOptions options;
    options.input = TestDataPath(c.dir);
    options.simulate = false;
    absl::StatusOr<DiagnoseRun> run = DiagnoseInput(options);
    ASSERT_TRUE(run.ok()) << run.status();
    EXPECT_EQ(FindingOf(*run, "rfc_violation"), nullptr) << c.dir;
    EXPECT_TRUE(MethodSays(*run, c.method)) << c.dir;
  }
}

// A Linux BBR flow (meta.json names "bbr") is replayed as bbr:linux, and
// BBR follows no RFC's window rules: nothing is checked, so nothing is
// claimed (it was judged by Reno's rules before, and "broke" them twice).
TEST(RfcViolationRuleTest, ABbrFlowIsReplayedAsBbrAndNotJudgedByRenosRules) {
  DiagnoseOptions options;
  options.input = TestDataPath("lab/bbr_20mbit_20ms_pfifo50");
  options.simulate = false;
  absl::StatusOr<DiagnoseRun> run = DiagnoseInput(options);
  ASSERT_TRUE(run.ok()) << run.status();
  EXPECT_EQ(FindingOf(*run, "rfc_violation"), nullptr);
  EXPECT_TRUE(MethodSays(*run,
                         "rfc_violation: not checked (bbr:linux follows no "
                         "RFC's congestion-window rules)"));
  ASSERT_GE(run->diagnosis.result.replay().controllers_size(), 1);
  EXPECT_EQ(run->diagnosis.result.replay().controllers(0).spec(), "bbr:linux");
}

// A violation becomes a warning whose evidence names the rule, the RFC
// section, the report's time range and the two values.
TEST(RfcViolationRuleTest, AViolationIsAWarningWithEvidence) {
  ReplayResult replay;
  replay.start_us = 1'000'000;
  ReplayEvidence evidence;
  evidence.replay = &replay;
  evidence.offset_s = 0.5;
  RuleContext context;
  context.evidence = &evidence;
  context.samples = ReplaySamples(evidence);
  ConformanceResult result;
  result.acks_checked = 100;
  ConformanceViolation v;
  v.rule = std::string(kRuleCongestionAvoidanceIncrease);
  v.rfc_section = "RFC 9002 section 7.3.3";
  v.start_us = 3'000'000;
  v.end_us = 4'000'000;
  v.acks = 40;
  v.expected_bytes = 1800;
  v.seen_bytes = 2400;
  result.violations.push_back(v);
  ConformanceViolation deviation = v;
  deviation.documented_deviation = "documented";
  result.violations.push_back(deviation);
  context.conformance = &result;
  RuleOutput out;
  RfcViolationRule().Check(context, &out);
  ASSERT_EQ(out.findings.size(), 1u);
  const Finding& f = out.findings[0];
  EXPECT_EQ(f.severity, Severity::kWarning);
  // (3 s - 1 s) - 0.5 s on the report's clock.
  EXPECT_DOUBLE_EQ(f.start_s, 1.5);
  EXPECT_DOUBLE_EQ(f.end_s, 2.5);
  ASSERT_EQ(f.evidence.size(), 1u);  // The deviation is not evidence.
  EXPECT_TRUE(absl::StrContains(
      f.evidence[0],
      "congestion_avoidance_increase (RFC 9002 section 7.3.3), 1.500-2.500 "
      "s, 40 ACKs: expected 1800 B, seen 2400 B"))
      << f.evidence[0];
  EXPECT_TRUE(absl::StrContains(f.message, "in 1 place(s) over 100 ACKs"));
}

}  // namespace
}  // namespace ccreplay
