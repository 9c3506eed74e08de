#include "replay/retransmission_classifier.h"

#include "gtest/gtest.h"

namespace ccreplay {
namespace {

TEST(RetransmissionClassifierTest, TailLossProbe) {
  // Three segments out, no ACK for 2.5 SRTT, the last one resent: a TLP
  // (RFC 8985 section 7.3), not an RTO (the timer has 200 ms).
  RttEstimator rtt;
  rtt.AddSample(10000);
  RetransmissionClassifier c;
  c.OnSendFromIdle(0);
  c.OnAck(1000, false, false, false, 1, 0);
  SackScoreboard::SendResult tail;
  tail.resent_bytes = 1000;
  tail.is_tail = true;
  RetransmissionClassifier::Result r =
      c.Classify(26000000, 2001, 3001, tail, rtt, 1, 3001, 3000, 1000, 0, 0);
  EXPECT_EQ(r.kind, RetransmissionKind::kTlp);
  EXPECT_FALSE(r.starts_episode);
}

TEST(RetransmissionClassifierTest, SpuriousByDsackAndEifel) {
  RttEstimator rtt;
  RetransmissionClassifier c;
  SackScoreboard::SendResult head;
  head.resent_bytes = 1000;
  head.is_head = true;
  c.Classify(2000000000, 1, 1001, head, rtt, 1, 5001, 5000, 1000,
             /*ts_val=*/500, 0);
  c.Classify(2000000001, 1001, 2001, head, rtt, 1, 5001, 5000, 1000, 500, 0);
  EXPECT_EQ(c.OnDsack({1, 1001}), 1);
  EXPECT_EQ(c.OnDsack({1, 1001}), 0);  // Counted once.
  // RFC 3522: the first ACK covering it echoes 400 < 500: the original.
  EXPECT_EQ(c.OnCumulativeAck(2001, true, 400), 1);
  EXPECT_EQ(c.OnCumulativeAck(2001, true, 400), 0);
}

TEST(RetransmissionClassifierTest, SendersSilenceFromTheEchoedAck) {
  // A receiver-side view (as the zeek loss-window trace, 102.5895 s): the
  // third duplicate ACK (TSval 30) is followed 6 ms later by another (31);
  // the retransmission comes 320 ms after the third at the capture point,
  // beyond the 200 ms RTO, but echoes 30: the sender had not processed 31,
  // so it answered 30 within 6 ms. A fast retransmit, not a timeout.
  RttEstimator rtt;
  rtt.AddSample(100000);
  SackScoreboard::SendResult head;
  head.resent_bytes = 1000;
  head.is_head = true;
  auto classify = [&](uint32_t ts_ecr) {
    RetransmissionClassifier c;
    c.OnSendFromIdle(0);
    c.OnAck(100000000, true, false, false, 1, 10);
    c.OnAck(101000000, false, true, true, 1, 28);
    c.OnAck(102000000, false, true, true, 1, 29);
    c.OnAck(103000000, false, true, true, 1, 30);
    c.OnAck(109000000, false, true, true, 1, 31);
    return c.Classify(423000000, 1, 1001, head, rtt, 1, 9001, 8000, 1000, 77,
                      ts_ecr);
  };
  EXPECT_EQ(classify(30).kind, RetransmissionKind::kFast);
  // Echoing the last ACK, the sender was silent for 314 ms: a timeout.
  EXPECT_EQ(classify(31).kind, RetransmissionKind::kRto);
}

TEST(RetransmissionClassifierTest,
     ResendingAcknowledgedDataContinuesTheEpisode) {
  // The capture saw the ACK of [1, 3001) before the sender did: the
  // sender's second retransmission, of acknowledged data, is part of the
  // fast recovery it is still in.
  RttEstimator rtt;
  rtt.AddSample(100000);
  RetransmissionClassifier c;
  c.OnSendFromIdle(0);
  for (int k = 1; k <= 3; ++k) {
    c.OnAck(1000000 * k, false, true, true, 1, 0);
  }
  SackScoreboard::SendResult lost;
  lost.resent_bytes = 1000;
  lost.is_head = lost.was_lost = true;
  RetransmissionClassifier::Result first =
      c.Classify(3500000, 1, 1001, lost, rtt, 1, 3001, 3000, 1000, 0, 0);
  EXPECT_EQ(first.kind, RetransmissionKind::kFast);
  EXPECT_TRUE(first.starts_episode);
  c.OnAck(4000000, true, false, false, 3001, 0);  // Recovery over, here.
  SackScoreboard::SendResult acked;
  acked.resent_bytes = 1000;
  acked.was_acked = true;
  RetransmissionClassifier::Result second =
      c.Classify(4100000, 1001, 2001, acked, rtt, 3001, 3001, 0, 1000, 0, 0);
  EXPECT_EQ(second.kind, RetransmissionKind::kFast);
  EXPECT_FALSE(second.starts_episode);
}

// Three duplicate ACKs, then the head [1, 1001) resent at 3.5 ms with
// TSval `ts_val`: a fast-recovery episode, recovery point 3001.
RetransmissionClassifier InFastRecovery(const RttEstimator& rtt,
                                        uint32_t ts_val) {
  RetransmissionClassifier c;
  c.OnSendFromIdle(0);
  for (int k = 1; k <= 3; ++k) c.OnAck(1000000 * k, false, true, true, 1, 0);
  SackScoreboard::SendResult lost;
  lost.resent_bytes = 1000;
  lost.is_head = lost.was_lost = true;
  EXPECT_TRUE(
      c.Classify(3500000, 1, 1001, lost, rtt, 1, 3001, 3000, 1000, ts_val, 0)
          .starts_episode);
  return c;
}

TEST(RetransmissionClassifierTest, LossAboveTheRecoveryPointReentersRecovery) {
  // Fast recovery starts at snd_nxt 3001; during it [4001, 5001), first
  // sent after that point, is resent too. The ACK that reaches 3001 ends
  // Recovery with it still lost: Linux enters Recovery again on that ACK
  // (tcp_fastretrans_alert(), tcp_time_to_recover(): tp->lost_out), the
  // new recovery point the snd_nxt then.
  RttEstimator rtt;
  rtt.AddSample(100000);
  auto run = [&](int64_t lost_start) {
    RetransmissionClassifier c = InFastRecovery(rtt, 0);
    SackScoreboard::SendResult lost;
    lost.resent_bytes = 1000;
    lost.was_lost = true;
    const RetransmissionClassifier::Result later =
        c.Classify(3600000, lost_start, lost_start + 1000, lost, rtt, 1, 6001,
                   6000, 1000, 0, 0);
    EXPECT_EQ(later.kind, RetransmissionKind::kFast);
    EXPECT_FALSE(later.starts_episode);
    c.OnAck(4000000, true, false, true, 3001, 0);
    const bool reentered = c.ReenterRecovery(6001);
    EXPECT_FALSE(c.ReenterRecovery(6001));  // Once per ACK.
    EXPECT_EQ(c.in_recovery(3001), reentered);
    return reentered;
  };
  EXPECT_TRUE(run(4001));
  // A second hole below the recovery point belongs to the same episode.
  EXPECT_FALSE(run(2001));
}

TEST(RetransmissionClassifierTest, DelayedOriginalTakenOncePerEpisode) {
  // A fast retransmission with TSval 500 starts an episode (recovery point
  // 3001). An echo of 499 is from before it: the original filled the hole
  // (tcp_packet_delayed()), taken once; 500 echoes the retransmission.
  RttEstimator rtt;
  rtt.AddSample(100000);
  RetransmissionClassifier c = InFastRecovery(rtt, 500);
  EXPECT_FALSE(c.TakeDelayedOriginal(500));
  EXPECT_FALSE(c.TakeDelayedOriginal(0));  // no echo
  // Once the episode ends, nothing is left to take.
  RetransmissionClassifier ended = c;
  ended.OnAck(4000000, true, false, false, 3001, 0);
  EXPECT_FALSE(ended.TakeDelayedOriginal(499));
  EXPECT_TRUE(c.TakeDelayedOriginal(499));
  EXPECT_FALSE(c.TakeDelayedOriginal(499));  // the undo marker is gone
}

}  // namespace
}  // namespace ccreplay
