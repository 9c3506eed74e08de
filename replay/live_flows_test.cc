#include "replay/live_flows.h"

#include <malloc.h>

#include <algorithm>
#include <cstdio>
#include <cstring>
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

// A short connection 10.0.0.1:port > 10.0.0.2:80, `start_ns` on: handshake,
// `segments` data segments of 1000 bytes each ACKed, then FIN both ways
// (or an RST from the server with `reset`), 1 ms apart.
std::vector<TcpSegment> ShortConnection(uint16_t port, int64_t start_ns,
                                        int segments, bool reset) {
  std::vector<TcpSegment> out;
  int64_t t = start_ns;
  auto add = [&](bool from_client, uint16_t flags, uint32_t seq, uint32_t ack,
                 uint32_t payload) {
    TcpSegment s;
    s.time_ns = t;
    t += 1'000'000;
    s.src.family = s.dst.family = 4;
    const uint8_t client[4] = {10, 0, 0, 1}, server[4] = {10, 0, 0, 2};
    std::memcpy(s.src.bytes, from_client ? client : server, 4);
    std::memcpy(s.dst.bytes, from_client ? server : client, 4);
    s.src_port = from_client ? port : 80;
    s.dst_port = from_client ? 80 : port;
    s.flags = flags;
    s.seq = seq;
    s.ack = ack;
    s.window_raw = 65535;
    s.payload_bytes = payload;
    out.push_back(s);
  };
  const uint32_t c = 1000, v = 5000;  // ISNs.
  add(true, kTcpSyn, c, 0, 0);
  add(false, kTcpSyn | kTcpAck, v, c + 1, 0);
  add(true, kTcpAck, c + 1, v + 1, 0);
  uint32_t next = c + 1;
  for (int i = 0; i < segments; ++i) {
    add(true, kTcpAck, next, v + 1, 1000);
    next += 1000;
    add(false, kTcpAck, v + 1, next, 0);
  }
  if (reset) {
    add(false, kTcpRst, v + 1, 0, 0);
    return out;
  }
  add(true, kTcpAck | kTcpFin, next, v + 1, 0);
  add(false, kTcpAck | kTcpFin, v + 1, next + 1, 0);
  add(true, kTcpAck, next + 1, v + 2, 0);
  return out;
}

// 20,000 short connections, 100 a second for 200 s, every fifth ended by an
// RST, ticked every second as watch does: the live table and the timeline
// state follow the connections of the last closed_ns (5 s: ~500), not all,
// and the heap grows only by the flow table's record of each.
// Heap bytes in use (glibc's mallinfo2(3)).
size_t HeapBytes() { return mallinfo2().uordblks; }

TEST(LiveFlowMonitorTest, ShortFlowsLeaveTheTableSoItStaysBounded) {
  LiveFlowMonitor monitor;
  size_t heap_at_10s = 0;
  constexpr int64_t kStartNs = 1'700'000'000 * kSecondNs;
  constexpr int kFlows = 20'000, kPerSecond = 100;
  size_t max_live = 0, max_state = 0, expired = 0;
  int64_t next_tick_ns = kStartNs + kSecondNs;
  for (int i = 0; i < kFlows; ++i) {
    const int64_t start_ns = kStartNs + i * (kSecondNs / kPerSecond);
    while (start_ns >= next_tick_ns) {
      monitor.EndInterval(kSecondNs);
      expired += monitor.ExpireFlows(next_tick_ns);
      max_live = std::max(max_live, monitor.live_flows());
      max_state = std::max(max_state, monitor.flows_with_state());
      if (next_tick_ns == kStartNs + 10 * kSecondNs) heap_at_10s = HeapBytes();
      next_tick_ns += kSecondNs;
    }
    // Ports cycle through 10,000: every port is used twice, long after
    // its first connection closed.
    const uint16_t port = static_cast<uint16_t>(20000 + i % 10'000);
    for (const TcpSegment& s : ShortConnection(port, start_ns, 3, i % 5 == 0))
      monitor.OnSegment(s);
  }
  // Closed 5 s ago or more are gone at each tick: at most 6 s of arrivals.
  EXPECT_LE(max_live, 6u * kPerSecond);
  EXPECT_GE(max_live, 5u * kPerSecond);
  EXPECT_LE(max_state, 6u * kPerSecond);
  // The last tick (at 199 s) leaves those of the last 6 s and a bit.
  EXPECT_GE(expired, kFlows - 7u * kPerSecond);
  // What stays of an expired flow is its flow table record (sizeof(Flow)
  // <= 248 with the reader's state, flow_table_test; libstdc++'s deque
  // puts two in a 512-byte block) and an 8-byte pointer (in a vector of up
  // to twice the size): measured 242 to 264 bytes a flow with the 216-byte
  // record, 300 with the 248-byte one, against 3,640 with nothing expired
  // (LiveFlowExpiry{INT64_MAX, INT64_MAX}): the rest is freed.
  const double heap_per_flow = static_cast<double>(HeapBytes() - heap_at_10s) /
                               (kFlows - 10 * kPerSecond);
  std::printf(
      "live table: at most %zu flows, %zu with timeline state; heap %.0f "
      "bytes per flow after the first 10 s\n",
      max_live, max_state, heap_per_flow);
  EXPECT_LT(heap_per_flow, 320);
  // Every connection kept its own index: none was folded into another.
  EXPECT_EQ(monitor.flow_table().flows().size(), static_cast<size_t>(kFlows));
}

// A flow with no packet for idle_ns leaves; one still sending stays, with
// its index; a packet of the expired one's endpoints starts a new flow.
TEST(LiveFlowMonitorTest, IdleFlowsLeaveAndComeBackAsNewFlows) {
  LiveFlowMonitor monitor(LiveFlowExpiry{10 * kSecondNs, kSecondNs});
  constexpr int64_t kStartNs = 1'700'000'000 * kSecondNs;
  std::vector<TcpSegment> quiet = ShortConnection(30000, kStartNs, 2, false);
  quiet.resize(quiet.size() - 3);  // No FIN: open, then silent.
  std::vector<TcpSegment> busy = ShortConnection(30001, kStartNs, 200, false);
  for (size_t i = 0; i < busy.size(); ++i) {
    busy[i].time_ns = kStartNs + i * 50'000'000;  // 0.05 s apart: 20 s.
  }
  for (const TcpSegment& s : quiet) monitor.OnSegment(s);
  size_t expired_at_9s = 0, expired_at_11s = 0;
  for (const TcpSegment& s : busy) {
    monitor.OnSegment(s);
    if (s.time_ns == kStartNs + 9 * kSecondNs)
      expired_at_9s = monitor.ExpireFlows(s.time_ns);
    if (s.time_ns == kStartNs + 11 * kSecondNs)
      expired_at_11s = monitor.ExpireFlows(s.time_ns);
  }
  EXPECT_EQ(expired_at_9s, 0u);
  EXPECT_EQ(expired_at_11s, 1u);
  EXPECT_EQ(monitor.live_flows(), 1u);
  TcpSegment again = quiet.back();
  again.time_ns = kStartNs + 31 * kSecondNs;
  monitor.OnSegment(again);
  const std::vector<LiveFlowInterval> rows = monitor.EndInterval(kSecondNs);
  ASSERT_EQ(rows.size(), 2u);
  EXPECT_EQ(rows[0].flow_index, 1u);  // The busy one, still index 1.
  EXPECT_EQ(rows[1].flow_index, 2u);  // The quiet one's endpoints, anew.
  EXPECT_EQ(rows[1].packets, 1u);
}

}  // namespace
}  // namespace ccreplay
