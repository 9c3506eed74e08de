#include "replay/live_flows.h"

#include <string>
#include <vector>

#include "gtest/gtest.h"
#include "parsers/pcap_reader.h"
#include "proto/testing/test_data.h"

namespace ccreplay {
namespace {

constexpr int64_t kSecondNs = 1'000'000'000;

// Plays a capture as a live capture would: the interval closes at each
// whole second after the first packet, before the first segment past it.
struct SecondTicks : SegmentConsumer {
  LiveFlowMonitor monitor;
  int64_t next_tick_ns = -1;
  std::vector<std::vector<LiveFlowInterval>> intervals;

  void OnSegment(const TcpSegment& segment) override {
    if (next_tick_ns < 0) next_tick_ns = segment.time_ns + kSecondNs;
    while (segment.time_ns >= next_tick_ns) {
      intervals.push_back(monitor.EndInterval(kSecondNs));
      next_tick_ns += kSecondNs;
    }
    monitor.OnSegment(segment);
  }
  void Restart() override {}
};

TEST(LiveFlowMonitorTest, RatesPerSecondAreNewBytesSentAndAcked) {
  SecondTicks ticks;
  absl::StatusOr<CaptureInfo> info = ReadCapture(
      TestDataPath("lab/reno_ecn1_stepK60k_50mbit/sender.pcap.gz"), ticks);
  ASSERT_TRUE(info.ok()) << info.status();
  // The capture has no retransmission (`ccreplay flows`), so unique bytes
  // are every payload byte:
  //   tshark -r sender.pcap.gz -q -z 'io,stat,1,SUM(tcp.len)tcp.len &&
  //     ip.src==10.99.1.1 && tcp.srcport==42408'
  // gives 5928149, 5975896, 5986032 bytes in seconds 0-1, 1-2, 2-3.
  const int64_t expected_bytes[] = {5928149, 5975896, 5986032};
  // The receiver's cumulative ACK at the end of each second:
  //   tshark -r sender.pcap.gz -q -z 'io,stat,1,MAX(tcp.ack)tcp.ack &&
  //     ip.src==10.99.2.1 && tcp.dstport==42408'
  // gives 5906430, 11877982, 17849534 (relative: data starts at 1).
  const int64_t expected_acked[] = {5906430 - 1, 11877982 - 5906430,
                                    17849534 - 11877982};
  ASSERT_EQ(ticks.intervals.size(), 3u);
  for (size_t second = 0; second < 3; ++second) {
    const std::vector<LiveFlowInterval>& rows = ticks.intervals[second];
    const LiveFlowInterval* bulk = nullptr;
    for (const LiveFlowInterval& row : rows) {
      if (row.sender == "10.99.1.1:42408") bulk = &row;
    }
    ASSERT_NE(bulk, nullptr) << "second " << second;
    EXPECT_EQ(bulk->flow_index, 1u);
    EXPECT_EQ(bulk->receiver, "10.99.2.1:5201");
    EXPECT_DOUBLE_EQ(bulk->send_rate_bps, expected_bytes[second] * 8.0);
    ASSERT_TRUE(bulk->rate_bps.has_value());
    EXPECT_DOUBLE_EQ(*bulk->rate_bps, expected_acked[second] * 8.0);
    EXPECT_EQ(bulk->retransmissions, 0u);
    ASSERT_TRUE(bulk->srtt_ms.has_value());
    // `ccreplay flows` gives a 6.3 ms median RTT; the step marker at 60 kB
    // keeps the queue, and srtt, within a few ms of it.
    EXPECT_GT(*bulk->srtt_ms, 1.0);
    EXPECT_LT(*bulk->srtt_ms, 20.0);
    EXPECT_NE(bulk->limit, "none");
  }
  // 474 ECE-marked ACKs (`ccreplay flows`): the newest event is an ECN
  // congestion episode once the queue reached the marking step.
  EXPECT_EQ(ticks.intervals[2].back().newest_event, "congestion episode (ECN)");
  // The control connection (flow 0) is idle after its first second.
  for (size_t second = 1; second < 3; ++second) {
    for (const LiveFlowInterval& row : ticks.intervals[second]) {
      EXPECT_NE(row.flow_index, 0u) << "second " << second;
    }
  }
}

TEST(LiveFlowMonitorTest, NotableEventNamesRetransmissionsAndEcn) {
  TimelineEvent event;
  EXPECT_EQ(NotableEvent(event), "");
  event.duplicate = true;
  EXPECT_EQ(NotableEvent(event), "duplicate ACK");
  // A pause shorter than the RTO is no restart (RFC 5681 section 4.1).
  event.idle_restart_time_ns = 1;
  event.idle_restart_idle_us = 150'000;
  event.rto_us = 200'000;
  EXPECT_EQ(NotableEvent(event), "duplicate ACK");
  event.idle_restart_idle_us = 250'000;
  EXPECT_EQ(NotableEvent(event), "restart after idle");
  event.congestion_episode = true;
  EXPECT_EQ(NotableEvent(event), "congestion episode (ECN)");
  event.type = TimelineEvent::Type::kRetransmission;
  event.kind = RetransmissionKind::kRto;
  EXPECT_EQ(NotableEvent(event), "retransmission: rto");
}

}  // namespace
}  // namespace ccreplay
