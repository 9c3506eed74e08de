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

// An ACK with sequence state, in segments of kMss: it newly delivers
// `delivered` segments (cumulatively or by SACK), leaves snd_una at `una`
// with snd_nxt `nxt` sent before it, and moved snd_una over data or not.
AckEvent SequenceAck(int64_t time_us, uint32_t delivered, uint64_t una,
                     uint64_t nxt, bool data_acked) {
  AckEvent ack = SegmentAck(time_us, delivered, kMss, (nxt - una) * kMss);
  ack.snd_una_bytes = una * kMss;
  ack.snd_nxt_bytes = nxt * kMss;
  ack.highest_sack_bytes = una * kMss;
  ack.data_acked = data_acked;
  return ack;
}

TEST(LinuxRenoTest, RecoveryWaitsForTheCumulativeAckOfHighSeq) {
  // tcp_fastretrans_alert(): Recovery ends once "!before(tp->snd_una,
  // tp->high_seq)", high_seq being snd_nxt at tcp_enter_recovery(); SACKs
  // of data sent after it, however many, do not end it.
  ControllerOptions options;
  options.mss_bytes = kMss;
  options.initial_window_segments = 20;
  LinuxReno reno(options);
  int64_t now_us = 1000;
  reno.OnAck(SequenceAck(now_us, 1, 10, 30, /*data_acked=*/false));
  reno.OnLoss(FastRetransmit(now_us, 19 * kMss));  // high_seq: segment 30
  ASSERT_EQ(reno.snd_ssthresh(), 10u);
  // 25 more segments SACKed, more than were in flight at the loss, while
  // the hole at snd_una (segment 10) stays open.
  for (uint64_t nxt = 31; nxt <= 55; ++nxt) {
    reno.OnAck(SequenceAck(++now_us, 1, 10, nxt, /*data_acked=*/false));
  }
  EXPECT_EQ(reno.state().phase, Phase::kRecovery);
  // The retransmission fills the hole: snd_una jumps past high_seq.
  reno.OnAck(SequenceAck(++now_us, 1, 50, 55, /*data_acked=*/true));
  EXPECT_EQ(reno.state().phase, Phase::kCongestionAvoidance);
  EXPECT_EQ(reno.snd_cwnd(), 10u);  // tcp_end_cwnd_reduction()
}

// reno:linux (cwnd 20, slow start) in a spurious Recovery entered at
// snd_una segment 10 with segments 11..14 SACKed and one retransmission
// (TSval 5000); then the delayed original fills the hole: snd_una jumps to
// `una`, echoing a TSval older than the retransmission's.
LinuxReno AfterPartialUndo(uint64_t una) {
  ControllerOptions options;
  options.mss_bytes = kMss;
  options.initial_window_segments = 20;
  LinuxReno reno(options);
  AckEvent dupack = SequenceAck(1000, 4, 10, 30, /*data_acked=*/false);
  dupack.highest_sack_bytes = 14 * kMss;
  dupack.bytes_in_flight = 16 * kMss;  // 20 outstanding, 4 SACKed
  reno.OnAck(dupack);
  reno.OnLoss(FastRetransmit(1000, 16 * kMss));
  RetransmitEvent retransmit;
  retransmit.time_us = 1000;
  retransmit.ts_val = 5000;
  reno.OnRetransmit(retransmit);
  AckEvent filled = SequenceAck(2000, 1, una, 30, /*data_acked=*/true);
  filled.ts_ecr = 4999;
  reno.OnAck(filled);
  return reno;
}

TEST(LinuxRenoTest, APartialUndoRaisesReorderingSoSacksGrowCwnd) {
  // tcp_try_undo_partial() calls tcp_check_sack_reordering(sk,
  // prior_snd_una, 1): metric = tcp_highest_sack_seq() (snd_una, nothing
  // left SACKed) - prior snd_una = 5 segments > tp->reordering (3) * mss,
  // so tp->reordering = 5 and tcp_may_raise_cwnd() lets SACKs grow cwnd.
  LinuxReno reno = AfterPartialUndo(15);
  ASSERT_EQ(reno.undo_counts().partial, 1);
  ASSERT_EQ(reno.snd_cwnd(), 21u);  // undone to 20, +1 for the segment
  AckEvent sack = SequenceAck(3000, 1, 15, 30, /*data_acked=*/false);
  sack.highest_sack_bytes = 16 * kMss;
  sack.reordering_segments = 3;  // no SACK-based raise
  reno.OnAck(sack);
  EXPECT_EQ(reno.snd_cwnd(), 22u);
  // A jump of 3 segments is no more than tp->reordering: no raise.
  LinuxReno small_jump = AfterPartialUndo(13);
  ASSERT_EQ(small_jump.undo_counts().partial, 1);
  small_jump.OnAck(sack);
  EXPECT_EQ(small_jump.snd_cwnd(), 21u);
}

}  // namespace
}  // namespace ccreplay
