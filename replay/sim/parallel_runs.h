// Runs independent simulations on all cores. Workers take the next index
// from a shared counter; each result lands in its own slot, so the output
// order (and every number in it) is the same whatever the thread count.
#ifndef CCREPLAY_REPLAY_SIM_PARALLEL_RUNS_H_
#define CCREPLAY_REPLAY_SIM_PARALLEL_RUNS_H_

#include <algorithm>
#include <atomic>
#include <cstddef>
#include <thread>
#include <vector>

namespace ccreplay {

// Calls run(i) for i in [0, count) on `threads` threads (0: one per core)
// and returns the results in index order.
template <typename Result, typename Fn>
std::vector<Result> RunParallel(size_t count, int threads, const Fn& run) {
  std::vector<Result> results(count);
  size_t workers = threads > 0
                       ? static_cast<size_t>(threads)
                       : std::max(1u, std::thread::hardware_concurrency());
  workers = std::min(workers, std::max<size_t>(count, 1));
  std::atomic<size_t> next{0};
  auto work = [&] {
    for (size_t i = next++; i < count; i = next++) results[i] = run(i);
  };
  std::vector<std::thread> pool;
  for (size_t w = 1; w < workers; ++w) pool.emplace_back(work);
  work();
  for (std::thread& t : pool) t.join();
  return results;
}

}  // namespace ccreplay

#endif  // CCREPLAY_REPLAY_SIM_PARALLEL_RUNS_H_
