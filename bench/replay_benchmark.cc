// Open-loop replay speed: ACKs per second through 1 and 8 controllers in
// one pass (capture decoding and timeline reconstruction included), on the
// largest capture in testdata/. Run: build/bench/replay_benchmark.
#include <string>
#include <vector>

#include "benchmark/benchmark.h"
#include "replay/replay_session.h"

namespace ccreplay {
namespace {

const std::string kCapture = std::string(CCREPLAY_TESTDATA_DIR) +
                             "/tcp/l4s-tests_cubic_fq_codel_wifi.pcap.gz";

void BM_ReplayCapture(benchmark::State& state) {
  const std::vector<std::string> all = {
      "reno",  "reno:linux", "cubic",      "cubic:linux",
      "dctcp", "prague:v05", "prague:v06", "prague:v07"};
  ReplayOptions options;
  options.specs.assign(all.begin(), all.begin() + state.range(0));
  uint64_t acks = 0;
  for (auto _ : state) {
    absl::StatusOr<ReplayResult> r = ReplayTcpCapture(kCapture, options);
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
