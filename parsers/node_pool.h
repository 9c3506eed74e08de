// Nodes of a node container (absl::node_hash_map) given out of 64 KiB
// slabs of one block size and recycled through a free list; the slabs go
// back to malloc together when the pool goes.
//
// Why: glibc hands a freed chunk only to requests that fit in it (and
// keeps chunks of 128 bytes or less in fast bins, merged only now and
// then: malloc/malloc.c). A million small nodes allocated between other
// long-lived allocations and freed together leave a million small holes;
// SequenceSanity's 128-byte nodes, freed when a capture of a million SYNs
// has been read, so left 130 MB that the flow index's 512-byte blocks,
// made next, could not use (docs/performance.md). Freed slabs are 64 KiB
// runs any later request can use.
#ifndef CCREPLAY_PARSERS_NODE_POOL_H_
#define CCREPLAY_PARSERS_NODE_POOL_H_

#include <algorithm>
#include <cstddef>
#include <memory>
#include <utility>
#include <vector>

namespace ccreplay {

class NodePool {
 public:
  static constexpr size_t kSlabBytes = size_t{1} << 16;

  // Blocks of `block_bytes` (at least a pointer's size, at most a slab),
  // aligned as malloc aligns.
  explicit NodePool(size_t block_bytes)
      : block_bytes_(BlockBytesFor(block_bytes)) {}

  // The block an object of `bytes` takes.
  static size_t BlockBytesFor(size_t bytes) {
    constexpr size_t kAlign = alignof(std::max_align_t);
    return (std::max(bytes, sizeof(void*)) + kAlign - 1) / kAlign * kAlign;
  }

  size_t block_bytes() const { return block_bytes_; }
  size_t slabs() const { return slabs_.size(); }

  void* Allocate() {
    if (free_ != nullptr) {
      void* block = free_;
      free_ = *static_cast<void**>(block);
      return block;
    }
    if (slabs_.empty() || used_ + block_bytes_ > kSlabBytes) {
      // Not zeroed (blocks are constructed in place): a pool that serves a
      // few nodes touches only their pages.
      slabs_.push_back(std::unique_ptr<char[]>(new char[kSlabBytes]));
      used_ = 0;
    }
    void* block = slabs_.back().get() + used_;
    used_ += block_bytes_;
    return block;
  }

  // `block` came from Allocate(): it is given out again first.
  void Free(void* block) {
    *static_cast<void**>(block) = free_;
    free_ = block;
  }

 private:
  size_t block_bytes_;
  std::vector<std::unique_ptr<char[]>> slabs_;
  size_t used_ = 0;  // Bytes given out of the last slab.
  void* free_ = nullptr;
};

// An allocator whose single objects of the pool's block size come from the
// pool (a node container's nodes) and everything else from
// std::allocator (its slot array). Copies and rebinds share the pool.
template <typename T>
class PoolAllocator {
 public:
  using value_type = T;

  explicit PoolAllocator(std::shared_ptr<NodePool> pool)
      : pool_(std::move(pool)) {}
  template <typename U>
  PoolAllocator(const PoolAllocator<U>& other)  // NOLINT: a rebind.
      : pool_(other.pool()) {}

  T* allocate(size_t n) {
    if (FromPool(n)) return static_cast<T*>(pool_->Allocate());
    return std::allocator<T>().allocate(n);
  }
  void deallocate(T* p, size_t n) {
    if (FromPool(n)) return pool_->Free(p);
    std::allocator<T>().deallocate(p, n);
  }

  const std::shared_ptr<NodePool>& pool() const { return pool_; }
  template <typename U>
  bool operator==(const PoolAllocator<U>& o) const {
    return pool_ == o.pool();
  }
  template <typename U>
  bool operator!=(const PoolAllocator<U>& o) const {
    return pool_ != o.pool();
  }

 private:
  bool FromPool(size_t n) const {
    return n == 1 && alignof(T) <= alignof(std::max_align_t) &&
           NodePool::BlockBytesFor(sizeof(T)) == pool_->block_bytes();
  }

  std::shared_ptr<NodePool> pool_;
};

}  // namespace ccreplay

#endif  // CCREPLAY_PARSERS_NODE_POOL_H_
