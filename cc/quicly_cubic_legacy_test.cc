// quicly:cubic-legacy: quicly's pre-#678 CUBIC (h2o/quicly lib/cc-cubic.c @
// b11d3634). quicly's t/cc.c has no vector for it beyond its name
// (test_cubic_legacy_name), so the numbers below come from lib/cc-cubic.c's
// formulas evaluated independently in Python (commands beside them).
#include "cc/quicly_cubic_legacy.h"

#include <cmath>
#include <cstdint>

#include "cc/controller_testing.h"
#include "gtest/gtest.h"

namespace ccreplay {
namespace {

using testing::BytesAck;
using testing::FastRetransmit;

constexpr uint32_t kMtu = 1200;

// 10 MTUs, then a loss at 1 ms with one byte in flight: W_max = 12000,
// cwnd = 6000, t counts from the loss.
QuiclyCubicLegacy AfterFirstLoss() {
  ControllerOptions options;
  options.mss_bytes = kMtu;
  QuiclyCubicLegacy cubic(options);
  cubic.OnLoss(FastRetransmit(1000, /*in_flight_bytes=*/1));
  return cubic;
}

// cubic_on_lost(): W_max = cwnd at the loss, K = cbrt(W_max / mtu * 0.3 /
// 0.4) = cbrt(7.5), cwnd halved leaving slow start.
TEST(QuiclyCubicLegacyTest, FirstLoss) {
  QuiclyCubicLegacy cubic = AfterFirstLoss();
  EXPECT_EQ(cubic.cwnd_bytes(), 6000u);
  EXPECT_EQ(cubic.ssthresh_bytes(), 6000u);
  EXPECT_EQ(cubic.w_max_bytes(), 12000u);
  EXPECT_DOUBLE_EQ(cubic.k_seconds(), std::cbrt(7.5));
}

// TCP-friendly region, t = 1 s, srtt 100 ms: W_cubic = floor(0.4 (1 - K)^3
// 1200 + 12000) = 11578 < W_est = floor(12000 * 0.7 + 0.9/1.7 * 10 * 1200) =
// 14752, so cwnd = 14752 (python3 -c 'import math; K=math.cbrt(7.5);
// print(math.floor(0.4*(1-K)**3*1200+12000),
// math.floor(12000*0.7+0.9/1.7*10*1200))').
TEST(QuiclyCubicLegacyTest, FriendlyRegionJumpsToWEst) {
  QuiclyCubicLegacy cubic = AfterFirstLoss();
  cubic.OnAck(BytesAck(1001000, 1, kMtu, 0, /*srtt_us=*/100000));
  EXPECT_EQ(cubic.cwnd_bytes(), 14752u);
}

// CUBIC region, t = 1 s, srtt 10 s: W_est = 8463 < W_cubic = 11578; one
// ACK adds (W_cubic(11) / cwnd - 1) * mtu = (366908 / 6000 - 1) * 1200 =
// 72181 B, per ACK and without RFC 9438's 1.5x clamp (python3 as above).
TEST(QuiclyCubicLegacyTest, CubicRegionStepsPerAck) {
  QuiclyCubicLegacy cubic = AfterFirstLoss();
  cubic.OnAck(BytesAck(1001000, 1, kMtu, 0, /*srtt_us=*/10000000));
  EXPECT_EQ(cubic.cwnd_bytes(), 6000u + 72181);
}

// RFC 8312 section 4.6 as lib/cc-cubic.c does it: a loss below the last
// W_max sets W_max = uint32(cwnd * (1 + 0.7) / 2) = 5100, K = cbrt(5100 /
// 1200 * 0.75); the reduction is 0.7 after slow start.
TEST(QuiclyCubicLegacyTest, FastConvergence) {
  QuiclyCubicLegacy cubic = AfterFirstLoss();
  cubic.OnAck(BytesAck(2000, 1, kMtu, 0));  // ends recovery; no srtt yet
  ASSERT_EQ(cubic.cwnd_bytes(), 6000u);
  cubic.OnLoss(FastRetransmit(3000, 1));
  EXPECT_EQ(cubic.cwnd_bytes(), 4200u);
  EXPECT_EQ(cubic.w_max_bytes(), 5100u);
  EXPECT_DOUBLE_EQ(cubic.k_seconds(), std::cbrt(5100.0 / 1200 * (0.3 / 0.4)));
}

// Before #678 quicly treated ECN-CE as a loss (beta 0.7, no ABE), and slow
// start grew by the bytes acknowledged whether cwnd-limited or not ("TODO:
// respect cc_limited").
TEST(QuiclyCubicLegacyTest, CeIsALossAndSlowStartIgnoresCwndLimited) {
  ControllerOptions options;
  options.mss_bytes = kMtu;
  QuiclyCubicLegacy cubic(options);
  cubic.OnAck(BytesAck(1000, 5000, kMtu, 0, 0, /*cwnd_limited=*/false));
  EXPECT_EQ(cubic.cwnd_bytes(), 17000u);
  QuiclyCubicLegacy ce = AfterFirstLoss();
  AckEvent ack = BytesAck(2000, 1, kMtu, 0);
  ack.packets_ce = 1;
  ce.OnAck(ack);
  EXPECT_EQ(ce.cwnd_bytes(), 4200u);
}

// cubic_on_sent(): a packet sent with nothing else in flight shifts the
// epoch by the time since the previous send, so the friendly-region vector
// above holds 1 s after the loss plus a 5 s idle gap.
TEST(QuiclyCubicLegacyTest, IdleGapShiftsTheEpoch) {
  QuiclyCubicLegacy cubic = AfterFirstLoss();
  PacketSentEvent sent;
  sent.time_us = 500000;
  sent.bytes = kMtu;
  sent.bytes_in_flight = 2 * kMtu;
  cubic.OnPacketSent(sent);
  sent.time_us = 5500000;
  sent.bytes_in_flight = kMtu;  // alone in flight: 5 s idle
  cubic.OnPacketSent(sent);
  cubic.OnAck(BytesAck(6001000, 1, kMtu, 0, /*srtt_us=*/100000));
  EXPECT_EQ(cubic.cwnd_bytes(), 14752u);
}

}  // namespace
}  // namespace ccreplay
