#include "replay/flow_index.h"

#include <cstring>
#include <string>

#include "gtest/gtest.h"
#include "parsers/pcap_reader.h"
#include "proto/testing/test_data.h"

namespace ccreplay {
namespace {

TEST(RttHistogramTest, MedianWithinBucketPrecision) {
  RttHistogram h;
  EXPECT_FALSE(h.MedianUs().has_value());
  // 1..999 ms: the median is 500 ms; a bucket is 2^(1/8) wide, so its
  // centre is within 4.5 % of any value in it.
  for (int ms = 1; ms < 1000; ++ms) h.Add(ms * 1000);
  ASSERT_TRUE(h.MedianUs().has_value());
  EXPECT_NEAR(*h.MedianUs(), 500'000, 0.045 * 500'000);
  EXPECT_EQ(h.count(), 999u);
}

// A short download on connection `i`: client 10.(i>>8).(i).1:40000 to
// 192.0.2.1:80, handshake, two 1000-byte segments 1 ms apart, an ACK, a
// FIN each way and the last ACK; RTT 1 ms, starting at `t0_ns`.
class ShortFlows {
 public:
  explicit ShortFlows(SegmentConsumer& sink) : sink_(sink) {}

  // `close`: the FINs; `last_ack`: the second FIN acknowledges the first,
  // and its own ACK follows.
  void Download(uint32_t i, int64_t t0_ns, bool close = true,
                bool last_ack = true) {
    constexpr uint32_t kClientIsn = 1000, kServerIsn = 5000;
    Send(i, true, t0_ns, kTcpSyn, kClientIsn, 0, 0);
    Send(i, false, t0_ns + 500'000, kTcpSyn | kTcpAck, kServerIsn,
         kClientIsn + 1, 0);
    Send(i, true, t0_ns + 1'000'000, kTcpAck, kClientIsn + 1, kServerIsn + 1,
         0);
    Data(i, t0_ns + 1'500'000, kServerIsn + 1);
    if (!close) return;
    Send(i, false, t0_ns + 2'600'000, kTcpFin | kTcpAck, kServerIsn + 2001,
         kClientIsn + 1, 0);
    // Without the last ACK, a simultaneous close: the client's FIN left
    // before the server's arrived.
    Send(i, true, t0_ns + 3'100'000, kTcpFin | kTcpAck, kClientIsn + 1,
         kServerIsn + (last_ack ? 2002 : 2001), 0);
    if (!last_ack) return;
    Send(i, false, t0_ns + 3'600'000, kTcpAck, kServerIsn + 2002,
         kClientIsn + 2, 0);
  }

