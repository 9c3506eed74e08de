// Tracks one direction's sequence space: unwraps 32-bit sequence numbers to
// 64 bits (RFC 9293 §3.4: arithmetic modulo 2^32; a segment is placed at the
// value nearest the last one seen), and counts each sequence number once
// even when a retransmission fills a hole the capture missed.
#ifndef CCREPLAY_PARSERS_SEQUENCE_TRACKER_H_
#define CCREPLAY_PARSERS_SEQUENCE_TRACKER_H_

#include <cstddef>
#include <cstdint>
#include <vector>

namespace ccreplay {

class SequenceTracker {
 public:
  // Sets the origin: `isn` is the SYN's sequence number (or, without a SYN,
  // one before the first sequence number seen), so data starts at 1.
  void Start(uint32_t isn);
  bool started() const { return started_; }
  uint32_t isn() const { return isn_; }

  // The 64-bit sequence number, relative to the origin, nearest to the last
  // one unwrapped.
  int64_t Unwrap(uint32_t seq) {
    const uint32_t relative = seq - isn_;
    last_ += static_cast<int32_t>(relative - static_cast<uint32_t>(last_));
    return last_;
  }

  struct Coverage {
    uint64_t new_bytes = 0;      // Bytes never seen before.
    bool overlaps_seen = false;  // Some bytes were seen before.
    bool below_highest = false;  // Starts below the highest byte seen.
    // When the youngest hole this segment filled (partly) was opened, ns;
    // 0 when it filled none.
    int64_t filled_hole_opened_ns = 0;
  };
  // Records payload [start, start + length) (relative, from Unwrap) seen at
  // `time_ns`.
  Coverage Record(int64_t start, uint32_t length, int64_t time_ns = 0) {
    // Most segments continue exactly where the highest one ended: all
    // their bytes are new and no hole opens or fills.
    if (start == highest_end_ && length > 0) {
      highest_end_ += length;
      Coverage c;
      c.new_bytes = length;
      return c;
    }
    return RecordOutOfOrder(start, length, time_ns);
  }

  // One past the highest payload byte seen.
  int64_t highest_end() const { return highest_end_; }

 private:
  struct Hole {
    int64_t start, end;
    int64_t opened_ns;  // When the jump that left it was seen.
  };
  // Holes below highest_end_ are kept up to this many; older ones are
  // forgotten (their bytes then count as seen).
  static constexpr size_t kMaxHoles = 4096;

  // Record() for a segment that does not simply continue the highest one.
  Coverage RecordOutOfOrder(int64_t start, uint32_t length, int64_t time_ns);

  bool started_ = false;
  uint32_t isn_ = 0;
  int64_t last_ = 0;
  int64_t lowest_start_ = 1;
  int64_t highest_end_ = 1;
  std::vector<Hole> holes_;  // Sorted, disjoint.
};

}  // namespace ccreplay

#endif  // CCREPLAY_PARSERS_SEQUENCE_TRACKER_H_
