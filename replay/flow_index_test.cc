#include "replay/flow_index.h"

#include "gtest/gtest.h"

namespace ccreplay {
namespace {

TEST(RttHistogramTest, MedianWithinBucketPrecision) {
  RttHistogram h;
  EXPECT_FALSE(h.MedianUs().has_value());
  // 1..999 ms: the median is 500 ms; one bucket is 2^(1/8) wide, so its
  // centre is within 4.5 % of any value in it.
  for (int ms = 1; ms < 1000; ++ms) h.Add(ms * 1000);
  ASSERT_TRUE(h.MedianUs().has_value());
  EXPECT_NEAR(*h.MedianUs(), 500'000, 0.045 * 500'000);
  EXPECT_EQ(h.count(), 999u);
}
}  // namespace
}  // namespace ccreplay
