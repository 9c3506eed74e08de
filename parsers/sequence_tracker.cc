#include "parsers/sequence_tracker.h"

#include <algorithm>

namespace ccreplay {

void SequenceTracker::Start(uint32_t isn) {
  started_ = true;
  isn_ = isn;
  last_ = 0;
  lowest_start_ = highest_end_ = 1;
  holes_.clear();
}

SequenceTracker::Coverage SequenceTracker::RecordOutOfOrder(int64_t start,
                                                            uint32_t length,
                                                            int64_t time_ns) {
  Coverage c;
  if (length == 0) return c;
  const int64_t end = start + length;
  c.below_highest = start < highest_end_;
  // Bytes before anything seen so far (the capture began mid-connection).
  const int64_t old_lowest = lowest_start_;
  if (start < lowest_start_) {
    c.new_bytes += static_cast<uint64_t>(std::min(end, lowest_start_) - start);
    lowest_start_ = start;
  }
  // Bytes above the highest seen are new; a jump leaves a hole.
  if (end > highest_end_) {
    int64_t from = std::max(start, highest_end_);
    c.new_bytes += static_cast<uint64_t>(end - from);
    if (start > highest_end_) {
      if (holes_.size() == kMaxHoles) holes_.erase(holes_.begin());
      holes_.push_back({highest_end_, start, time_ns});
    }
  }
  // Bytes between: new where they fill a hole, seen elsewhere.
  const int64_t low = std::max(start, old_lowest);
  const int64_t high = std::min(end, highest_end_);
  if (low < high) {
    int64_t filled = 0;
    auto it =
        std::lower_bound(holes_.begin(), holes_.end(), low,
                         [](const Hole& h, int64_t v) { return h.end <= v; });
    while (it != holes_.end() && it->start < high) {
      int64_t from = std::max(it->start, low), to = std::min(it->end, high);
      filled += to - from;
      c.filled_hole_opened_ns =
          std::max(c.filled_hole_opened_ns, it->opened_ns);
      if (from > it->start && to < it->end) {
        // The segment sits inside the hole: split it.
        Hole right{to, it->end, it->opened_ns};
        it->end = from;
        it = holes_.insert(it + 1, right);
        break;
      }
      if (from > it->start) {
        it->end = from;
        ++it;
      } else if (to < it->end) {
        it->start = to;
        ++it;
      } else {
        it = holes_.erase(it);
      }
    }
    c.new_bytes += static_cast<uint64_t>(filled);
    c.overlaps_seen = filled < high - low;
  }
  highest_end_ = std::max(highest_end_, end);
  return c;
}

}  // namespace ccreplay
