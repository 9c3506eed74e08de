#include "replay/vantage.h"

#include "gtest/gtest.h"

namespace ccreplay {
namespace {

TEST(VantageTest, HandshakeGapsNameTheNearHost) {
  // Client side: the SYN-ACK takes the path RTT, the ACK follows at once.
  VantageDetector client;
  client.OnSyn(0);
  client.OnSynAck(20000000);
  client.OnHandshakeAck(20010000);
  EXPECT_EQ(client.Decide(/*sender_opened=*/true), Vantage::kSender);
  EXPECT_EQ(client.Decide(/*sender_opened=*/false), Vantage::kReceiver);
  EXPECT_EQ(client.SenderOneWayNs(true), 0);
  EXPECT_EQ(client.SenderOneWayNs(false), 10000000);  // Half of SYN -> SYN-ACK.
  // Both hosts a real round trip away: the middle.
  VantageDetector middle;
  middle.OnSyn(0);
  middle.OnSynAck(8000000);
  middle.OnHandshakeAck(20000000);
  EXPECT_EQ(middle.Decide(true), Vantage::kMiddle);
  EXPECT_EQ(middle.SenderOneWayNs(true), 6000000);
}

// Found by timeline_fuzzer: capture times years apart (a damaged or
// crafted capture) overflowed the 10x comparison. Gaps of 45 years each
// way are a real round trip on both sides: the middle.
TEST(VantageTest, HandshakeGapsOfYearsDoNotOverflow) {
  constexpr int64_t kYears = 1424705076592670000;  // ns, 45 years
  VantageDetector v;
  v.OnSyn(0);
  v.OnSynAck(kYears);
  v.OnHandshakeAck(2 * kYears);
  EXPECT_EQ(v.Decide(true), Vantage::kMiddle);
}

// A handshake that reads `middle` (the client answered the SYN-ACK 2.4 ms
// late) is revised by the hosts' echoes: a host that echoed the other's
// timestamps under 1 ms at least kMinQuickEchoes times is next to the
// capture point; the nearer when both did; neither when none did.
TEST(VantageTest, QuickEchoesPlaceASlowHandshakeAnswerNextToTheCapture) {
  VantageDetector v;
  v.OnSyn(0);
  v.OnSynAck(14595000);
  v.OnHandshakeAck(17038000);
  ASSERT_EQ(v.Decide(true), Vantage::kMiddle);
  EXPECT_EQ(v.Revision(true), "");
  auto echoes = [](int64_t min_ns, uint64_t quick) {
    EchoTimes e;
    e.min_ns = min_ns;
    e.echoes = 4000;
    e.quick = quick;
    return e;
  };
  const EchoTimes far = echoes(10391000, 0);
  v.SetEchoTimes(echoes(25000, VantageDetector::kMinQuickEchoes - 1), far);
  EXPECT_EQ(v.Decide(true), Vantage::kMiddle);
  v.SetEchoTimes(echoes(25000, VantageDetector::kMinQuickEchoes), far);
  EXPECT_EQ(v.Decide(true), Vantage::kSender);  // The client sends.
  EXPECT_EQ(v.SenderOneWayNs(true), 0);
  EXPECT_EQ(v.Decide(false), Vantage::kReceiver);  // The server sends.
  EXPECT_EQ(v.Revision(true),
            "the sender answered the handshake 2.443 ms after the packet "
            "before, as if a round trip away, but echoed the receiver's "
            "timestamps within 0.025 ms (8 of 4000 echoes under 1 ms): it is "
            "next to the capture point, and answered the handshake slowly");
  // Both near: the faster one.
  v.SetEchoTimes(echoes(300000, 500), echoes(40000, 500));
  EXPECT_EQ(v.Decide(true), Vantage::kReceiver);
  EXPECT_EQ(v.Decide(false), Vantage::kSender);
  // CE-marked data is still never seen at the sender.
  v.OnCeMarkedData();
  EXPECT_EQ(v.Decide(false), Vantage::kMiddle);
  EXPECT_EQ(v.Revision(false), "");
  // A handshake that named the host already is kept.
  VantageDetector client;
  client.OnSyn(0);
  client.OnSynAck(20000000);
  client.OnHandshakeAck(20010000);
  client.SetEchoTimes(far, echoes(40000, 500));
  EXPECT_EQ(client.Decide(true), Vantage::kSender);
}

TEST(VantageTest, CeOnDataIsNotSeenAtTheSender) {
  VantageDetector v;
  v.OnSyn(0);
  v.OnSynAck(20000000);
  v.OnHandshakeAck(20010000);
  v.OnCeMarkedData();
  EXPECT_EQ(v.Decide(true), Vantage::kMiddle);
  EXPECT_EQ(VantageDetector().Decide(true), Vantage::kUnknown);
}

TEST(VantageTest, OffloadArtefactWarnings) {
  CaptureArtefacts a;
  a.acks = 200;
  a.ece_acks = 200;
  a.super_segments = 3;
  a.largest_super_segment_bytes = 65000;
  std::vector<std::string> w = a.Warnings(true, false, false);
  ASSERT_EQ(w.size(), 2u);
  EXPECT_NE(w[0].find("TSO/GSO"), std::string::npos);
  EXPECT_NE(w[1].find("ECE is set on 200 of 200 ACKs"), std::string::npos);
  EXPECT_TRUE(a.Warnings(true, true, /*accecn=*/true).size() == 1u);
}

// One of a thing is singular, with its verb: zeek_erspan.pcap's diagnosis
// said "1 ACKs acknowledge data the capture never showed sent".
TEST(VantageTest, ArtefactWarningsCountInTheSingularAndThePlural) {
  CaptureArtefacts a;
  a.super_segments = 1;
  a.largest_super_segment_bytes = 2896;
  a.acks_of_unseen_data = 1;
  std::vector<std::string> one = a.Warnings(false, false, false);
  ASSERT_EQ(one.size(), 2u);
  EXPECT_EQ(one[0].rfind("1 segment larger than the MSS (up to 2896 bytes)", 0),
            0u);
  EXPECT_EQ(one[1].rfind("1 ACK acknowledges data the capture never", 0), 0u);
  a.super_segments = 3;
  a.acks_of_unseen_data = 2;
  std::vector<std::string> more = a.Warnings(false, false, false);
  ASSERT_EQ(more.size(), 2u);
  EXPECT_EQ(more[0].rfind("3 segments larger than the MSS", 0), 0u);
  EXPECT_EQ(more[1].rfind("2 ACKs acknowledge data the capture never", 0), 0u);
}

}  // namespace
}  // namespace ccreplay
