#include "reports/fitted_simulation.h"

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

}  // namespace
}  // namespace ccreplay
