// Google Benchmark: the ACK timeline pass (sender reconstruction) beside
// the flow table alone, on real captures. With CCREPLAY_BENCH_CAPTURE set
// to a capture's path (for example the one bench/compare_flows.sh
// builds), both also run on that file.
#include <cstdlib>
#include <string>

#include "bench/capture_benchmark.h"
#include "benchmark/benchmark.h"
#include "parsers/flow_table.h"
#include "parsers/pcap_reader.h"
#include "replay/ack_timeline.h"

namespace ccreplay {
namespace {

// Every flow's statistics, as `ccreplay flows` computes them.
void BM_TimelineAllFlows(benchmark::State& state, const char* file) {
  ReadCaptureEachIteration(
      state, file, [] { return AckTimelineBuilder(); },
      [](const AckTimelineBuilder& b) {
        benchmark::DoNotOptimize(b.Stats(0).acks);
      });
}
BENCHMARK_CAPTURE(BM_TimelineAllFlows, lab_cubic_loss,
                  "lab/cubic_noecn_droptail100_50mbit/sender.pcap.gz")
    ->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(BM_TimelineAllFlows, prague_gzip,
                  "shared:tcp/l4s-tests_prague_dualpi2_wifi.pcap.gz")
    ->Unit(benchmark::kMillisecond);

// One flow's events to a sink, as `ccreplay timeline` streams them.
void BM_TimelineOneFlowEvents(benchmark::State& state, const char* file) {
  uint64_t events = 0;
  ReadCaptureEachIteration(
      state, file,
      [&events] {
        return AckTimelineBuilder(1, 0, [&events](const TimelineEvent& e) {
          events += e.bytes_acked > 0 ? 1 : 0;
        });
      },
      [](const AckTimelineBuilder&) {});
  benchmark::DoNotOptimize(events);
}
BENCHMARK_CAPTURE(BM_TimelineOneFlowEvents, prague_gzip,
                  "shared:tcp/l4s-tests_prague_dualpi2_wifi.pcap.gz")
    ->Unit(benchmark::kMillisecond);

// The flow table alone, for comparison.
void BM_FlowTableOnly(benchmark::State& state, const char* file) {
  ReadCaptureEachIteration(
      state, file, [] { return FlowTable(); },
      [](const FlowTable& table) {
        benchmark::DoNotOptimize(table.flows().size());
      });
}
BENCHMARK_CAPTURE(BM_FlowTableOnly, lab_cubic_loss,
                  "lab/cubic_noecn_droptail100_50mbit/sender.pcap.gz")
    ->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(BM_FlowTableOnly, prague_gzip,
                  "shared:tcp/l4s-tests_prague_dualpi2_wifi.pcap.gz")
    ->Unit(benchmark::kMillisecond);

}  // namespace
}  // namespace ccreplay

int main(int argc, char** argv) {
  if (const char* capture = std::getenv("CCREPLAY_BENCH_CAPTURE")) {
    benchmark::RegisterBenchmark("BM_TimelineAllFlows/env_capture",
                                 ccreplay::BM_TimelineAllFlows, capture)
        ->Unit(benchmark::kMillisecond);
    benchmark::RegisterBenchmark("BM_FlowTableOnly/env_capture",
                                 ccreplay::BM_FlowTableOnly, capture)
        ->Unit(benchmark::kMillisecond);
  }
  benchmark::Initialize(&argc, argv);
  if (benchmark::ReportUnrecognizedArguments(argc, argv)) return 1;
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  return 0;
}
