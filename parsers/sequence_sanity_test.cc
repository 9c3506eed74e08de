#include "parsers/sequence_sanity.h"

#include "gmock/gmock.h"
#include "gtest/gtest.h"

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

}  // namespace
}  // namespace ccreplay
