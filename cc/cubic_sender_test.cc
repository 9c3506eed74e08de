#include "cc/cubic_sender.h"

#include <algorithm>
#include <cmath>
#include <cstdint>

#include "cc/controller_testing.h"
#include "gtest/gtest.h"

namespace ccreplay {
namespace {

using testing::FastRetransmit;
using testing::SegmentAck;

constexpr uint32_t kMss = 1000;

// CUBIC with MSS 1000 and IW `iw` that has just lost at cwnd = iw segments
// and finished recovery at t = 1 ms (an application-limited ACK, so the
// epoch starts with the next ACK).
CubicSender AfterOneLoss(uint32_t iw) {
  ControllerOptions options;
  options.mss_bytes = kMss;
  options.initial_window_segments = iw;
  CubicSender cubic(options);
  cubic.OnLoss(FastRetransmit(0, uint64_t{iw} * kMss));
  AckEvent ack = SegmentAck(1000, iw, kMss, 0, 100000);
  ack.cwnd_limited = false;
  cubic.OnAck(ack);
  return cubic;
}

TEST(CubicSenderTest, LossSetsWmaxAndBeta) {
  CubicSender cubic = AfterOneLoss(100);
  // RFC 9438 section 4.6/4.7: W_max = cwnd = 100 segments (no fast
  // convergence on the first loss), ssthresh = cwnd = 0.7 * FlightSize.
  EXPECT_DOUBLE_EQ(cubic.w_max_bytes(), 100000);
  EXPECT_EQ(cubic.ssthresh_bytes(), 70000u);
  EXPECT_EQ(cubic.cwnd_bytes(), 70000u);
}

TEST(CubicSenderTest, KAndWcubicMatchTheRfcByHand) {
  CubicSender cubic = AfterOneLoss(100);
  cubic.OnAck(SegmentAck(2000, 1, kMss, 70000, 100000));  // epoch starts
  // By hand, RFC 9438 eq. 2 with W_max = 100, cwnd_epoch = 70 segments:
  //   K = cbrt((100 - 70) / 0.4) = cbrt(75) = 4.2171633 s
  // eq. 1: W_cubic(1 s) = 0.4 (1 - 4.2171633)^3 + 100 = 86.680764 segments
  //        W_cubic(1.1 s) = 0.4 (1.1 - 4.2171633)^3 + 100 = 87.884575
  EXPECT_NEAR(cubic.k_seconds(), 4.2171633, 1e-6);
  EXPECT_NEAR(cubic.WCubicBytes(1.0), 86680.764, 1e-3);
  EXPECT_NEAR(cubic.WCubicBytes(1.1), 87884.575, 1e-3);

  // One second into the epoch, srtt 100 ms: concave region, target =
  // W_cubic(t + RTT) and cwnd += (target - cwnd) / cwnd per segment.
  const double before = static_cast<double>(cubic.cwnd_bytes());
  cubic.OnAck(SegmentAck(1002000, 1, kMss, 70000, 100000));
  const double expected = before + (87884.575 - before) * kMss / before;
  EXPECT_NEAR(static_cast<double>(cubic.cwnd_bytes()), expected, 1.0);
}

TEST(CubicSenderTest, RenoFriendlyRegionTakesOverAtSmallWindows) {
  // W_max = 10, cwnd_epoch = 7 segments: K = cbrt(3 / 0.4) = 1.957 s, so
  // the cubic curve is nearly flat for the first tens of ms, while W_est
  // grows by alpha_cubic = 0.9 / 1.7 segment per window. Iterating the RFC's
  // Figure 4 and section 4.2-4.4 by hand (python3, 30 ACKs of 1 segment at
  // 1 ms spacing, srtt 10 ms): W_est = 9104.706 bytes, W_cubic(29 ms) =
  // 7131.37, and cwnd = W_est in whole segments = 9000.
  CubicSender cubic = AfterOneLoss(10);
  for (int n = 0; n < 30; ++n) {
    cubic.OnAck(SegmentAck(2000 + n * 1000, 1, kMss, 7000, 10000));
  }
  EXPECT_NEAR(cubic.w_est_bytes(), 9104.706, 1e-3);
  EXPECT_NEAR(cubic.WCubicBytes(0.029), 7131.372, 1e-3);
  EXPECT_EQ(cubic.cwnd_bytes(), 9000u);
}

TEST(CubicSenderTest, TargetIsClampedToOneAndAHalfCwnd) {
  CubicSender cubic = AfterOneLoss(100);
  cubic.OnAck(SegmentAck(2000, 1, kMss, 70000, 100000));
  // 100 s into the epoch W_cubic(t + RTT) is far above 1.5 cwnd: the target
  // is 1.5 cwnd, so each segment acknowledged adds half a segment.
  const double before = static_cast<double>(cubic.cwnd_bytes());
  cubic.OnAck(SegmentAck(100002000, 1, kMss, 70000, 100000));
  EXPECT_GT(cubic.WCubicBytes(100.1), 1.5 * before);
  EXPECT_NEAR(static_cast<double>(cubic.cwnd_bytes()) - before, 500, 1.0);
}

TEST(CubicSenderTest, FastConvergenceLowersWmax) {
  CubicSender cubic = AfterOneLoss(100);  // W_max 100, cwnd 70 segments
  cubic.OnLoss(FastRetransmit(3000, 70000));
  // Section 4.7: cwnd (70) < W_max (100): W_max = 70 (1 + 0.7) / 2 = 59.5;
  // cwnd = 0.7 * 70 = 49, so the next K = cbrt((59.5 - 49) / 0.4) = 2.9720.
  EXPECT_DOUBLE_EQ(cubic.w_max_bytes(), 59500);
  EXPECT_EQ(cubic.cwnd_bytes(), 49000u);
  AckEvent ack = SegmentAck(4000, 70, kMss, 0, 100000);
  ack.cwnd_limited = false;
  cubic.OnAck(ack);
  cubic.OnAck(SegmentAck(5000, 1, kMss, 49000, 100000));
  EXPECT_NEAR(cubic.k_seconds(), 2.9720, 1e-4);
}

TEST(CubicSenderTest, NormalizationScalesGrowthByReferenceSize) {
  // With MSS 1200 and reference 1462, K and W_cubic use C * 1462 bytes.
  ControllerOptions options;
  options.mss_bytes = 1200;
  options.initial_window_segments = 100;
  options.normalize_bytes = 1462;
  CubicSender cubic(options);
  cubic.OnLoss(FastRetransmit(0, 120000));
  AckEvent ack = SegmentAck(1000, 100, 1200, 0, 100000);
  ack.cwnd_limited = false;
  cubic.OnAck(ack);
  cubic.OnAck(SegmentAck(2000, 1, 1200, 84000, 100000));
  // K = cbrt((120000 - 84000) / (0.4 * 1462)) = cbrt(61.5595) = 3.94850 s.
  EXPECT_NEAR(cubic.k_seconds(), 3.94850, 1e-4);
}

}  // namespace
}  // namespace ccreplay
