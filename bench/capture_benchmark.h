// What the capture benchmarks share: test data paths and the loop that reads
// one capture per iteration into a fresh consumer and reports packets/s.
#ifndef CCREPLAY_BENCH_CAPTURE_BENCHMARK_H_
#define CCREPLAY_BENCH_CAPTURE_BENCHMARK_H_

#include <string>

#include "benchmark/benchmark.h"
#include "parsers/pcap_reader.h"
#include "proto/testing/test_data.h"

namespace ccreplay {

// Reads `file` (absolute, or as FindTestData takes it) once per iteration
// into the consumer `make()` returns (a SegmentConsumer value), then hands
// it to `inspect` so the work is kept.
template <typename Make, typename Inspect>
void ReadCaptureEachIteration(benchmark::State& state, const std::string& file,
                              Make make, Inspect inspect) {
  const absl::StatusOr<std::string> path =
      !file.empty() && file[0] == '/' ? file : FindTestData(file);
  if (!path.ok()) {
    state.SkipWithError(std::string(path.status().message()).c_str());
    return;
  }
  uint64_t packets = 0;
  for (auto _ : state) {
    auto consumer = make();
    absl::StatusOr<CaptureInfo> info = ReadCapture(*path, consumer);
    if (!info.ok()) {
      state.SkipWithError(std::string(info.status().message()).c_str());
      return;
    }
    packets += info->packets;
    inspect(consumer);
  }
  state.counters["packets/s"] = benchmark::Counter(static_cast<double>(packets),
                                                   benchmark::Counter::kIsRate);
}

}  // namespace ccreplay

#endif  // CCREPLAY_BENCH_CAPTURE_BENCHMARK_H_
