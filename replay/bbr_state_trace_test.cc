// The replay's per-ACK BBR state trace (replay/bbr_state_trace.h) on the
// lab bundle bbr_20mbit_20ms_pfifo50 (testdata/SOURCES.md): Linux 6.18 BBR,
// iperf3 for 3 s through a 20 Mbit/s HTB with a 50-packet pfifo and 20 ms
// of delay.
#include <algorithm>
#include <string>
#include <vector>

#include "gtest/gtest.h"
#include "replay/replay_session.h"

namespace ccreplay {
namespace {

const std::string kBundle =
    std::string(CCREPLAY_TESTDATA_DIR) + "/lab/bbr_20mbit_20ms_pfifo50";

absl::StatusOr<ReplayResult> Replay(const std::vector<std::string>& specs) {
  ReplayOptions options;
  options.specs = specs;
  options.host_state_path = kBundle + "/tcp_probe.txt.gz";
  return ReplayTcpCapture(kBundle + "/sender.pcap.gz", options);
}

TEST(BbrStateTraceTest, OneRecordPerAckForBbrOnly) {
  absl::StatusOr<ReplayResult> r = Replay({"bbr:linux,phase=0", "cubic:linux"});
  ASSERT_TRUE(r.ok()) << r.status();
  ASSERT_EQ(r->controllers.size(), 2u);
  EXPECT_FALSE(r->controllers[1].bbr_state.has_value());  // not BBR
  ASSERT_TRUE(r->controllers[0].bbr_state.has_value());
  const BbrStateTrace& trace = *r->controllers[0].bbr_state;
  EXPECT_EQ(trace.mss_bytes, 1448u);
  ASSERT_EQ(trace.records.size(), r->acks);
  EXPECT_TRUE(
      std::is_sorted(trace.records.begin(), trace.records.end(),
                     [](const BbrStateRecord& a, const BbrStateRecord& b) {
                       return a.time_us < b.time_us;
                     }));
  // STARTUP, then DRAIN, then PROBE_BW, as ss shows (bbr_fidelity_test),
  // with full bandwidth reached once; the rounds only grow.
  std::vector<BbrMode> modes;
  for (const BbrStateRecord& rec : trace.records) {
    if (modes.empty() || modes.back() != rec.mode) modes.push_back(rec.mode);
  }
  ASSERT_GE(modes.size(), 3u);
  EXPECT_EQ(modes[0], BbrMode::kStartup);
  EXPECT_EQ(modes[1], BbrMode::kDrain);
  EXPECT_EQ(modes[2], BbrMode::kProbeBw);
  EXPECT_TRUE(trace.records.back().full_bw_reached);
  EXPECT_FALSE(trace.records.front().full_bw_reached);
  EXPECT_GT(trace.records.back().round_count, 20u);
  // 56 drops in 5003 packets (meta.json qdisc_stats): far from the 20 %
  // that long-term (policer) mode needs.
  for (const BbrStateRecord& rec : trace.records) {
    ASSERT_FALSE(rec.lt_use_bw) << rec.time_us;
  }
}

TEST(BbrStateTraceTest, DeliveryRateSamplesShowTheBottleneck) {
  absl::StatusOr<ReplayResult> r = Replay({"bbr:linux,phase=0"});
  ASSERT_TRUE(r.ok()) << r.status();
  const BbrStateTrace& trace = *r->controllers[0].bbr_state;
  std::vector<double> rates;
  size_t app_limited = 0;
  for (const BbrStateRecord& rec : trace.records) {
    if (rec.mode != BbrMode::kProbeBw || !rec.delivery_rate_bps) continue;
    rates.push_back(*rec.delivery_rate_bps);
    app_limited += rec.app_limited;
  }
  ASSERT_GT(rates.size(), 1000u);
  std::nth_element(rates.begin(), rates.begin() + rates.size() / 2,
                   rates.end());
  // `tshark -r sender.pcap.gz -q -z 'io,stat,1,SUM(tcp.len)tcp.len&&
  // ip.src==10.78.176.1'`: 2389200 and 2400784 payload bytes in seconds
  // 1-2 and 2-3, 19.1-19.2 Mbit/s.
  EXPECT_NEAR(rates[rates.size() / 2], 19.15e6, 0.4e6);
  // A bulk iperf3 transfer: nearly no app-limited samples in PROBE_BW.
  EXPECT_LT(app_limited, rates.size() / 20);
  // bw (the max filter) sits at or above the median sample.
  EXPECT_GE(trace.records.back().bw_bps, rates[rates.size() / 2]);
  EXPECT_LT(trace.records.back().bw_bps, 21e6);
}

}  // namespace
}  // namespace ccreplay
