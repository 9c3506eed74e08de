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

// ngtcp2 keeps one delivery-rate sampler for the three spaces (its
// conn->rst), so the bytes of the Initial and Handshake ACKs are in the
// `delivered` that the first application packets record when sent. The
// start of testdata/lab/ngtcp2_reno_1452_20mbit_40ms_pfifo20/server-qlog/
// flow0.sqlog.gz (zcat | head -70): Initial pn 0 (166 bytes), Handshake pn
// 0 (725) and 1-RTT pn 0 (561) at 0 ms, their Initial and Handshake ACKs
// at 41 ms, 1-RTT pn 1-11 (1452 each) at 41 ms, the ACK of 1-RTT 0 at
// 46 ms, then ACKs of 0-2, 0-4, .., 0-10 at 82 .. 86 ms. Packet 1 recorded
// delivered = 166 + 725; the ACK at 86 ms has delivered 561 + 10 * 1452
// more over max(41 - 0, 82 - 41) ms (by hand: 15081 / 0.041 s). Counting
// only the application space, no packet recorded a delivered above the
// first one's 0 and there was no sample at all until 122 ms: the model's
// growth cap stayed at 2.89 x 14520 and held cwnd at 42108 while ngtcp2's
// grew to 52272 by 138 ms.
TEST(QuicTimelineTest, HandshakePacketsCountInTheDeliveryRate) {
  HostTrace t;
  t.quic = true;
  auto& q = t.quic_events;
  q.packets_sent = {{0, PacketNumberSpace::kInitial, 0, 166, true},
                    {0, PacketNumberSpace::kHandshake, 0, 725, true},
                    {0, PacketNumberSpace::kApplication, 0, 561, true}};
  for (uint64_t pn = 1; pn <= 11; ++pn) {
    q.packets_sent.push_back(
        {41000, PacketNumberSpace::kApplication, pn, 1452, true});
  }
  QuicAckReceived initial;
  initial.time_us = 41000;
  initial.space = PacketNumberSpace::kInitial;
  initial.acked_ranges = {{0, 0}};
  QuicAckReceived handshake = initial;
  handshake.space = PacketNumberSpace::kHandshake;
  q.acks_received = {initial, handshake};
  for (uint64_t last = 0; last <= 10; last += 2) {
    QuicAckReceived a;
    a.time_us = last == 0 ? 46000 : 81000 + 1000 * int64_t(last / 2);
    a.acked_ranges = {{0, last}};
    q.acks_received.push_back(a);
  }
  std::vector<TimelineEvent> events;
  BuildQuicTimeline(t,
                    [&events](const TimelineEvent& e) { events.push_back(e); });
  ASSERT_EQ(events.size(), 8u);
  // No sample before a packet that recorded a delivered above 0 is acked.
  EXPECT_EQ(events[2].delivery_rate_bytes_per_s, 0u);
  // 82 ms: (561 + 2 * 1452) bytes over 41 ms.
  EXPECT_EQ(events[3].time_ns, 82000000);
  EXPECT_EQ(events[3].delivery_rate_bytes_per_s, 3465u * 1000 / 41);
  EXPECT_EQ(events[7].time_ns, 86000000);
  EXPECT_EQ(events[7].delivery_rate_bytes_per_s, 15081u * 1000 / 41);
}

// A Handshake packet never acknowledged leaves the flight when the
// handshake completes (ngtcp2 conn_discard_pktns(); here at the first
// application ACK), so a send after the application flight drained starts
// a new sampling interval (ngtcp2_rst_on_pkt_sent: bytes_in_flight == 0).
TEST(QuicTimelineTest, UnackedHandshakePacketsLeaveTheSamplersFlight) {
  HostTrace t;
  t.quic = true;
  auto& q = t.quic_events;
  q.packets_sent = {{0, PacketNumberSpace::kHandshake, 0, 1000, true},
                    {0, PacketNumberSpace::kApplication, 0, 1200, true},
                    {100000, PacketNumberSpace::kApplication, 1, 1200, true},
                    {110000, PacketNumberSpace::kApplication, 2, 1200, true}};
  QuicAckReceived a1;
  a1.time_us = 40000;
  a1.acked_ranges = {{0, 0}};
  QuicAckReceived a2;
  a2.time_us = 150000;
  a2.acked_ranges = {{0, 2}};
  q.acks_received = {a1, a2};
  std::vector<TimelineEvent> events;
  BuildQuicTimeline(t,
                    [&events](const TimelineEvent& e) { events.push_back(e); });
  ASSERT_EQ(events.size(), 2u);
  // Interval from the send of pn 1 (100 ms, flight 0) to 150 ms: 50 ms.
  // With the Handshake packet still in flight it would run from 0 ms
  // (send) and 40 ms (ACK): 2400 bytes / 110 ms.
  EXPECT_EQ(events[1].delivery_rate_bytes_per_s, 2400u * 1000 / 50);
}

}  // namespace
}  // namespace ccreplay
