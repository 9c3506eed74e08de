// quicly:reno against the vectors of h2o/quicly t/cc.c test_reno() (the
// t/cc.c of lib/cc-pico.c @ 01aa5e7c, after PRs #678/#686; our stored copy
// of t/cc.c does not record its commit). quicly's tests set cc.ssthresh by
// hand; here the state is reached through events: a loss from slow start
// halves cwnd (ssthresh = cwnd), and with one byte in flight at the loss,
// the next ACK ends the recovery period (quicly: largest_acked >=
// recovery_end) and counts all its bytes.
#include "cc/quicly_reno.h"

#include <cstdint>

#include "cc/controller_testing.h"
#include "gtest/gtest.h"

namespace ccreplay {
namespace {

using testing::BytesAck;
using testing::FastRetransmit;

constexpr uint32_t kMtu = 1200;

QuiclyReno Make(uint32_t iw_packets, uint32_t normalize, uint32_t mtu = kMtu) {
  ControllerOptions options;
  options.mss_bytes = mtu;
  options.initial_window_segments = iw_packets;
  options.normalize_bytes = normalize;
  return QuiclyReno(options);
}

// In congestion avoidance at `iw_packets` / 2 MTUs, recovery still open.
QuiclyReno AfterFirstLoss(uint32_t iw_packets, uint32_t normalize,
                          uint32_t mtu = kMtu) {
  QuiclyReno reno = Make(iw_packets, normalize, mtu);
  reno.OnLoss(FastRetransmit(1000, /*in_flight_bytes=*/1));
  return reno;
}

// t/cc.c test_reno: "Reno grows by one MTU for each current-CWND bytes
// acknowledged." initcwnd 100 MTUs = ssthresh.
TEST(QuiclyRenoTest, OneMtuPerCwndAcked) {
  QuiclyReno reno = AfterFirstLoss(200, /*normalize=*/0);
  ASSERT_EQ(reno.cwnd_bytes(), 100u * kMtu);
  ASSERT_EQ(reno.ssthresh_bytes(), 100u * kMtu);
  reno.OnAck(BytesAck(2000, 100 * kMtu - 1, kMtu, 0));
  EXPECT_EQ(reno.cwnd_bytes(), 100u * kMtu);
  EXPECT_EQ(reno.bytes_to_mtu_increase(), 1u);
  reno.OnAck(BytesAck(2001, 1, kMtu, 0));
  EXPECT_EQ(reno.cwnd_bytes(), 101u * kMtu);
}

// Slow start takes one MTU per MTU acknowledged (t/cc.c test_reno:
// "Normalization does not alter slow start"): an ACK of 10^6 MTUs + 17
// bytes from 10 MTUs leaves 10^6 + 10 MTUs and 1200 - 17 = 1183 bytes to
// the next increase, in one ACK as in 10^6 + 1 (the increases of one ACK
// are added at once: an ACK of a capture gap can cover millions;
// replay_fuzzer timed out on one of 1.7 GB in 143-byte steps).
TEST(QuiclyRenoTest, SlowStartIncreasesOfOneAckTakenAtOnce) {
  constexpr uint64_t kMtus = 1000000;
  QuiclyReno one = Make(10, /*normalize=*/0);
  QuiclyReno many = one;
  one.OnAck(BytesAck(1000, kMtus * kMtu + 17, kMtu, 0));
  EXPECT_EQ(one.cwnd_bytes(), (kMtus + 10) * kMtu);
  EXPECT_EQ(one.bytes_to_mtu_increase(), 1183u);
  for (uint64_t i = 0; i < kMtus; ++i)
    many.OnAck(BytesAck(1000, kMtu, kMtu, 0));
  many.OnAck(BytesAck(1000, 17, kMtu, 0));
  EXPECT_EQ(many.cwnd_bytes(), one.cwnd_bytes());
  EXPECT_EQ(many.bytes_to_mtu_increase(), one.bytes_to_mtu_increase());
}

TEST(QuiclyRenoTest, CongestionAvoidanceIncreasesOfOneAckAreBounded) {
  // In congestion avoidance each increase takes cwnd bytes: 2^42 bytes in
  // one ACK (a capture gap, a corrupt ACK) would be about 85,000 increases
  // from 100 MTUs (n^2 * MTU / 2 ~ 2^42). At most kMaxPerAckSteps are
  // taken, the rest not counted, and the next increase is one byte away.
  QuiclyReno reno = AfterFirstLoss(200, /*normalize=*/0);
  ASSERT_EQ(reno.cwnd_bytes(), 100u * kMtu);
  reno.OnAck(BytesAck(2000, uint64_t{1} << 42, kMtu, 0));
  EXPECT_EQ(reno.cwnd_bytes(), (100 + kMaxPerAckSteps) * kMtu);
  EXPECT_EQ(reno.bytes_to_mtu_increase(), 1u);
}

// t/cc.c test_reno: "Packet-size normalization shortens the ACK deficit so
// that actual-MTU CWND steps amortize to the reference MTU per RTT."
// normalized_deficit = 120000 * 1200 / 1462 = 98495 (integer division;
// python3 -c 'print(120000*1200//1462)').
TEST(QuiclyRenoTest, NormalizedDeficit) {
  QuiclyReno reno = AfterFirstLoss(200, kReferenceMtuBytes);
  reno.OnAck(BytesAck(2000, 98495 - 1, kMtu, 0));
  EXPECT_EQ(reno.cwnd_bytes(), 100u * kMtu);
  EXPECT_EQ(reno.bytes_to_mtu_increase(), 1u);
  reno.OnAck(BytesAck(2001, 1, kMtu, 0));
  EXPECT_EQ(reno.cwnd_bytes(), 101u * kMtu);
}

// t/cc.c test_reno: "Normalization does not alter slow start."
TEST(QuiclyRenoTest, NormalizationLeavesSlowStart) {
  QuiclyReno reno = Make(100, kReferenceMtuBytes);
  reno.OnAck(BytesAck(1000, kMtu, kMtu, kMtu));
  EXPECT_EQ(reno.cwnd_bytes(), 101u * kMtu);
}

// t/cc.c test_reno: "Startup uses the shared 0.5 reduction; subsequent loss
// uses the policy beta" (0.5), the ACK counter restarts from the reduced
// cwnd, and "Reno uses the same beta for ECN and packet loss".
TEST(QuiclyRenoTest, LossAndEcnHalve) {
  QuiclyReno reno = AfterFirstLoss(100, 0);
  EXPECT_EQ(reno.cwnd_bytes(), 50u * kMtu);  // initcwnd / 2
  reno.OnAck(BytesAck(2000, 1, kMtu, 0));    // ends recovery
  reno.OnLoss(FastRetransmit(3000, 1));
  EXPECT_EQ(reno.cwnd_bytes(), 25u * kMtu);
  EXPECT_EQ(reno.bytes_to_mtu_increase(), 0u);
  reno.OnAck(BytesAck(4000, kMtu, kMtu, 0));
  EXPECT_EQ(reno.bytes_to_mtu_increase(), 25u * kMtu - kMtu);

  QuiclyReno ecn = AfterFirstLoss(100, 0);
  AckEvent ce = BytesAck(2000, 1, kMtu, 0);
  ce.packets_ce = 1;
  ecn.OnAck(ce);
  EXPECT_EQ(ecn.cwnd_bytes(), 25u * kMtu);
  EXPECT_EQ(ecn.ssthresh_bytes(), 25u * kMtu);
  EXPECT_EQ(ecn.state().phase, Phase::kCwr);
}

// No growth on an ACK that is not cwnd-limited (pico_on_acked: `if
// (!cc_limited) goto Cleanup`), and none inside the recovery period.
TEST(QuiclyRenoTest, NoGrowthWhenNotCwndLimitedOrInRecovery) {
  QuiclyReno reno = Make(10, 0);
  reno.OnAck(BytesAck(1000, 5 * kMtu, kMtu, 0, 0, /*cwnd_limited=*/false));
  EXPECT_EQ(reno.cwnd_bytes(), 10u * kMtu);
  reno.OnLoss(FastRetransmit(2000, 8 * kMtu));
  reno.OnAck(BytesAck(3000, 8 * kMtu - 1, kMtu, 0));  // still in recovery
  EXPECT_EQ(reno.cwnd_bytes(), 5u * kMtu);
  EXPECT_EQ(reno.bytes_to_mtu_increase(), 0u);
}

// Growth in bytes over 100 windows of congestion avoidance (one ACK frame
// per window, of the cwnd at its start).
uint64_t GrowthOver100Windows(uint32_t mtu, uint32_t normalize) {
  QuiclyReno reno = AfterFirstLoss(200, normalize, mtu);
  const uint64_t start = reno.cwnd_bytes();
  for (int w = 0; w < 100; ++w) {
    reno.OnAck(BytesAck(2000 + w, reno.cwnd_bytes(), mtu, 0));
  }
  return reno.cwnd_bytes() - start;
}

// PR #686's point: un-normalized, a 1280-byte flow grows 1280/1462 as fast
// as a 1462-byte flow (exactly one MTU per window); normalized, at ratio 1
// up to the integer intervals and the window growing within each window:
// 113 steps of 1280 = 144640 B, ratio 0.989. Cross-checked with an
// independent Python run of quicly's counter recurrence (interval =
// max(cwnd * mtu // 1462, 1), recomputed after every step):
// 146200 146200 128000 144640 for (1462, off), (1462, on), (1280, off),
// (1280, on).
TEST(QuiclyRenoTest, NormalizationEqualizesGrowthAcrossPacketSizes) {
  const uint64_t reference = GrowthOver100Windows(1462, 0);
  EXPECT_EQ(reference, 100u * 1462);
  EXPECT_EQ(GrowthOver100Windows(1462, kReferenceMtuBytes), reference);
  const uint64_t off = GrowthOver100Windows(1280, 0);
  EXPECT_EQ(off, 100u * 1280);
  EXPECT_DOUBLE_EQ(static_cast<double>(off) / reference, 1280.0 / 1462);
  const uint64_t on = GrowthOver100Windows(1280, kReferenceMtuBytes);
  EXPECT_EQ(on, 113u * 1280);
  EXPECT_NEAR(static_cast<double>(on) / reference, 1.0, 0.011);
}

}  // namespace
}  // namespace ccreplay
