#include "replay/full_segment_size.h"

#include "gtest/gtest.h"

namespace ccreplay {
namespace {

TEST(FullSegmentSize, IsTheMssUntilAFullSegmentIsSeen) {
  FullSegmentSize full;
  EXPECT_EQ(full.ShortBelowBytes(1448), 1448u);
}

TEST(FullSegmentSize, OneSizeIsThatSize) {
  // A Linux sender: every full segment carries the MSS.
  FullSegmentSize full;
  for (int i = 0; i < 500; ++i) full.OnFullSegment(1448, 1448);
  EXPECT_EQ(full.ShortBelowBytes(1448), 1448u);
  EXPECT_EQ(full.ShortBelowBytes(1400), 1400u);  // Never above the MSS.
}

TEST(FullSegmentSize, SettlesNearTheLowQuantileOfVaryingSizes) {
  // Full segments in 16-byte steps from 1,338 to 1,434 bytes, the largest
  // most common, as in zeek-tcprs_fast019.pcap (tshark -r ... -T fields
  // -e tcp.len: 271 of 1434, 28 of 1418, 17 of 1386, 19 of 1338, ...).
  const uint32_t cycle[20] = {1434, 1434, 1434, 1418, 1434, 1402, 1434,
                              1434, 1386, 1434, 1434, 1370, 1434, 1434,
                              1354, 1434, 1418, 1434, 1434, 1338};
  FullSegmentSize full;
  for (int i = 0; i < 2000; ++i) full.OnFullSegment(cycle[i % 20], 1434);
  // One in 20 is 1,338: the 5th percentile is between it and the next.
  EXPECT_GE(full.ShortBelowBytes(1434), 1338u);
  EXPECT_LE(full.ShortBelowBytes(1434), 1360u);
}

TEST(FullSegmentSize, OneOddSegmentDoesNotMakeEveryOtherShort) {
  // A 200-byte record boundary in a burst moves the estimate down by at
  // most one step (the MSS / 16), and it climbs back.
  FullSegmentSize full;
  for (int i = 0; i < 100; ++i) full.OnFullSegment(1448, 1448);
  full.OnFullSegment(200, 1448);
  EXPECT_GE(full.ShortBelowBytes(1448), 1448u - 1448u / 16);
  EXPECT_LT(full.ShortBelowBytes(1448), 1448u);
  for (int i = 0; i < 400; ++i) full.OnFullSegment(1448, 1448);
  EXPECT_EQ(full.ShortBelowBytes(1448), 1448u);
}

TEST(FullSegmentSize, FollowsALowerPathMtu) {
  // RFC 8201: the path MTU drops and every full segment is 1,200 bytes.
  FullSegmentSize full;
  for (int i = 0; i < 100; ++i) full.OnFullSegment(1448, 1448);
  for (int i = 0; i < 100; ++i) full.OnFullSegment(1200, 1448);
  EXPECT_EQ(full.ShortBelowBytes(1448), 1200u);
  EXPECT_EQ(full.ShortBelowBytes(1200), 1200u);
}

}  // namespace
}  // namespace ccreplay
