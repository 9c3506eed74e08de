// What the capture benchmarks share: test data paths and the loop that reads
// one capture per iteration into a fresh consumer and reports packets/s.
#ifndef CCREPLAY_BENCH_CAPTURE_BENCHMARK_H_
#define CCREPLAY_BENCH_CAPTURE_BENCHMARK_H_

#include <string>

#include "benchmark/benchmark.h"
#include "parsers/pcap_reader.h"

namespace ccreplay {

// `file`: relative to testdata/, or absolute.
inline std::string BenchDataPath(const std::string& file) {
  if (!file.empty() && file[0] == '/') return file;
  return std::string(CCREPLAY_TESTDATA_DIR) + "/" + file;
}

// Reads `file` once per iteration into the consumer `make()` returns (a
// SegmentConsumer value), then hands it to `inspect` so the work is kept.
template <typename Make, typename Inspect>
void ReadCaptureEachIteration(benchmark::State& state, const std::string& file,
                              Make make, Inspect inspect) {
  uint64_t packets = 0;
  for (auto _ : state) {
    auto consumer = make();
    absl::StatusOr<CaptureInfo> info =
        ReadCapture(BenchDataPath(file), consumer);
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
