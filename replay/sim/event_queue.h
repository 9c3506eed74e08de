// The simulator's clock: a binary min-heap of events keyed on integer
// nanoseconds, ties broken by insertion order so that a run is a pure
// function of its configuration. Storage is reserved up front and reused:
// scheduling allocates nothing once the heap has reached its working size.
#ifndef CCREPLAY_REPLAY_SIM_EVENT_QUEUE_H_
#define CCREPLAY_REPLAY_SIM_EVENT_QUEUE_H_

#include <cstdint>
#include <vector>

#include "absl/base/macros.h"

namespace ccreplay {

struct SimEvent {
  int64_t time_ns = 0;
  uint32_t kind = 0;  // the owner's enum
  uint32_t flow = 0;
};

class EventQueue {
 public:
  explicit EventQueue(size_t reserve = 256) { heap_.reserve(reserve); }

  bool empty() const { return heap_.empty(); }
  size_t size() const { return heap_.size(); }
  int64_t next_time_ns() const { return heap_.front().event.time_ns; }

  void Push(const SimEvent& event) {
    heap_.push_back({event, next_order_++});
    SiftUp(heap_.size() - 1);
  }

  SimEvent Pop() {
    ABSL_ASSERT(!heap_.empty());
    const SimEvent top = heap_.front().event;
    heap_.front() = heap_.back();
    heap_.pop_back();
    if (!heap_.empty()) SiftDown(0);
    return top;
  }

 private:
  struct Entry {
    SimEvent event;
    uint64_t order;
  };
  static bool Before(const Entry& a, const Entry& b) {
    if (a.event.time_ns != b.event.time_ns) {
      return a.event.time_ns < b.event.time_ns;
    }
    return a.order < b.order;
  }
  void SiftUp(size_t i) {
    const Entry entry = heap_[i];
    while (i > 0) {
      const size_t parent = (i - 1) / 2;
      if (!Before(entry, heap_[parent])) break;
      heap_[i] = heap_[parent];
      i = parent;
    }
    heap_[i] = entry;
  }
  void SiftDown(size_t i) {
    const Entry entry = heap_[i];
    const size_t n = heap_.size();
    while (true) {
      size_t child = 2 * i + 1;
      if (child >= n) break;
      if (child + 1 < n && Before(heap_[child + 1], heap_[child])) ++child;
      if (!Before(heap_[child], entry)) break;
      heap_[i] = heap_[child];
      i = child;
    }
    heap_[i] = entry;
  }

  std::vector<Entry> heap_;
  uint64_t next_order_ = 0;
};

}  // namespace ccreplay

#endif  // CCREPLAY_REPLAY_SIM_EVENT_QUEUE_H_
