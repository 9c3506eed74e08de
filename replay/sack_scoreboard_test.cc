#include "replay/sack_scoreboard.h"

#include "gtest/gtest.h"

namespace ccreplay {
namespace {

// Ten 1000-byte segments [1, 10001).
SackScoreboard TenSegments() {
  SackScoreboard b;
  b.Reset(1);
  for (int i = 0; i < 10; ++i)
    b.OnSend(1 + i * 1000, 1001 + i * 1000, 1000 + i, 0);
  return b;
}

TEST(SackScoreboardTest, AnOriginalDeliveredBelowTheSackedIsReordering) {
  // tcp_clean_rtx_queue() (tcp_input.c, 6.18): a never-retransmitted
  // segment acked below the highest SACK before the ACK (prior_fack) is
  // reordering; tcp_check_sack_reordering()'s metric is
  // tcp_highest_sack_seq() at the call, after the ACK, less that segment's
  // start.
  SackScoreboard b = TenSegments();
  SackBlock block{2001, 5001};  // segments 3..5 overtook segment 2
  SackScoreboard::AckResult r = b.OnAck(1001, &block, 1, 1000);
  EXPECT_EQ(r.reordering_bytes, 0u);    // nothing below a SACK before
  r = b.OnAck(5001, nullptr, 0, 1000);  // segment 2 arrives late
  EXPECT_EQ(r.lowest_original_delivered, 1001);
  EXPECT_EQ(r.reordering_bytes, 4000u);  // snd_una 5001 (none SACKed) - 1001
  // In order: no reordering.
  r = b.OnAck(6001, nullptr, 0, 1000);
  EXPECT_EQ(r.reordering_bytes, 0u);
  // A retransmitted segment filling the hole is no reordering.
  block = {7001, 9001};
  b.OnAck(6001, &block, 1, 1000);
  b.OnSend(6001, 7001, 9000, 0);
  r = b.OnAck(9001, nullptr, 0, 1000);
  EXPECT_EQ(r.reordering_bytes, 0u);
}

// tcp_sacktag_one() (tcp_input.c, 6.18) sets sack->last_sackt to each
// newly SACKed segment never retransmitted as it walks up the sorted
// blocks, so the module's RTT sample (ca_rtt_us) comes from the highest
// such segment, whatever order the blocks arrive in; a retransmitted one,
// or one SACKed before, gives none.
TEST(SackScoreboardTest, LastSacktIsTheHighestNewlySackedOriginal) {
  SackScoreboard b = TenSegments();  // segment i sent at 1000 + i ns
  SackBlock block{3001, 4001};       // segment 3
  SackScoreboard::AckResult r = b.OnAck(1001, &block, 1, 1000);
  EXPECT_EQ(r.last_sackt_ns, 1003);
  EXPECT_EQ(r.last_sackt_start, 3001);
  b.OnSend(5001, 6001, 2000, 0);  // segment 5 retransmitted
  // Blocks in the order a receiver sends them, the most recent first:
  // segments 5..6 (5 retransmitted) and 3..4 (3 SACKed before).
  const SackBlock blocks[] = {{5001, 7001}, {3001, 5001}};
  r = b.OnAck(1001, blocks, 2, 1000);
  EXPECT_EQ(r.last_sackt_ns, 1006);
  EXPECT_EQ(r.last_sackt_start, 6001);
  // A block over segment 8 alone, retransmitted, gives no sample.
  b.OnSend(8001, 9001, 3000, 0);
  block = {8001, 9001};
  r = b.OnAck(1001, &block, 1, 1000);
  EXPECT_EQ(r.last_sackt_ns, 0);
  EXPECT_EQ(r.last_sackt_start, -1);
}

// The late segment acked together with data above the old highest SACK:
// the kernel's metric runs to the new snd_una (5 segments, so
// tp->reordering rises above net.ipv4.tcp_reordering's 3), where one from
// the highest SACK before the ACK would be 3 and raise nothing. This is
// what a DCTCP lab flow under TCG showed: ss `reordering:5` before its
// first loss, the replay's tp->reordering still 3 (docs/controllers.md).
TEST(SackScoreboardTest, ReorderingRunsToTheHighestSackAfterTheAck) {
  SackScoreboard b = TenSegments();
  SackBlock block{2001, 4001};  // segments 3 and 4 overtook segment 2
  b.OnAck(1001, &block, 1, 1000);
  const SackScoreboard::AckResult r = b.OnAck(6001, nullptr, 0, 1000);
  EXPECT_EQ(r.lowest_original_delivered, 1001);
  EXPECT_EQ(r.reordering_bytes, 5000u);  // 6001 - 1001
}

TEST(SackScoreboardTest, HighestSackSeqIsTheStartOfTheSegmentAfterIt) {
  // tcp_highest_sack_seq() (include/net/tcp.h, 6.18): snd_una with nothing
  // SACKed, else "Start sequence of the skb just after the highest skb
  // with SACKed bit" (tcp_advance_highest_sack() sets highest_sack to
  // skb_rb_next()), snd_nxt when none follows.
  SackScoreboard b = TenSegments();
  EXPECT_EQ(b.HighestSackSeq(), 1);
  SackBlock blocks[2] = {{6001, 8001}, {2001, 3001}};
  b.OnAck(1001, blocks, 2, 1000);
  EXPECT_EQ(b.HighestSackSeq(), 8001);  // The start of segment 9.
  SackBlock last{9001, 10001};
  b.OnAck(1001, &last, 1, 1000);
  EXPECT_EQ(b.HighestSackSeq(), 10001);  // None follows: snd_nxt.
  b.OnAck(10001, nullptr, 0, 1000);      // the cumulative ACK passes every SACK
  EXPECT_EQ(b.HighestSackSeq(), 10001);
}

TEST(SackScoreboardTest, PipeFollowsRfc6675IsLost) {
  SackScoreboard b = TenSegments();
  EXPECT_EQ(b.pipe_bytes(), 10000u);
  // Segments 2 and 3 SACKed: two SACKed segments above segment 1, fewer
  // than DupThresh and not more than 2 * SMSS bytes: nothing lost yet.
  SackBlock block{1001, 3001};
  b.OnAck(1, &block, 1, 1000);
  EXPECT_EQ(b.lost_bytes(), 0u);
  EXPECT_EQ(b.pipe_bytes(), 8000u);
  // A third SACKed segment: segment 1 is lost (RFC 6675 IsLost).
  block = {1001, 4001};
  SackScoreboard::AckResult r = b.OnAck(1, &block, 1, 1000);
  EXPECT_EQ(r.bytes_sacked, 1000u);
  EXPECT_EQ(b.lost_bytes(), 1000u);
  EXPECT_EQ(b.pipe_bytes(), 6000u);  // 10000 - 3000 SACKed - 1000 lost.
  // Its retransmission counts again.
  SackScoreboard::SendResult sent = b.OnSend(1, 1001, 5000, 0);
  EXPECT_TRUE(sent.was_lost);
  EXPECT_TRUE(sent.is_head);
  EXPECT_EQ(b.pipe_bytes(), 7000u);
}

TEST(SackScoreboardTest, AckReportsTheBytesItNewlyMadeLost) {
  SackScoreboard b = TenSegments();
  SackBlock block{1001, 3001};
  EXPECT_EQ(b.OnAck(1, &block, 1, 1000).bytes_newly_lost, 0u);
  // The third SACKed segment makes segment 1 lost (RFC 6675 IsLost)...
  block = {1001, 4001};
  EXPECT_EQ(b.OnAck(1, &block, 1, 1000).bytes_newly_lost, 1000u);
  // ...once: the next SACK above a second hole makes only that one lost.
  block = {5001, 8001};
  SackBlock blocks[2] = {{5001, 8001}, {1001, 4001}};
  EXPECT_EQ(b.OnAck(1, blocks, 2, 1000).bytes_newly_lost, 1000u);
  EXPECT_EQ(b.lost_bytes(), 2000u);
}

TEST(SackScoreboardTest, DsackBelowTheAckAndInsideTheSecondBlock) {
  SackScoreboard b = TenSegments();
  SackBlock below[1] = {{1, 1001}};  // RFC 2883 section 4.1: below the ACK.
  SackScoreboard::AckResult r = b.OnAck(2001, below, 1, 1000);
  EXPECT_EQ(r.bytes_acked, 2000u);
  EXPECT_EQ(r.bytes_dsacked, 1000u);
  EXPECT_EQ(r.bytes_sacked, 0u);
  SackBlock inside[2] = {{5001, 6001}, {4001, 7001}};  // Section 4.2.
  r = b.OnAck(2001, inside, 2, 1000);
  EXPECT_EQ(r.bytes_dsacked, 1000u);
  EXPECT_EQ(r.bytes_sacked, 3000u);
}

TEST(SackScoreboardTest, PartialAckOfASuperSegment) {
  SackScoreboard b;
  b.Reset(1);
  b.OnSend(1, 64001, 1000, 0);  // One 64 KB TSO segment.
  SackScoreboard::AckResult r = b.OnAck(2001, nullptr, 0, 1000);
  EXPECT_EQ(r.bytes_acked, 2000u);
  EXPECT_EQ(r.packets_delivered, 2u);
  EXPECT_TRUE(r.has_acked_segment);
  EXPECT_EQ(b.outstanding_bytes(), 62000u);
}

TEST(SackScoreboardTest, RtoMarksEverythingLost) {
  SackScoreboard b = TenSegments();
  b.OnSend(1, 1001, 9000, 0);
  b.MarkAllLost(1, 1001);
  EXPECT_EQ(b.lost_bytes(), 10000u);
  EXPECT_EQ(b.pipe_bytes(), 1000u);  // Only the retransmission.
}

// Five 1448-byte segments [1, 7241) at the send times (us) of the capture
// around the second loss of bench/fidelity.sh's cubic_0ms_small_pon bundle
// (2026-12-02, main 73fa7ea): relative sequence 176657 onwards, 0.067440 s.
SackScoreboard FiveSegmentsAsCaptured() {
  SackScoreboard b;
  b.Reset(1);
  const int64_t sent_us[5] = {67440, 67907, 68649, 68902, 69325};
  for (int i = 0; i < 5; ++i)
    b.OnSend(1 + i * 1448, 1449 + i * 1448, sent_us[i] * 1000, 0);
  return b;
}

constexpr int64_t kMinRttNs = 64'000;  // The timeline's min_rtt there.

TEST(SackScoreboardTest, RackMarksTheHoleOnceTheLastTakenLeftAfterIt) {
  // The kernel went Disorder on the first SACK and Recovery on the second
  // (tcp_cong_state_set 1, then 3, in the bundle's trace), reo_wnd
  // min_rtt / 4 = 16 us. The first ACK also acks the segment below the
  // hole; taken after the SACK (tcp_clean_rtx_queue() after
  // tcp_sacktag_write_queue()), it sets rack.rtt_us, and it left before
  // the hole: not lost. The second SACKs a segment sent 995 us after it.
  SackScoreboard b = FiveSegmentsAsCaptured();
  SackBlock block{2897, 4345};
  b.OnAck(1449, &block, 1, 1448, 74'080'000, kMinRttNs);
  EXPECT_EQ(b.RackDetectLoss(kMinRttNs / 4).newly_lost_bytes, 0u);
  EXPECT_EQ(b.pipe_bytes(), 3u * 1448);
  block = {2897, 5793};
  b.OnAck(1449, &block, 1, 1448, 74'672'000, kMinRttNs);
  EXPECT_EQ(b.lost_bytes(), 0u);  // RFC 6675: two SACKed, not yet
  EXPECT_EQ(b.RackDetectLoss(kMinRttNs / 4).newly_lost_bytes, 1448u);
  EXPECT_EQ(b.pipe_bytes(), 1u * 1448);  // tcp_packets_in_flight()
  EXPECT_EQ(b.RackDetectLoss(0).newly_lost_bytes,
            0u);  // nothing delivered since
}

// FiveSegmentsAsCaptured() after two SACKs past the first hole (segment 2,
// 1449-2897): RACK checked after the first.
SackScoreboard TwoSackedPastTheHole() {
  SackScoreboard b = FiveSegmentsAsCaptured();
  SackBlock block{2897, 4345};
  b.OnAck(1449, &block, 1, 1448, 74'080'000, kMinRttNs);
  b.RackDetectLoss(kMinRttNs / 4);
  block = {2897, 5793};
  b.OnAck(1449, &block, 1, 1448, 74'672'000, kMinRttNs);
  return b;
}

TEST(SackScoreboardTest, RackWaitsOutTheReorderingWindow) {
  SackScoreboard b = TwoSackedPastTheHole();
  // The hole left 995 us before the last segment taken: a window of 1 ms
  // keeps it in flight, 995 us does not.
  SackScoreboard later = b;
  EXPECT_EQ(b.RackDetectLoss(1'000'000).newly_lost_bytes, 0u);
  EXPECT_EQ(later.RackDetectLoss(995'000).newly_lost_bytes, 1448u);
}

TEST(SackScoreboardTest, RackMarksALostRetransmissionAgain) {
  SackScoreboard b = TwoSackedPastTheHole();
  ASSERT_EQ(b.RackDetectLoss(kMinRttNs / 4).newly_lost_bytes, 1448u);
  b.OnSend(1449, 2897, 74'774'000, 0);  // the fast retransmission
  b.OnSend(7241, 8689, 75'301'000, 0);  // new data after it
  EXPECT_EQ(b.retransmitted_bytes(), 1448u);
  // SACKed: the segment sent after the retransmission, which is then
  // lost (reo_wnd 0 in Recovery): out of flight, still lost.
  SackBlock blocks[2] = {{7241, 8689}, {2897, 7241}};
  b.OnAck(1449, blocks, 2, 1448, 80'000'000, kMinRttNs);
  EXPECT_EQ(b.RackDetectLoss(0).newly_lost_bytes,
            0u);  // lost before, not newly
  EXPECT_EQ(b.retransmitted_bytes(), 0u);
  EXPECT_EQ(b.lost_bytes(), 1448u);
  EXPECT_EQ(b.pipe_bytes(), 0u);
}

TEST(SackScoreboardTest, RackCountsTheHoleTheDupthreshRuleMarkedFirst) {
  // A third SACKed segment above the hole: RFC 6675's rule (UpdateLost())
  // marks it inside OnAck(), before RACK runs. A Linux 6.x sender runs
  // only RACK, which marks the same hole on this ACK (it left 1.4 ms
  // before the last segment taken): RACK's mark, what enters Recovery.
  SackScoreboard b = FiveSegmentsAsCaptured();
  b.OnAck(1449, nullptr, 0, 1448, 70'000'000, kMinRttNs);
  b.RackDetectLoss(kMinRttNs / 4);
  SackBlock block{2897, 7241};
  b.OnAck(1449, &block, 1, 1448, 75'000'000, kMinRttNs);
  EXPECT_EQ(b.lost_bytes(), 1448u);
  SackScoreboard wide = b;
  SackScoreboard::RackMarks marks = b.RackDetectLoss(kMinRttNs / 4);
  EXPECT_EQ(marks.newly_lost_bytes, 0u);
  EXPECT_EQ(marks.rack_bytes, 1448u);
  // A reordering window of 2 ms keeps it in flight for RACK.
  marks = wide.RackDetectLoss(2'000'000);
  EXPECT_EQ(marks.rack_bytes, 0u);
  // The next ACK's marks are its own: nothing SACKed or lost anew.
  b.OnAck(1449, &block, 1, 1448, 75'100'000, kMinRttNs);
  EXPECT_EQ(b.RackDetectLoss(kMinRttNs / 4).rack_bytes, 0u);
}

// Five segments sent 1 ms apart with TSval 100; segments 3 and 4 SACKed
// (RACK's newest delivered send is segment 4's, at 4 ms), then segment 2
// resent at 80 ms with TSval 200.
SackScoreboard SecondResent() {
  SackScoreboard b;
  b.Reset(1);
  for (int i = 0; i < 5; ++i)
    b.OnSend(1 + i * 1448, 1449 + i * 1448, (i + 1) * 1'000'000, 100);
  SackBlock block{2897, 5793};
  b.OnAck(1449, &block, 1, 1448, 30'000'000, kMinRttNs, 100);
  EXPECT_EQ(b.RackDetectLoss(10'000'000).newly_lost_bytes, 0u);
  b.OnSend(1449, 2897, 80'000'000, 200);
  return b;
}

TEST(SackScoreboardTest, RackLeavesOutARetransmissionTheEchoShowsSpurious) {
  // The ACK that takes the retransmission cumulatively echoes TSval 100,
  // from before it was resent: the original arrived
  // (tcp_skb_spurious_retrans()), so tcp_clean_rtx_queue() leaves the
  // segment out of RACK's state and segment 5, sent after segment 4, is
  // not lost. An echo of the retransmission's TSval, or none at all, takes
  // it in: everything sent before 80 ms is then lost (the 0 ms DCTCP
  // bundle's 15 segments, kernel_fidelity_test.cc).
  for (const uint32_t ecr : {100u, 200u, 0u}) {
    SCOPED_TRACE(ecr);
    SackScoreboard b = SecondResent();
    b.OnAck(5793, nullptr, 0, 1448, 81'000'000, kMinRttNs, ecr);
    EXPECT_EQ(b.RackDetectLoss(kMinRttNs / 4).newly_lost_bytes,
              ecr == 100 ? 0u : 1448u);
  }
}

}  // namespace
}  // namespace ccreplay
