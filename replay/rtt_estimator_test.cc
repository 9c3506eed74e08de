#include "replay/rtt_estimator.h"

#include "gtest/gtest.h"

namespace ccreplay {
namespace {

TEST(RttEstimatorTest, Rfc6298Smoothing) {
  RttEstimator rtt(/*min_rto_us=*/0);
  EXPECT_EQ(rtt.rto_us(), 1000000);  // (2.1) before any sample.
  rtt.AddSample(100000);
  EXPECT_EQ(rtt.srtt_us(), 100000);  // (2.2)
  EXPECT_EQ(rtt.rttvar_us(), 50000);
  EXPECT_EQ(rtt.rto_us(), 300000);
  rtt.AddSample(200000);
  // (2.3): RTTVAR = 3/4 * 50000 + 1/4 * 100000; SRTT = 7/8 * 100000 + 1/8 *
  // 200000.
  EXPECT_EQ(rtt.rttvar_us(), 62500);
  EXPECT_EQ(rtt.srtt_us(), 112500);
  EXPECT_EQ(rtt.min_rtt_us(), 100000);
}

TEST(RttEstimatorTest, LinuxMinimumRto) {
  RttEstimator rtt;
  rtt.AddSample(1000);
  EXPECT_EQ(rtt.rto_us(), RttEstimator::kLinuxMinRtoUs);
}

// The handshake's round trip is the first sample (RFC 6298 2.2) but leaves
// the minimum RTT to data samples, and is ignored after one.
TEST(RttEstimatorTest, HandshakeSeed) {
  RttEstimator rtt(/*min_rto_us=*/0);
  rtt.SeedFromHandshake(0);
  EXPECT_FALSE(rtt.has_sample());
  rtt.SeedFromHandshake(100000);
  EXPECT_EQ(rtt.srtt_us(), 100000);
  EXPECT_EQ(rtt.rto_us(), 300000);
  EXPECT_EQ(rtt.min_rtt_us(), 0);
  rtt.AddSample(200000);
  EXPECT_EQ(rtt.srtt_us(), 112500);  // (2.3), as in Rfc6298Smoothing.
  EXPECT_EQ(rtt.min_rtt_us(), 200000);
  rtt.SeedFromHandshake(1000);
  EXPECT_EQ(rtt.srtt_us(), 112500);
}

}  // namespace
}  // namespace ccreplay
