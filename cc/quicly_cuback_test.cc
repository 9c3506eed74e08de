// quicly:cuback against the vectors of h2o/quicly t/cc.c (the t/cc.c of
// lib/cc-pico.c @ 01aa5e7c, after PRs #678/#686; our stored copy does not
// record its commit): test_cuback_reno_bytes_per_mtu_increase,
// test_cuback_cubic_bytes_per_mtu_increase, test_cuback_ack_countdown and
// test_cuback_deferred_bdp_estimate. quicly's cwnd_is() tolerates one byte
// either way (floating-point contraction); so do these where it does.
#include "cc/quicly_cuback.h"

#include <cmath>
#include <cstdint>

#include "cc/controller_testing.h"
#include "cc/quicly_cubic.h"
#include "gtest/gtest.h"

namespace ccreplay {
namespace {

using testing::BytesAck;
using testing::FastRetransmit;

constexpr uint32_t kMtu = 1200;
constexpr double kRef = kReferenceMtuBytes;

uint64_t Interval(const QuiclyCuback::Curve& curve, uint64_t cwnd,
                  uint64_t epoch, double ref) {
  return QuiclyCuback::BytesPerMtuIncrease(curve, cwnd, epoch, kMtu, ref);
}

// test_cuback_reno_bytes_per_mtu_increase: cwnd_epoch 7 MTUs, W_max 10
// MTUs, bandwidth 1e12 B/s (the Reno curve is the cheaper one).
TEST(QuiclyCubackTest, RenoCurveIntervals) {
  const uint64_t epoch = 7 * kMtu, w_max = 10 * kMtu;
  QuiclyCuback::Curve curve;
  curve.cwnd_prior_bytes = w_max;
  curve.bandwidth_bytes_per_s = 1e12;
  const double alpha = QuiclyCubic::kAlphaLoss;
  // "Reno curve, before Wmax: each MTU increase consumes the current CWND
  // divided by the friendly alpha."
  EXPECT_NEAR(Interval(curve, epoch, epoch, kMtu), epoch / alpha, 1);
  EXPECT_NEAR(Interval(curve, epoch + kMtu, epoch, kMtu),
              (epoch + kMtu) / alpha, 1);
  // "Reno curve, at and above Wmax: alpha is one, so each increase
  // consumes the current CWND."
  EXPECT_EQ(Interval(curve, w_max, epoch, kMtu), w_max);
  EXPECT_EQ(Interval(curve, w_max + kMtu, epoch, kMtu), w_max + kMtu);
  // "Normalization scales the ACK thresholds by actual_MTU / reference_MTU
  // without changing the actual-MTU CWND step."
  EXPECT_NEAR(Interval(curve, epoch, epoch, kRef), epoch / alpha * kMtu / kRef,
              1);
  EXPECT_NEAR(Interval(curve, w_max, epoch, kRef), w_max * kMtu / kRef, 1);
}

// check_cuback_cubic_bytes_per_mtu_increase(): with bandwidth = W_max / 2
// B/s (a two-second RTT, the cubic curve the cheaper one), summing the
// intervals from cwnd_epoch reaches W_max after K seconds' worth of bytes
// (relative error < 1e-3), and brackets K/2 and 3K/2 where, by point
// symmetry, the curve is an eighth of the gap below and above W_max.
void CheckCubicCurve(uint32_t epoch_mtus, uint32_t w_max_mtus, double ref) {
  const uint64_t epoch = uint64_t{epoch_mtus} * kMtu;
  const uint64_t w_max = uint64_t{w_max_mtus} * kMtu;
  QuiclyCuback::Curve curve;
  curve.cwnd_prior_bytes = w_max;
  curve.bandwidth_bytes_per_s = w_max / 2.;
  const double k = std::cbrt((w_max - epoch) / (QuiclyCubic::kC * ref));
  const double gap = w_max - epoch;
  const uint64_t before_half =
      static_cast<uint64_t>((w_max - gap / 8) / kMtu) * kMtu;
  const uint64_t before_three_halves =
      static_cast<uint64_t>((w_max + gap / 8) / kMtu) * kMtu;
  double at_before_half = 0, at_after_half = 0, at_w_max = 0;
  double at_before_three_halves = 0, at_after_three_halves = 0;
  double bytes = 0;
  for (uint64_t cwnd = epoch;; cwnd += kMtu) {
    if (cwnd == before_half) at_before_half = bytes;
    if (cwnd == before_half + kMtu) at_after_half = bytes;
    if (cwnd == w_max) at_w_max = bytes;
    if (cwnd == before_three_halves) at_before_three_halves = bytes;
    if (cwnd == before_three_halves + kMtu) {
      at_after_three_halves = bytes;
      break;
    }
    bytes += Interval(curve, cwnd, epoch, ref);
  }
  const double bw = curve.bandwidth_bytes_per_s;
  EXPECT_LT(at_before_half / bw, k / 2);
  EXPECT_GT(at_after_half / bw, k / 2);
  EXPECT_LT(std::fabs(at_w_max / bw - k) / k, 1e-3);
  EXPECT_LT(at_before_three_halves / bw, 3 * k / 2);
  EXPECT_GT(at_after_three_halves / bw, 3 * k / 2);
}

TEST(QuiclyCubackTest, CubicCurveReachesWMaxAfterK) {
  for (const auto& [epoch, w_max] : {std::pair{7u, 10u}, {700u, 1000u}}) {
    CheckCubicCurve(epoch, w_max, kMtu);
    CheckCubicCurve(epoch, w_max, kRef);
  }
}

// test_cuback_ack_countdown, reached through events: 4 MTUs at srtt 100
// ms, a loss out of slow start -> cwnd = cwnd_prior = W_max = 2 MTUs and
// bandwidth = 2400 * 1000 / 100 B/s, as the test seeds it.
QuiclyCuback AtWMaxOfTwoMtus(uint32_t normalize) {
  ControllerOptions options;
  options.mss_bytes = kMtu;
  options.initial_window_segments = 4;
  options.normalize_bytes = normalize;
  QuiclyCuback cuback(options);
  cuback.OnAck(BytesAck(0, 0, kMtu, 0, /*srtt_us=*/100000));
  cuback.OnLoss(FastRetransmit(1000, /*in_flight_bytes=*/1));
  return cuback;
}

TEST(QuiclyCubackTest, AckCountdown) {
  QuiclyCuback cuback = AtWMaxOfTwoMtus(0);
  ASSERT_EQ(cuback.cwnd_bytes(), 2u * kMtu);
  EXPECT_EQ(cuback.curve().cwnd_prior_bytes, 2.0 * kMtu);
  EXPECT_EQ(cuback.curve().bandwidth_bytes_per_s, 2400 * 1000 / 100.);
  // "Above W_max, alpha is one, so moving from 2 to 3 MTUs requires 2 MTUs
  // newly acknowledged after recovery."
  cuback.OnAck(BytesAck(2000, 1, kMtu, 0));
  EXPECT_EQ(cuback.cwnd_bytes(), 2u * kMtu);
  EXPECT_EQ(cuback.bytes_to_mtu_increase(), 2u * kMtu - 1);
  cuback.OnAck(BytesAck(2001, 2 * kMtu - 2, kMtu, 0));
  EXPECT_EQ(cuback.cwnd_bytes(), 2u * kMtu);
  EXPECT_EQ(cuback.bytes_to_mtu_increase(), 1u);
  cuback.OnAck(BytesAck(2002, 1, kMtu, 0));
  EXPECT_EQ(cuback.cwnd_bytes(), 3u * kMtu);
  EXPECT_EQ(cuback.bytes_to_mtu_increase(), 3u * kMtu);
}

// test_cuback_ack_countdown: "The policy-level option selects the
// normalized ACK threshold while retaining actual-MTU CWND steps":
// 2400 * 1200 / 1462 = 1969 (integer), minus the byte acknowledged.
TEST(QuiclyCubackTest, NormalizedAckCountdown) {
  QuiclyCuback cuback = AtWMaxOfTwoMtus(kReferenceMtuBytes);
  cuback.OnAck(BytesAck(2000, 1, kMtu, 0));
  EXPECT_EQ(cuback.cwnd_bytes(), 2u * kMtu);
  EXPECT_EQ(cuback.bytes_to_mtu_increase(), 2400u * 1200 / 1462 - 1);
}

// test_cuback_deferred_bdp_estimate: "An ordinary first loss retains the
// estimated BDP as W_max": cwnd_prior = initcwnd / 2.
TEST(QuiclyCubackTest, FirstLossKeepsHalfAsWMax) {
  ControllerOptions options;
  options.mss_bytes = kMtu;
  QuiclyCuback cuback(options);
  cuback.OnLoss(FastRetransmit(1000, 1));
  EXPECT_EQ(cuback.curve().cwnd_prior_bytes, 10.0 * kMtu / 2);
  EXPECT_EQ(cuback.cwnd_bytes(), 5u * kMtu);
}

// PR #686 with 1280-byte packets on the Reno curve above W_max: growth per
// byte acknowledged is mtu / interval. Un-normalized a 1280-byte flow gains
// 1280 B per cwnd acked (1280/1462 of a 1462-byte flow's 1462 B),
// normalized 1462 B (ratio 1), to the interval's integer truncation.
TEST(QuiclyCubackTest, NormalizationRatioWith1280BytePackets) {
  auto growth_per_window = [](uint32_t mtu, double ref) {
    const uint64_t w_max = 100 * uint64_t{mtu};
    QuiclyCuback::Curve curve;
    curve.cwnd_prior_bytes = static_cast<double>(w_max);
    curve.bandwidth_bytes_per_s = 1e12;
    const uint64_t interval =
        QuiclyCuback::BytesPerMtuIncrease(curve, w_max, w_max, mtu, ref);
    return static_cast<double>(mtu) * w_max / interval;
  };
  const double reference = growth_per_window(1462, 1462);
  EXPECT_DOUBLE_EQ(reference, 1462);
  EXPECT_DOUBLE_EQ(growth_per_window(1280, 1280) / reference, 1280.0 / 1462);
  EXPECT_NEAR(growth_per_window(1280, kRef) / reference, 1.0, 1e-5);
}

}  // namespace
}  // namespace ccreplay
