#include "replay/sim/bottleneck.h"

#include <vector>

#include "gtest/gtest.h"
#include "parsers/tcp_segment.h"

namespace ccreplay {
namespace {

SimPacket Packet(uint32_t bytes, uint8_t ecn = kNotEct) {
  SimPacket packet;
  packet.bytes = bytes;
  packet.ecn = ecn;
  return packet;
}

// Feeds `sizes` into an idle buffer of `capacity` bytes (nothing leaves) and
// returns which were admitted.
std::vector<bool> Admitted(AdmissionPolicy policy, uint64_t capacity,
                           const std::vector<uint32_t>& sizes) {
  BottleneckConfig config;
  config.rate_bps = 1'000'000;
  config.buffer_bytes = capacity;
  config.admission = policy;
  config.largest_packet_bytes = 1462;
  Bottleneck bottleneck(config);
  std::vector<bool> admitted;
  for (uint32_t bytes : sizes) {
    admitted.push_back(bottleneck.Enqueue(Packet(bytes), 0));
  }
  return admitted;
}

// A 5000-byte buffer, flows of 1462 and 1280 bytes. Worked by hand:
//   arrival   byte-fit (fits?)          size-neutral (queued + 1462 <= 5000?)
//   1462      0+1462 ok    -> 1462      0+1462 ok    -> 1462
//   1280      1462+1280 ok -> 2742      1462+1462 ok -> 2742
//   1280      2742+1280 ok -> 4022      2742+1462 ok -> 4022
//   1280      4022+1280 no (5302)       4022+1462 no
//   1462      4022+1462 no              4022+1462 no
// and with 4022 -> 3600 queued instead (buffer 4880):
//   1280      3600+1280 = 4880 ok       3600+1462 = 5062 no: the last MTU
//   1462      4880+1462 no: locked out   3600+1462 no (same as the 1280)
TEST(Admission, SizeNeutralReservesTheLargestPacket) {
  const std::vector<uint32_t> sizes = {1462, 1280, 1280, 1280, 1462};
  EXPECT_EQ(Admitted(AdmissionPolicy::kByteFit, 5000, sizes),
            (std::vector<bool>{true, true, true, false, false}));
  EXPECT_EQ(Admitted(AdmissionPolicy::kPacketSizeNeutral, 5000, sizes),
            (std::vector<bool>{true, true, true, false, false}));

  // 1280 + 1280 + 1040 = 3600 queued in a 4880-byte buffer.
  const std::vector<uint32_t> lockout = {1280, 1280, 1040, 1280, 1462};
  EXPECT_EQ(Admitted(AdmissionPolicy::kByteFit, 4880, lockout),
            (std::vector<bool>{true, true, true, true, false}));
  EXPECT_EQ(Admitted(AdmissionPolicy::kPacketSizeNeutral, 4880, lockout),
            (std::vector<bool>{true, true, true, false, false}));
}

TEST(Admission, BoundaryIsInclusive) {
  // queued + size == capacity fits (quicly drops only when it exceeds).
  EXPECT_TRUE(Admits(AdmissionPolicy::kByteFit, 3000, 1000, 4000, 1462));
  EXPECT_FALSE(Admits(AdmissionPolicy::kByteFit, 3001, 1000, 4000, 1462));
  EXPECT_TRUE(
      Admits(AdmissionPolicy::kPacketSizeNeutral, 2538, 1000, 4000, 1462));
  EXPECT_FALSE(
      Admits(AdmissionPolicy::kPacketSizeNeutral, 2539, 1000, 4000, 1462));
}

TEST(Bottleneck, SerializesAtTheRateWithoutDrift) {
  BottleneckConfig config;
  config.rate_bps = 3'000'000;  // 1000 bytes take 2666.67 us
  config.buffer_bytes = 1'000'000;
  config.largest_packet_bytes = 1000;
  Bottleneck bottleneck(config);
  int64_t now_ns = 0;
  for (int i = 0; i < 3000; ++i) {
    ASSERT_TRUE(bottleneck.Enqueue(Packet(1000), now_ns));
    now_ns = bottleneck.StartTransmission(now_ns);
    bottleneck.FinishTransmission();
  }
  // 3000 * 8000 bits / 3e6 bit/s = 8 s exactly.
  EXPECT_EQ(now_ns, 8'000'000'000);
}

TEST(Bottleneck, MarksEctBySojournAndBacklog) {
  BottleneckConfig config;
  config.rate_bps = 8'000'000;  // 1000 bytes per ms
  config.buffer_bytes = 100'000;
  config.largest_packet_bytes = 1000;
  config.ce_sojourn_threshold_ns = 2'000'000;
  Bottleneck bottleneck(config);
  // Four ECT(0) packets and one Not-ECT arrive together; the k-th starts
  // after k ms, so the 4th (3 ms) is marked; the 5th is Not-ECT: never.
  for (int i = 0; i < 4; ++i) bottleneck.Enqueue(Packet(1000, kEct0), 0);
  bottleneck.Enqueue(Packet(1000, kNotEct), 0);
  std::vector<uint8_t> ecn;
  int64_t now_ns = 0;
  for (int i = 0; i < 5; ++i) {
    now_ns = bottleneck.StartTransmission(now_ns);
    ecn.push_back(bottleneck.FinishTransmission().ecn);
  }
  // Sojourn 0, 1, 2 (not above 2), 3 ms.
  EXPECT_EQ(ecn, (std::vector<uint8_t>{kEct0, kEct0, kEct0, kCe, kNotEct}));
  EXPECT_EQ(bottleneck.ce_marks(), 1u);

  config.ce_sojourn_threshold_ns = -1;
  config.ce_backlog_threshold_bytes = 1500;
  Bottleneck step(config);
  std::vector<uint8_t> step_ecn;
  for (int i = 0; i < 4; ++i) step.Enqueue(Packet(1000, kEct1), 0);
  for (int i = 0; i < 4; ++i) {
    step.StartTransmission(0);
    step_ecn.push_back(step.FinishTransmission().ecn);
  }
  // Backlog found on arrival: 0, 1000, 2000, 3000 bytes; > 1500 marks.
  EXPECT_EQ(step_ecn, (std::vector<uint8_t>{kEct1, kEct1, kCe, kCe}));
}

// Worked by hand: a buffer of exactly one 1462-byte packet, size-neutral
// admission (reserve 1462). A 1462-byte packet is in service when a
// 1280-byte one arrives.
//   until_last_bit:   1462 (in service) + 1462 > 1462 -> dropped
//   dequeue_at_start:    0 (in service left) + 1462 <= 1462 -> admitted
// (quicly t/simulator.c @ b79ea471: net_bottleneck_run() dequeues the head
// before it is serialized.) Once the packet has left, both admit.
TEST(Bottleneck, PacketInServiceCountsOnlyUntilItStartsWithQuiclyAccounting) {
  for (InServiceAccounting accounting :
       {InServiceAccounting::kUntilLastBit,
        InServiceAccounting::kDequeueAtStart}) {
    const bool quicly = accounting == InServiceAccounting::kDequeueAtStart;
    SCOPED_TRACE(quicly ? "dequeue_at_start" : "until_last_bit");
    BottleneckConfig config;
    config.rate_bps = 1'000'000;
    config.buffer_bytes = 1462;
    config.largest_packet_bytes = 1462;
    config.in_service = accounting;
    Bottleneck bottleneck(config);
    ASSERT_TRUE(bottleneck.Enqueue(Packet(1462), 0));
    EXPECT_EQ(bottleneck.admission_bytes(), 1462u);
    const int64_t done_ns = bottleneck.StartTransmission(0);
    EXPECT_EQ(done_ns, 11'696'000);               // 1462 * 8 bits at 1 Mbit/s
    EXPECT_EQ(bottleneck.queued_bytes(), 1462u);  // still on the wire
    EXPECT_EQ(bottleneck.admission_bytes(), quicly ? 0u : 1462u);
    EXPECT_EQ(bottleneck.Enqueue(Packet(1280), 1000), quicly);
    EXPECT_EQ(bottleneck.drops(), quicly ? 0u : 1u);
    EXPECT_EQ(bottleneck.FinishTransmission().bytes, 1462u);
    EXPECT_EQ(bottleneck.admission_bytes(), quicly ? 1280u : 0u);
    // A second 1462-byte packet: behind the admitted 1280 (quicly) the
    // reserve no longer fits; on an empty buffer (ours) it does.
    EXPECT_EQ(bottleneck.Enqueue(Packet(1462), done_ns), !quicly);
  }
}

// Four 1448-byte ECT(1) packets arrive together at 1 Gbit/s (11.584 us
// each) with a 20 us sojourn threshold: dequeued at 0, 11.584, 23.168 and
// 34.752 us. Packets 0-2 are one TSO skb, packet 3 the next. Per segment,
// 2 and 3 are over the threshold; per skb, the skb's first segment (0 us)
// decides for 1 and 2, and packet 3 (a new skb) is judged by itself.
TEST(Bottleneck, SojournMarkingPerSkbFollowsTheSkbsFirstSegment) {
  auto marked = [](bool per_skb) {
    BottleneckConfig config;
    config.rate_bps = 1'000'000'000;
    config.buffer_bytes = 100'000;
    config.largest_packet_bytes = 1448;
    config.ce_sojourn_threshold_ns = 20'000;
    config.ce_per_skb = per_skb;
    Bottleneck bottleneck(config);
    for (uint64_t skb : {1, 1, 1, 2}) {
      SimPacket packet = Packet(1448, kEct1);
      packet.skb = skb;
      EXPECT_TRUE(bottleneck.Enqueue(packet, 0));
    }
    std::vector<bool> ce;
    int64_t now_ns = 0;
    for (int k = 0; k < 4; ++k) {
      now_ns = bottleneck.StartTransmission(now_ns);
      ce.push_back(bottleneck.FinishTransmission().ecn == kCe);
    }
    return ce;
  };
  EXPECT_EQ(marked(false), (std::vector<bool>{false, false, true, true}));
  EXPECT_EQ(marked(true), (std::vector<bool>{false, false, false, true}));
}

// RFC 2697's committed bucket, worked by hand: 8 Mbit/s is 1000 bytes per
// ms, the bucket holds 10000 bytes and starts full. Ten 1000-byte packets
// at t = 0 take it all; the eleventh is dropped; 1 ms later one packet's
// worth has accrued, 0.5 ms after that half of one.
TEST(Bottleneck, PolicerDropsAboveItsBucket) {
  BottleneckConfig config;
  config.rate_bps = 100'000'000;
  config.buffer_bytes = 1'000'000;
  config.policer_rate_bps = 8'000'000;
  config.policer_burst_bytes = 10'000;
  Bottleneck bottleneck(config);
  for (int i = 0; i < 10; ++i) {
    EXPECT_TRUE(bottleneck.Enqueue(Packet(1000), 0)) << i;
  }
  EXPECT_FALSE(bottleneck.Enqueue(Packet(1000), 0));
  EXPECT_TRUE(bottleneck.Enqueue(Packet(1000), 1'000'000));
  EXPECT_FALSE(bottleneck.Enqueue(Packet(1000), 1'500'000));
  EXPECT_TRUE(bottleneck.Enqueue(Packet(500), 1'500'000));
  EXPECT_EQ(bottleneck.policer_drops(), 2u);
  EXPECT_EQ(bottleneck.drops(), 2u);
}

TEST(Bottleneck, ParsesInServiceAccounting) {
  EXPECT_EQ(*ParseInServiceAccounting("until_last_bit"),
            InServiceAccounting::kUntilLastBit);
  EXPECT_EQ(*ParseInServiceAccounting("dequeue_at_start"),
            InServiceAccounting::kDequeueAtStart);
  EXPECT_FALSE(ParseInServiceAccounting("quicly").ok());
  EXPECT_EQ(*ParseBottleneckDelivery("at_last_bit"),
            BottleneckDelivery::kAtLastBit);
  EXPECT_EQ(*ParseBottleneckDelivery("at_start"), BottleneckDelivery::kAtStart);
  EXPECT_FALSE(ParseBottleneckDelivery("start").ok());
}

}  // namespace
}  // namespace ccreplay
