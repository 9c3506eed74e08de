// Google Benchmark: the ACK timeline pass (sender reconstruction) beside
// the flow table alone, on real captures. With CCREPLAY_BENCH_CAPTURE set
// to a capture's path (for example the one bench/compare_flows.sh
// builds), both also run on that file.
#include <cstdlib>
#include <string>

#include "benchmark/benchmark.h"
#include "parsers/flow_table.h"
#include "parsers/pcap_reader.h"
#include "replay/ack_timeline.h"

namespace ccreplay {
namespace {

// `file`: relative to testdata/, or absolute.
std::string Data(const std::string& file) {
  if (!file.empty() && file[0] == '/') return file;
  return std::string(CCREPLAY_TESTDATA_DIR) + "/" + file;
}

// Every flow's statistics, as `ccreplay flows` computes them.
void BM_TimelineAllFlows(benchmark::State& state, const char* file) {
  uint64_t packets = 0;
  for (auto _ : state) {
    AckTimelineBuilder builder;
    absl::StatusOr<CaptureInfo> info = ReadCapture(Data(file), builder);
    if (!info.ok()) {
      state.SkipWithError(std::string(info.status().message()).c_str());
      return;
    }
    packets += info->packets;
    benchmark::DoNotOptimize(builder.Stats(0).acks);
  }
  state.counters["packets/s"] = benchmark::Counter(static_cast<double>(packets),
                                                   benchmark::Counter::kIsRate);
}
BENCHMARK_CAPTURE(BM_TimelineAllFlows, lab_cubic_loss,
                  "lab/cubic_noecn_droptail100_50mbit/sender.pcap.gz")
    ->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(BM_TimelineAllFlows, prague_gzip,
                  "tcp/l4s-tests_prague_dualpi2_wifi.pcap.gz")
    ->Unit(benchmark::kMillisecond);

// One flow's events to a sink, as `ccreplay timeline` streams them.
void BM_TimelineOneFlowEvents(benchmark::State& state, const char* file) {
  uint64_t packets = 0, events = 0;
  for (auto _ : state) {
    AckTimelineBuilder builder(1, 0, [&events](const TimelineEvent& e) {
      events += e.bytes_acked > 0 ? 1 : 0;
    });
    absl::StatusOr<CaptureInfo> info = ReadCapture(Data(file), builder);
    if (!info.ok()) {
      state.SkipWithError(std::string(info.status().message()).c_str());
      return;
    }
    packets += info->packets;
  }
  benchmark::DoNotOptimize(events);
  state.counters["packets/s"] = benchmark::Counter(static_cast<double>(packets),
                                                   benchmark::Counter::kIsRate);
}
BENCHMARK_CAPTURE(BM_TimelineOneFlowEvents, prague_gzip,
                  "tcp/l4s-tests_prague_dualpi2_wifi.pcap.gz")
    ->Unit(benchmark::kMillisecond);

// The flow table alone, for comparison.
void BM_FlowTableOnly(benchmark::State& state, const char* file) {
  uint64_t packets = 0;
  for (auto _ : state) {
    FlowTable table;
    absl::StatusOr<CaptureInfo> info = ReadCapture(Data(file), table);
    if (!info.ok()) {
      state.SkipWithError(std::string(info.status().message()).c_str());
      return;
    }
    packets += info->packets;
  }
  state.counters["packets/s"] = benchmark::Counter(static_cast<double>(packets),
                                                   benchmark::Counter::kIsRate);
}
BENCHMARK_CAPTURE(BM_FlowTableOnly, lab_cubic_loss,
                  "lab/cubic_noecn_droptail100_50mbit/sender.pcap.gz")
    ->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(BM_FlowTableOnly, prague_gzip,
                  "tcp/l4s-tests_prague_dualpi2_wifi.pcap.gz")
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
