#include "replay/replay_session.h"

#include <cstdio>
#include <string>

#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace ccreplay {
namespace {

const std::string kLab = std::string(CCREPLAY_TESTDATA_DIR) + "/lab/";

ReplayResult Replay(const std::string& capture, const std::string& host_state,
                    std::vector<std::string> specs) {
  ReplayOptions options;
  options.specs = std::move(specs);
  options.host_state_path = host_state;
  absl::StatusOr<ReplayResult> result = ReplayTcpCapture(capture, options);
  EXPECT_TRUE(result.ok()) << result.status();
  if (!result.ok()) return {};
  for (const ReplayedController& c : result->controllers) {
    std::printf("%s: samples %llu median %.2f p95 %.2f by_phase %.2f %.2f %.2f\n",
                c.spec.c_str(), (unsigned long long)c.divergence.samples,
                c.divergence.median_abs_err_pct.value_or(-1),
                c.divergence.p95_abs_err_pct.value_or(-1),
                c.divergence.median_by_phase_pct[0].value_or(-1),
                c.divergence.median_by_phase_pct[1].value_or(-1),
                c.divergence.median_by_phase_pct[2].value_or(-1));
  }
  return *std::move(result);
}

TEST(ReplaySessionTest, RenoLinuxTracksTheKernelOnTheRenoLab) {
  const std::string dir = kLab + "reno_ecn1_stepK60k_50mbit/";
  ReplayResult r = Replay(dir + "sender.pcap.gz", dir + "ss.log",
                          {"reno:linux", "reno"});
  ASSERT_EQ(r.controllers.size(), 2u);
  EXPECT_EQ(r.source, CapturedSource::kSs);
}

TEST(ReplaySessionTest, Probe) {
  const std::string dir = kLab + "cubic_ecn_K60k_40mbit_ackdelay10ms/";
  Replay(dir + "sender.pcap.gz", dir + "tcp_probe.txt.gz", {"cubic:linux", "cubic"});
  Replay(dir + "sender.pcap.gz", dir + "ss.log", {"cubic:linux", "cubic"});
  const std::string d2 = kLab + "cubic_noecn_droptail100_50mbit/";
  Replay(d2 + "sender.pcap.gz", d2 + "ss.log", {"cubic:linux", "cubic"});
  Replay(std::string(CCREPLAY_TESTDATA_DIR) + "/tcp/l4s-tests_prague_dualpi2_wifi.pcap.gz", "", {"prague:v05", "prague:v06", "prague:v07", "dctcp"});
  ReplayOptions options;
  options.specs = {"reno:mss=1452", "cubic:mss=1452", "reno:linux,mss=1452", "cubic:linux,mss=1452"};
  for (const char* q : {"/quic/ngtcp2_reno_30mbit_pfifo100_40ms/server-0.sqlog.gz", "/quic/ngtcp2_reno_20mbit_pfifo12/server.sqlog.gz", "/quic/ngtcp2_cubic_20mbit_pfifo12/server.sqlog.gz"}) {
  absl::StatusOr<ReplayResult> r = ReplayQuicLog(std::string(CCREPLAY_TESTDATA_DIR) + q, options);
  ASSERT_TRUE(r.ok()) << r.status();
  std::printf("%s acks %llu\n", q, (unsigned long long)r->acks);
  for (const ReplayedController& c : r->controllers) {
    std::printf("%s: samples %llu median %.2f p95 %.2f\n", c.spec.c_str(), (unsigned long long)c.divergence.samples,
                c.divergence.median_abs_err_pct.value_or(-1), c.divergence.p95_abs_err_pct.value_or(-1));
  }
  }
}

}  // namespace
}  // namespace ccreplay
