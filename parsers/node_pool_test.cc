#include "parsers/node_pool.h"

#include <cstdint>
#include <set>
#include <utility>

#include "absl/container/node_hash_map.h"
#include "gtest/gtest.h"

namespace ccreplay {
namespace {

TEST(NodePoolTest, BlocksAreDistinctAlignedAndReusedWhenFreed) {
  NodePool pool(120);  // SequenceSanity's node: 40-byte key, 80 of state.
  EXPECT_EQ(pool.block_bytes(), 128u);
  constexpr size_t kPerSlab = NodePool::kSlabBytes / 128;  // 512.
  std::set<void*> blocks;
  for (size_t i = 0; i < kPerSlab + 1; ++i) {
    void* b = pool.Allocate();
    EXPECT_EQ(reinterpret_cast<uintptr_t>(b) % alignof(std::max_align_t), 0u);
    blocks.insert(b);
  }
  EXPECT_EQ(blocks.size(), kPerSlab + 1);
  EXPECT_EQ(pool.slabs(), 2u);  // One more block than a slab holds.
  // Freed blocks are given out again, newest first, before a new slab.
  void* first = *blocks.begin();
  void* second = *std::next(blocks.begin());
  pool.Free(first);
  pool.Free(second);
  EXPECT_EQ(pool.Allocate(), second);
  EXPECT_EQ(pool.Allocate(), first);
  EXPECT_EQ(pool.slabs(), 2u);
}

// A node map on the pool: its nodes come from the slabs, its slot array
// from std::allocator; erased nodes are reused, so the slabs follow the
// most entries held at once, not all ever inserted.
TEST(NodePoolTest, NodeMapKeepsItsSlabsToTheEntriesHeldAtOnce) {
  using Node = std::pair<const int, int64_t>;
  auto pool = std::make_shared<NodePool>(sizeof(Node));
  absl::node_hash_map<int, int64_t, absl::Hash<int>, std::equal_to<int>,
                      PoolAllocator<Node>>
      map(0, absl::Hash<int>(), std::equal_to<int>(),
          PoolAllocator<Node>(pool));
  const size_t per_slab = NodePool::kSlabBytes / pool->block_bytes();
  for (int round = 0; round < 10; ++round) {
    for (size_t i = 0; i < per_slab * 3; ++i)
      map[static_cast<int>(round * 100000 + i)] = round;
    EXPECT_EQ(map.size(), per_slab * 3);
    map.clear();
  }
  EXPECT_EQ(pool->slabs(), 3u);
}

}  // namespace
}  // namespace ccreplay
