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
  // A 1,000-byte record boundary in a burst moves the estimate down by at
  // most one step (the MSS / 16), and it climbs back.
  FullSegmentSize full;
  for (int i = 0; i < 100; ++i) full.OnFullSegment(1448, 1448);
  full.OnFullSegment(1000, 1448);
  EXPECT_GE(full.ShortBelowBytes(1448), 1448u - 1448u / 16);
  EXPECT_LT(full.ShortBelowBytes(1448), 1448u);
  for (int i = 0; i < 400; ++i) full.OnFullSegment(1448, 1448);
  EXPECT_EQ(full.ShortBelowBytes(1448), 1448u);
}

// zeek_http_bro.org.pcap's server reaches the client through VirtualBox's
// NAT, which sends its 1,448-byte segments as 1,420 + 28: 130 of its 436
// data segments are under 730 bytes (mostly 28 and 56), 295 are 1,420
// (`tshark -r zeek_http_bro.org.pcap.gz -Y "tcp.srcport==80 && tcp.len>0"
// -T fields -e tcp.len | sort -n | uniq -c`), and each 28-byte part is
// followed at once. So many low sizes would drag a 5 % quantile down to
// them and make no segment short (the 384-byte end of a response before
// 2 s of idle included); under half the MSS they are no full segments and
// leave the estimate alone.
TEST(FullSegmentSize, RemaindersUnderHalfTheMssAreNotFullSegments) {
  FullSegmentSize full;
  for (int i = 0; i < 300; ++i) {
    full.OnFullSegment(1420, 1460);
    full.OnFullSegment(i % 2 ? 28 : 56, 1460);
  }
  EXPECT_EQ(full.ShortBelowBytes(1460), 1420u);
  // Half the MSS and above still counts (a path MTU change).
  for (int i = 0; i < 300; ++i) full.OnFullSegment(730, 1460);
  EXPECT_EQ(full.ShortBelowBytes(1460), 730u);
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
