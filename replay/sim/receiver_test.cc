#include "replay/sim/receiver.h"

#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "gtest/gtest.h"

namespace ccreplay {
namespace {

constexpr uint32_t kBytes = 1000;

// Delivers packet numbers `pns` (packet n carries stream bytes
// [n * kBytes, (n + 1) * kBytes) unless `seq_of` maps it elsewhere) and
// returns the ACKs as "first-last" packet-number ranges, "t" where the
// delayed-ACK timer was armed instead.
std::vector<std::string> AckSequence(
    RecoveryAcks policy,
    const std::vector<std::pair<uint64_t, uint64_t>>& pn_and_seq_index) {
  ReceiverConfig config;
  config.ack_every = 2;
  config.recovery_acks = policy;
  Receiver receiver(config);
  std::vector<std::string> acks;
  Receiver::Output out;
  for (const auto& [pn, index] : pn_and_seq_index) {
    SimPacket packet;
    packet.pn = pn;
    packet.seq = index * kBytes;
    packet.bytes = kBytes;
    receiver.OnPacket(packet, 0, out);
    for (int k = 0; k < out.ack_count; ++k) {
      acks.push_back(
          absl::StrCat(out.acks[k].pn_first, "-", out.acks[k].pn_last));
    }
    if (out.arm_timer) acks.push_back("t");
  }
  return acks;
}

// Packets 0..9 carry segments 0..9; packet 4 is lost and its segment is
// retransmitted as packet 10 (packet numbers are never reused).
std::vector<std::pair<uint64_t, uint64_t>> OneLossThenRepair() {
  return {{0, 0}, {1, 1}, {2, 2}, {3, 3}, {5, 5},
          {6, 6}, {7, 7}, {8, 8}, {9, 9}, {10, 4}};
}

// Worked by hand from the two rules (receiver.h):
// - ours (RFC 5681 section 4.2): every packet after the gap is ACKed at once
//   while segment 4 is missing, and so is the repair;
// - quicly (lib/quicly.c record_receipt() @ b11d363): packet 5 does not
//   extend the highest received range, so it is ACKed at once; 6..10 extend
//   it again, so they are ACKed every 2 packets, the repair (packet 10,
//   in packet-number order) included.
TEST(Receiver, RecoveryAcksEveryPacketWhileHoleVersusQuiclyOnNewGap) {
  EXPECT_EQ(
      AckSequence(RecoveryAcks::kEveryPacketWhileHole, OneLossThenRepair()),
      (std::vector<std::string>{"t", "0-1", "t", "2-3", "5-5", "6-6", "7-7",
                                "8-8", "9-9", "10-10"}));
  EXPECT_EQ(AckSequence(RecoveryAcks::kOnNewGap, OneLossThenRepair()),
            (std::vector<std::string>{"t", "0-1", "t", "2-3", "5-5", "t", "6-7",
                                      "t", "8-9", "t"}));
}

// A gap with one packet pending: both flush the pending packet first (every
// ACK covers a contiguous packet-number range, sim_packet.h), then ACK the
// packet that revealed the gap; a second gap is a new gap for quicly too.
TEST(Receiver, QuiclyAcksEachNewGapAtOnce) {
  const std::vector<std::pair<uint64_t, uint64_t>> two_gaps = {
      {0, 0}, {2, 2}, {3, 3}, {5, 5}, {6, 6}};
  EXPECT_EQ(
      AckSequence(RecoveryAcks::kOnNewGap, two_gaps),
      (std::vector<std::string>{"t", "0-0", "2-2", "t", "3-3", "5-5", "t"}));
  EXPECT_EQ(AckSequence(RecoveryAcks::kEveryPacketWhileHole, two_gaps),
            (std::vector<std::string>{"t", "0-0", "2-2", "3-3", "5-5", "6-6"}));
}

// GRO-style thinning (ack_every = k): N in-order packets give floor(N / k)
// ACKs of k packets each, and the remainder waits for the flush timer, which
// ACKs it: ceil(N / k) ACKs in all. Checked for k = 2, 16 and 64, as the
// prague-rtt-scaling ablation uses.
TEST(Receiver, AckEveryKGivesCeilNOverKAcks) {
  constexpr uint64_t kPackets = 100;
  for (uint32_t k : {2u, 16u, 64u}) {
    ReceiverConfig config;
    config.ack_every = k;
    Receiver receiver(config);
    Receiver::Output out;
    uint64_t acks = 0;
    uint64_t armed_generation = 0;
    bool armed = false;
    for (uint64_t pn = 0; pn < kPackets; ++pn) {
      SimPacket packet;
      packet.pn = pn;
      packet.seq = pn * kBytes;
      packet.bytes = kBytes;
      receiver.OnPacket(packet, 0, out);
      for (int a = 0; a < out.ack_count; ++a) {
        EXPECT_EQ(out.acks[a].pn_last - out.acks[a].pn_first + 1, k);
        ++acks;
      }
      if (out.arm_timer) {
        armed = true;
        armed_generation = receiver.generation();
      }
    }
    EXPECT_EQ(acks, kPackets / k) << "k=" << k;
    ASSERT_TRUE(armed);
    // The timer flushes the remainder; with none (k = 2) it finds nothing.
    SimAck last;
    const bool flushed = receiver.OnDelayedAckTimer(armed_generation, 0, last);
    EXPECT_EQ(flushed, kPackets % k != 0) << "k=" << k;
    if (flushed) {
      EXPECT_EQ(last.pn_last, kPackets - 1);
      ++acks;
    }
    EXPECT_EQ(acks, (kPackets + k - 1) / k) << "k=" << k;
  }
}

TEST(Receiver, ParsesRecoveryAcks) {
  EXPECT_EQ(*ParseRecoveryAcks("every_packet_while_hole"),
            RecoveryAcks::kEveryPacketWhileHole);
  EXPECT_EQ(*ParseRecoveryAcks("on_new_gap"), RecoveryAcks::kOnNewGap);
  EXPECT_FALSE(ParseRecoveryAcks("quicly").ok());
}

// The ACK the receiver sends for packet number `pn` carrying segment `index`
// (bytes [index * kBytes, (index + 1) * kBytes)).
SimAck Deliver(Receiver& receiver, uint64_t pn, uint64_t index) {
  SimPacket p;
  p.pn = pn;
  p.seq = index * kBytes;
  p.bytes = kBytes;
  Receiver::Output out;
  receiver.OnPacket(p, static_cast<int64_t>(pn) * 1000, out);
  EXPECT_GE(out.ack_count, 1);
  return out.acks[out.ack_count - 1];
}

// RFC 2018 section 4: the first SACK block holds the segment that triggered
// the ACK, the others the most recently reported ones. With five holes, a
// receiver that reported the lowest three ranges would hide every arrival
// above them until holes filled, and the sender would learn of a round
// trip's delivery at once.
TEST(ReceiverSack, FirstBlockHoldsTheNewestSegment) {
  ReceiverConfig config;
  config.ack_every = 1;
  Receiver receiver(config);
  uint64_t pn = 0;
  Deliver(receiver, pn++, 0);
  // Segments 2, 4, 6, 8, 10 arrive; 1, 3, 5, 7, 9 are lost.
  SimAck ack;
  for (uint64_t index = 2; index <= 10; index += 2)
    ack = Deliver(receiver, ++pn, index);
  EXPECT_EQ(ack.cumulative_ack, 1 * kBytes);
  ASSERT_EQ(ack.sack_blocks, 3);
  EXPECT_EQ(ack.sack_start[0], 10 * kBytes);
  EXPECT_EQ(ack.sack_end[0], 11 * kBytes);
  EXPECT_EQ(ack.sack_start[1], 8 * kBytes);
  EXPECT_EQ(ack.sack_start[2], 6 * kBytes);
  // Segment 3 arrives and joins 2 and 4: that range comes first, then the
  // two most recently grown ones.
  ack = Deliver(receiver, ++pn, 3);
  ASSERT_EQ(ack.sack_blocks, 3);
  EXPECT_EQ(ack.sack_start[0], 2 * kBytes);
  EXPECT_EQ(ack.sack_end[0], 5 * kBytes);
  EXPECT_EQ(ack.sack_start[1], 10 * kBytes);
  EXPECT_EQ(ack.sack_start[2], 8 * kBytes);
}

// Without SACK blocks (a simulation with no observer) the ACKs are the same
// in everything the sender reads: packet-number range and cumulative ACK.
TEST(ReceiverSack, OffLeavesTheAckOtherwiseUnchanged) {
  ReceiverConfig with_config;
  with_config.ack_every = 1;
  ReceiverConfig without_config = with_config;
  without_config.sack_blocks = false;
  Receiver with(with_config), without(without_config);
  uint64_t pn = 0;
  // Segments 0, 2, 4, 6 then 1, 3: holes open and fill.
  for (uint64_t index : {0, 2, 4, 6, 1, 3}) {
    const SimAck a = Deliver(with, pn, index);
    const SimAck b = Deliver(without, pn, index);
    ++pn;
    EXPECT_EQ(a.pn_first, b.pn_first);
    EXPECT_EQ(a.pn_last, b.pn_last);
    EXPECT_EQ(a.cumulative_ack, b.cumulative_ack);
    EXPECT_EQ(b.sack_blocks, 0);
  }
  // Segment 8 then: the receiver with blocks reports [8, 9) and [6, 7)
  // above the cumulative ACK 5 * kBytes, so the blocks were really built.
  const SimAck last = Deliver(with, pn, 8);
  EXPECT_EQ(last.cumulative_ack, 5 * kBytes);
  ASSERT_EQ(last.sack_blocks, 2);
  EXPECT_EQ(last.sack_start[0], 8 * kBytes);
  EXPECT_EQ(last.sack_start[1], 6 * kBytes);
}

}  // namespace
}  // namespace ccreplay
