#include "cc/linux_cubic.h"

#include <cmath>
#include <cstdint>

#include "cc/controller_testing.h"
#include "gtest/gtest.h"

namespace ccreplay {
namespace {

using testing::FastRetransmit;
using testing::SegmentAck;

constexpr uint32_t kMss = 1448;

TEST(LinuxCubicTest, CubeRootMatchesTheKernelsFixedPointResult) {
  // Exact cubes.
  EXPECT_EQ(LinuxCubicRoot(27), 3u);
  EXPECT_EQ(LinuxCubicRoot(1000), 10u);
  EXPECT_EQ(LinuxCubicRoot(uint64_t{1} << 30), 1024u);
  // cube_factor = 2^40 // 410 = 2681735677; for W_max - cwnd = 30 segments
  // the kernel's table + Newton step gives 4316 (python3 re-run of
  // cubic_root()); the true cube root is 4316.97 (error 0.02 %).
  const uint64_t a = uint64_t{2681735677} * 30;
  EXPECT_EQ(LinuxCubicRoot(a), 4316u);
  EXPECT_NEAR(LinuxCubicRoot(a), std::cbrt(static_cast<double>(a)),
              0.002 * 4317);
}

TEST(LinuxCubicTest, LossUsesBeta717AndSetsK) {
  LinuxCubicOptions options;
  options.base.initial_window_segments = 100;
  LinuxCubic cubic(options);
  cubic.OnLoss(FastRetransmit(0, 100 * kMss));
  // ssthresh = max(100 * 717 / 1024, 2) = 70 (integer division).
  EXPECT_EQ(cubic.snd_ssthresh(), 70u);
  EXPECT_EQ(cubic.last_max_cwnd(), 100u);
  AckEvent end = SegmentAck(1000, 100, kMss, 0);
  end.cwnd_limited = false;
  cubic.OnAck(end);
  ASSERT_EQ(cubic.snd_cwnd(), 70u);  // tcp_end_cwnd_reduction()
  cubic.OnAck(SegmentAck(2000, 1, kMss, 70 * kMss));
  // bic_K = cubic_root(cube_factor * (100 - 70)) = 4316/1024 s = 4.215 s,
  // RFC 9438's K = cbrt(30 / 0.4) = 4.217 s with C = 41/1024.
  EXPECT_EQ(cubic.bic_k(), 4316u);
}

TEST(LinuxCubicTest, FastConvergenceUsesBetaScale) {
  LinuxCubicOptions options;
  options.base.initial_window_segments = 100;
  LinuxCubic cubic(options);
  cubic.OnLoss(FastRetransmit(0, 100 * kMss));
  AckEvent end = SegmentAck(1000, 100, kMss, 0);
  end.cwnd_limited = false;
  cubic.OnAck(end);
  cubic.OnLoss(FastRetransmit(2000, 70 * kMss));
  // cwnd 70 < last_max_cwnd 100: 70 * (1024 + 717) / 2048 = 59.
  EXPECT_EQ(cubic.last_max_cwnd(), 59u);
  EXPECT_EQ(cubic.snd_ssthresh(), 49u);  // 70 * 717 / 1024 = 49.01
}

// Slow start from IW 10 with one-segment ACKs `spacing_us` apart, RTT
// samples of 10 ms until cwnd reaches 24, then `later_rtt_us`.
LinuxCubic SlowStartWithRtts(int64_t spacing_us, int64_t later_rtt_us,
                             const LinuxCubicOptions& options = {}) {
  LinuxCubic cubic{options};
  int64_t now_us = 0;
  for (int i = 0; i < 60 && !cubic.hystart_found(); ++i) {
    const int64_t rtt_us = cubic.snd_cwnd() < 24 ? 10000 : later_rtt_us;
    now_us += spacing_us;
    cubic.OnAck(SegmentAck(now_us, 1, kMss, cubic.cwnd_bytes(), rtt_us));
  }
  return cubic;
}

TEST(LinuxCubicTest, HystartDelayHeuristicHasA4msFloor) {
  // ACKs 3 ms apart never form a train (hystart_ack_delta_us = 2000). The
  // delay threshold is delay_min + clamp(delay_min / 8, 4 ms, 16 ms) =
  // 10 + 4 = 14 ms: 16 ms samples exit slow start, 13 ms samples do not
  // (without the 4 ms floor, 10 + 1.25 ms would).
  LinuxCubic exits = SlowStartWithRtts(3000, 16000);
  EXPECT_TRUE(exits.hystart_found());
  EXPECT_EQ(exits.snd_ssthresh(), exits.snd_cwnd());
  EXPECT_EQ(exits.state().phase, Phase::kCongestionAvoidance);

  LinuxCubic stays = SlowStartWithRtts(3000, 13000);
  EXPECT_FALSE(stays.hystart_found());
  EXPECT_EQ(stays.state().phase, Phase::kSlowStart);
}

TEST(LinuxCubicTest, HystartAckTrainExitsAfterHalfTheMinRtt) {
  // ACKs 1 ms apart with 10 ms RTT: the train spans more than
  // (delay_min + ack_delay) / 2 = (10000 + 1000) / 2 us, ack_delay being
  // min(1 ms, 4 * 64 KiB / pacing rate), once cwnd >= 16.
  LinuxCubic cubic = SlowStartWithRtts(1000, 10000);
  EXPECT_TRUE(cubic.hystart_found());
  EXPECT_GE(cubic.snd_cwnd(), 16u);
  EXPECT_EQ(cubic.snd_ssthresh(), cubic.snd_cwnd());
}

TEST(LinuxCubicTest, PacedSocketsNeedATrainOfAFullMinRtt) {
  // hystart_update() halves the ACK-train threshold only for an unpaced
  // socket: a paced one leaves slow start once a train spans delay_min +
  // ack_delay (here 10 ms + min(1 ms, 4 * 1500 B / rate)), not half that.
  LinuxCubicOptions paced;
  paced.paced = true;
  paced.gso_max_size_bytes = 1500;
  const LinuxCubic unpaced_exit = SlowStartWithRtts(1000, 10000);
  const LinuxCubic paced_exit = SlowStartWithRtts(1000, 10000, paced);
  ASSERT_TRUE(paced_exit.hystart_found());
  EXPECT_GT(paced_exit.snd_cwnd(), unpaced_exit.snd_cwnd());
  // One-segment ACKs 1 ms apart: the unpaced threshold (~5.5 ms) is passed
  // within the first 16-segment round, the paced one (~10.1 ms) not before
  // 11 ACKs of a round, so cwnd has grown by at least 5 more segments.
  EXPECT_GE(paced_exit.snd_cwnd(), unpaced_exit.snd_cwnd() + 5);
}

}  // namespace
}  // namespace ccreplay
