// quicly:cubic against the vectors of h2o/quicly t/cc.c (the t/cc.c of
// lib/cc-pico.c @ 01aa5e7c, after PRs #678/#686; our stored copy does not
// record its commit): test_cubic_w_est, test_cubic_mtu_normalization,
// test_cubic_fast_convergence, test_cubic_abe. quicly's tests seed the
// state by hand (ssthresh = w_est = cwnd_prior = cwnd, K = 0); here it is
// reached through events: a loss out of slow start sets cwnd = cwnd_prior =
// cwnd / 2, so W_max = cwnd_epoch and K = 0 (lib/cc-pico.c pico_on_lost(),
// "K becomes 0"), and the next ACK starts the epoch. With srtt 0 and all
// ACKs at the epoch start, W_cubic(t) = W_cubic(t + srtt) = W_max.
#include "cc/quicly_cubic.h"

#include <cstdint>

#include "cc/controller_testing.h"
#include "gtest/gtest.h"

namespace ccreplay {
namespace {

using testing::BytesAck;
using testing::FastRetransmit;

constexpr uint32_t kMtu = 1200;

// Loss out of slow start from `iw_packets` MTUs with one byte in flight, so
// the next ACK ends recovery.
QuiclyCubic AfterFirstLoss(uint32_t iw_packets, uint32_t normalize,
                           uint32_t mtu = kMtu, int64_t srtt_us = 0) {
  ControllerOptions options;
  options.mss_bytes = mtu;
  options.initial_window_segments = iw_packets;
  options.normalize_bytes = normalize;
  QuiclyCubic cubic(options);
  if (srtt_us > 0) cubic.OnAck(BytesAck(0, 0, mtu, 0, srtt_us));
  cubic.OnLoss(FastRetransmit(1000, /*in_flight_bytes=*/1));
  return cubic;
}

TEST(QuiclyCubicTest, FirstLossHalvesWithKZero) {
  QuiclyCubic cubic = AfterFirstLoss(100, 0);
  EXPECT_EQ(cubic.cwnd_bytes(), 50u * kMtu);
  EXPECT_EQ(cubic.ssthresh_bytes(), 50u * kMtu);
  // t/cc.c test_cubic_fast_convergence: cwnd_prior == 50 * mtu, no FC.
  EXPECT_EQ(cubic.cwnd_prior_bytes(), 50.0 * kMtu);
  EXPECT_FALSE(cubic.fast_convergence());
  EXPECT_EQ(cubic.w_est_bytes(), 0);
  EXPECT_EQ(cubic.WMaxBytes(), 50.0 * kMtu);  // = cwnd_epoch: K = 0
}

// t/cc.c test_cubic_w_est: "At 10 MTUs, the exposed estimate stays
// unchanged until 10 MTUs have been acknowledged, then grows by exactly one
// MTU." and "The next increase requires the new 11-MTU window to be
// acknowledged." (alpha = 1: W_est starts at cwnd_prior).
TEST(QuiclyCubicTest, WEstGrowsOneMtuPerWindow) {
  QuiclyCubic cubic = AfterFirstLoss(20, 0);
  cubic.OnAck(BytesAck(2000, 10 * kMtu - 1, kMtu, 0));
  EXPECT_EQ(cubic.cwnd_bytes(), 10u * kMtu);
  EXPECT_GT(cubic.w_est_bytes(), 10.0 * kMtu);
  EXPECT_LT(cubic.w_est_bytes(), 11.0 * kMtu);
  cubic.OnAck(BytesAck(2000, 1, kMtu, 0));
  EXPECT_EQ(cubic.cwnd_bytes(), 11u * kMtu);
  EXPECT_EQ(cubic.w_est_bytes(), 11.0 * kMtu);
  cubic.OnAck(BytesAck(2000, 11 * kMtu, kMtu, 0));
  EXPECT_EQ(cubic.cwnd_bytes(), 12u * kMtu);
  EXPECT_EQ(cubic.w_est_bytes(), 12.0 * kMtu);
}

// t/cc.c test_cubic_w_est: "With normalization, one window of ACKs advances
// the estimate by the reference MTU, while the exposed window remains
// quantized in actual-MTU steps."
TEST(QuiclyCubicTest, NormalizedWindowAdvancesWEstByReference) {
  QuiclyCubic cubic = AfterFirstLoss(20, kReferenceMtuBytes);
  cubic.OnAck(BytesAck(2000, 10 * kMtu, kMtu, 0));
  EXPECT_EQ(cubic.w_est_bytes(), 10.0 * kMtu + 1462);
  EXPECT_EQ(cubic.cwnd_bytes(), 11u * kMtu);
}

// t/cc.c test_cubic_mtu_normalization: "In the Reno-friendly region, growth
// uses the reference MTU but CWND is still exposed in actual-MTU steps.
// Five windows of ACKs therefore accumulate six 1200-byte steps
// (floor(5 * 1462 / 1200))." Un-normalized: five steps.
TEST(QuiclyCubicTest, FiveWindowsAccumulateSixSteps) {
  for (const uint32_t normalize : {kReferenceMtuBytes, 0u}) {
    QuiclyCubic cubic = AfterFirstLoss(20, normalize);
    for (int i = 0; i < 5; ++i) {
      cubic.OnAck(BytesAck(2000, cubic.cwnd_bytes(), kMtu, 0));
    }
    EXPECT_EQ(cubic.cwnd_bytes(), (normalize ? 16u : 15u) * kMtu) << normalize;
  }
}

// t/cc.c test_cubic_mtu_normalization: "In the cubic region, normalization
// substitutes the reference MTU in W_cubic": one second into a K = 0 epoch
// cwnd grows by C * 1462 per window acknowledged. quicly's test acks a
// whole window with an ACK that is not cc-limited, so that W_est stays put;
// our ACK's cwnd_limited also drives the clock, so half a window (W_est
// then stays below the next MTU) gives C * ref / 2: 12000 + 292.4 B
// normalized, 12000 + 240 B not (truncated, as quicly_u32_add_saturating).
TEST(QuiclyCubicTest, CubicRegionUsesReferenceMtu) {
  for (const uint32_t normalize : {kReferenceMtuBytes, 0u}) {
    QuiclyCubic cubic = AfterFirstLoss(20, normalize);
    cubic.OnAck(BytesAck(2000, 1, kMtu, 0));  // epoch starts at 2 ms
    ASSERT_EQ(cubic.cwnd_bytes(), 10u * kMtu);
    cubic.OnAck(BytesAck(1002000, 5 * kMtu, kMtu, 0));
    EXPECT_EQ(cubic.cwnd_bytes(), normalize ? 12292u : 12240u) << normalize;
  }
}

// t/cc.c test_cubic_fast_convergence: a congestion event whose BDP estimate
// is below the previous W_max sets fast convergence, with W_max =
// (cwnd_prior + cwnd_epoch) / 2 = 0.85 * cwnd_prior. Here: 40 MTUs -> 20
// (first loss), -> 14 (0.7; no FC: 20 MTUs is not below W_max = 20 MTUs),
// -> 9.8 with FC: (16800 + 11760) / 2 = 14280 = 16800 * 85 / 100.
TEST(QuiclyCubicTest, FastConvergence) {
  QuiclyCubic cubic = AfterFirstLoss(40, 0);
  cubic.OnAck(BytesAck(2000, 1, kMtu, 0));
  cubic.OnLoss(FastRetransmit(3000, 1));
  EXPECT_EQ(cubic.cwnd_bytes(), 16800u);
  EXPECT_FALSE(cubic.fast_convergence());
  EXPECT_EQ(cubic.cwnd_prior_bytes(), 24000);
  cubic.OnAck(BytesAck(4000, 1, kMtu, 0));
  cubic.OnLoss(FastRetransmit(5000, 1));
  EXPECT_EQ(cubic.cwnd_bytes(), 11760u);
  EXPECT_TRUE(cubic.fast_convergence());
  EXPECT_EQ(cubic.cwnd_prior_bytes(), 16800);
  EXPECT_EQ((cubic.cwnd_prior_bytes() + cubic.ssthresh_bytes()) / 2,
            16800 * 85 / 100);
  EXPECT_EQ(cubic.WMaxBytes(), 14280);
  EXPECT_EQ(cubic.w_est_bytes(), 0);
}

// The reduction truncates as quicly's `cc->cwnd *= beta` on a uint32_t:
// 42000 * 0.7 is 29399.999999999996 in binary64 (python3 -c
// 'print(42000*0.7)'), so 100 -> 50 -> 35 MTUs -> 29399 B, not 29400.
TEST(QuiclyCubicTest, ReductionTruncatesLikeQuicly) {
  QuiclyCubic cubic = AfterFirstLoss(100, 0);
  cubic.OnAck(BytesAck(2000, 1, kMtu, 0));
  cubic.OnLoss(FastRetransmit(3000, 1));
  ASSERT_EQ(cubic.cwnd_bytes(), 42000u);
  cubic.OnAck(BytesAck(4000, 1, kMtu, 0));
  cubic.OnLoss(FastRetransmit(5000, 1));
  EXPECT_EQ(cubic.cwnd_bytes(), 29399u);
}

// t/cc.c test_cubic_abe: ECN-CE reduces by 0.85 (QUICLY_BETA_ECN) and "The
// ECN epoch uses alpha_ecn ~= 0.729": W_est = cwnd_epoch + alpha_ecn * mtu /
// cwnd_epoch * mtu after one MTU acknowledged.
TEST(QuiclyCubicTest, AbeBetaAndAlpha) {
  QuiclyCubic cubic = AfterFirstLoss(100, 0);
  AckEvent ce = BytesAck(2000, 1, kMtu, /*in_flight_bytes=*/1);
  ce.packets_ce = 1;
  cubic.OnAck(ce);
  const uint64_t cwnd_epoch = static_cast<uint64_t>(50 * kMtu * 0.85);
  EXPECT_EQ(cubic.cwnd_bytes(), cwnd_epoch);
  EXPECT_EQ(cwnd_epoch, 51000u);
  const double alpha_ecn = (1 + 0.8) * (1 - 0.85) / ((1 - 0.8) * (1 + 0.85));
  EXPECT_NEAR(alpha_ecn, 0.7297, 1e-4);
  EXPECT_DOUBLE_EQ(QuiclyCubic::kAlphaEcn, alpha_ecn);
  cubic.OnAck(BytesAck(3000, kMtu, kMtu, 0));
  const double expected = cwnd_epoch + alpha_ecn * kMtu / cwnd_epoch * kMtu;
  EXPECT_EQ(static_cast<uint64_t>(cubic.w_est_bytes()),
            static_cast<uint64_t>(expected));
}

// PR #686 with 1280-byte packets: per window, W_est grows by 1280 B
// un-normalized, 1280/1462 of a 1462-byte flow's 1462 B; normalized by
// 1462 B, ratio 1.
TEST(QuiclyCubicTest, NormalizationRatioWith1280BytePackets) {
  auto growth = [](uint32_t mtu, uint32_t normalize) {
    QuiclyCubic cubic = AfterFirstLoss(20, normalize, mtu);
    const double start = static_cast<double>(cubic.cwnd_bytes());
    cubic.OnAck(BytesAck(2000, cubic.cwnd_bytes(), mtu, 0));
    return cubic.w_est_bytes() - start;
  };
  const double reference = growth(1462, 0);
  EXPECT_EQ(reference, 1462);
  EXPECT_EQ(growth(1280, 0) / reference, 1280.0 / 1462);
  EXPECT_EQ(growth(1280, kReferenceMtuBytes) / reference, 1.0);
}

// The clock stops on an ACK that is not cwnd-limited and restarts, with K
// recomputed from the cwnd then, at the next one (cubic_set_cc_limited()).
TEST(QuiclyCubicTest, ClockRunsOnlyWhileCwndLimited) {
  QuiclyCubic cubic = AfterFirstLoss(20, 0);
  cubic.OnAck(BytesAck(2000, 1, kMtu, 0));
  cubic.OnAck(BytesAck(3000, kMtu, kMtu, 0, 0, /*cwnd_limited=*/false));
  EXPECT_EQ(cubic.cwnd_bytes(), 10u * kMtu);
  // 10 s later, cwnd-limited again: t restarts at 0, so half a window adds
  // nothing in the cubic region (target = W_cubic(0) = cwnd).
  cubic.OnAck(BytesAck(10003000, 5 * kMtu, kMtu, 0));
  EXPECT_EQ(cubic.cwnd_bytes(), 10u * kMtu);
}

}  // namespace
}  // namespace ccreplay
