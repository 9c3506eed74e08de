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

}  // namespace
}  // namespace ccreplay
