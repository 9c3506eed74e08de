#include "cc/linux_reno.h"

#include <cstdint>

#include "cc/controller_testing.h"
#include "gtest/gtest.h"

namespace ccreplay {
namespace {

using testing::FastRetransmit;
using testing::SegmentAck;

constexpr uint32_t kMss = 1200;

// reno:linux at cwnd = ssthresh = 100 after a fast retransmit from 200.
LinuxReno InCongestionAvoidance(uint32_t normalize_bytes, int64_t* now_us) {
  ControllerOptions options;
  options.mss_bytes = kMss;
  options.initial_window_segments = 200;
  options.normalize_bytes = normalize_bytes;
  LinuxReno reno(options);
  reno.OnLoss(FastRetransmit(0, 200 * kMss));
  for (int i = 0; i < 200; ++i) {
    reno.OnAck(SegmentAck(++*now_us, 1, kMss, (199 - i) * kMss));
  }
  return reno;
}

TEST(LinuxRenoTest, AnAckThatOnlySacksDoesNotGrowCwnd) {
  // tcp_cong_control() raises cwnd only if tcp_may_raise_cwnd(): with
  // normal reordering, only on FLAG_DATA_ACKED (snd_una moved over data).
  ControllerOptions options;
  options.mss_bytes = kMss;
  LinuxReno reno(options);
  AckEvent sack_only = SegmentAck(1000, 1, kMss, 10 * kMss);
  sack_only.data_acked = false;
  reno.OnAck(sack_only);
  EXPECT_EQ(reno.snd_cwnd(), 10u);
  reno.OnAck(SegmentAck(2000, 1, kMss, 10 * kMss));
  EXPECT_EQ(reno.snd_cwnd(), 11u);  // tcp_slow_start(): +1 per segment
}

TEST(LinuxRenoTest, WithHighReorderingASackGrowsCwnd) {
  // tcp_may_raise_cwnd(): once tp->reordering exceeds tcp_reordering (3),
  // any forward progress grows cwnd, a SACK too.
  ControllerOptions options;
  options.mss_bytes = kMss;
  LinuxReno reno(options);
  AckEvent sack_only = SegmentAck(1000, 1, kMss, 10 * kMss);
  sack_only.data_acked = false;
  sack_only.reordering_segments = 3;
  reno.OnAck(sack_only);
  EXPECT_EQ(reno.snd_cwnd(), 10u);
  sack_only.reordering_segments = 4;
  reno.OnAck(sack_only);
  EXPECT_EQ(reno.snd_cwnd(), 11u);
}

TEST(LinuxRenoTest, TheAckThatRevealsALossDoesNotGrowCwnd) {
  // tcp_ack() runs tcp_fastretrans_alert() (entering Recovery) before
  // tcp_cong_control(), so the revealing ACK reduces instead of growing;
  // the timeline reports the fast retransmit just after that ACK.
  ControllerOptions options;
  options.mss_bytes = kMss;
  options.initial_window_segments = 11;
  LinuxReno reno(options);
  reno.OnAck(SegmentAck(1000, 1, kMss, 10 * kMss));
  ASSERT_EQ(reno.snd_cwnd(), 12u);
  reno.OnLoss(FastRetransmit(1000, 10 * kMss));
  EXPECT_EQ(reno.snd_ssthresh(), 5u);  // 11 / 2, not 12 / 2
}

// A receive-window-limited sender: every ACK of one segment is answered by
// one new segment, so `out` segments stay outstanding (snd_nxt - snd_una)
// and the capture calls the sender not cwnd-limited.
AckEvent RwndLimitedAck(int64_t time_us, uint64_t acked_segments,
                        uint32_t out) {
  AckEvent ack = SegmentAck(time_us, 1, kMss, (out - 1) * kMss);
  ack.cwnd_limited = false;
  ack.snd_una_bytes = 1 + acked_segments * kMss;
  ack.snd_nxt_bytes = ack.snd_una_bytes + (out - 1) * kMss;
  return ack;
}

TEST(LinuxRenoTest, SlowStartGrowsToTwiceThePacketsOutWhenNotCwndLimited) {
  // tcp_is_cwnd_limited() (include/net/tcp.h, 6.18): not cwnd-limited, but
  // in slow start cwnd grows while cwnd < 2 * max_packets_out
  // (tcp_cwnd_validate(), tcp_output.c). With 8 segments out: 10 -> 16.
  ControllerOptions options;
  options.mss_bytes = kMss;
  LinuxReno reno(options);
  for (uint64_t i = 1; i <= 20; ++i) reno.OnAck(RwndLimitedAck(i * 100, i, 8));
  EXPECT_EQ(reno.snd_cwnd(), 16u);
}

TEST(LinuxRenoTest, CongestionAvoidanceHoldsCwndWhenNotCwndLimited) {
  int64_t now_us = 0;
  LinuxReno reno = InCongestionAvoidance(0, &now_us);
  ASSERT_EQ(reno.snd_cwnd(), 100u);
  for (uint64_t i = 1; i <= 300; ++i) {
    reno.OnAck(RwndLimitedAck(++now_us, 1000 + i, 60));
  }
  EXPECT_EQ(reno.snd_cwnd(), 100u);  // 300 segments acked: Reno would be 103
}

TEST(LinuxRenoTest, SlowStartCountsEverySegmentOfAStretchAck) {
  LinuxReno reno(ControllerOptions{});
  reno.OnAck(SegmentAck(1, 16, 1448, 0));
  // tcp_slow_start(): cwnd = min(cwnd + acked, ssthresh) = 10 + 16.
  EXPECT_EQ(reno.snd_cwnd(), 26u);
}

TEST(LinuxRenoTest, RecoveryEndsAtSsthresh) {
  int64_t now_us = 0;
  LinuxReno reno = InCongestionAvoidance(0, &now_us);
  // tcp_reno_ssthresh(): max(200 / 2, 2); tcp_end_cwnd_reduction().
  EXPECT_EQ(reno.snd_ssthresh(), 100u);
  EXPECT_EQ(reno.snd_cwnd(), 100u);
  EXPECT_EQ(reno.state().phase, Phase::kCongestionAvoidance);
}

TEST(LinuxRenoTest, PrrBoundDuringRecovery) {
  ControllerOptions options;
  options.initial_window_segments = 200;
  LinuxReno reno(options);
  reno.OnLoss(FastRetransmit(0, 200 * 1448));
  for (int i = 0; i < 50; ++i)
    reno.OnAck(SegmentAck(i + 1, 1, 1448, 150 * 1448));
  // tcp_cwnd_reduction() (RFC 6937 PRR-SSRB's proportional part, more than
  // ssthresh in flight): after 50 of 200 delivered, ceil(100 * 50 / 200) =
  // 25 may have been sent, all of them already by the earlier ACKs, so
  // cwnd = packets in flight (150) + 0.
  EXPECT_EQ(reno.snd_cwnd(), 150u);
  EXPECT_EQ(reno.state().phase, Phase::kRecovery);
}

TEST(LinuxRenoTest, NormalizationAddsSixStepsInFiveWindows) {
  // tcp_cong_avoid_ai() with the counter scaled by 1462/1200, five windows
  // of cwnd 1-segment ACKs from cwnd 100. Cross-check (python3, kernel
  // loop with cnt += g per ACK against w * 1200): 6 steps for g = 1462,
  // 5 for g = 1200 (= floor(5 * 1462 / 1200) and 5).
  for (const auto& [normalize, steps] : {std::pair{1462u, 6u}, {0u, 5u}}) {
    int64_t now_us = 0;
    LinuxReno reno = InCongestionAvoidance(normalize, &now_us);
    for (int w = 0; w < 5; ++w) {
      const uint32_t window = reno.snd_cwnd();
      for (uint32_t i = 0; i < window; ++i) {
        reno.OnAck(SegmentAck(++now_us, 1, kMss, reno.cwnd_bytes()));
      }
    }
    EXPECT_EQ(reno.snd_cwnd(), 100u + steps) << "normalize=" << normalize;
  }
}

TEST(LinuxRenoTest, EceEntersCwrAndHalves) {
  ControllerOptions options;
  options.initial_window_segments = 40;
  LinuxReno reno(options);
  AckEvent ack = SegmentAck(1, 1, 1448, 39 * 1448);
  ack.ece = true;
  reno.OnAck(ack);
  EXPECT_EQ(reno.state().phase, Phase::kCwr);
  EXPECT_EQ(reno.snd_ssthresh(), 20u);
  // CWR ends once data beyond high_seq (39 segments) is acknowledged.
  for (int i = 0; i < 40; ++i) {
    reno.OnAck(SegmentAck(2 + i, 1, 1448, 20 * 1448));
  }
  EXPECT_EQ(reno.state().phase, Phase::kCongestionAvoidance);
  EXPECT_GE(reno.snd_cwnd(), 20u);
  EXPECT_LE(reno.snd_cwnd(), 21u);
}

// reno:linux in slow start at cwnd 20 that has just entered Recovery
// (ssthresh 10) and sent one retransmission with TSval 5000.
LinuxReno InSpuriousRecovery() {
  ControllerOptions options;
  options.mss_bytes = kMss;
  options.initial_window_segments = 20;
  LinuxReno reno(options);
  AckEvent dupack = SegmentAck(1000, 1, kMss, 19 * kMss);
  dupack.data_acked = false;  // SACKs only: no growth
  reno.OnAck(dupack);
  reno.OnLoss(FastRetransmit(1000, 19 * kMss));
  RetransmitEvent retransmit;
  retransmit.time_us = 1000;
  retransmit.ts_val = 5000;
  reno.OnRetransmit(retransmit);
  return reno;
}

// An ACK moving snd_una by one segment, echoing TSval `ts_ecr`.
AckEvent PartialAck(uint32_t ts_ecr, uint64_t retransmitted_in_flight) {
  AckEvent ack = SegmentAck(2000, 1, kMss, 18 * kMss);
  ack.ts_ecr = ts_ecr;
  ack.bytes_retransmitted_in_flight = retransmitted_in_flight;
  return ack;
}

TEST(LinuxRenoTest, AnEchoOlderThanTheRetransmissionUndoesOnAPartialAck) {
  LinuxReno reno = InSpuriousRecovery();
  ASSERT_EQ(reno.snd_ssthresh(), 10u);
  ASSERT_EQ(reno.state().phase, Phase::kRecovery);
  // tcp_try_undo_partial(): tcp_packet_delayed() (TSecr 4999 before the
  // retransmission's 5000, RFC 3522) with no retransmission in flight:
  // cwnd = max(cwnd, prior_cwnd 20), ssthresh = prior_ssthresh (infinite
  // in slow start), Open; then the ACK grows cwnd by its segment.
  reno.OnAck(PartialAck(4999, 0));
  EXPECT_EQ(reno.undo_counts().partial, 1);
  EXPECT_EQ(reno.snd_ssthresh(), kInfiniteSsthreshSegments);
  EXPECT_EQ(reno.snd_cwnd(), 21u);
  EXPECT_EQ(reno.state().phase, Phase::kSlowStart);
}

TEST(LinuxRenoTest, NoUndoWhileTheEchoIsNotOlderOrARetransmissionIsOut) {
  LinuxReno same_ms = InSpuriousRecovery();
  same_ms.OnAck(PartialAck(5000, 0));  // not before(5000, 5000)
  EXPECT_EQ(same_ms.undo_counts().partial, 0);
  EXPECT_EQ(same_ms.snd_ssthresh(), 10u);
  EXPECT_EQ(same_ms.state().phase, Phase::kRecovery);
  LinuxReno retrans_out = InSpuriousRecovery();
  retrans_out.OnAck(PartialAck(4999, kMss));  // tp->retrans_out > 0
  EXPECT_EQ(retrans_out.undo_counts().partial, 0);
  EXPECT_EQ(retrans_out.state().phase, Phase::kRecovery);
  LinuxReno no_timestamps = InSpuriousRecovery();
  no_timestamps.OnAck(PartialAck(0, 0));  // TSecr 0 is none
  EXPECT_EQ(no_timestamps.undo_counts().partial, 0);
}

TEST(LinuxRenoTest, ADsackOfEveryRetransmissionUndoes) {
  // tcp_sacktag_one(): the D-SACK of the one retransmitted segment brings
  // undo_retrans to 0; tcp_try_undo_dsack() undoes (RFC 2883 section 5).
  LinuxReno reno = InSpuriousRecovery();
  AckEvent dsack = SegmentAck(2000, 0, kMss, 19 * kMss);
  dsack.data_acked = false;
  dsack.packets_dsacked = 1;
  dsack.dsack_end_bytes = kMss + 1;
  reno.OnAck(dsack);
  EXPECT_EQ(reno.undo_counts().dsack, 1);
  EXPECT_EQ(reno.snd_cwnd(), 20u);
  EXPECT_EQ(reno.snd_ssthresh(), kInfiniteSsthreshSegments);
  EXPECT_EQ(reno.state().phase, Phase::kSlowStart);
}

TEST(LinuxRenoTest, TheEndOfRecoveryUndoesAfterAnOlderEcho) {
  // tcp_try_undo_recovery(): snd_una reached high_seq, the echo is older
  // than the retransmission: a full undo instead of cwnd = ssthresh.
  LinuxReno reno = InSpuriousRecovery();
  reno.OnAck(PartialAck(5000, kMss));
  AckEvent last = SegmentAck(3000, 18, kMss, 0);
  last.ts_ecr = 4999;
  reno.OnAck(last);
  EXPECT_EQ(reno.undo_counts().full, 1);
  EXPECT_EQ(reno.snd_ssthresh(), kInfiniteSsthreshSegments);
  EXPECT_GE(reno.snd_cwnd(), 20u);
  LinuxReno kept = InSpuriousRecovery();
  kept.OnAck(PartialAck(5000, kMss));
  last.ts_ecr = 5001;
  kept.OnAck(last);
  EXPECT_EQ(kept.undo_counts().full, 0);
  // tcp_end_cwnd_reduction(): cwnd = ssthresh 10, then the same ACK's 18
  // segments add one in congestion avoidance (tcp_cong_avoid_ai()).
  EXPECT_EQ(kept.snd_ssthresh(), 10u);
  EXPECT_EQ(kept.snd_cwnd(), 11u);
}

}  // namespace
}  // namespace ccreplay
