#include "parsers/sequence_tracker.h"

#include "gtest/gtest.h"

namespace ccreplay {
namespace {

TEST(SequenceTrackerTest, UnwrapsAcrossTheThirtyTwoBitWrap) {
  SequenceTracker t;
  t.Start(0xfffff000u);  // ISN 4096 bytes below the wrap.
  EXPECT_EQ(t.Unwrap(0xfffff001u), 1);
  EXPECT_EQ(t.Unwrap(0x00000010u),
            0x1010 + 1 - 1 + 0);  // 0x1000 to the wrap + 0x10
  // Beyond 2^32 bytes the count keeps growing: 4 GiB + 1 MiB later.
  int64_t value = 0;
  for (uint64_t step = 0; step <= (1ull << 32) + (1 << 20); step += 1u << 30) {
    value = t.Unwrap(static_cast<uint32_t>(0xfffff000u + step));
  }
  EXPECT_EQ(value, static_cast<int64_t>(4ull << 30));
  // An older sequence number (a retransmission) unwraps backwards.
  EXPECT_EQ(t.Unwrap(static_cast<uint32_t>(0xfffff000u + (4ull << 30) - 100)),
            (4ll << 30) - 100);
}

TEST(SequenceTrackerTest, CountsEachByteOnceAndFillsHoles) {
  SequenceTracker t;
  t.Start(0);
  EXPECT_EQ(t.Record(1, 100).new_bytes, 100u);
  // A jump leaves a hole [101, 201).
  SequenceTracker::Coverage jump = t.Record(201, 100);
  EXPECT_EQ(jump.new_bytes, 100u);
  EXPECT_FALSE(jump.below_highest);
  // Filling half of the hole: new bytes, below the highest, no overlap.
  SequenceTracker::Coverage fill = t.Record(101, 50);
  EXPECT_EQ(fill.new_bytes, 50u);
  EXPECT_TRUE(fill.below_highest);
  EXPECT_FALSE(fill.overlaps_seen);
  // A segment across the rest of the hole and seen data: 50 new bytes.
  SequenceTracker::Coverage mixed = t.Record(141, 100);
  EXPECT_EQ(mixed.new_bytes, 50u);
  EXPECT_TRUE(mixed.overlaps_seen);
  // A plain retransmission of seen data.
  SequenceTracker::Coverage again = t.Record(1, 100);
  EXPECT_EQ(again.new_bytes, 0u);
  EXPECT_TRUE(again.overlaps_seen);
  EXPECT_EQ(t.highest_end(), 301);
}

TEST(SequenceTrackerTest, SegmentInsideAHoleSplitsIt) {
  SequenceTracker t;
  t.Start(0);
  t.Record(1, 10);
  t.Record(101, 10);                           // hole [11, 101)
  EXPECT_EQ(t.Record(41, 10).new_bytes, 10u);  // holes [11,41) and [51,101)
  EXPECT_EQ(t.Record(11, 90).new_bytes, 80u);  // fills both, 10 seen
}

TEST(SequenceTrackerTest, SaysWhenTheFilledHoleOpened) {
  SequenceTracker t;
  t.Start(0);
  t.Record(1, 100, 1000);
  t.Record(201, 100, 2000);  // Opens [101, 201) at t = 2000.
  t.Record(401, 100, 3000);  // Opens [301, 401) at t = 3000.
  EXPECT_EQ(t.Record(101, 100, 3100).filled_hole_opened_ns, 2000);
  EXPECT_EQ(t.Record(301, 50, 3200).filled_hole_opened_ns, 3000);
  // The rest of the second hole keeps its opening time after the split.
  EXPECT_EQ(t.Record(351, 50, 3300).filled_hole_opened_ns, 3000);
  // Seen data fills no hole.
  EXPECT_EQ(t.Record(1, 100, 3400).filled_hole_opened_ns, 0);
}

TEST(SequenceTrackerTest, DataBeforeTheFirstSegmentSeen) {
  // Capture started mid-connection: an older segment is new, not a
  // retransmission of anything seen.
  SequenceTracker t;
  t.Start(999);
  EXPECT_EQ(t.Record(1, 100).new_bytes, 100u);
  SequenceTracker::Coverage older = t.Record(-99, 100);
  EXPECT_EQ(older.new_bytes, 100u);
  EXPECT_FALSE(older.overlaps_seen);
}

}  // namespace
}  // namespace ccreplay
