#include "replay/divergence.h"

#include <cstdint>
#include <vector>

#include "gtest/gtest.h"

namespace ccreplay {
namespace {

TEST(DivergenceTest, MedianAndP95AreNearestRankWithinHalfABin) {
  DivergenceTracker tracker;
  // Errors 1 %, 2 %, ..., 100 % against a 10000-byte captured cwnd.
  for (int i = 1; i <= 100; ++i) {
    tracker.Add(i * 1000, 10000 + 100 * i, 10000, Phase::kCongestionAvoidance,
                1000);
  }
  const DivergenceSummary s = tracker.Summary();
  EXPECT_EQ(s.samples, 100u);
  // python3 -c "import math;e=list(range(1,101));print(e[math.ceil(.5*100)-1],
  //   e[math.ceil(.95*100)-1])"  -> 50 95
  EXPECT_NEAR(*s.median_abs_err_pct, 50, 0.05);
  EXPECT_NEAR(*s.p95_abs_err_pct, 95, 0.05);
  EXPECT_NEAR(*s.median_by_phase_pct[1], 50, 0.05);
  EXPECT_NEAR(*s.p95_by_phase_pct[1], 95, 0.05);
  EXPECT_FALSE(s.median_by_phase_pct[0].has_value());
  EXPECT_FALSE(s.p95_by_phase_pct[0].has_value());
  EXPECT_FALSE(s.median_by_phase_pct[2].has_value());
}

TEST(DivergenceTest, QuantilesAcrossBlocksAndTheOverflowBin) {
  DivergenceTracker tracker;
  // Errors 5 %, 10 %, ..., 90 % (each in its own block of 100 bins), then
  // 1500 % and 2000 %, past the histogram's 1000 % (its overflow bin).
  std::vector<uint64_t> models;
  for (int i = 1; i <= 18; ++i) models.push_back(10000 + 500 * i);
  models.push_back(160000);
  models.push_back(210000);
  for (size_t i = 0; i < models.size(); ++i) {
    tracker.Add(static_cast<int64_t>(i), models[i], 10000, Phase::kSlowStart,
                1000);
  }
  const DivergenceSummary s = tracker.Summary();
  // python3 -c "import math;e=[5*i for i in range(1,19)]+[1500,2000];
  //   print(e[math.ceil(.5*20)-1], e[math.ceil(.95*20)-1])"  -> 50 1500
  EXPECT_NEAR(*s.median_abs_err_pct, 50, 0.05);
  // The 19th falls in the overflow bin, which reports the largest error.
  EXPECT_DOUBLE_EQ(*s.p95_abs_err_pct, 2000);
  EXPECT_NEAR(*s.median_by_phase_pct[0], 50, 0.05);
}

TEST(DivergenceTest, PhasesGroupRecoveryWithCwr) {
  DivergenceTracker tracker;
  tracker.Add(0, 110, 100, Phase::kSlowStart, 1000);
  tracker.Add(1, 80, 100, Phase::kRecovery, 1000);
  tracker.Add(2, 70, 100, Phase::kCwr, 1000);
  const DivergenceSummary s = tracker.Summary();
  EXPECT_NEAR(*s.median_by_phase_pct[0], 10, 0.05);
  EXPECT_NEAR(*s.median_by_phase_pct[2], 20, 0.05);  // Ranks 20, 30 -> 20.
  EXPECT_NEAR(*s.p95_by_phase_pct[2], 30, 0.05);     // ceil(.95*2) = 2: 30.
}

TEST(DivergenceTest, FirstDivergenceNeedsALastingExcursion) {
  DivergenceOptions options;  // 25 % band, 4 RTTs, at least 50 ms.
  DivergenceTracker tracker(options);
  const int64_t srtt_us = 20'000;  // 4 RTTs = 80 ms.
  // Out for 60 ms, back in: not a divergence.
  for (int64_t t = 0; t <= 60'000; t += 10'000) {
    tracker.Add(t, 200, 100, Phase::kCongestionAvoidance, srtt_us);
  }
  tracker.Add(70'000, 100, 100, Phase::kCongestionAvoidance, srtt_us);
  EXPECT_FALSE(tracker.Summary().first_divergence_us.has_value());
  // Out from 100 ms to 190 ms (> 80 ms): diverged at 100 ms.
  for (int64_t t = 100'000; t <= 190'000; t += 10'000) {
    tracker.Add(t, 50, 100, Phase::kCongestionAvoidance, srtt_us);
  }
  ASSERT_TRUE(tracker.Summary().first_divergence_us.has_value());
  EXPECT_EQ(*tracker.Summary().first_divergence_us, 100'000);
}

// Each run of samples where the model differs from the captured cwnd
// counts once, however long or far: equal, two off, equal, one off, equal.
TEST(DivergenceTest, PartingRunsCountEachTimeTheModelParts) {
  DivergenceTracker tracker;
  const uint64_t models[] = {14480, 15928, 17376, 14480, 13032, 14480};
  for (size_t i = 0; i < 6; ++i) {
    tracker.Add(static_cast<int64_t>(i), models[i], 14480,
                Phase::kCongestionAvoidance, 1000);
  }
  EXPECT_EQ(tracker.Summary().parting_runs, 2u);
}

TEST(DivergenceTest, NoSamplesGiveNulls) {
  DivergenceTracker tracker;
  tracker.Add(0, 100, 0, Phase::kSlowStart, 0);  // Captured 0: skipped.
  const DivergenceSummary s = tracker.Summary();
  EXPECT_EQ(s.samples, 0u);
  EXPECT_FALSE(s.median_abs_err_pct.has_value());
  EXPECT_FALSE(s.p95_abs_err_pct.has_value());
}

}  // namespace
}  // namespace ccreplay
