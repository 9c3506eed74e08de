#include "replay/accecn_feedback.h"

#include "gtest/gtest.h"

namespace ccreplay {
namespace {

TEST(AccEcnFeedbackTest, DecodeResolvesWrapsWithDeliveredPackets) {
  // Fewer than 8 delivered: no wrap possible.
  EXPECT_EQ(AccEcnFeedback::Decode(3, 7, 7000, false, 0), 3u);
  // 20 delivered, ACE moved by 3: 3, 11 or 19; conservatively 19.
  EXPECT_EQ(AccEcnFeedback::Decode(3, 20, 20000, false, 0), 19u);
  // With 11000 CE bytes of 20000 delivered: about 11 packets.
  EXPECT_EQ(AccEcnFeedback::Decode(3, 20, 20000, true, 11000), 11u);
  EXPECT_EQ(AccEcnFeedback::Decode(3, 20, 20000, true, 0), 3u);
}

TEST(AccEcnFeedbackTest, CountsFromFiveAfterTheHandshake) {
  AccEcnFeedback f;
  f.StartAtHandshake();
  AccEcnOption none;
  EXPECT_EQ(f.OnAck(5, 2, 2000, none).ce_packets, 0u);
  EXPECT_EQ(f.OnAck(7, 2, 2000, none).ce_packets, 2u);
  EXPECT_EQ(f.OnAck(1, 2, 2000, none).ce_packets, 2u);  // 7 -> 1 wraps.
  EXPECT_EQ(f.ce_packets(), 4u);
}

TEST(AccEcnFeedbackTest, ByteCountersUnwrapAt24Bits) {
  AccEcnFeedback f;
  AccEcnOption o;
  o.kind = 172;
  o.field_count = 3;
  o.eceb = 0xfffff0;
  f.OnAck(5, 1, 1000, o);
  o.eceb = 0x10;  // 0x20 bytes later, across the wrap.
  EXPECT_EQ(f.OnAck(5, 1, 1000, o).ce_bytes, 0x20u);
  EXPECT_EQ(f.ce_bytes(), 0x20u);
}

}  // namespace
}  // namespace ccreplay
