// Google Benchmark: the capture path per packet — frame decoding alone, and
// reading a whole real capture into the flow table (plain and gzip).
#include <string>
#include <vector>

#include "bench/capture_benchmark.h"
#include "benchmark/benchmark.h"
#include "parsers/flow_table.h"
#include "parsers/packet_decoder.h"
#include "parsers/pcap_reader.h"

namespace ccreplay {
namespace {

void BM_ReadCaptureIntoFlowTable(benchmark::State& state, const char* file) {
  ReadCaptureEachIteration(
      state, file, [] { return FlowTable(); },
      [](const FlowTable& table) {
        benchmark::DoNotOptimize(table.flows().size());
      });
}
BENCHMARK_CAPTURE(BM_ReadCaptureIntoFlowTable, zeek_comp008_plain,
                  "shared:tcp/zeek-tcprs_comp008.pcap")
    ->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(BM_ReadCaptureIntoFlowTable, prague_gzip,
                  "shared:tcp/l4s-tests_prague_dualpi2_wifi.pcap.gz")
    ->Unit(benchmark::kMillisecond);

void BM_DecodeFrame(benchmark::State& state) {
  // A 66-byte Ethernet/IPv4/TCP ACK with timestamps and a SACK block.
  std::vector<uint8_t> frame = {
      0,    1,    2,    3,    4,    5,    6,    7,    8,    9,
      10,   11,   0x08, 0x00,  // Ethernet
      0x45, 0x02, 0x00, 0x40, 0,    0,    0x40, 0,    64,   6,
      0,    0,    10,   0,    0,    1,  // IPv4
      10,   0,    0,    2,    0x14, 0x51, 0x97, 0x60, 0,    0,
      0,    1,    0,    0,    0x10, 0,    0xb0, 0x10, 0x01, 0xf6,  // TCP
      0,    0,    0,    0,    1,    1,    8,    10,   0,    0,
      0,    1,    0,    0,    0,    2,    1,    1,    5,    10,
      0,    0,    0x20, 0,    0,    0,    0x30, 0};
  TcpSegment segment;
  for (auto _ : state) {
    benchmark::DoNotOptimize(DecodeFrame(
        kLinkEthernet, frame.data(), static_cast<uint32_t>(frame.size()),
        static_cast<uint32_t>(frame.size()), &segment));
  }
}
BENCHMARK(BM_DecodeFrame);

}  // namespace
}  // namespace ccreplay
