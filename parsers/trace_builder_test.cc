#include "parsers/trace_builder.h"

#include <string>

#include "gtest/gtest.h"
#include "proto/testing/test_data.h"

namespace ccreplay {
namespace {

proto::Trace Convert(const std::string& path, std::optional<uint32_t> flow) {
  TraceBuilder builder(flow);
  absl::StatusOr<CaptureInfo> info = ReadCapture(path, builder);
  EXPECT_TRUE(info.ok()) << info.status();
  return builder.Finish(*info);
}

TEST(TraceBuilderTest, PragueFlowPacketsInBothDirections) {
  CCREPLAY_PATH_OR_SKIP(
      path, SharedTestData("tcp/l4s-tests_prague_dualpi2_wifi.pcap.gz"));
  proto::Trace trace = Convert(path, 1);
  ASSERT_EQ(trace.flows_size(), 1);
  const proto::FlowTrace& f = trace.flows(0);
  EXPECT_EQ(f.identity().sender().address(), "192.168.122.79");
  EXPECT_EQ(f.identity().sender().port(), 38754u);
  EXPECT_EQ(f.handshake().ecn_mode(), proto::ECN_MODE_ACCECN);
  EXPECT_EQ(f.handshake().wscale_receiver_shift(), 11u);
  // 30813 + 23305 packets (tshark -Y tcp.stream==1 per direction).
  ASSERT_EQ(f.packets_size(), 30813 + 23305);
  int data = 0;
  for (const proto::PacketEvent& e : f.packets())
    data += e.direction() == proto::DIRECTION_DATA;
  EXPECT_EQ(data, 30813);
  // The SYN is at relative sequence 0 and time 0; the last data byte's end
  // is 1 + 44118525 (tshark -o tcp.relative_sequence_numbers:TRUE: the last
  // tcp.nxtseq of the sender is 44118526, after the FIN's extra 1).
  EXPECT_EQ(f.packets(0).seq_bytes(), 0u);
  EXPECT_EQ(f.packets(0).time_ns(), 0);
  uint64_t highest_end = 0, highest_ack = 0;
  for (const proto::PacketEvent& e : f.packets()) {
    if (e.direction() == proto::DIRECTION_DATA) {
      highest_end =
          std::max<uint64_t>(highest_end, e.seq_bytes() + e.payload_bytes());
    } else {
      highest_ack = std::max<uint64_t>(highest_ack, e.ack_bytes());
    }
  }
  EXPECT_EQ(highest_end, 1u + 44118525u);
  // The capture ends before the last ACKs: the highest tcp.ack from port
  // 5201 in tshark is 44095614.
  EXPECT_EQ(highest_ack, 44095614u);
}

TEST(TraceBuilderTest, ReceiveWindowIsScaledAfterTheSyn) {
  // First ACK from the receiver after the handshake: `tshark -Y
  // "tcp.stream==1 && tcp.srcport==5201"` frame 2 of the stream shows
  // win=32 raw, wscale 11 -> tcp.window_size 65536.
  CCREPLAY_PATH_OR_SKIP(
      path, SharedTestData("tcp/l4s-tests_prague_dualpi2_wifi.pcap.gz"));
  proto::Trace trace = Convert(path, 1);
  const proto::FlowTrace& f = trace.flows(0);
  int seen = 0;
  for (const proto::PacketEvent& e : f.packets()) {
    if (e.direction() != proto::DIRECTION_ACK) continue;
    if (++seen == 1) {
      EXPECT_EQ(e.tcp_flags() & 0x12, 0x12u);  // The SYN-ACK: never scaled.
      EXPECT_EQ(e.receive_window_bytes(), 65160u);
    }
    if (seen == 2) {
      EXPECT_EQ(e.receive_window_bytes(), 32u << 11);
      break;
    }
  }
}

TEST(TraceBuilderTest, AccEcnOptionAndAceOnTheHandshakeCapture) {
  // tshark -O tcp: the SYN-ACK carries the experimental AccECN option
  // (ExID 0xACC0) with EE0B 1, ECEB 0, EE1B 0; the client's first ACK has
  // ACE = 2.
  CCREPLAY_PATH_OR_SKIP(path,
                        SharedTestData("tcp/tcpdump_accecn_handshake.pcap"));
  proto::Trace trace = Convert(path, std::nullopt);
  ASSERT_EQ(trace.flows_size(), 1);
  const proto::FlowTrace& f = trace.flows(0);
  const proto::PacketEvent& synack = f.packets(1);
  EXPECT_EQ(synack.accecn_option().kind(), 254u);
  EXPECT_EQ(synack.accecn_option().ect0_bytes(), 1u);
  EXPECT_EQ(f.packets(2).ace(), 2u);
  EXPECT_EQ(trace.capture().packets(), 6u);
}

TEST(TraceBuilderTest, SackBlocksUseTheDataSendersSequenceSpace) {
  // The drop-tail lab flow: the receiver's SACK blocks name the sender's
  // bytes; each lies within the data sent and above the cumulative ACK.
  // `tshark -Y "tcp.stream==1 && tcp.options.sack_le" | wc -l` = 374.
  proto::Trace trace = Convert(
      TestDataPath("lab/cubic_noecn_droptail100_50mbit/sender.pcap.gz"), 1);
  const proto::FlowTrace& f = trace.flows(0);
  uint64_t highest_sent = 0;
  int blocks = 0, packets_with_sack = 0;
  for (const proto::PacketEvent& e : f.packets()) {
    packets_with_sack += e.sack_blocks_size() > 0;
    if (e.direction() == proto::DIRECTION_DATA) {
      highest_sent =
          std::max<uint64_t>(highest_sent, e.seq_bytes() + e.payload_bytes());
    }
    for (const proto::SackBlock& b : e.sack_blocks()) {
      ++blocks;
      EXPECT_LT(b.start_seq_bytes(), b.end_seq_bytes());
      EXPECT_LE(b.end_seq_bytes(), highest_sent);
      EXPECT_GT(b.start_seq_bytes(), e.ack_bytes());
    }
  }
  EXPECT_EQ(packets_with_sack, 374);
  EXPECT_GE(blocks, packets_with_sack);
}

}  // namespace
}  // namespace ccreplay
