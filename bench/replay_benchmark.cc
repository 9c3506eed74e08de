// Open-loop replay speed: ACKs per second through 1 and 8 controllers in
// one pass (capture decoding and timeline reconstruction included), on the
// largest third-party capture the tests read (../shared/testdata). Run:
// build/bench/replay_benchmark.
#include <string>
#include <vector>

#include "benchmark/benchmark.h"
#include "proto/testing/test_data.h"
#include "replay/replay_session.h"

namespace ccreplay {
namespace {

void BM_ReplayCapture(benchmark::State& state) {
  const absl::StatusOr<std::string> capture =
      SharedTestData("tcp/l4s-tests_cubic_fq_codel_wifi.pcap.gz");
  if (!capture.ok()) {
    state.SkipWithError(std::string(capture.status().message()).c_str());
    return;
  }
  const std::vector<std::string> all = {
      "reno",  "reno:linux", "cubic",      "cubic:linux",
      "dctcp", "prague:v05", "prague:v06", "prague:v07"};
  ReplayOptions options;
  options.specs.assign(all.begin(), all.begin() + state.range(0));
  uint64_t acks = 0;
  for (auto _ : state) {
    absl::StatusOr<ReplayResult> r = ReplayTcpCapture(*capture, options);
    if (!r.ok()) {
      state.SkipWithError(std::string(r.status().message()).c_str());
      return;
    }
    acks += r->acks;
  }
  state.counters["acks_per_s"] = benchmark::Counter(
      static_cast<double>(acks), benchmark::Counter::kIsRate);
}
BENCHMARK(BM_ReplayCapture)->Arg(1)->Arg(8)->Unit(benchmark::kMillisecond);

}  // namespace
}  // namespace ccreplay

BENCHMARK_MAIN();
