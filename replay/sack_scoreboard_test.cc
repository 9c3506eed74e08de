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
  // tcp_check_sack_reordering()'s metric: the highest SACKed segment's
  // start (prior_fack) less the lowest newly delivered segment that was
  // never retransmitted.
  SackScoreboard b = TenSegments();
  SackBlock block{2001, 5001};  // segments 3..5 overtook segment 2
  SackScoreboard::AckResult r = b.OnAck(1001, &block, 1, 1000);
  EXPECT_EQ(r.reordering_bytes, 0u);    // nothing below a SACK before
  r = b.OnAck(5001, nullptr, 0, 1000);  // segment 2 arrives late
  EXPECT_EQ(r.lowest_original_delivered, 1001);
  EXPECT_EQ(r.reordering_bytes, 3000u);  // 4001 - 1001
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

TEST(SackScoreboardTest, HighestSackSeqIsTheStartOfTheHighestSackedSegment) {
  // tcp_highest_sack_seq(): snd_una with nothing SACKed, else the start of
  // the highest SACKed segment (not its end).
  SackScoreboard b = TenSegments();
  EXPECT_EQ(b.HighestSackSeq(), 1);
  SackBlock blocks[2] = {{6001, 8001}, {2001, 3001}};
  b.OnAck(1001, blocks, 2, 1000);
  EXPECT_EQ(b.HighestSackSeq(), 7001);
  b.OnAck(8001, nullptr, 0, 1000);  // the cumulative ACK passes every SACK
  EXPECT_EQ(b.HighestSackSeq(), 8001);
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

}  // namespace
}  // namespace ccreplay
