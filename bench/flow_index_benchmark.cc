// Google Benchmark: the flow index pass (`ccreplay diagnose --flows all`:
// every flow's timeline folded into one row each, replay/flow_index.h)
// beside the timeline of all flows it runs on. With CCREPLAY_BENCH_CAPTURE
// set to a capture's path (for example `build/bench/syn_flows 100000
// short.pcap --data`), both also run on that file.
#include <cstdlib>
#include <string>

#include "bench/capture_benchmark.h"
#include "benchmark/benchmark.h"
#include "parsers/pcap_reader.h"
#include "replay/ack_timeline.h"
#include "replay/flow_index.h"

namespace ccreplay {
namespace {

void BM_FlowIndex(benchmark::State& state, const char* file) {
  ReadCaptureEachIteration(
      state, file, [] { return FlowIndexBuilder(); },
      [](FlowIndexBuilder& b) {
        b.Finish(0);
        benchmark::DoNotOptimize(b.entries().size());
      });
}
BENCHMARK_CAPTURE(BM_FlowIndex, wild_334_flows,
                  "shared:wild/pcapplusplus_tls2.pcap.gz")
    ->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(BM_FlowIndex, lab_cubic_loss,
                  "lab/cubic_noecn_droptail100_50mbit/sender.pcap.gz")
    ->Unit(benchmark::kMillisecond);

// The timeline of every flow alone, for comparison.
void BM_TimelineAllFlows(benchmark::State& state, const char* file) {
  ReadCaptureEachIteration(
      state, file, [] { return AckTimelineBuilder(); },
      [](AckTimelineBuilder& b) {
        b.Finish();
        benchmark::DoNotOptimize(b.flow_table().flows().size());
      });
}
BENCHMARK_CAPTURE(BM_TimelineAllFlows, wild_334_flows,
                  "shared:wild/pcapplusplus_tls2.pcap.gz")
    ->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(BM_TimelineAllFlows, lab_cubic_loss,
                  "lab/cubic_noecn_droptail100_50mbit/sender.pcap.gz")
    ->Unit(benchmark::kMillisecond);

}  // namespace
}  // namespace ccreplay

int main(int argc, char** argv) {
  if (const char* capture = std::getenv("CCREPLAY_BENCH_CAPTURE")) {
    benchmark::RegisterBenchmark("BM_FlowIndex/env_capture",
                                 ccreplay::BM_FlowIndex, capture)
        ->Unit(benchmark::kMillisecond);
    benchmark::RegisterBenchmark("BM_TimelineAllFlows/env_capture",
                                 ccreplay::BM_TimelineAllFlows, capture)
        ->Unit(benchmark::kMillisecond);
  }
  benchmark::Initialize(&argc, argv);
  if (benchmark::ReportUnrecognizedArguments(argc, argv)) return 1;
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  return 0;
}
