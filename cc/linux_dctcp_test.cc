#include "cc/linux_dctcp.h"

#include <cstdint>

#include "cc/controller_testing.h"
#include "gtest/gtest.h"

namespace ccreplay {
namespace {

using testing::FastRetransmit;
using testing::SegmentAck;

constexpr uint32_t kMss = 1448;

TEST(LinuxDctcpTest, AlphaConvergesToTheMarkingFraction) {
  // F = 1/4: every fourth packet CE-marked, windows of 20 packets. The
  // kernel recurrence alpha = alpha - (alpha >> 4) + (5 << 6) / 20, from
  // 960 after the first one-packet window (python3): 628 after 10 windows,
  // 316 after 40, then the fixed point 271 (alpha >> 4 == 16) = 0.2646.
  // The EWMA g = 1/16 implies ln(704 / 20.5) / ln(16/15) = 55 windows to
  // come within 2 % of F; the floors make it 63.
  LinuxDctcp dctcp{ControllerOptions{}};
  dctcp.OnAck(SegmentAck(1, 1, kMss, 20 * kMss));
  EXPECT_EQ(dctcp.alpha(), 960u);
  int64_t now_us = 1;
  for (int window = 1; window <= 70; ++window) {
    for (int i = 0; i < 20; ++i) {
      AckEvent ack = SegmentAck(++now_us, 1, kMss, 20 * kMss);
      ack.packets_ce = i % 4 == 3 ? 1 : 0;
      dctcp.OnAck(ack);
    }
    if (window == 10) {
      EXPECT_EQ(dctcp.alpha(), 628u);
    }
    if (window == 40) {
      EXPECT_EQ(dctcp.alpha(), 316u);
    }
  }
  EXPECT_EQ(dctcp.alpha(), 271u);
  EXPECT_NEAR(dctcp.state().alpha, 0.25, 0.02);
}

TEST(LinuxDctcpTest, EceCutsCwndByAlphaOverTwo) {
  ControllerOptions options;
  options.initial_window_segments = 100;
  LinuxDctcp dctcp(options);
  dctcp.OnAck(SegmentAck(1, 1, kMss, 99 * kMss));  // alpha 1024 -> 960
  AckEvent ack = SegmentAck(2, 1, kMss, 99 * kMss);
  ack.ece = true;
  dctcp.OnAck(ack);
  // dctcp_ssthresh(): 101 - (101 * 960 >> 11) = 101 - 47 = 54, i.e.
  // cwnd (1 - alpha/2) with alpha = 0.9375 (cwnd 101 after slow start).
  EXPECT_EQ(dctcp.state().phase, Phase::kCwr);
  EXPECT_EQ(dctcp.snd_ssthresh(), 54u);
}

TEST(LinuxDctcpTest, LossHalvesWhateverAlpha) {
  ControllerOptions options;
  options.initial_window_segments = 100;
  LinuxDctcp dctcp(options);
  dctcp.OnLoss(testing::FastRetransmit(1, 100 * kMss));
  EXPECT_EQ(dctcp.snd_ssthresh(), 50u);  // dctcp_react_to_loss()
}

TEST(LinuxDctcpTest, NoIncreaseDuringCwr) {
  ControllerOptions options;
  options.initial_window_segments = 100;
  LinuxDctcp dctcp(options);
  AckEvent ack = SegmentAck(1, 1, kMss, 99 * kMss);
  ack.ece = true;
  dctcp.OnAck(ack);
  const uint32_t cwnd = dctcp.snd_cwnd();
  for (int i = 0; i < 20; ++i)
    dctcp.OnAck(SegmentAck(2 + i, 1, kMss, 99 * kMss));
  EXPECT_LE(dctcp.snd_cwnd(), cwnd);
}

TEST(LinuxDctcpTest, ADsackOfEveryRetransmissionUndoesToTheLossCwnd) {
  // In slow start at cwnd 20, a fast retransmit: dctcp_ssthresh() and
  // dctcp_react_to_loss() keep loss_cwnd = 20, ssthresh = 10. The D-SACK
  // of the one retransmission (tcp_try_undo_dsack()) restores
  // dctcp_cwnd_undo() = max(cwnd, loss_cwnd) = 20 and the infinite
  // prior_ssthresh. Without .undo_cwnd the model stayed at ssthresh 10,
  // where Debian 12's 6.1 kernel undid (testdata/lab/dctcp_*, nstat
  // TcpExtTCPDSACKUndo / TcpExtTCPPartialUndo).
  ControllerOptions options;
  options.mss_bytes = kMss;
  options.initial_window_segments = 20;
  LinuxDctcp dctcp(options);
  AckEvent dupack = SegmentAck(1000, 1, kMss, 19 * kMss);
  dupack.data_acked = false;
  dctcp.OnAck(dupack);
  dctcp.OnLoss(FastRetransmit(1000, 19 * kMss));
  RetransmitEvent retransmit;
  retransmit.time_us = 1000;
  retransmit.ts_val = 5000;
  dctcp.OnRetransmit(retransmit);
  ASSERT_EQ(dctcp.snd_ssthresh(), 10u);
  AckEvent dsack = SegmentAck(2000, 0, kMss, 19 * kMss);
  dsack.data_acked = false;
  dsack.packets_dsacked = 1;
  dsack.dsack_end_bytes = kMss + 1;
  dctcp.OnAck(dsack);
  EXPECT_EQ(dctcp.undo_counts().dsack, 1);
  EXPECT_EQ(dctcp.snd_cwnd(), 20u);
  EXPECT_EQ(dctcp.snd_ssthresh(), kInfiniteSsthreshSegments);
}

}  // namespace
}  // namespace ccreplay
