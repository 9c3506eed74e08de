#include "reports/rules/ce_overreaction.h"

#include "absl/strings/str_cat.h"
#include "gtest/gtest.h"
#include "reports/rules/rule_test_support.h"

namespace ccreplay {
namespace {

// 100 Mb/s, 10 ms, CE above 1 ms of sojourn, paced Prague, an ACK every 16
// segments: AccECN with ECT(1), so the three Prague profiles are replayed
// and v0.7 is the reference.
SimulationConfig MarkingPath(const std::string& spec) {
  return PacedAckEvery16Path(spec, 100'000'000, 10 * kMsNs, 1'448'000,
                             1 * kMsNs);
}

TEST(CeOverreactionTest, FiresForPragueV06AgainstV07) {
  SimulatedCapture c;
  SimulateAndDiagnose(MarkingPath("prague:v06"), 10'000 * kMsNs, "v06ce", 0,
                      false, c);
  const proto::Finding* f = FindingOf(c.run, "ce_overreaction");
  ASSERT_NE(f, nullptr);
  // v0.5 and v0.6 share the backlog that over-reacts (their replays fit
  // alike); v0.7 is the reference it is compared with.
  EXPECT_NE(f->message().find("the reference prague:v07"), std::string::npos)
      << f->message();
  // Ground truth: the stretch begins when the simulated v0.6 leaves slow
  // start (the rule compares cwnd after the exit only).
  double exit_s = -1;
  for (const SeriesSample& s : c.sim->flow_series()[0].samples) {
    if (s.phase != Phase::kSlowStart) {
      exit_s = s.time_us * 1e-6;
      break;
    }
  }
  ASSERT_GT(exit_s, 0);
  EXPECT_GE(f->start_s(), exit_s - 0.02);
  EXPECT_LT(f->start_s(), exit_s + 0.1);
  EXPECT_GT(f->end_s() - f->start_s(), 0.5);
  // "For the same N CE marks": the CE packets the simulated receiver fed
  // back (AccECN counts).
  const uint64_t marks = c.sim->flow_stats(0).sender.ce_packets_reported;
  ASSERT_GT(marks, 0u);
  EXPECT_NE(f->message().find(absl::StrCat("For the same ", marks, " CE")),
            std::string::npos)
      << f->message() << " vs " << marks;
}

TEST(CeOverreactionTest, SilentForTheReferenceItself) {
  SimulatedCapture c;
  SimulateAndDiagnose(MarkingPath("prague:v07"), 5'000 * kMsNs, "v07ce", 0,
                      false, c);
  EXPECT_EQ(FindingOf(c.run, "ce_overreaction"), nullptr);
  EXPECT_TRUE(MethodSays(c.run, "ce_overreaction: "));
}

}  // namespace
}  // namespace ccreplay
