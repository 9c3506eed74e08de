#include "reports/fitted_simulation.h"

#include <algorithm>
#include <cmath>
#include <vector>

#include "gtest/gtest.h"

namespace ccreplay {
namespace {

// The closed-loop evidence for a BBR flow: the path `ccreplay diagnose
// testdata/lab/bbr_20mbit_20ms_pfifo50 --simulate -o r.html` fits ("19.74
// Mb/s, base RTT 20.04 ms, buffer 71615 bytes, ... an ACK every 2 segments
// or after 0.01 ms (measured), 3.1 s simulated"), with bbr:linux in it.
// The captured Linux BBR flow carried 7287821 payload bytes in 3.053 s,
// 19.10 Mb/s, 97 % of the fitted rate (tshark -r sender.pcap.gz -Y
// 'tcp.srcport==32410 && tcp.len>0' -T fields -e tcp.len -e
// frame.time_relative, summed). Before the simulator fed BBR rate samples
// and paced it, the same run gave 0.54.
TEST(FittedSimulationTest, BbrFillsTheFittedPathOfALinuxBbrFlow) {
  FittedPath path;
  path.rate_bps = 19'740'000;
  path.base_rtt_ns = 20'040'000;
  path.buffer_bytes = 71615;
  path.ack_every = 2;
  path.delayed_ack_ns = 10'000;
  path.duration_ns = 3'100'000'000;
  absl::StatusOr<double> utilization =
      SimulatedUtilization(path, "bbr:linux", 1448);
  ASSERT_TRUE(utilization.ok()) << utilization.status();
  // Measured 2026-12-02: 0.987 (STARTUP included, as in the capture).
  EXPECT_NEAR(*utilization, 0.97, 0.03);
}

// diagnose_fuzzer: a capture whose RTT at the loss episodes and rate
// estimate made a queue of 2.45e22 bytes, cast to uint64_t (undefined
// behaviour, UBSan's "outside the range of representable values").
// Bounded by the minimum (8 packets of 1500 bytes) and by the packets a
// fitted simulation may send (400,000 x 1500).
TEST(FittedSimulationTest, BufferEstimatesAreClampedBeforeTheCast) {
  EXPECT_EQ(ClampBufferBytes(2.45334e22), 600'000'000u);
  EXPECT_EQ(ClampBufferBytes(71615.9), 71615u);
  EXPECT_EQ(ClampBufferBytes(100), 12'000u);
  EXPECT_EQ(ClampBufferBytes(-5), 12'000u);
  EXPECT_EQ(ClampBufferBytes(std::nan("")), 12'000u);
}

// The paths the prediction averages over: each parameter takes every one
// of the 8 strata of +-its uncertainty once, at the stratum's centre, so
// the offsets are -7/8 .. 7/8 of the half-width and average to zero.
TEST(PathsWithinUncertaintyTest, EachParameterCoversItsRangeOnce) {
  FittedPath fit;
  fit.rate_bps = 2'000'000;
  fit.base_rtt_ns = 100'000'000;
  fit.buffer_bytes = 25'000;  // 100 ms at 2 Mb/s
  fit.delayed_ack_ns = 40'000'000;
  fit.uncertainty.rate_fraction = 0.02;
  fit.uncertainty.base_rtt_ns = 8'000'000;
  fit.uncertainty.buffer_delay_ns = 16'000'000;
  fit.uncertainty.delayed_ack_ns = 8'000'000;
  const std::vector<FittedPath> paths = PathsWithinUncertainty(fit, 8);
  ASSERT_EQ(paths.size(), 8u);
  std::vector<double> rate, rtt, queue, hold;
  for (const FittedPath& p : paths) {
    rate.push_back((p.rate_bps / 2e6 - 1) / 0.02);
    rtt.push_back((p.base_rtt_ns - 100e6) / 8e6);
    queue.push_back((p.buffer_bytes * 8.0 / p.rate_bps - 0.1) / 0.016);
    hold.push_back((p.delayed_ack_ns - 40e6) / 8e6);
  }
  for (std::vector<double>* offsets : {&rate, &rtt, &queue, &hold}) {
    std::sort(offsets->begin(), offsets->end());
    for (int s = 0; s < 8; ++s) {
      // 1e-3: the buffer is whole bytes, the rate whole bits per second.
      EXPECT_NEAR((*offsets)[s], (2.0 * s + 1) / 8 - 1, 1e-3) << s;
    }
  }
  // No uncertainty, or one path: the fit itself.
  EXPECT_EQ(PathsWithinUncertainty(fit, 1).size(), 1u);
  FittedPath exact = fit;
  exact.uncertainty = FitUncertainty{};
  for (const FittedPath& p : PathsWithinUncertainty(exact, 4)) {
    EXPECT_EQ(p.rate_bps, fit.rate_bps);
    EXPECT_EQ(p.base_rtt_ns, fit.base_rtt_ns);
    EXPECT_EQ(p.buffer_bytes, fit.buffer_bytes);
    EXPECT_EQ(p.delayed_ack_ns, fit.delayed_ack_ns);
  }
}

}  // namespace
}  // namespace ccreplay
