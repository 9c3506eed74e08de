// Nanoseconds per ACK event for each reference controller, and a
// ten-million-ACK replay through all of them.
//
// The ACK stream is synthetic but exercises every path: 2-segment ACKs
// (delayed ACKs), one CE-marked packet every 50 ACKs (AccECN counts), a fast
// retransmit every 20000 ACKs and srtt wandering between 0.4 and 5.4 ms.
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "benchmark/benchmark.h"
#include "cc/registry.h"

namespace ccreplay {
namespace {

constexpr uint32_t kMss = 1448;

const std::vector<std::string>& Specs() {
  static const auto* const kSpecs = new std::vector<std::string>{
      "reno",  "reno:linux", "cubic",      "cubic:linux",
      "dctcp", "prague:v05", "prague:v06", "prague:v07"};
  return *kSpecs;
}

// The i-th event of the stream: an ACK, or a loss on every 20000th.
AckEvent MakeAck(int64_t i, uint64_t cwnd_bytes) {
  AckEvent ack;
  ack.time_us = i * 20;
  ack.bytes_acked = 2 * kMss;
  ack.packets_delivered = 2;
  ack.packets_ce = i % 50 == 0 ? 1 : 0;
  ack.srtt_us = 400 + (i / 1000) % 5000;
  ack.rtt_sample_us = ack.srtt_us;
  ack.min_rtt_us = 400;
  ack.bytes_in_flight = cwnd_bytes;
  ack.cwnd_limited = true;
  ack.mss_bytes = kMss;
  return ack;
}

void Feed(CongestionController& controller, int64_t i) {
  if (i % 20000 == 19999) {
    LossEvent loss;
    loss.time_us = i * 20;
    loss.bytes_in_flight = controller.cwnd_bytes();
    controller.OnLoss(loss);
    return;
  }
  controller.OnAck(MakeAck(i, controller.cwnd_bytes()));
}

void BM_AckEvent(benchmark::State& state) {
  const std::string& spec = Specs()[state.range(0)];
  std::unique_ptr<CongestionController> controller = *MakeController(spec);
  int64_t i = 0;
  for (auto _ : state) {
    Feed(*controller, i++);
    benchmark::DoNotOptimize(controller->cwnd_bytes());
  }
  state.SetLabel(spec);
  state.SetItemsProcessed(state.iterations());
}
BENCHMARK(BM_AckEvent)->DenseRange(0, 7);

// Ten million events through every controller, one after the other.
void BM_TenMillionAckReplayAllControllers(benchmark::State& state) {
  constexpr int64_t kEvents = 10'000'000;
  for (auto _ : state) {
    for (const std::string& spec : Specs()) {
      std::unique_ptr<CongestionController> controller = *MakeController(spec);
      for (int64_t i = 0; i < kEvents; ++i) Feed(*controller, i);
      benchmark::DoNotOptimize(controller->cwnd_bytes());
    }
  }
  state.SetItemsProcessed(state.iterations() * kEvents * Specs().size());
}
BENCHMARK(BM_TenMillionAckReplayAllControllers)
    ->Unit(benchmark::kSecond)
    ->Iterations(1);

}  // namespace
}  // namespace ccreplay

BENCHMARK_MAIN();
