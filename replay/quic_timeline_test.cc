#include "replay/quic_timeline.h"

#include <string>
#include <vector>

#include "gtest/gtest.h"

namespace ccreplay {
namespace {

HostTrace Trace() {
  HostTrace t;
  t.quic = true;
  auto& q = t.quic_events;
  for (uint64_t pn = 0; pn < 6; ++pn) {
    q.packets_sent.push_back(
        {1000 + int64_t(pn), PacketNumberSpace::kApplication, pn, 1200, true});
  }
  // ACK 0-1 at 41 ms (RTT sample from pn 1: 41000 - 1001), then 3-4 with
  // one CE mark, then pn 2 declared lost (sent after no recovery yet), then
  // pn 5 lost (sent before the recovery the loss of 2 began: no event).
  QuicAckReceived a1;
  a1.time_us = 41000;
  a1.acked_ranges = {{0, 1}};
  a1.ce_packets = 0;
  QuicAckReceived a2;
  a2.time_us = 42000;
  a2.acked_ranges = {{3, 4}, {0, 1}};
  a2.ce_packets = 1;
  q.acks_received = {a1, a2};
  q.packets_lost = {{42000, PacketNumberSpace::kApplication, 2, ""},
                    {43000, PacketNumberSpace::kApplication, 5, ""}};
  return t;
}

TEST(QuicTimelineTest, AckedBytesRttCeAndLossEpisodes) {
  std::vector<TimelineEvent> events;
  const QuicTimelineStats stats = BuildQuicTimeline(
      Trace(), [&events](const TimelineEvent& e) { events.push_back(e); });
  ASSERT_EQ(events.size(), 4u);
  EXPECT_EQ(events[0].type, TimelineEvent::Type::kAck);
  EXPECT_EQ(events[0].bytes_acked, 2400u);
  EXPECT_EQ(events[0].packets_delivered, 2u);
  EXPECT_EQ(events[0].rtt_sample_us, 41000 - 1001);
  EXPECT_EQ(events[0].srtt_us, 41000 - 1001);  // RFC 9002 5.3 first sample.
  EXPECT_EQ(events[0].pipe_bytes, 4u * 1200);
  // The repeated range 0-1 adds nothing; 3-4 are new.
  EXPECT_EQ(events[1].bytes_acked, 2400u);
  EXPECT_EQ(events[1].ce_packets, 1u);
  EXPECT_TRUE(events[1].congestion_episode);
  EXPECT_EQ(events[1].pipe_bytes, 2u * 1200);
  // pn 2 was sent (1002 us) before the CE recovery began (42000 us).
  EXPECT_EQ(events[2].type, TimelineEvent::Type::kRetransmission);
  EXPECT_FALSE(events[2].starts_episode);
  EXPECT_FALSE(events[3].starts_episode);
  EXPECT_EQ(stats.acks, 2u);
  EXPECT_EQ(stats.congestion_events, 1u);
  EXPECT_TRUE(stats.ecn_counts);
}

// The start of testdata/quic/ngtcp2_reno_20mbit_pfifo12/server.sqlog.gz
// (zcat | head -16): Initial pn 0 (166 bytes) and Handshake pn 0, 1 (1034,
// 320) sent at 3 ms, the Handshake ACK of 0-1 at 8 ms; ngtcp2 logs cwnd
// 14520 -> 15874 = + 1034 + 320. The ACK delivers those bytes, with its
// RTT sample, and no application packet number.
TEST(QuicTimelineTest, HandshakeAcksDeliverTheirBytes) {
  HostTrace t;
  t.quic = true;
  auto& q = t.quic_events;
  q.packets_sent = {{3000, PacketNumberSpace::kInitial, 0, 166, true, 1},
                    {3000, PacketNumberSpace::kHandshake, 0, 1034, true, 2},
                    {3000, PacketNumberSpace::kHandshake, 1, 320, true, 3},
                    {3000, PacketNumberSpace::kApplication, 0, 64, true, 4}};
  QuicAckReceived ack;
  ack.time_us = 8000;
  ack.space = PacketNumberSpace::kHandshake;
  ack.acked_ranges = {{0, 1}};
  ack.log_order = 5;
  q.acks_received = {ack};
  std::vector<TimelineEvent> events;
  const QuicTimelineStats stats = BuildQuicTimeline(
      t, [&events](const TimelineEvent& e) { events.push_back(e); });
  ASSERT_EQ(events.size(), 1u);
  EXPECT_EQ(events[0].bytes_acked, 1034u + 320);
  EXPECT_EQ(events[0].rtt_sample_us, 5000);
  EXPECT_EQ(events[0].ack, 0);
  EXPECT_EQ(events[0].send_order, -1);
  ASSERT_EQ(events[0].acked_packets.size(), 2u);
  EXPECT_EQ(events[0].acked_packets[0].bytes, 1034u);
  EXPECT_EQ(events[0].acked_packets[1].send_order, -1);
  // Only the application packet counts in flight.
  EXPECT_EQ(events[0].pipe_bytes, 64u);
  EXPECT_EQ(stats.acks, 1u);
}

// ngtcp2 writes the losses an ACK reveals before that ACK's
// packet_received (testdata/quic/ngtcp2_cubic_20mbit_pfifo12/
// server.sqlog.gz at 839 ms: packet_lost 403, 409, then the ACK, then a
// second ACK in the same millisecond). The loss is replayed after its own
// ACK and before the next one, as the logged cwnd shows (reduced after the
// first ACK, not grown by the second).
TEST(QuicTimelineTest, LossLoggedBeforeItsAckComesBeforeTheNextAck) {
  HostTrace t;
  t.quic = true;
  auto& q = t.quic_events;
  for (uint64_t pn = 0; pn < 4; ++pn) {
    q.packets_sent.push_back(
        {1000, PacketNumberSpace::kApplication, pn, 1444, true, 1 + pn});
  }
  q.packets_lost = {{5000, PacketNumberSpace::kApplication, 0, "", 10}};
  QuicAckReceived a1;
  a1.time_us = 5000;
  a1.acked_ranges = {{1, 2}};
  a1.log_order = 11;
  QuicAckReceived a2 = a1;
  a2.acked_ranges = {{1, 3}};
  a2.log_order = 13;
  q.acks_received = {a1, a2};
  std::vector<TimelineEvent> events;
  BuildQuicTimeline(t,
                    [&events](const TimelineEvent& e) { events.push_back(e); });
  ASSERT_EQ(events.size(), 3u);
  EXPECT_EQ(events[0].type, TimelineEvent::Type::kAck);
  EXPECT_EQ(events[0].log_order, 11u);
  EXPECT_EQ(events[1].type, TimelineEvent::Type::kRetransmission);
  EXPECT_EQ(events[2].type, TimelineEvent::Type::kAck);
  EXPECT_EQ(events[2].log_order, 13u);
  ASSERT_EQ(events[0].acked_packets.size(), 2u);
  EXPECT_EQ(events[0].acked_packets[0].send_order, 1);
  EXPECT_EQ(events[0].acked_packets[1].send_order, 2);
}

}  // namespace
}  // namespace ccreplay
