// Per-ACK fidelity of reno:linux and cubic:linux against the Linux 6.18
// kernel's own cwnd (tcp_probe, before each ACK), at every ACK, on lab
// bundles at 20 and 40 ms base RTT, paced (iperf3: bbr namespace default,
// TCP_CONGESTION after connect()) and unpaced (the built-in sender sets
// the controller before connect()). Bundles and commands: testdata/
// SOURCES.md. The goal of issue 14 is median <= 1 %, p95 <= 5 %; the
// bounds below are tighter: what the models reach, plus a little.
#include <string>
#include <vector>

#include "gtest/gtest.h"
#include "replay/replay_session.h"

namespace ccreplay {
namespace {

const std::string kLab = std::string(CCREPLAY_TESTDATA_DIR) + "/lab/";

// The lab's sender veth has gso_max_size 1500; this kernel runs HZ=250.
constexpr char kCubicPaced[] = "cubic:linux,hz=250,paced=1,gso=1500";
constexpr char kCubicUnpaced[] = "cubic:linux,hz=250,paced=0,gso=1500";

std::vector<ReplayedController> Replay(const std::string& bundle,
                                       std::vector<std::string> specs) {
  ReplayOptions options;
  options.specs = std::move(specs);
  options.host_state_path = kLab + bundle + "/tcp_probe.txt.gz";
  absl::StatusOr<ReplayResult> r =
      ReplayTcpCapture(kLab + bundle + "/sender.pcap.gz", options);
  EXPECT_TRUE(r.ok()) << r.status();
  if (!r.ok()) return {};
  EXPECT_EQ(r->source, CapturedSource::kTcpProbe);
  return r->controllers;
}

// Samples are the sender socket's tcp_probe lines, one per ACK:
// `zcat tcp_probe.txt.gz | grep -c 'tcp_probe:.*src=SENDER '` (SENDER from
// meta.json flows[0].sender).
void ExpectFidelity(const ReplayedController& c, uint64_t probe_lines,
                    double median_pct, double p95_pct) {
  SCOPED_TRACE(c.spec);
  EXPECT_EQ(c.divergence.samples, probe_lines);
  ASSERT_TRUE(c.divergence.median_abs_err_pct.has_value());
  EXPECT_LE(*c.divergence.median_abs_err_pct, median_pct);
  EXPECT_LE(*c.divergence.p95_abs_err_pct, p95_pct);
}

TEST(KernelFidelityTest, RenoPaced20ms) {
  // Measured: median 0.03 %, p95 2.08 % (cubic:linux 33 % / 64 %).
  const auto c = Replay("k618_reno_20ms_paced_20mbit_pfifo50",
                        {"reno:linux", "cubic:linux"});
  ASSERT_EQ(c.size(), 2u);
  ExpectFidelity(c[0], 2672, 0.5, 2.5);
  EXPECT_GT(*c[1].divergence.median_abs_err_pct, 20.0);
}

TEST(KernelFidelityTest, RenoUnpaced40ms) {
  // Measured: median 0.03 %, p95 0.03 % (the kernel's cwnd at every ACK
  // but a few; PRR on packets in flight brought p95 from 9.5 %).
  const auto c =
      Replay("k618_reno_40ms_unpaced_20mbit_pfifo50", {"reno:linux"});
  ASSERT_EQ(c.size(), 1u);
  ExpectFidelity(c[0], 2901, 0.5, 0.5);
}

TEST(KernelFidelityTest, CubicPaced20msNeedsThePacedHystart) {
  // Measured: paced=1 median 0.03 %, p95 1.48 %; paced=0 exits slow start
  // by the halved ACK-train threshold at half the kernel's window: 40 % /
  // 75 %.
  const auto c = Replay("k618_cubic_20ms_paced_20mbit_pfifo50",
                        {kCubicPaced, kCubicUnpaced});
  ASSERT_EQ(c.size(), 2u);
  ExpectFidelity(c[0], 2946, 0.5, 2.0);
  EXPECT_GT(*c[1].divergence.median_abs_err_pct, 30.0);
}

TEST(KernelFidelityTest, CubicUnpaced40ms) {
  // Measured: median 0.03 %, p95 1.12 %. The sender is receive-window
  // limited in slow start; the kernel's cwnd grows there while cwnd <
  // 2 * max_packets_out (tcp_is_cwnd_limited()): without that the model
  // stalled at 73 and left slow start by HyStart a round early (16 %).
  const auto c =
      Replay("k618_cubic_40ms_unpaced_20mbit_pfifo50", {kCubicUnpaced});
  ASSERT_EQ(c.size(), 1u);
  ExpectFidelity(c[0], 2402, 0.5, 1.5);
}

}  // namespace
}  // namespace ccreplay
