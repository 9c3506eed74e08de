#include "parsers/flow_table.h"

#include <cstring>
#include <string>

#include "gtest/gtest.h"
#include "parsers/parser_testing.h"
#include "parsers/pcap_reader.h"
#include "parsers/sequence_sanity.h"
#include "proto/testing/test_data.h"

namespace ccreplay {
namespace {

// The facts of one flow as `scripts/tshark_flow_facts.py FILE` computes them
// from tshark's dissection (an independent reader and TCP analyser): packets
// per direction, unique payload bytes (union of tcp.seq ranges),
// retransmitted segments (payload segments tshark flags
// tcp.analysis.retransmission or out_of_order, less the reorderings: an
// out-of-order segment that fills a hole less than one handshake RTT after
// the hole opened cannot be a retransmission), ip.dsfield.ecn counts,
// ECE/CWR flags, ACE changes, mss/wscale options, goodput.
struct Expected {
  const char* file;  // As FindTestData takes it.
  uint32_t flow;
  const char* sender;
  const char* receiver;
  uint64_t packets_data_dir, packets_ack_dir, data_bytes, retransmitted;
  uint64_t not_ect, ect1, ect0, ce, ece_acks, cwr, ace_changes;
  const char* ecn_mode;
  uint32_t mss_sender;  // 0: no option seen.
  double goodput_bps;
};

class FlowFactsTest : public ::testing::TestWithParam<Expected> {};

TEST_P(FlowFactsTest, MatchesTshark) {
  const Expected& e = GetParam();
  CCREPLAY_PATH_OR_SKIP(path, FindTestData(e.file));
  FlowTable table;
  absl::StatusOr<CaptureInfo> info = ReadCapture(path, table);
  ASSERT_TRUE(info.ok()) << info.status();
  ASSERT_GT(table.flows().size(), e.flow);
  FlowSummary f =
      SummarizeFlow(table.flows()[e.flow], info->first_packet_time_ns);
  EXPECT_EQ(f.sender, e.sender);
  EXPECT_EQ(f.receiver, e.receiver);
  EXPECT_EQ(f.packets_data_dir, e.packets_data_dir);
  EXPECT_EQ(f.packets_ack_dir, e.packets_ack_dir);
  EXPECT_EQ(f.data_bytes, e.data_bytes);
  EXPECT_EQ(f.retransmitted_segments, e.retransmitted);
  EXPECT_EQ(f.not_ect_packets, e.not_ect);
  EXPECT_EQ(f.ect1_packets, e.ect1);
  EXPECT_EQ(f.ect0_packets, e.ect0);
  EXPECT_EQ(f.ce_packets, e.ce);
  EXPECT_EQ(f.ece_acks, e.ece_acks);
  EXPECT_EQ(f.cwr_packets, e.cwr);
  EXPECT_EQ(f.ace_changes, e.ace_changes);
  EXPECT_STREQ(EcnModeName(f.ecn_mode), e.ecn_mode);
  EXPECT_EQ(f.mss_option_sender.value_or(0), e.mss_sender);
  // tshark prints frame.time_epoch to the ns, as a float: allow 1e-5.
  EXPECT_NEAR(f.goodput_bps, e.goodput_bps, 1.0 + e.goodput_bps * 1e-5);
}

// clang-format off
INSTANTIATE_TEST_SUITE_P(Captures, FlowFactsTest, ::testing::Values(
  // TCP Prague, AccECN, sender side: data ECT(1), congestion only in ACE
  // (4856 changes; SOURCES.md: "about 4,900"), never CE in IP headers.
  Expected{"shared:tcp/l4s-tests_prague_dualpi2_wifi.pcap.gz", 1, "192.168.122.79:38754", "10.72.0.230:5201",
           30813, 23305, 44118525, 0, 1, 30810, 2, 0, 11515, 1, 4856, "accecn", 1460, 5876426},
  // iperf3's control connection in the same capture.
  Expected{"shared:tcp/l4s-tests_prague_dualpi2_wifi.pcap.gz", 0, "192.168.122.79:38752", "10.72.0.230:5201",
           18, 16, 459, 0, 1, 0, 17, 0, 15, 1, 0, "accecn", 1460, 61},
  // CUBIC with AccECN through fq_codel (RFC 3168 marking): ECT(0), 98 ACE changes.
  Expected{"shared:tcp/l4s-tests_cubic_fq_codel_wifi.pcap.gz", 1, "192.168.122.79:38774", "10.72.0.230:5201",
           44715, 32666, 64027621, 0, 1, 0, 44714, 0, 17096, 1, 98, "accecn", 1460, 8530101},
  // AccECN handshake over the Internet (SYN AE+CWR+ECE, SYN-ACK CWR only =
  // AccECN, RFC 9768 Table 2); server data is ECT(1).
  Expected{"shared:tcp/tcpdump_accecn_handshake.pcap", 0, "66.228.43.12:80", "31.133.146.248:16433",
           3, 3, 1448, 0, 1, 2, 0, 0, 1, 0, 1, "accecn", 1460, 0},
  // tshark: 46 retransmissions + 7 out-of-order from port 80, none of them a
  // reordering by the RTT rule; Zeek's 56 also counts 3 keep-alives of the
  // client's.
  Expected{"shared:tcp/zeek-tcprs_comp008.pcap", 0, "192.168.0.13:80", "10.0.45.170:54976",
           1879, 1401, 2190322, 53, 1879, 0, 0, 0, 0, 0, 0, "none", 1430, 17652},
  Expected{"shared:tcp/zeek-tcprs_fast019.pcap", 0, "192.168.0.2:80", "10.0.194.180:46432",
           384, 270, 517948, 15, 384, 0, 0, 0, 0, 0, 0, "none", 1430, 752372},
  // Receiver-side capture: tshark flags 62 retransmissions and 10
  // out-of-order segments; three of those (frames 655, 673, 899) arrive 77,
  // 1 and 4 us after the segment that jumped past them: reordering. 69 is
  // also Zeek's count (zeek-tcprs-baselines/heuristics.loss-window-
  // approximation/tcpretransmissions.log has 69 entries).
  Expected{"shared:tcp/zeek-tcprs_loss-window-approximation.pcap", 0, "10.0.204.227:49792", "192.168.0.3:80",
           597, 487, 708884, 69, 597, 0, 0, 0, 0, 0, 0, "none", 1460, 15024},
  // tshark also flags the retransmitted SYN-ACK (frame 3); it carries no
  // payload, so it is not in our count: 5 - 1 = 4.
  Expected{"shared:tcp/zeek-tcprs_rto-approximation.pcap", 0, "192.168.0.11:80", "10.0.181.65:3152",
           31, 26, 31868, 4, 31, 0, 0, 0, 0, 0, 0, "none", 1430, 18178},
  // Client-side capture of a download: tshark flags 6 retransmissions and 7
  // out-of-order segments, each of which fills a hole opened less than the
  // handshake RTT (SYN to the ACK of the SYN-ACK: 16.0 ms) before:
  // reordering, so 6.
  Expected{"gopacket:pcapgo/tests/le/test301.pcapng", 0, "112.80.248.76:443", "172.16.71.4:46664",
           137, 139, 866877, 6, 137, 0, 0, 0, 0, 0, 0, "none", 1452, 6892928},
  // Linux Reno, RFC 3168, step marker: the sender side never sees CE...
  Expected{"lab/reno_ecn1_stepK60k_50mbit/sender.pcap.gz", 1, "10.99.1.1:42408", "10.99.2.1:5201",
           12426, 6034, 17988541, 0, 2, 0, 12424, 0, 474, 30, 0, "rfc3168", 1460, 47778233},
  // ...the receiver side sees the 420 CE marks.
  Expected{"lab/reno_ecn1_stepK60k_50mbit/receiver.pcap.gz", 1, "10.99.1.1:42408", "10.99.2.1:5201",
           12426, 6034, 17988541, 0, 2, 0, 12004, 420, 474, 30, 0, "rfc3168", 1460, 47658567},
  // CUBIC drop-tail: 8 retransmissions on both sides; the receiver side
  // misses the 8 dropped originals (12521 - 12513).
  Expected{"lab/cubic_noecn_droptail100_50mbit/sender.pcap.gz", 1, "10.99.1.1:53138", "10.99.2.1:5201",
           12521, 6521, 18114517, 8, 12521, 0, 0, 0, 0, 0, 0, "none", 1460, 48037014},
  Expected{"lab/cubic_noecn_droptail100_50mbit/receiver.pcap.gz", 1, "10.99.1.1:53138", "10.99.2.1:5201",
           12513, 6521, 18114517, 8, 12513, 0, 0, 0, 0, 0, 0, "none", 1460, 47814373},
  // 291 CE marks after the bottleneck (SOURCES.md: 291).
  Expected{"lab/cubic_ecn_K60k_40mbit_ackdelay10ms/receiver.pcap.gz", 1, "10.98.1.1:51026", "10.98.2.1:5201",
           13210, 6746, 19123773, 0, 2, 0, 12917, 291, 281, 8, 0, "rfc3168", 1460, 37950564},
  // Linux SLL2 (tcpdump -i any) of an IPv6 transfer with TSO super-segments
  // (12 data packets carry 131,109 bytes).
  Expected{"pcap-format/ccreplay_sll2_ipv6.pcap", 1, "[fd77::1]:49064", "[fd77::2]:5302",
           12, 11, 131109, 0, 3, 0, 9, 0, 0, 0, 0, "rfc3168", 1440, 96928372},
  // Zeek's mpls-in-vlan.pcap: flow 0 is plain VLAN; flows 1 and 2 are
  // behind one and two MPLS labels (`tshark -r F -T fields -e tcp.stream
  // -e tcp.srcport -e tcp.dstport -e tcp.len -e mpls.label`: stream 1
  // 80->32828 1448 bytes label 16106; stream 2 61193->80 658 bytes labels
  // 254,99), as in its .facts.json: not-ECT, no ACK direction.
  Expected{"shared:wild/zeek_mpls-in-vlan.pcap", 1, "65.65.65.65:80", "65.65.65.65:32828",
           1, 0, 1448, 0, 1, 0, 0, 0, 0, 0, 0, "none", 0, 0},
  Expected{"shared:wild/zeek_mpls-in-vlan.pcap", 2, "65.65.65.65:61193", "65.65.65.65:80",
           1, 0, 658, 0, 1, 0, 0, 0, 0, 0, 0, "none", 0, 0},
  Expected{"gopacket:pcap/test_loopback.pcap", 0, "[::1]:8080", "[::1]:58799",
           11, 9, 54866, 0, 11, 0, 0, 0, 0, 0, 0, "none", 0, 9336918},
  // Tunnelled flows, decoded inside: `scripts/tshark_flow_facts.py F`
  // (tshark -E occurrence=l: the innermost IP header); `tshark -r F -q -z
  // conv,tcp` lists the same one conversation with the same frame counts.
  // VXLAN (UDP 4789, inner Ethernet).
  Expected{"shared:wild/zeek_tunnels_vxlan-encapsulated-http.pcap", 0, "54.86.237.188:80", "172.16.11.201:40354",
           5, 7, 9212, 0, 5, 0, 0, 0, 0, 0, 0, "none", 1452, 0},
  // GENEVE (UDP 6081, inner Ethernet).
  Expected{"shared:wild/zeek_tunnels_geneve-47101.pcap", 0, "145.40.68.75:443", "192.168.0.107:45474",
           9, 15, 23111, 0, 9, 0, 0, 0, 0, 0, 0, "none", 1420, 180654},
  // GRE carrying IPv4 (protocol 0x0800); an RFC 3168 handshake inside.
  Expected{"shared:wild/zeek_tunnels_gre-sample.pcap", 0, "172.28.2.3:22", "66.59.111.190:40264",
           10, 12, 1671, 0, 6, 0, 4, 0, 0, 0, 0, "rfc3168", 1460, 22510},
  // GTP-U from UDP port 5906 to 2152; 42 of the 49 data packets are first
  // IP fragments of the outer packet (decoded as tshark does with
  // -o ip.defragment:FALSE, same counts).
  Expected{"shared:wild/zeek_tunnels_gtp2_different_udp_port.pcap", 0, "173.199.115.168:80", "10.131.17.170:51803",
           49, 29, 63424, 0, 49, 0, 0, 0, 0, 0, 0, "none", 1440, 7415515}
));
// clang-format on

// Which tunnel each flow came through, with the packet and byte counts of
// flows whose goodput tshark times differently (it stamps a fragmented
// tunnel packet with its last fragment, ccreplay with its first).
struct TunnelExpected {
  const char* file;
  size_t flows;  // `tshark -r F -q -z conv,tcp`: conversations.
  uint32_t flow;
  const char* encapsulation;
  uint64_t packets_data_dir, packets_ack_dir, data_bytes;
};

class TunnelFlowsTest : public ::testing::TestWithParam<TunnelExpected> {};

TEST_P(TunnelFlowsTest, DecodedInsideTheTunnel) {
  const TunnelExpected& e = GetParam();
  CCREPLAY_PATH_OR_SKIP(path, FindTestData(e.file));
  FlowTable table;
  absl::StatusOr<CaptureInfo> info = ReadCapture(path, table);
  ASSERT_TRUE(info.ok()) << info.status();
  ASSERT_EQ(table.flows().size(), e.flows);
  EXPECT_TRUE(info->undecoded_tunnel_packets.empty());
  EXPECT_EQ(info->corrupt_packets, 0u);
  const FlowSummary f =
      SummarizeFlow(table.flows()[e.flow], info->first_packet_time_ns);
  EXPECT_STREQ(EncapsulationName(f.encapsulation), e.encapsulation);
  EXPECT_EQ(f.packets_data_dir, e.packets_data_dir);
  EXPECT_EQ(f.packets_ack_dir, e.packets_ack_dir);
  EXPECT_EQ(f.data_bytes, e.data_bytes);
}

// clang-format off
INSTANTIATE_TEST_SUITE_P(Captures, TunnelFlowsTest, ::testing::Values(
  TunnelExpected{"shared:wild/zeek_tunnels_vxlan-encapsulated-http.pcap", 1, 0, "VXLAN", 5, 7, 9212},
  TunnelExpected{"shared:wild/zeek_tunnels_geneve-47101.pcap", 1, 0, "GENEVE", 9, 15, 23111},
  TunnelExpected{"shared:wild/zeek_tunnels_gre-sample.pcap", 1, 0, "GRE", 10, 12, 1671},
  TunnelExpected{"shared:wild/zeek_tunnels_gtp2_different_udp_port.pcap", 1, 0, "GTP-U", 49, 29, 63424},
  // GRE protocol 0x6558 (Ethernet) as an ERSPAN session delivers it; five
  // HTTP connections. scripts/tshark_flow_facts.py stream 1 (port 49163):
  // 8 data packets, 14 ACKs, 19458 bytes.
  TunnelExpected{"shared:wild/zeek_erspan.pcap", 5, 1, "GRE", 8, 14, 19458},
  // GTP-U over IPv4 carrying IPv6 (Linux SLL), four SIP connections on one
  // 4-tuple (port reuse); stream 2: 12 data packets, 10 ACKs, 2934 bytes.
  TunnelExpected{"shared:wild/arkime_gtp-iphone.pcap", 4, 2, "GTP-U", 12, 10, 2934},
  // This project's captures (scripts/make-tunnel-captures.sh): a 200,000-
  // byte upload through each tunnel, snaplen 128. Packets per direction:
  // `tshark -r F -Y tcp.srcport==P | wc -l` and `-Y tcp.dstport==P`, P the
  // SYN's source port; bytes: the sum of tcp.len that way. (`-z conv,tcp`
  // gives the same, but for GENEVE leaves out the SYN and SYN-ACK, whose
  // options the snaplen cut: 151 and 134.)
  TunnelExpected{"tunnels/vxlan_vni42.pcap", 1, 0, "VXLAN", 147, 9, 200000},
  TunnelExpected{"tunnels/geneve_vni7.pcap", 1, 0, "GENEVE", 152, 135, 200000},
  TunnelExpected{"tunnels/gre_key_seq.pcap", 1, 0, "GRE", 152, 121, 200000},
  TunnelExpected{"tunnels/gretap.pcap", 1, 0, "GRE", 153, 109, 200000},
  TunnelExpected{"tunnels/gtpu.pcap", 1, 0, "GTP-U", 153, 121, 200000}
));
// clang-format on

TEST(TunnelFlowsTest, UndecodedGreIsNamed) {
  CCREPLAY_PATH_OR_SKIP(path,
                        SharedTestData("wild/zeek_tunnels_gre-aruba.pcap.gz"));
  FlowTable table;
  absl::StatusOr<CaptureInfo> info = ReadCapture(path, table);
  ASSERT_TRUE(info.ok()) << info.status();
  // `tshark -r F -T fields -e gre.proto | sort | uniq -c`: all 2407
  // packets are GRE protocol 0x8200 (Aruba's WLAN encapsulation), which
  // tshark decodes and ccreplay does not.
  EXPECT_TRUE(table.flows().empty());
  EXPECT_EQ(UndecodedTunnelSummary(*info),
            "2407 packets of GRE protocol 0x8200 not decoded");
}

TEST(DuplicateFramesTest, EveryFrameTwiceIsCountedAsCopiesNotRetransmissions) {
  const std::string original =
      TestDataPath("lab/cubic_noecn_droptail100_50mbit/sender.pcap.gz");
  const std::string doubled = WriteTemp("doubled.pcap", DoubledPcap(original));
  FlowTable table;
  absl::StatusOr<CaptureInfo> info = ReadCapture(doubled, table);
  ASSERT_TRUE(info.ok()) << info.status();
  // `mergecap -F pcap -w dup.pcap F F`: 38142 frames. tshark flags 12534
  // of dup.pcap's data frames as tcp.analysis.retransmission; after
  // `editcap -d dup.pcap dedup.pcap` it flags 9, as in F itself (`tshark
  // -r F -Y 'tcp.analysis.retransmission && tcp.len>0 && tcp.srcport!=5201'`).
  EXPECT_EQ(info->packets, 38142u);
  // Every copy but those of the 59 RSTs (`tshark -r F -Y
  // tcp.flags.reset==1 | wc -l`), which DuplicateFrames never takes for
  // copies: 19071 - 59.
  EXPECT_EQ(info->duplicate_frames, 19071u - 59u);
  ASSERT_EQ(table.flows().size(), 2u);
  // The same facts as FlowFactsTest asserts for F (tshark_flow_facts.py).
  const FlowSummary f =
      SummarizeFlow(table.flows()[1], info->first_packet_time_ns);
  EXPECT_EQ(f.packets_data_dir, 12521u);
  EXPECT_EQ(f.packets_ack_dir, 6521u + 59u);  // The RSTs twice.
  EXPECT_EQ(f.data_bytes, 18114517u);
  EXPECT_EQ(f.retransmitted_segments, 8u);
  EXPECT_EQ(f.duplicate_frames, 12521u + 6521u - 59u);
}

TEST(DuplicateFramesTest, RepeatedSegmentsOfTheSenderAreNotCopies) {
  // `editcap -d F out.pcap` skips 57 frames of F itself: RSTs from port
  // 5201 with IP ID 0 and identical bytes, about 240 us apart (tshark -r F
  // -Y 'frame.number>=19003 && frame.number<=19061'), each sent for a
  // segment of the peer's. They are not copies of one frame.
  FlowTable table;
  absl::StatusOr<CaptureInfo> info = ReadCapture(
      TestDataPath("lab/cubic_noecn_droptail100_50mbit/sender.pcap.gz"), table);
  ASSERT_TRUE(info.ok()) << info.status();
  EXPECT_EQ(info->duplicate_frames, 0u);
}

TEST(EcnNegotiationTest, Rfc9768AndRfc3168Tables) {
  const uint16_t accecn_syn = kTcpSyn | kTcpAe | kTcpCwr | kTcpEce;
  const uint16_t classic_syn = kTcpSyn | kTcpCwr | kTcpEce;
  const uint16_t synack = kTcpSyn | kTcpAck;
  // RFC 9768 §3.1.1 Table 2: the four AccECN replies.
  EXPECT_EQ(NegotiatedEcnMode(accecn_syn, synack | kTcpCwr), EcnMode::kAccEcn);
  EXPECT_EQ(NegotiatedEcnMode(accecn_syn, synack | kTcpCwr | kTcpEce),
            EcnMode::kAccEcn);
  EXPECT_EQ(NegotiatedEcnMode(accecn_syn, synack | kTcpAe), EcnMode::kAccEcn);
  EXPECT_EQ(NegotiatedEcnMode(accecn_syn, synack | kTcpAe | kTcpCwr),
            EcnMode::kAccEcn);
  // Classic ECN server answering an AccECN client.
  EXPECT_EQ(NegotiatedEcnMode(accecn_syn, synack | kTcpEce), EcnMode::kRfc3168);
  EXPECT_EQ(NegotiatedEcnMode(accecn_syn, synack), EcnMode::kNone);
  EXPECT_EQ(NegotiatedEcnMode(accecn_syn, synack | kTcpAe | kTcpCwr | kTcpEce),
            EcnMode::kNone);
  // RFC 3168 §6.1.1.
  EXPECT_EQ(NegotiatedEcnMode(classic_syn, synack | kTcpEce),
            EcnMode::kRfc3168);
  EXPECT_EQ(NegotiatedEcnMode(classic_syn, synack | kTcpEce | kTcpCwr),
            EcnMode::kNone);
  EXPECT_EQ(NegotiatedEcnMode(kTcpSyn, synack | kTcpEce), EcnMode::kNone);
}

TEST(FlowTableTest, HandshakeOptionsOfThePragueFlow) {
  // tcpdump -v: SYN mss 1460, sackOK, TS, wscale 7; SYN-ACK mss 1460,
  // sackOK, TS, exp-acc0, wscale 11.
  CCREPLAY_PATH_OR_SKIP(
      path, SharedTestData("tcp/l4s-tests_prague_dualpi2_wifi.pcap.gz"));
  FlowTable table;
  absl::StatusOr<CaptureInfo> info = ReadCapture(path, table);
  ASSERT_TRUE(info.ok());
  FlowSummary f = SummarizeFlow(table.flows()[1], info->first_packet_time_ns);
  EXPECT_EQ(f.mss_option_receiver, 1460u);
  EXPECT_EQ(f.wscale_sender, 7u);
  EXPECT_EQ(f.wscale_receiver, 11u);
  EXPECT_TRUE(f.sack_permitted);
  EXPECT_TRUE(f.timestamps);
  EXPECT_EQ(f.max_payload_bytes,
            1432u);  // 1460 - 12 bytes of TS - 16 of AccECN option
  // tshark frame.time_relative of the flow's first packet: 0.099230.
  EXPECT_NEAR(f.start_s, 0.09923, 1e-6);
}

TEST(FlowTableTest, RestartForgetsEverything) {
  CCREPLAY_PATH_OR_SKIP(path, SharedTestData("tcp/zeek-tcprs_fast019.pcap"));
  FlowTable table;
  ASSERT_TRUE(ReadCapture(path, table).ok());
  ASSERT_EQ(table.flows().size(), 1u);
  table.Restart();
  EXPECT_TRUE(table.flows().empty());
}

// The per-flow record bounds the memory of a capture of many flows that
// never carry data (bench/syn_flows.cc, docs/performance.md): 1 M such
// flows cost 248 MB of records (256 with the deque's blocks), the
// reader's state (ConnectionSanity) included. A field added here must come
// out of SideTraffic's share, allocated only for a side that sends after
// its SYN: above 256 bytes a record takes a 512-byte deque block alone.
static_assert(sizeof(SideStats) <= 56, "SideStats grew: see above");
static_assert(sizeof(Flow) <= 248, "Flow grew: see above");

// A segment of 10.0.0.1:40000 -> 192.0.2.1:5201 (or back).
TcpSegment Segment(bool from_client, uint16_t flags, uint32_t seq) {
  TcpSegment s;
  s.src.family = s.dst.family = 4;
  const uint8_t client[4] = {10, 0, 0, 1}, server[4] = {192, 0, 2, 1};
  std::memcpy(s.src.bytes, from_client ? client : server, 4);
  std::memcpy(s.dst.bytes, from_client ? server : client, 4);
  s.src_port = from_client ? 40000 : 5201;
  s.dst_port = from_client ? 5201 : 40000;
  s.flags = flags;
  s.seq = seq;
  return s;
}

// The reader's state (SequenceSanity) of a connection is held in its
// newest flow's record, in that record's order of the endpoints, and moves
// on to the new flow of a port reuse: as a map of its own keyed by the
// endpoints would keep it. Segments go through HeldSanity and Check as
// ReadCapture's SaneSegments sends them.
TEST(FlowTableTest, HoldsTheReadersStateAcrossAPortReuse) {
  FlowTable table;
  SequenceSanity sanity;
  const auto feed = [&](bool from_client, uint16_t flags, uint32_t seq) {
    TcpSegment s = Segment(from_client, flags, seq);
    s.ack = 1;
    int side;
    ConnectionSanity* held = table.HeldSanity(s, &side);
    std::string problem =
        held != nullptr ? sanity.Check(s, *held, side) : sanity.Check(s);
    if (!problem.empty()) return problem;
    table.OnSegment(s);
    if (held == nullptr && (held = table.HeldSanity(s, &side)) != nullptr) {
      sanity.HandOver(s, *held, side);
    }
    return problem;
  };
  EXPECT_EQ(feed(false, kTcpAck, 7000), "");  // The server's, first.
  EXPECT_EQ(sanity.connections(), 0u);        // Handed over.
  EXPECT_EQ(feed(true, kTcpFin | kTcpAck, 1000), "");
  EXPECT_EQ(feed(false, kTcpFin | kTcpAck, 7001), "");
  ASSERT_EQ(table.flows().size(), 1u);
  // A new SYN of the client, its number 2^31 from the server's: a new flow
  // (the old one closed), client first, so its record's sides are the old
  // one's swapped.
  EXPECT_EQ(feed(true, kTcpSyn, 7001u + 0x80000000u), "");
  ASSERT_EQ(table.flows().size(), 2u);
  EXPECT_EQ(table.flows()[1].address[0], Segment(true, 0, 0).src);
  // The server's numbers are still checked against its last one (7001).
  EXPECT_EQ(feed(false, kTcpAck, 7001u ^ 0x80000000u).rfind("sequence", 0), 0u);
  EXPECT_EQ(feed(false, kTcpAck, 7002), "");
  EXPECT_EQ(sanity.connections(), 0u);
}

// Found by timeline_fuzzer (fuzz/corpus/timeline_fuzzer/crash-dc3bbea9...):
// a frame dropped as corrupt (a SACK edge 1.4 GB from its ACK) came again
// and was taken for a copy; the copy started a flow in the table and not
// in AckTimelineBuilder, whose flows then indexed past their end. A copy
// of no flow the table holds counts nowhere and starts nothing.
TEST(FlowTableTest, CopyOfAFrameOfNoFlowStartsNone) {
  FlowTable table;
  table.OnDuplicateFrame(Segment(true, kTcpAck, 1000));
  EXPECT_TRUE(table.flows().empty());
  table.OnSegment(Segment(true, kTcpSyn, 1000));
  table.OnDuplicateFrame(Segment(true, kTcpSyn, 1000));
  ASSERT_EQ(table.flows().size(), 1u);
  EXPECT_EQ(table.flows()[0].duplicate_frames, 1u);
  // Forgotten, the flow's copies count nowhere either.
  table.Forget(0);
  table.OnDuplicateFrame(Segment(false, kTcpAck, 7000));
  ASSERT_EQ(table.flows().size(), 1u);
  EXPECT_EQ(table.flows()[0].duplicate_frames, 1u);
}

// Each side's echoes of the other's TSvals are timed from the capture's
// first sight of the TSval echoed (RFC 7323 section 4.3), SYNs left out.
// Worked by hand: the server echoes 100 (first seen at 1 ms, again at 1.2
// ms) at 1.05 ms and 3 ms (0.05 and 2 ms), then 90 (never seen after the
// SYN: not timed); the client echoes 500 (seen at 1.1 ms) at 1.2 ms.
TEST(FlowTableTest, EchoesAreTimedFromTheFirstSightOfTheirTsval) {
  FlowTable table;
  auto at = [](TcpSegment s, int64_t us, uint32_t ts_val, uint32_t ts_ecr) {
    s.time_ns = us * 1000;
    s.options.has_timestamps = true;
    s.options.ts_val = ts_val;
    s.options.ts_ecr = ts_ecr;
    return s;
  };
  table.OnSegment(at(Segment(true, kTcpSyn, 1000), 0, 90, 0));
  table.OnSegment(at(Segment(false, kTcpSyn | kTcpAck, 5000), 500, 400, 90));
  table.OnSegment(at(Segment(true, kTcpAck, 1001), 1000, 100, 400));
  table.OnSegment(at(Segment(false, kTcpAck, 5001), 1050, 500, 100));
  table.OnSegment(at(Segment(true, kTcpAck, 1001), 1100, 100, 400));
  table.OnSegment(at(Segment(true, kTcpAck, 1001), 1200, 101, 500));
  table.OnSegment(at(Segment(false, kTcpAck, 5001), 3000, 501, 100));
  table.OnSegment(at(Segment(false, kTcpAck, 5001), 3100, 502, 90));
  const Flow& flow = table.flows()[0];
  ASSERT_NE(flow.side[0].traffic, nullptr);
  ASSERT_NE(flow.side[1].traffic, nullptr);
  const EchoTimes& server = flow.side[1].traffic->echo_times;
  EXPECT_EQ(server.echoes, 2u);
  EXPECT_EQ(server.min_ns, 50000);
  EXPECT_EQ(server.quick, 1u);  // 2 ms is not under kQuickAnswerNs.
  const EchoTimes& client = flow.side[0].traffic->echo_times;
  EXPECT_EQ(client.echoes, 1u);  // Its echoes of the SYN-ACK's 400: untimed.
  EXPECT_EQ(client.min_ns, 1200000 - 1050000);
  EXPECT_EQ(client.quick, 1u);
}

// Only the last four distinct TSvals are kept, each at its first sight.
TEST(FlowTableTest, RecentTsvalsKeepTheLastFourAtTheirFirstSight) {
  RecentTsvals r;
  for (uint32_t v = 1; v <= 5; ++v) r.Add(v, v * 10);
  r.Add(5, 99);  // Seen before: keeps 50.
  EXPECT_EQ(r.FirstSeen(1), -1);
  EXPECT_EQ(r.FirstSeen(2), 20);
  EXPECT_EQ(r.FirstSeen(5), 50);
  EXPECT_EQ(r.FirstSeen(6), -1);
}

TEST(FlowTableTest, SynOnlyFlowAllocatesNoTraffic) {
  FlowTable table;
  TcpSegment syn = Segment(true, kTcpSyn, 1000);
  syn.options.has_mss = true;
  syn.options.mss_bytes = 1460;
  table.OnSegment(syn);
  table.OnSegment(syn);  // Its retransmission: the same sequence number.
  ASSERT_EQ(table.flows().size(), 1u);
  const Flow& flow = table.flows()[0];
  EXPECT_EQ(flow.side[0].traffic, nullptr);
  EXPECT_EQ(flow.side[1].traffic, nullptr);
  EXPECT_EQ(flow.side[0].syn_repeats, 1u);
  FlowSummary f = SummarizeFlow(flow, 0);
  EXPECT_EQ(f.packets_data_dir, 2u);
  EXPECT_EQ(f.packets_ack_dir, 0u);
  EXPECT_EQ(f.mss_option_sender, 1460u);
  EXPECT_EQ(f.data_bytes, 0u);

  // Data after the SYN: the side's traffic starts, numbered from the SYN
  // (the first payload byte is ISN + 1).
  TcpSegment data = Segment(true, kTcpAck, 1001);
  data.payload_bytes = data.captured_payload_bytes = 500;
  table.OnSegment(data);
  table.OnSegment(data);  // Sent again.
  ASSERT_NE(flow.side[0].traffic, nullptr);
  EXPECT_EQ(flow.side[1].traffic, nullptr);
  EXPECT_EQ(flow.side[0].unique_payload_bytes(), 500u);
  EXPECT_EQ(flow.side[0].traffic->retransmitted_segments, 1u);
  EXPECT_EQ(flow.side[0].traffic->sequence.highest_end(), 501);
}

}  // namespace
}  // namespace ccreplay
