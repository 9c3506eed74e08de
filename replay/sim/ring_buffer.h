// A FIFO on a power-of-two ring. Capacity doubles when full and never
// shrinks, so after warm-up pushes and pops allocate nothing: the
// simulator's delay lines, queues and sent-packet records recycle slots.
#ifndef CCREPLAY_REPLAY_SIM_RING_BUFFER_H_
#define CCREPLAY_REPLAY_SIM_RING_BUFFER_H_

#include <cstddef>
#include <utility>
#include <vector>

#include "absl/base/macros.h"

namespace ccreplay {

template <typename T>
class RingBuffer {
 public:
  explicit RingBuffer(size_t initial_capacity = 64) {
    size_t capacity = 1;
    while (capacity < initial_capacity) capacity <<= 1;
    slots_.resize(capacity);
  }

  bool empty() const { return size_ == 0; }
  size_t size() const { return size_; }

  void push_back(const T& value) {
    if (size_ == slots_.size()) Grow();
    slots_[(head_ + size_) & (slots_.size() - 1)] = value;
    ++size_;
  }
  void pop_front() {
    ABSL_ASSERT(size_ > 0);
    head_ = (head_ + 1) & (slots_.size() - 1);
    --size_;
  }
  T& front() { return (*this)[0]; }
  const T& front() const { return (*this)[0]; }
  T& back() { return (*this)[size_ - 1]; }
  // i-th element from the front.
  T& operator[](size_t i) {
    ABSL_ASSERT(i < size_);
    return slots_[(head_ + i) & (slots_.size() - 1)];
  }
  const T& operator[](size_t i) const {
    ABSL_ASSERT(i < size_);
    return slots_[(head_ + i) & (slots_.size() - 1)];
  }

 private:
  void Grow() {
    // The index mask (size - 1) needs a power-of-two capacity.
    ABSL_ASSERT((slots_.size() & (slots_.size() - 1)) == 0);
    std::vector<T> bigger(slots_.size() * 2);
    for (size_t i = 0; i < size_; ++i) bigger[i] = std::move((*this)[i]);
    slots_.swap(bigger);
    head_ = 0;
  }

  std::vector<T> slots_;
  size_t head_ = 0;
  size_t size_ = 0;
};

}  // namespace ccreplay

#endif  // CCREPLAY_REPLAY_SIM_RING_BUFFER_H_
