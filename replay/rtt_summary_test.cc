#include "replay/rtt_summary.h"

#include "gtest/gtest.h"

namespace ccreplay {
namespace {

TEST(RttSummaryTest, MedianWithinHalfABucket) {
  RttSummary s;
  EXPECT_EQ(s.median_us(), 0);
  for (int v : {5000, 1000, 3000, 2000, 4000}) s.Add(v);
  EXPECT_EQ(s.count(), 5u);
  EXPECT_EQ(s.min_us(), 1000);
  EXPECT_EQ(s.max_us(), 5000);
  EXPECT_NEAR(s.median_us(), 3000, 3000 * 0.0055);
}

TEST(RttSummaryTest, SamplesOutsideTheFirstOctavesSeen) {
  // The buckets grow downwards and upwards from the first sample's octave.
  RttSummary s;
  for (int v : {3000, 100000, 50, 2900, 60}) s.Add(v);
  EXPECT_EQ(s.min_us(), 50);
  EXPECT_EQ(s.max_us(), 100000);
  EXPECT_NEAR(s.median_us(), 2900, 2900 * 0.0055);
  s.Add(1);
  s.Add(1);
  EXPECT_NEAR(s.median_us(), 60, 60 * 0.0055);
}

}  // namespace
}  // namespace ccreplay
