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

}  // namespace
}  // namespace ccreplay
