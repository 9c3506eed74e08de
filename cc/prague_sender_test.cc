#include "cc/prague_sender.h"

#include <algorithm>
#include <cstdint>

#include "cc/controller_testing.h"
#include "gtest/gtest.h"

namespace ccreplay {
namespace {

using testing::SegmentAck;

constexpr uint32_t kMss = 1448;
constexpr int64_t kOne = PragueSender::kOneCwnd;

PragueSender MakePrague(PragueVersion version, uint32_t iw, uint32_t transition,
                        RttScaling scaling) {
  PragueOptions options = DefaultPragueOptions(version);
  options.base.initial_window_segments = iw;
  options.transition_rounds = transition;
  options.rtt_scaling = scaling;
  return PragueSender(options);
}

AckEvent Ack(int64_t time_us, uint32_t segments, uint32_t ce_segments,
             uint32_t in_flight_segments, int64_t srtt_us = 400) {
  AckEvent ack = SegmentAck(time_us, segments, kMss,
                            uint64_t{in_flight_segments} * kMss, srtt_us);
  ack.packets_ce = ce_segments;
  return ack;
}

TEST(PragueSenderTest, AiFactorFromTheCodesIntegerArithmetic) {
  // tcp_prague.c v0.5 (L4STeam/l4steam.github.io @ 0125ddd7),
  // prague_ai_ack_increase(), lines 233-258: rtt and T in 128 us units (floor),
  // ai = (rtt^2 << 20 + T^2 / 2) / T^2. By hand / python3:
  //   T=10ms -> 78, srtt 0.4ms -> 3:  (9 << 20 + 3042) // 6084    = 1551
  //   T=10ms, srtt 5.4ms -> 42:       (1764 << 20 + 3042) // 6084 = 304025
  //   T=25ms -> 195, srtt 0.4ms:      (9 << 20 + 19012) // 38025  = 248
  //   T=25ms, srtt 5.4ms:             (1764 << 20 + 19012) // 38025 = 48644
  EXPECT_EQ(PragueSender::ScaledAiAckIncrease(PragueVersion::kV05,
                                              RttScaling::kRate, 10000, 400),
            1551u);
  EXPECT_EQ(PragueSender::ScaledAiAckIncrease(PragueVersion::kV05,
                                              RttScaling::kRate, 10000, 5400),
            304025u);
  EXPECT_EQ(PragueSender::ScaledAiAckIncrease(PragueVersion::kV06,
                                              RttScaling::kRate, 25000, 400),
            248u);
  EXPECT_EQ(PragueSender::ScaledAiAckIncrease(PragueVersion::kV06,
                                              RttScaling::kRate, 25000, 5400),
            48644u);
  // v0.7 compares srtt_us << 3 with the target << 3, no 128 us flooring:
  // (3200^2 << 20 + 200000^2 / 2) // 200000^2 = 268.
  EXPECT_EQ(PragueSender::ScaledAiAckIncrease(PragueVersion::kV07,
                                              RttScaling::kRate, 25000, 400),
            268u);
  // ADDITIVE uses T + srtt: 78 + 3 = 81 units, (9 << 20 + 3280) // 6561.
  EXPECT_EQ(PragueSender::ScaledAiAckIncrease(
                PragueVersion::kV05, RttScaling::kAdditive, 10000, 400),
            1438u);
  // At or above the target the increase is unscaled.
  EXPECT_EQ(PragueSender::ScaledAiAckIncrease(PragueVersion::kV05,
                                              RttScaling::kRate, 10000, 12000),
            uint64_t{kOne});
}

// Growth of the fractional window per RTT in congestion avoidance, after a
// CE cut from IW 100 at srtt = 400 us.
double GrowthPerRtt(RttScaling scaling, int rtts) {
  PragueSender prague = MakePrague(PragueVersion::kV05, 100, 0, scaling);
  int64_t now_us = 0;
  prague.OnAck(Ack(++now_us, 1, 1, 99));
  while (prague.cwnd_cnt() <= -kOne) {
    prague.OnAck(Ack(++now_us, 1, 0, prague.snd_cwnd()));
  }
  const auto window = [&prague] {
    return prague.snd_cwnd() + static_cast<double>(prague.cwnd_cnt()) / kOne;
  };
  const double start = window();
  for (int r = 0; r < rtts; ++r) {
    const uint32_t cwnd = prague.snd_cwnd();
    for (uint32_t i = 0; i < cwnd; ++i) {
      now_us += 400 / cwnd + 1;
      prague.OnAck(Ack(now_us, 1, 0, cwnd));
    }
  }
  return (window() - start) / rtts;
}

TEST(PragueSenderTest, GrowthPerRttIsScaledBySrttOverTargetSquared) {
  const double reno = GrowthPerRtt(RttScaling::kNone, 50);
  const double scaled = GrowthPerRtt(RttScaling::kRate, 3000);
  // Unscaled: one segment per RTT, as Reno.
  EXPECT_NEAR(reno, 1.0, 0.02);
  // Scaled: (floor(400/128) / floor(10000/128))^2 = (3/78)^2 = 1/676 of it;
  // the exact (0.4/10)^2 = 1/625 is 8 % higher because of the flooring.
  EXPECT_NEAR(scaled / reno * 676, 1.0, 0.02);
  EXPECT_NEAR(scaled / reno * 625, 1.0, 0.1);
}

// One CE-marked single-segment ACK right after a slow-start overshoot to
// IW 100, seven unmarked 16-segment ACKs (the CWR round ends at the
// seventh), then a 16-segment ACK that is all CE.
template <typename Check>
void RunOvershootSchedule(PragueSender& prague, Check check_after_first) {
  prague.OnAck(Ack(1, 1, 1, 99));
  check_after_first(prague);
  for (int k = 0; k < 7; ++k) prague.OnAck(Ack(2 + k, 16, 0, 99 - 16 * k));
  ASSERT_EQ(prague.snd_cwnd(), 92u);  // at most one segment per ACK
  ASSERT_EQ(prague.state().phase, Phase::kCongestionAvoidance);
  prague.OnAck(Ack(9, 16, 16, 60));
  ASSERT_EQ(prague.state().phase, Phase::kCwr);
}

// The smallest snd_cwnd over 100 unmarked 16-segment ACKs.
uint32_t MinCwndOverUnmarkedAcks(PragueSender& prague) {
  uint32_t min_cwnd = prague.snd_cwnd();
  for (int i = 0; i < 100; ++i) {
    prague.OnAck(Ack(10 + i, 16, 0, 8));
    min_cwnd = std::min(min_cwnd, prague.snd_cwnd());
  }
  return min_cwnd;
}

TEST(PragueSenderTest, V05BacklogComesFromTheNotYetReducedWindow) {
  PragueSender prague =
      MakePrague(PragueVersion::kV05, 100, 100, RttScaling::kRate);
  RunOvershootSchedule(prague, [](const PragueSender& p) {
    // Cut = round(alpha * snd_cwnd / 2) = 50 segments with alpha = 1, as a
    // backlog; this ACK applies one segment of it.
    EXPECT_EQ(p.snd_cwnd(), 99u);
    EXPECT_EQ(p.cwnd_cnt(), -49 * kOne);
  });
  // python3 (kernel arithmetic): ACKs 2..8 add max(16, (16<<20 + cwnd//2)
  // // cwnd) and apply +ONE each -> cnt = -42816322; the round's EWMA gives
  // alpha = 15 << 16; the second cut, from snd_cwnd 92 not from the ~51
  // the backlog aims at, is (983040 * (92 << 20) + 2^20) >> 21 = 45219840;
  // the ACK applies one segment: -42816322 - 45219840 + 2^20 = -86987586.
  EXPECT_EQ(prague.snd_cwnd(), 91u);
  EXPECT_EQ(prague.cwnd_cnt(), -86987586);
  // Two cuts pending add up to 83 segments of a 91-segment window.
  EXPECT_NEAR(prague.state().backlog_segments, -82.958, 0.001);
  // With no further marks the window walks down one segment per ACK toward
  // the ~8 segments the backlog implies, while each 16-segment ACK adds
  // 16/cwnd of increase: it bottoms out far below the compounded v0.7
  // window of the next test (50.7 segments).
  EXPECT_LT(MinCwndOverUnmarkedAcks(prague), 30u);
}

TEST(PragueSenderTest, V07CompoundsOnTheReducedFractionalWindow) {
  PragueSender prague =
      MakePrague(PragueVersion::kV07, 100, 4, RttScaling::kRate);
  RunOvershootSchedule(prague, [](const PragueSender& p) {
    // alpha starts at 0; the first CE halves frac_cwnd instead:
    // (100 << 20 + 1) >> 1 = 50 << 20; snd_cwnd steps toward it.
    EXPECT_EQ(p.frac_cwnd(), uint64_t{50} << 20);
    EXPECT_EQ(p.snd_cwnd(), 99u);
    EXPECT_DOUBLE_EQ(p.alpha(), 1.0 / 16);  // first EWMA: F = 1, g = 1/16
  });
  // python3: frac += round((16 << 40) / frac) for ACKs 2..8 -> 54734166;
  // alpha = (2^24 - 2^20) >> 4 = 983040 (24 bits); the cut compounds on
  // frac: (983040 * 54734166 + 2^24) >> 25 = 1603540 -> 53130626.
  EXPECT_EQ(prague.frac_cwnd(), 53130626u);
  EXPECT_EQ(prague.snd_cwnd(), 91u);
  // snd_cwnd only walks down to the compounded window (plus increase).
  EXPECT_GE(MinCwndOverUnmarkedAcks(prague), 51u);
}

TEST(PragueSenderTest, CeCutsAreGatedToOncePerTargetWhenRttIndependent) {
  // v0.5 with transition 0 is RTT-independent as soon as it leaves slow
  // start; a second CE 2 ms after the first cut (< T = 9.984 ms) is ignored.
  PragueSender prague =
      MakePrague(PragueVersion::kV05, 100, 0, RttScaling::kRate);
  prague.OnAck(Ack(1000, 1, 1, 99));
  const int64_t backlog = prague.cwnd_cnt();
  for (int k = 0; k < 7; ++k) prague.OnAck(Ack(1100 + k, 16, 0, 99 - 16 * k));
  ASSERT_EQ(prague.state().phase, Phase::kCongestionAvoidance);
  const int64_t before = prague.cwnd_cnt();
  prague.OnAck(Ack(3000, 16, 16, 60));
  EXPECT_EQ(prague.state().phase, Phase::kCwr);
  EXPECT_EQ(prague.cwnd_cnt(), before + kOne);  // only the -1 step applied
  EXPECT_LT(backlog, 0);
}

TEST(PragueSenderTest, RoundsCountOnlyOutsideSlowStart) {
  PragueSender prague =
      MakePrague(PragueVersion::kV06, 10, 500, RttScaling::kRate);
  int64_t now_us = 0;
  for (int r = 0; r < 5; ++r) {
    const uint32_t cwnd = prague.snd_cwnd();
    for (uint32_t i = 0; i < cwnd; ++i) {
      prague.OnAck(Ack(++now_us, 1, 0, cwnd - 1 - i));
    }
  }
  EXPECT_EQ(prague.state().phase, Phase::kSlowStart);
  EXPECT_EQ(prague.round(), 0u);
  EXPECT_EQ(prague.snd_cwnd(), 10u << 5);
}

}  // namespace
}  // namespace ccreplay