  // Two 1000-byte segments from `seq` and the client's ACK of both.
  void Data(uint32_t i, int64_t t_ns, uint32_t seq) {
    Send(i, false, t_ns, kTcpAck, seq, 1001, 1000);
    Send(i, false, t_ns + 100'000, kTcpAck, seq + 1000, 1001, 1000);
    Send(i, true, t_ns + 1'100'000, kTcpAck, 1001, seq + 2000, 0);
  }

 private:
  void Send(uint32_t i, bool from_client, int64_t t_ns, uint16_t flags,
            uint32_t seq, uint32_t ack, uint32_t payload) {
    TcpSegment s;
    s.time_ns = t_ns;
    s.src.family = s.dst.family = 4;
    const uint8_t client[4] = {10, static_cast<uint8_t>(i >> 8),
                               static_cast<uint8_t>(i), 1};
    const uint8_t server[4] = {192, 0, 2, 1};
    std::memcpy(s.src.bytes, from_client ? client : server, 4);
    std::memcpy(s.dst.bytes, from_client ? server : client, 4);
    s.src_port = from_client ? 40000 : 80;
    s.dst_port = from_client ? 80 : 40000;
    s.flags = flags;
    s.seq = seq;
    s.ack = ack;
    s.window_raw = 65535;
    s.payload_bytes = s.captured_payload_bytes = payload;
    if (flags & kTcpSyn) {
      s.options.has_mss = true;
      s.options.mss_bytes = 1460;
    }
    sink_.OnSegment(s);
  }

  SegmentConsumer& sink_;
};

// An entry is held per flow until the output: at 256 bytes or less two
// fit in one of libstdc++'s 512-byte deque blocks (__deque_buf_size in
// bits/stl_deque.h: 512 / size), above it one; a block is two entries
// (not 512 bytes) and a malloc header. The 296-byte entry took 304 bytes
// of heap, a 256-byte one 264, the 240-byte one (its RTTs not optionals)
// 248: 16 MB less at a million flows. At 170 bytes or less three fit: 512
// bytes of heap a block, 171 an entry.
TEST(FlowIndexBuilderTest, EntryFitsThreeToADequeBlock) {
  // Without the endpoints, packet counts and start, which the row reads
  // from the flow table's record: three to a block, 171 bytes of heap.
  EXPECT_LE(sizeof(FlowIndexEntry), 512u / 3);
}

// 2,000 downloads one after the other: each is folded and freed at its
// second FIN (which acknowledges the first), so one is open at a time (all
// 2,000 without freeing); the last ACK, after it, is still counted.
TEST(FlowIndexBuilderTest, ClosedFlowsAreFreed) {
  FlowIndexBuilder index;
  ShortFlows flows(index);
  constexpr int64_t kT0 = 1'700'000'000'000'000'000;
  for (uint32_t i = 0; i < 2000; ++i) flows.Download(i, kT0 + i * 1'000'000);
  index.Finish(kT0);
  ASSERT_EQ(index.entries().size(), 2000u);
  EXPECT_EQ(index.max_open_flows(), 1u);
  for (size_t i = 0; i < index.entries().size(); ++i) {
    const FlowIndexEntry& e = index.entries()[i];
    EXPECT_STREQ(FlowEndName(e.ended), "closed");
    EXPECT_EQ(e.summary.data_bytes, 2000u);
    EXPECT_EQ(e.data_packets, 2u);
    EXPECT_EQ(
        index.flow(i).packets_data_dir() + index.flow(i).packets_ack_dir(), 9u);
    ASSERT_TRUE(e.min_rtt_ms().has_value());
    // The client's ACK 1.1 ms after the first segment, 1.0 ms after the
    // second: the minimum sample is 1 ms.
    EXPECT_NEAR(*e.min_rtt_ms(), 1.0, 1e-9);
  }
  EXPECT_NEAR(index.flow(1999).start_s(), 1.999, 1e-9);
}

// Simultaneous closes whose last ACKs the capture missed: a flow is folded
// kClosedLingerNs (1 s) after its second FIN, found by a check every
// kSweepIntervalNs (0.25 s), so about 1.25 s of flows, 1,250, are open at
// most.
TEST(FlowIndexBuilderTest, FlowsWithoutTheLastAckCloseAfterALinger) {
  FlowIndexBuilder index;
  ShortFlows flows(index);
  constexpr int64_t kT0 = 1'700'000'000'000'000'000;
  for (uint32_t i = 0; i < 2000; ++i) {
    flows.Download(i, kT0 + i * 1'000'000, /*close=*/true,
                   /*last_ack=*/false);
  }
  flows.Download(0, kT0 + 3'000'000'000);  // Port reuse: a new flow.
  index.Finish(kT0);
  ASSERT_EQ(index.entries().size(), 2001u);
  EXPECT_GE(index.max_open_flows(), 1000u);
  EXPECT_LE(index.max_open_flows(), 1260u);
  for (const FlowIndexEntry& e : index.entries()) {
    EXPECT_STREQ(FlowEndName(e.ended), "closed");
    EXPECT_EQ(e.summary.data_bytes, 2000u);
  }
  EXPECT_EQ(index.flow(0).packets_data_dir() + index.flow(0).packets_ack_dir(),
            8u);
  EXPECT_EQ(
      index.flow(2000).packets_data_dir() + index.flow(2000).packets_ack_dir(),
      9u);
}

// A flow silent for longer than the idle timeout is folded ("idle"); when
// it resumes, its row takes the new packets and keeps what it had.
TEST(FlowIndexBuilderTest, IdleFlowIsFoldedAndResumes) {
  FlowIndexBuilder index;
  ShortFlows flows(index);
  constexpr int64_t kT0 = 1'700'000'000'000'000'000;
  flows.Download(0, kT0, /*close=*/false);
  const int64_t later = kT0 + kFlowIdleTimeoutNs + 1'000'000'000;
  flows.Download(1, later, /*close=*/false);
  EXPECT_EQ(index.max_open_flows(), 1u);  // Flow 0 went before 1 came.
  flows.Data(0, later + 10'000'000, 5001 + 2000);
  index.Finish(kT0);
  ASSERT_EQ(index.entries().size(), 2u);
  const FlowIndexEntry& resumed = index.entries()[0];
  EXPECT_STREQ(FlowEndName(resumed.ended), "open");
  EXPECT_EQ(resumed.summary.data_bytes, 4000u);
  EXPECT_EQ(resumed.acks, 2u);  // One ACK of data before, one after.
  EXPECT_STREQ(FlowEndName(index.entries()[1].ended), "open");
}

// Flows of a real capture (334 TCP connections, no frame captured twice)
// against tshark's. Frames per connection:
//   tshark -r pcapplusplus_tls2.pcap.gz -q -z conv,tcp
// the data sender's unique payload:
//   tshark -r pcapplusplus_tls2.pcap.gz -Y "ipv6.src==2620:1ec:c11::200 &&
//     tcp.srcport==443 && tcp.dstport==49735 &&
//     !tcp.analysis.retransmission && !tcp.analysis.out_of_order"
//     -T fields -e tcp.len | paste -sd+ | bc
TEST(FlowIndexBuilderTest, CountsEqualTsharkOnAWildCapture) {
  CCREPLAY_PATH_OR_SKIP(path, SharedTestData("wild/pcapplusplus_tls2.pcap.gz"));
  FlowIndexBuilder index;
  absl::StatusOr<CaptureInfo> info = ReadCapture(path, index);
  ASSERT_TRUE(info.ok()) << info.status();
  index.Finish(info->first_packet_time_ns);
  const auto& entries = index.entries();
  ASSERT_EQ(entries.size(), 334u);  // conv,tcp lists 334 conversations.
  uint64_t frames = 0, bytes = 0;
  for (size_t i = 0; i < entries.size(); ++i) {
    frames +=
        index.flow(i).packets_data_dir() + index.flow(i).packets_ack_dir();
    bytes += entries[i].summary.data_bytes;
  }
  EXPECT_EQ(frames, 7451u);  // Every frame (capinfos: 7451 packets).
  // tshark's sum over every connection's data sender, 1,573,306, leaves
  // out frame 3750 (580 bytes), which it calls a spurious retransmission
  // because an ACK had covered it; the capture had not seen those bytes.
  EXPECT_EQ(bytes, 1'573'306u + 580u);
  const IndexedFlow big = index.flow(84);
  EXPECT_EQ(big.sender(), "[2620:1ec:c11::200]:443");
  EXPECT_EQ(big.packets_data_dir() + big.packets_ack_dir(), 1051u);
  EXPECT_EQ(big.summary().data_bytes, 140068u);
  EXPECT_NEAR(big.start_s(), 66.933056, 1e-6);  // conv's Rel Start.
  const IndexedFlow second = index.flow(104);
  EXPECT_EQ(second.sender(), "[2a04:4e42:a::272]:443");
  EXPECT_EQ(second.packets_data_dir() + second.packets_ack_dir(), 308u);
  EXPECT_EQ(second.summary().data_bytes, 46694u);
  // Taken out of the pass, the rows read the same records; the pass's
  // table is left empty.
  const FlowIndex taken = index.TakeIndex();
  EXPECT_EQ(index.flow_table().flows().size(), 0u);
  ASSERT_EQ(taken.size(), 334u);
  EXPECT_EQ(taken.flow(84).sender(), "[2620:1ec:c11::200]:443");
  EXPECT_EQ(taken.flow(84).receiver().empty(), false);
  EXPECT_EQ(
      taken.flow(84).packets_data_dir() + taken.flow(84).packets_ack_dir(),
      1051u);
  EXPECT_NEAR(taken.flow(84).start_s(), 66.933056, 1e-6);
}

}  // namespace
}  // namespace ccreplay
