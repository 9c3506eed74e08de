#include "reports/percentile.h"

#include <cstdint>
#include <vector>

#include "gtest/gtest.h"

namespace ccreplay {
namespace {

// Expected values by hand from numpy.percentile's "higher" method: sort, take
// index ceil(q * (n - 1)). Sorted {15, 20, 35, 40, 50}, n - 1 = 4.
TEST(PercentileTest, OddCountPicksTheOrderStatisticAtOrAboveTheIndex) {
  const std::vector<double> v = {40, 15, 50, 35, 20};
  EXPECT_EQ(Percentile(v, 0.0), 15);
  EXPECT_EQ(Percentile(v, 0.05), 20);  // index 0.2 -> 1
  EXPECT_EQ(Percentile(v, 0.3), 35);   // index 1.2 -> 2
  EXPECT_EQ(Percentile(v, 0.5), 35);   // index 2
  EXPECT_EQ(Percentile(v, 0.95), 50);  // index 3.8 -> 4
  EXPECT_EQ(Percentile(v, 1.0), 50);
  EXPECT_EQ(Median(v), 35);
}

// Sorted {1, 1, 2, 3, 4, 5, 6, 9}, n - 1 = 7. Linear interpolation would give
// a median of 3.5 and the nearest rank ceil(q * n) 3; this definition gives 4.
TEST(PercentileTest, EvenCountTakesTheUpperMiddle) {
  const std::vector<double> v = {3, 1, 4, 1, 5, 9, 2, 6};
  EXPECT_EQ(Median(v), 4);
  EXPECT_EQ(Percentile(v, 0.25), 2);  // index 1.75 -> 2
  EXPECT_EQ(Percentile(v, 0.75), 6);  // index 5.25 -> 6
  EXPECT_EQ(Percentile(v, 0.95), 9);  // index 6.65 -> 7
  const std::vector<int64_t> pair = {7, -5};
  EXPECT_EQ(Median(pair), 7);
}

TEST(PercentileTest, IntegerIndexIsNotRoundedUpByFloatingPointError) {
  std::vector<int> v(101);
  for (int i = 0; i <= 100; ++i) v[i] = 100 - i;  // Sorted: 0..100.
  EXPECT_EQ(Percentile(v, 0.07), 7);  // 0.07 * 100 is 7.000000000000001.
  EXPECT_EQ(Percentile(v, 0.5), 50);
  EXPECT_EQ(Percentile(v, 0.99), 99);  // Index 99 exactly.
}

TEST(PercentileTest, EmptyIsZeroAndOutOfRangeQIsClamped) {
  EXPECT_EQ(Median(std::vector<double>{}), 0);
  const std::vector<double> v = {2, 1};
  EXPECT_EQ(Percentile(v, -1), 1);
  EXPECT_EQ(Percentile(v, 2), 2);
}

}  // namespace
}  // namespace ccreplay
