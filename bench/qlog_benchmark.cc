// Google Benchmark: the qlog reader in MB/s of (decompressed) qlog text, on
// real files: ngtcp2's JSON-SEQ qlog (12 MB decompressed) and a draft-00
// contained qlog. A larger file can be given in CCREPLAY_BENCH_QLOG (the
// number to compare with `jq -c . > /dev/null` on the same file).
#include <cstdlib>
#include <memory>
#include <string>

#include "benchmark/benchmark.h"
#include "parsers/input_file.h"
#include "parsers/qlog.h"
#include "proto/testing/test_data.h"

namespace ccreplay {
namespace {

// Decompressed size, read once through InputFile.
uint64_t TextBytes(const std::string& path) {
  absl::StatusOr<std::unique_ptr<InputFile>> file = InputFile::Open(path);
  if (!file.ok()) return 0;
  std::string buffer(1 << 20, '\0');
  uint64_t total = 0;
  while (true) {
    absl::StatusOr<size_t> n = (*file)->Read(buffer.data(), buffer.size());
    if (!n.ok() || *n == 0) break;
    total += *n;
  }
  return total;
}

void BM_ParseQlog(benchmark::State& state, const std::string& path) {
  uint64_t bytes = TextBytes(path);
  uint64_t events = 0;
  for (auto _ : state) {
    absl::StatusOr<HostStateLog> log = ParseQlog(path);
    if (!log.ok()) {
      state.SkipWithError(std::string(log.status().message()).c_str());
      return;
    }
    for (const HostTrace& trace : log->traces) events += trace.samples;
    benchmark::DoNotOptimize(log->traces.size());
  }
  state.SetBytesProcessed(static_cast<int64_t>(bytes * state.iterations()));
  state.counters["events/s"] = benchmark::Counter(static_cast<double>(events),
                                                  benchmark::Counter::kIsRate);
}

void RegisterBenchmarks() {
  benchmark::RegisterBenchmark(
      "BM_ParseQlog/ngtcp2_jsonseq_gzip", BM_ParseQlog,
      TestDataPath("quic/ngtcp2_reno_30mbit_pfifo100_40ms/server-0.sqlog.gz"))
      ->Unit(benchmark::kMillisecond);
  // Third-party (../shared/testdata): registered when present.
  const absl::StatusOr<std::string> quictrace =
      SharedTestData("qlog/qvis_quictrace_example_github.draft-00.qlog");
  if (quictrace.ok()) {
    benchmark::RegisterBenchmark("BM_ParseQlog/quictrace_draft00_contained",
                                 BM_ParseQlog, *quictrace)
        ->Unit(benchmark::kMillisecond);
  }
  if (const char* large = std::getenv("CCREPLAY_BENCH_QLOG")) {
    benchmark::RegisterBenchmark("BM_ParseQlog/CCREPLAY_BENCH_QLOG",
                                 BM_ParseQlog, std::string(large))
        ->Unit(benchmark::kMillisecond)
        ->Iterations(1);
  }
}

}  // namespace
}  // namespace ccreplay

int main(int argc, char** argv) {
  benchmark::Initialize(&argc, argv);
  ccreplay::RegisterBenchmarks();
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  return 0;
}
