#include "reports/decimate.h"

#include <cmath>

#include "gtest/gtest.h"

namespace ccreplay {
namespace {

TEST(DecimateTest, KeepsSpikesAndBoundsThePointCount) {
  // One million points of a slow sine with one spike at t = 0.5.
  std::vector<double> t, y;
  for (int i = 0; i < 1000000; ++i) {
    t.push_back(i * 1e-6);
    y.push_back(i == 500000 ? 100.0 : std::sin(i * 1e-5));
  }
  Decimated d = DecimateMinMax(t, y, 0, 1, 1000);
  EXPECT_LE(d.t.size(), 4000u);  // At most first/min/max/last per column.
  EXPECT_GE(d.t.size(), 1000u);
  double peak = 0;
  for (double v : d.y) peak = std::max(peak, v);
  EXPECT_EQ(peak, 100.0);
  for (size_t i = 1; i < d.t.size(); ++i) EXPECT_LT(d.t[i - 1], d.t[i]);
  // The true minimum of the sine over the range survives too.
  double low = 0;
  for (double v : d.y) low = std::min(low, v);
  EXPECT_NEAR(low, -1.0, 1e-6);
}

TEST(DecimateTest, ShortSeriesPassThroughAndRangeIsApplied) {
  std::vector<double> t = {0, 1, 2, 3}, y = {5, 6, 7, 8};
  Decimated d = DecimateMinMax(t, y, 1, 2, 1000);
  EXPECT_EQ(d.t, (std::vector<double>{1, 2}));
  EXPECT_EQ(d.y, (std::vector<double>{6, 7}));
}

}  // namespace
}  // namespace ccreplay
