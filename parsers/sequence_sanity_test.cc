#include "parsers/sequence_sanity.h"

#include <algorithm>
#include <string>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "parsers/connection_expiry.h"
#include "parsers/duplicate_frames.h"

namespace ccreplay {
namespace {

using ::testing::HasSubstr;
using ::testing::IsEmpty;
using ::testing::Not;

TcpSegment Segment(bool from_client, uint32_t seq, uint32_t ack,
                   uint16_t flags = kTcpAck, uint16_t window = 1000) {
  TcpSegment s;
  IpAddress a, b;
  a.family = b.family = 4;
  a.bytes[0] = 10;
  b.bytes[0] = 11;
  s.src = from_client ? a : b;
  s.dst = from_client ? b : a;
  s.src_port = from_client ? 40000 : 5201;
  s.dst_port = from_client ? 5201 : 40000;
  s.seq = seq;
  s.ack = ack;
  s.flags = flags;
  s.window_raw = window;
  return s;
}

constexpr uint32_t kGiB = 1u << 30;

TEST(SequenceSanityTest, OneOutlierIsRejectedAndTheFlowGoesOn) {
  SequenceSanity sanity;
  EXPECT_THAT(sanity.Check(Segment(true, 1000, 1)), IsEmpty());
  EXPECT_THAT(sanity.Check(Segment(true, 2448, 1)), IsEmpty());
  // Bit 31 flipped: 2^31 away, more than the 1 GiB floor.
  EXPECT_THAT(sanity.Check(Segment(true, 3896u ^ 0x80000000u, 1)),
              HasSubstr("sequence number 2147487544 is 2147482200 bytes from "
                        "the last one (2448), more than 1073741824"));
  EXPECT_THAT(sanity.Check(Segment(true, 3896, 1)), IsEmpty());
  // An ACK number likewise (distances are taken the nearer way round
  // 2^32); sequence wrap is not a jump.
  EXPECT_THAT(sanity.Check(Segment(false, 1, 2448)), IsEmpty());
  EXPECT_THAT(sanity.Check(Segment(false, 1, 3896 + 0x80000000u)),
              HasSubstr("acknowledgment number"));
  EXPECT_THAT(sanity.Check(Segment(false, 1, 3896)), IsEmpty());
  EXPECT_THAT(sanity.Check(Segment(true, 0xfffffff0u, 1)), IsEmpty());
  EXPECT_THAT(sanity.Check(Segment(true, 0xfffffff0u + 2896, 1)), IsEmpty());
}

TEST(SequenceSanityTest, JumpJustOverTheBoundIsRejectedUnderItAccepted) {
  SequenceSanity sanity;
  EXPECT_THAT(sanity.Check(Segment(true, 0, 1)), IsEmpty());
  EXPECT_THAT(sanity.Check(Segment(true, kGiB, 1)), IsEmpty());
  EXPECT_THAT(sanity.Check(Segment(true, 2 * kGiB + 1, 1)),
              HasSubstr("more than 1073741824"));
}

TEST(SequenceSanityTest, ScaledWindowWidensTheBound) {
  SequenceSanity sanity;
  // Both SYNs offer window scale 14 (RFC 7323 §2.2); the server then
  // advertises 65535 << 14 bytes, so the client may move 2 × that.
  TcpSegment syn = Segment(true, 0, 0, kTcpSyn);
  syn.options.has_wscale = true;
  syn.options.wscale_shift = 14;
  TcpSegment syn_ack = Segment(false, 0, 1, kTcpSyn | kTcpAck);
  syn_ack.options.has_wscale = true;
  syn_ack.options.wscale_shift = 14;
  EXPECT_THAT(sanity.Check(syn), IsEmpty());
  EXPECT_THAT(sanity.Check(syn_ack), IsEmpty());
  EXPECT_THAT(sanity.Check(Segment(false, 1, 1, kTcpAck, 65535)), IsEmpty());
  EXPECT_THAT(sanity.Check(Segment(true, 1, 1)), IsEmpty());
  EXPECT_THAT(sanity.Check(Segment(true, 1 + kGiB + kGiB / 2, 1)), IsEmpty());
  // Bit 31 is still too far: 2^31 > 2 × (65535 << 14).
  EXPECT_THAT(
      sanity.Check(Segment(true, (1 + kGiB + kGiB / 2) ^ 0x80000000u, 1)),
      HasSubstr("sequence number"));
}

TEST(SequenceSanityTest, ConsistentJumpIsFollowedAfterThreeSegments) {
  SequenceSanity sanity;
  EXPECT_THAT(sanity.Check(Segment(true, 1000, 1)), IsEmpty());
  // A capture gap of 1.5 GiB: the connection really moved on.
  const uint32_t moved = 1000 + kGiB + kGiB / 2;
  EXPECT_THAT(sanity.Check(Segment(true, moved, 1)), Not(IsEmpty()));
  EXPECT_THAT(sanity.Check(Segment(true, moved + 1448, 1)), Not(IsEmpty()));
  EXPECT_THAT(sanity.Check(Segment(true, moved + 2896, 1)), IsEmpty());
  EXPECT_THAT(sanity.Check(Segment(true, moved + 4344, 1)), IsEmpty());
}

// Client `i` of many (its own port), at `time_ns`.
TcpSegment Numbered(uint16_t i, bool from_client, uint16_t flags,
                    int64_t time_ns, uint32_t seq = 1000, uint32_t ack = 1) {
  TcpSegment s = Segment(from_client, seq, ack, flags);
  (from_client ? s.src_port : s.dst_port) = 1000 + i;
  s.time_ns = time_ns;
  return s;
}

constexpr int64_t kT0 = 1'700'000'000'000'000'000;
constexpr int64_t kMs = 1'000'000;

// 20,000 connections, one starting every ms, each closed 3 ms later by
// FINs both ways (even ones) or a RST (odd ones): the sanity state holds
// those of the last linger (1 s) and sweep (1 s), not all 20,000.
TEST(SequenceSanityTest, StateFollowsTheOpenConnections) {
  SequenceSanity sanity;
  size_t most = 0;
  for (uint16_t i = 0; i < 20000; ++i) {
    const int64_t t = kT0 + i * kMs;
    ASSERT_THAT(sanity.Check(Numbered(i, true, kTcpSyn, t, 1000, 0)),
                IsEmpty());
    ASSERT_THAT(sanity.Check(
                    Numbered(i, false, kTcpSyn | kTcpAck, t + kMs, 5000, 1001)),
                IsEmpty());
    if (i % 2 == 1) {
      ASSERT_THAT(
          sanity.Check(Numbered(i, true, kTcpRst, t + 3 * kMs, 1001, 0)),
          IsEmpty());
    } else {
      ASSERT_THAT(sanity.Check(Numbered(i, false, kTcpFin | kTcpAck,
                                        t + 2 * kMs, 5001, 1001)),
                  IsEmpty());
      ASSERT_THAT(sanity.Check(Numbered(i, true, kTcpFin | kTcpAck, t + 3 * kMs,
                                        1001, 5002)),
                  IsEmpty());
    }
    most = std::max(most, sanity.connections());
  }
  // Kept: ended less than 1 s ago, plus up to one sweep interval (1 s),
  // plus the 3 ms each is open: at most 2,003 of them.
  EXPECT_GE(most, 1000u);
  EXPECT_LE(most, 2003u);
}

// Connections that never end (one SYN each, 1 ms apart) are dropped after
// the idle timeout; one that pauses for less keeps its state, so a corrupt
// number after the pause is still caught.
TEST(SequenceSanityTest, IdleConnectionsAreDroppedPausedOnesKept) {
  SequenceSanity sanity;
  ASSERT_THAT(sanity.Check(Numbered(0, true, kTcpAck, kT0, 1000, 1)),
              IsEmpty());
  const int64_t pause = kFlowIdleTimeoutNs - 1'000 * kMs;
  // Others' SYNs through the pause, one every 10 ms: sweeps run.
  for (int64_t t = kT0 + 10 * kMs; t < kT0 + pause; t += 10 * kMs) {
    const uint16_t i = 1 + (t - kT0) / (10 * kMs) % 60000;
    ASSERT_THAT(sanity.Check(Numbered(i, true, kTcpSyn, t, 7, 0)), IsEmpty());
  }
  // None idle for the timeout yet: all 12,000 held.
  EXPECT_EQ(sanity.connections(), 12000u);
  // Bit 31 flipped after the 120 s pause: still caught.
  EXPECT_THAT(sanity.Check(Numbered(0, true, kTcpAck, kT0 + pause,
                                    1000u ^ 0x80000000u, 1)),
              HasSubstr("sequence number"));
  EXPECT_THAT(sanity.Check(Numbered(0, true, kTcpAck, kT0 + pause, 2448, 1)),
              IsEmpty());
  // Twice the idle timeout later, with one other connection's segment
  // each second, all but the newest are gone, connection 0 too: its next
  // segment starts afresh.
  const int64_t later = kT0 + pause + 2 * kFlowIdleTimeoutNs;
  for (int64_t t = kT0 + pause + 1'000 * kMs; t <= later; t += 1'000 * kMs) {
    ASSERT_THAT(sanity.Check(Numbered(60001, true, kTcpAck, t, 5, 1)),
                IsEmpty());
  }
  EXPECT_EQ(sanity.connections(), 1u);
  EXPECT_THAT(
      sanity.Check(Numbered(0, true, kTcpAck, later, 2448u ^ 0x80000000u, 1)),
      IsEmpty());
  EXPECT_EQ(sanity.connections(), 2u);
}

// A holder (the flow table) keeps connection 0's state in its own record,
// its endpoints the other way round (the server first); the others stay in
// the map. Every answer is the one of a SequenceSanity holding all of them
// itself: the same rejections, and after an idle pause longer than the
// timeout (with sweeps running) the same fresh start; after its FINs and
// the linger, a port reuse's SYN starts afresh too.
TEST(SequenceSanityTest, HeldStateAnswersAsTheMapDoes) {
  SequenceSanity own, with_holder;
  ConnectionSanity held;
  std::vector<TcpSegment> segments = {
      Numbered(0, true, kTcpSyn, kT0, 1000, 0),
      Numbered(0, false, kTcpSyn | kTcpAck, kT0 + kMs, 5000, 1001),
      Numbered(0, true, kTcpAck, kT0 + 2 * kMs, 1001, 5001),
      Numbered(0, true, kTcpAck, kT0 + 3 * kMs, 1001u ^ 0x80000000u, 5001),
      Numbered(0, false, kTcpAck, kT0 + 4 * kMs, 5001, 1001u ^ 0x80000000u)};
  // Another connection's segment each second for twice the idle timeout.
  const int64_t later = kT0 + 2 * kFlowIdleTimeoutNs;
  for (int64_t t = kT0 + 1'000 * kMs; t <= later; t += 1'000 * kMs) {
    segments.push_back(Numbered(1, true, kTcpAck, t, 5, 1));
  }
  // Connection 0 again, 2^31 away: fresh state, so accepted; it goes on
  // from there and closes.
  const uint32_t b = 1001u ^ 0x80000000u;
  segments.push_back(Numbered(0, true, kTcpAck, later, b, 5001));
  segments.push_back(Numbered(0, true, kTcpAck, later + kMs, b + 1448, 5001));
  segments.push_back(
      Numbered(0, true, kTcpFin | kTcpAck, later + 2 * kMs, b + 2000, 5001));
  segments.push_back(
      Numbered(0, false, kTcpFin | kTcpAck, later + 3 * kMs, 5001, b + 2001));
  // Within the linger after the FINs: still checked.
  segments.push_back(
      Numbered(0, true, kTcpAck, later + 3 * kMs, 1u << 30, 5002));
  for (int64_t t = later + 1'000 * kMs; t <= later + 3'000 * kMs;
       t += 1'000 * kMs) {
    segments.push_back(Numbered(1, true, kTcpAck, t, 5, 1));
  }
  segments.push_back(
      Numbered(0, true, kTcpSyn, later + 3'000 * kMs, 1u << 31, 0));
  int rejected = 0;
  for (const TcpSegment& s : segments) {
    const std::string want = own.Check(s);
    const bool conn0 = s.src_port == 1000 || s.dst_port == 1000;
    const std::string got =
        conn0 ? with_holder.Check(s, held, s.src_port == 1000 ? 1 : 0)
              : with_holder.Check(s);
    EXPECT_EQ(got, want) << "at " << (s.time_ns - kT0) / kMs << " ms";
    rejected += !want.empty();
  }
  // Connection 0's flipped seq and ack, the ACK right after the second FIN.
  EXPECT_EQ(rejected, 3);
  EXPECT_EQ(with_holder.connections(), 1u);  // Connection 1's only.
}

// The state of a connection's first segments, held by the map until the
// holder made its record, moves into that record (in the record's order
// of the endpoints) and out of the map.
TEST(SequenceSanityTest, HandOverMovesTheStateIntoTheRecord) {
  SequenceSanity sanity;
  ASSERT_THAT(sanity.Check(Segment(true, 1000, 1)), IsEmpty());
  ASSERT_THAT(sanity.Check(Segment(false, 1, 1000)), IsEmpty());
  EXPECT_EQ(sanity.connections(), 1u);
  ConnectionSanity held;
  // The record has the server first: the client is side 1.
  sanity.HandOver(Segment(true, 1000, 1), held, 1);
  EXPECT_EQ(sanity.connections(), 0u);
  EXPECT_THAT(sanity.Check(Segment(true, 1000u ^ 0x80000000u, 1), held, 1),
              HasSubstr("sequence number"));
  EXPECT_THAT(sanity.Check(Segment(false, 1u ^ 0x80000000u, 1000), held, 0),
              HasSubstr("sequence number"));
  EXPECT_THAT(sanity.Check(Segment(true, 2448, 1), held, 1), IsEmpty());
  EXPECT_EQ(sanity.connections(), 0u);
  // Nothing held for the connection any more: `held` is left as it is.
  sanity.HandOver(Segment(true, 1000, 1), held, 0);
  EXPECT_THAT(sanity.Check(Segment(true, 2448u ^ 0x80000000u, 1), held, 1),
              HasSubstr("sequence number"));
}

// Held in every flow table record: kept small.
static_assert(sizeof(ConnectionSanity) <= 64, "ConnectionSanity grew");

// The duplicate-frame state keeps only the connections of the last
// kDuplicateStateNs (10 ms): 20,000 connections, one frame each 1 ms
// apart, leave at most 20 held; a copy 0.5 ms after its frame is still
// caught.
TEST(DuplicateFramesStateTest, FollowsTheRecentConnections) {
  DuplicateFrames duplicates;
  size_t most = 0;
  for (uint16_t i = 0; i < 20000; ++i) {
    TcpSegment s = Numbered(i, true, kTcpSyn, kT0 + i * kMs, 1000, 0);
    s.ip_id = 7;
    ASSERT_FALSE(duplicates.IsDuplicate(s));
    most = std::max(most, duplicates.connections());
    if (i % 100 == 0) {
      s.time_ns += kMs / 2;
      EXPECT_TRUE(duplicates.IsDuplicate(s));
    }
  }
  EXPECT_GE(most, 10u);
  EXPECT_LE(most, 21u);
}

}  // namespace
}  // namespace ccreplay
