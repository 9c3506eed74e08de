#include "parsers/pcap_reader.h"

#include <cstdio>
#include <fstream>
#include <iterator>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "parsers/flow_table.h"
#include "proto/testing/test_data.h"

namespace ccreplay {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;

// Collects what the reader hands out.
class Collector : public SegmentConsumer {
 public:
  void OnSegment(const TcpSegment& s) override { segments.push_back(s); }
  void Restart() override {
    segments.clear();
    ++restarts;
  }
  std::vector<TcpSegment> segments;
  int restarts = 0;
};

std::vector<uint8_t> ReadBytes(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  return std::vector<uint8_t>((std::istreambuf_iterator<char>(in)),
                              std::istreambuf_iterator<char>());
}

std::string WriteTemp(const std::string& name,
                      const std::vector<uint8_t>& bytes) {
  std::string path = ::testing::TempDir() + "/" + name;
  std::ofstream out(path, std::ios::binary);
  out.write(reinterpret_cast<const char*>(bytes.data()),
            static_cast<std::streamsize>(bytes.size()));
  return path;
}

// Options whose progress callback appends every report to `reports`.
CaptureReadOptions RecordingProgress(std::vector<ReadProgress>* reports) {
  CaptureReadOptions options;
  options.progress = [reports](const ReadProgress& p) {
    reports->push_back(p);
  };
  return options;
}

// Packet counts of the pcapng conformance set, from `capinfos -c FILE`
// (Wireshark's reader, which accepts mixed link types and snap lengths).
struct PcapngCase {
  const char* file;
  uint64_t packets;
};
class PcapngConformanceTest : public ::testing::TestWithParam<PcapngCase> {};

TEST_P(PcapngConformanceTest, PacketCountMatchesCapinfos) {
  for (const char* endian : {"le", "be"}) {
    Collector c;
    CCREPLAY_PATH_OR_SKIP(
        path, GopacketTestData(
                  absl::StrCat("pcapgo/tests/", endian, "/", GetParam().file)));
    absl::StatusOr<CaptureInfo> info = ReadCapture(path, c);
    ASSERT_TRUE(info.ok()) << info.status();
    EXPECT_EQ(info->format, "pcapng");
    EXPECT_EQ(info->packets, GetParam().packets) << path;
    EXPECT_FALSE(info->truncated) << path;
  }
}

INSTANTIATE_TEST_SUITE_P(
    AllFiles, PcapngConformanceTest,
    ::testing::Values(
        PcapngCase{"test001.pcapng", 4}, PcapngCase{"test002.pcapng", 0},
        PcapngCase{"test003.pcapng", 0}, PcapngCase{"test004.pcapng", 4},
        PcapngCase{"test005.pcapng", 4}, PcapngCase{"test006.pcapng", 5},
        PcapngCase{"test007.pcapng", 1}, PcapngCase{"test008.pcapng", 4},
        PcapngCase{"test009.pcapng", 2}, PcapngCase{"test010.pcapng", 4},
        PcapngCase{"test011.pcapng", 4}, PcapngCase{"test012.pcapng", 4},
        PcapngCase{"test013.pcapng", 0}, PcapngCase{"test014.pcapng", 0},
        PcapngCase{"test015.pcapng", 0}, PcapngCase{"test016.pcapng", 4},
        PcapngCase{"test017.pcapng", 0}, PcapngCase{"test018.pcapng", 4},
        PcapngCase{"test100.pcapng", 5}, PcapngCase{"test101.pcapng", 4},
        PcapngCase{"test102.pcapng", 5}, PcapngCase{"test200.pcapng", 0},
        PcapngCase{"test201.pcapng", 4}, PcapngCase{"test202.pcapng", 8},
        PcapngCase{"test902.pcapng", 1}));

// A pcapng enhanced packet block (draft-ietf-opsawg-pcapng §4.3) on
// interface 0 (microseconds) holding `frame`, padded to 32 bits.
void AppendEpb(uint64_t time_us, const std::vector<uint8_t>& frame,
               std::vector<uint8_t>* out) {
  const uint32_t padded = (frame.size() + 3) / 4 * 4;
  const uint32_t words[] = {6,
                            32 + padded,
                            0,
                            static_cast<uint32_t>(time_us >> 32),
                            static_cast<uint32_t>(time_us),
                            static_cast<uint32_t>(frame.size()),
                            static_cast<uint32_t>(frame.size())};
  for (uint32_t w : words)
    out->insert(out->end(), reinterpret_cast<const uint8_t*>(&w),
                reinterpret_cast<const uint8_t*>(&w) + 4);
  out->insert(out->end(), frame.begin(), frame.end());
  out->resize(out->size() + padded - frame.size(), 0);
  const uint32_t length = 32 + padded;
  out->insert(out->end(), reinterpret_cast<const uint8_t*>(&length),
              reinterpret_cast<const uint8_t*>(&length) + 4);
}

// Found by timeline_fuzzer: a pcapng timestamp of 2^63 us wrapped to a
// negative time, and differences of capture times overflowed downstream
// (retransmission_classifier.cc). Such a record is skipped and counted.
TEST(PcapReaderTest, TimestampOutOfRangeIsSkippedWithAWarning) {
  // SHB (little-endian, v1.0, section length -1), IDB (Ethernet).
  std::vector<uint8_t> bytes = {
      0x0A, 0x0D, 0x0D, 0x0A, 28,   0,    0,    0,    0x4D, 0x3C, 0x2B, 0x1A,
      1,    0,    0,    0,    0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF,
      28,   0,    0,    0,    1,    0,    0,    0,    20,   0,    0,    0,
      1,    0,    0,    0,    0,    0,    0,    0,    20,   0,    0,    0};
  // Ethernet, IPv4 10.0.0.1 -> 10.0.0.2, TCP 1000 -> 2000 SYN.
  std::vector<uint8_t> frame(12, 0);
  const uint8_t rest[] = {0x08, 0x00, 0x45, 0,    0,    40, 0, 0,  0, 0, 64,
                          6,    0,    0,    10,   0,    0,  1, 10, 0, 0, 2,
                          0x03, 0xE8, 0x07, 0xD0, 0,    0,  0, 1,  0, 0, 0,
                          0,    0x50, 0x02, 0xFF, 0xFF, 0,  0, 0,  0};
  frame.insert(frame.end(), std::begin(rest), std::end(rest));
  AppendEpb(uint64_t{1} << 63, frame, &bytes);  // Year 292,277.
  AppendEpb(1000000000000000, frame, &bytes);   // 2001-09-09.
  Collector collector;
  absl::StatusOr<CaptureInfo> info =
      ReadCaptureFromMemory("t", bytes.data(), bytes.size(), collector);
  ASSERT_TRUE(info.ok()) << info.status();
  EXPECT_EQ(info->packets, 2u);
  EXPECT_EQ(info->bad_time_packets, 1u);
  EXPECT_EQ(info->tcp_packets, 1u);
  EXPECT_EQ(info->first_packet_time_ns, 1000000000000000000);
  ASSERT_EQ(collector.segments.size(), 1u);
  EXPECT_EQ(collector.segments[0].time_ns, 1000000000000000000);
  EXPECT_THAT(info->warnings,
              ElementsAre(HasSubstr("1 packets had a timestamp outside")));
}

// A classic pcap file (pcap-savefile(5)), little-endian, with nanosecond
// timestamps (magic 0xa1b23c4d) and link type Ethernet.
std::vector<uint8_t> NanosecondPcapHeader() {
  std::vector<uint8_t> out;
  for (uint32_t w : {0xa1b23c4du, 0x00040002u, 0u, 0u, 65535u, 1u})
    out.insert(out.end(), reinterpret_cast<const uint8_t*>(&w),
               reinterpret_cast<const uint8_t*>(&w) + 4);
  return out;
}

// One record: seconds, the sub-second field as written, the frame.
void AppendRecord(uint32_t seconds, uint32_t subsecond,
                  const std::vector<uint8_t>& frame,
                  std::vector<uint8_t>* out) {
  const uint32_t length = static_cast<uint32_t>(frame.size());
  for (uint32_t w : {seconds, subsecond, length, length})
    out->insert(out->end(), reinterpret_cast<const uint8_t*>(&w),
                reinterpret_cast<const uint8_t*>(&w) + 4);
  out->insert(out->end(), frame.begin(), frame.end());
}

// Ethernet (EtherType 0x0800), IPv4 10.0.0.1 -> 10.0.0.2, TCP 1000 -> 2000
// ACK with `payload` bytes at sequence `seq`.
std::vector<uint8_t> TcpFrame(uint32_t seq, uint8_t payload) {
  std::vector<uint8_t> frame(12, 0);
  const uint8_t total = static_cast<uint8_t>(40 + payload);
  const uint8_t rest[] = {0x08,
                          0x00,
                          0x45,
                          0,
                          0,
                          total,
                          0,
                          0,
                          0,
                          0,
                          64,
                          6,
                          0,
                          0,
                          10,
                          0,
                          0,
                          1,
                          10,
                          0,
                          0,
                          2,
                          0x03,
                          0xE8,
                          0x07,
                          0xD0,
                          static_cast<uint8_t>(seq >> 24),
                          static_cast<uint8_t>(seq >> 16),
                          static_cast<uint8_t>(seq >> 8),
                          static_cast<uint8_t>(seq),
                          0,
                          0,
                          0,
                          1,
                          0x50,
                          0x10,
                          0xFF,
                          0xFF,
                          0,
                          0,
                          0,
                          0};
  frame.insert(frame.end(), std::begin(rest), std::end(rest));
  frame.resize(frame.size() + payload, 0xab);
  return frame;
}

// Issue 15: a nanosecond pcap whose sub-second field reached 1.5e9 and
// whose times then ran backwards gave a flow a duration of -1.5 s. tshark
// reads the same records as (`tshark -r F -T fields -e frame.time_epoch -e
// frame.time_delta`) 100.5, 100.1500000000 (+0.1000000000), 100.6 (-0.9),
// 99.0 (-1.6): the second field is invalid; the last goes back by more
// than a second (corrupt), the one before by 0.4 s after the clamp
// (reordering, kept).
TEST(PcapReaderTest, InvalidAndBackwardsNanosecondTimesAreClampedAndCounted) {
  std::vector<uint8_t> bytes = NanosecondPcapHeader();
  AppendRecord(100, 500000000, TcpFrame(1, 100), &bytes);
  AppendRecord(100, 1500000000, TcpFrame(101, 100), &bytes);
  AppendRecord(100, 600000000, TcpFrame(201, 100), &bytes);
  AppendRecord(99, 0, TcpFrame(301, 100), &bytes);
  Collector c;
  absl::StatusOr<CaptureInfo> info =
      ReadCaptureFromMemory("t", bytes.data(), bytes.size(), c);
  ASSERT_TRUE(info.ok()) << info.status();
  ASSERT_EQ(c.segments.size(), 4u);
  EXPECT_EQ(c.segments[0].time_ns, 100500000000);
  EXPECT_EQ(c.segments[1].time_ns, 100999999999);
  EXPECT_EQ(c.segments[2].time_ns, 100600000000);
  EXPECT_EQ(c.segments[3].time_ns, 100600000000);
  EXPECT_EQ(info->bad_subsecond_packets, 1u);
  EXPECT_EQ(info->backwards_time_packets, 1u);
  EXPECT_THAT(
      info->warnings,
      ElementsAre(HasSubstr("1 packets had an invalid sub-second"),
                  HasSubstr("1 packets were timestamped more than a second")));
  // Nothing downstream sees a negative duration.
  FlowTable table;
  ASSERT_TRUE(
      ReadCaptureFromMemory("t", bytes.data(), bytes.size(), table).ok());
  ASSERT_EQ(table.flows().size(), 1u);
  EXPECT_NEAR(
      SummarizeFlow(table.flows()[0], info->first_packet_time_ns).duration_s,
      0.1, 1e-9);
}

// An MPLS label stack followed by a pseudowire control word (RFC 4385 §3)
// and an Ethernet frame: not decoded, and said so by name.
TEST(PcapReaderTest, MplsPayloadThatIsNotIpIsWarnedAbout) {
  std::vector<uint8_t> inner = TcpFrame(1, 10);
  std::vector<uint8_t> frame(12, 0);
  // EtherType 0x8847, one label (16, S set, TTL 64), control word 0.
  for (uint8_t b : {0x88, 0x47, 0x00, 0x01, 0x01, 0x40, 0, 0, 0, 0})
    frame.push_back(b);
  frame.insert(frame.end(), inner.begin(), inner.end());
  std::vector<uint8_t> bytes = NanosecondPcapHeader();
  AppendRecord(100, 0, frame, &bytes);
  AppendRecord(101, 0, inner, &bytes);
  Collector c;
  absl::StatusOr<CaptureInfo> info =
      ReadCaptureFromMemory("t", bytes.data(), bytes.size(), c);
  ASSERT_TRUE(info.ok()) << info.status();
  EXPECT_EQ(info->tcp_packets, 1u);
  EXPECT_EQ(info->mpls_not_ip_packets, 1u);
  EXPECT_THAT(info->warnings,
              ElementsAre(HasSubstr("1 MPLS packets carried neither IPv4 nor "
                                    "IPv6")));
}

TEST(PcapReaderTest, MixedLinkTypesGoThroughTheWalker) {
  // test006 has an Ethernet and a BSD-loopback interface; libpcap 1.10
  // refuses it ("an interface has a type 0 different from the type of the
  // first interface"), tshark reads 5 packets.
  CCREPLAY_PATH_OR_SKIP(path,
                        GopacketTestData("pcapgo/tests/le/test006.pcapng"));
  Collector c;
  absl::StatusOr<CaptureInfo> info = ReadCapture(path, c);
  ASSERT_TRUE(info.ok()) << info.status();
  EXPECT_THAT(info->link_types, ElementsAre("EN10MB", "NULL"));
  EXPECT_EQ(info->packets, 5u);
}

// The filter is compiled for each interface's link type, Ethernet and BSD
// loopback: `tshark -r F -T fields -e frame.interface_id -e udp.srcport`
// puts the one packet from port 17500 on interface 1 (NULL), the two from
// 67 on interface 0 (Ethernet).
TEST(PcapReaderTest, FilterOnTheWalkersInterfaces) {
  CCREPLAY_PATH_OR_SKIP(path,
                        GopacketTestData("pcapgo/tests/le/test006.pcapng"));
  for (const auto& [filter, passed] :
       {std::pair<std::string, uint64_t>{"udp src port 17500", 1},
        {"udp src port 67", 2},
        {"tcp", 0}}) {
    Collector c;
    CaptureReadOptions options;
    options.filter = filter;
    absl::StatusOr<CaptureInfo> info = ReadCapture(path, c, options);
    ASSERT_TRUE(info.ok()) << info.status();
    EXPECT_EQ(info->packets, passed) << filter;
    EXPECT_EQ(info->filtered_out_packets, 5 - passed) << filter;
  }
}

// `tcpdump -r F -w - 'tcp port 42408' | capinfos -c -`: 18460 of the 18487
// packets; their TCP segments all reach the consumer, and the capture's
// start is the first that passed.
TEST(PcapReaderTest, FilteredFramesAreAsIfNotInTheCapture) {
  const std::string path =
      TestDataPath("lab/reno_ecn1_stepK60k_50mbit/sender.pcap.gz");
  Collector all;
  absl::StatusOr<CaptureInfo> whole = ReadCapture(path, all);
  ASSERT_TRUE(whole.ok()) << whole.status();
  Collector c;
  CaptureReadOptions options;
  options.filter = "tcp port 42408";
  absl::StatusOr<CaptureInfo> info = ReadCapture(path, c, options);
  ASSERT_TRUE(info.ok()) << info.status();
  EXPECT_EQ(info->packets, 18460u);
  EXPECT_EQ(info->tcp_packets, 18460u);
  EXPECT_EQ(info->filtered_out_packets, 27u);
  EXPECT_EQ(c.segments.size(), 18460u);
  for (const TcpSegment& s : c.segments) {
    ASSERT_TRUE(s.src_port == 42408 || s.dst_port == 42408);
  }
  // tshark -r F -Y 'tcp.port==42408' -T fields -e frame.time_relative | head
  // -1: 0.003596 s after the capture's first packet.
  EXPECT_EQ(info->first_packet_time_ns - whole->first_packet_time_ns, 3596000);
}

// A filter that compiles, but not for the capture's link type (Linux SLL2
// has no Ethernet addresses): OutOfRange, a usage error, with libpcap's
// words.
TEST(PcapReaderTest, FilterForAnotherLinkTypeIsOutOfRange) {
  Collector c;
  CaptureReadOptions options;
  options.filter = "ether src 00:11:22:33:44:55";
  ASSERT_TRUE(CheckCaptureFilter(options.filter).ok());
  absl::StatusOr<CaptureInfo> info = ReadCapture(
      TestDataPath("pcap-format/ccreplay_sll2_ipv6.pcap"), c, options);
  ASSERT_TRUE(absl::IsOutOfRange(info.status())) << info.status();
  EXPECT_THAT(info.status().message(),
              HasSubstr("ethernet addresses supported only on"));
  EXPECT_THAT(CheckCaptureFilter("tcp prot 80").message(),
              HasSubstr("syntax error"));
}

// Progress reports come every few thousand records and once at the end;
// the bytes are the file's as stored (gzip), up to its size.
TEST(PcapReaderTest, ProgressReachesTheFileSize) {
  const std::string path =
      TestDataPath("lab/reno_ecn1_stepK60k_50mbit/sender.pcap.gz");
  std::vector<ReadProgress> reports;
  CaptureReadOptions options = RecordingProgress(&reports);
  Collector c;
  ASSERT_TRUE(ReadCapture(path, c, options).ok());
  const uint64_t size = ReadBytes(path).size();
  // 18487 records: reports at 4096, 8192, 12288, 16384, and the last.
  ASSERT_EQ(reports.size(), 5u);
  for (size_t i = 0; i + 1 < reports.size(); ++i) {
    EXPECT_EQ(reports[i].packets, 4095 + 4096 * i);
    EXPECT_GT(reports[i].bytes_read, 0u);
    EXPECT_LE(reports[i].bytes_read, reports[i + 1].bytes_read);
    EXPECT_EQ(reports[i].total_bytes, size);
  }
  EXPECT_EQ(reports.back().packets, 18487u);
  EXPECT_EQ(reports.back().bytes_read, size);
}

TEST(PcapReaderTest, TcpInPcapngWithSecretsBlock) {
  // test300 (le only): 32 TCP packets, `capinfos -c` and
  // `tshark -r F -Y tcp | wc -l`.
  CCREPLAY_PATH_OR_SKIP(path,
                        GopacketTestData("pcapgo/tests/le/test300.pcapng"));
  Collector c;
  absl::StatusOr<CaptureInfo> info = ReadCapture(path, c);
  ASSERT_TRUE(info.ok()) << info.status();
  EXPECT_EQ(info->tcp_packets, 32u);
  EXPECT_EQ(c.segments.size(), 32u);
}

TEST(PcapReaderTest, LaterSectionWithUnsupportedVersionKeepsTheFirst) {
  // test901: a second section header with major version 2. tcpdump stops
  // with "unknown pcapng savefile major version number 2" after the first
  // section's packets.
  CCREPLAY_PATH_OR_SKIP(path,
                        GopacketTestData("pcapgo/tests/le/test901.pcapng"));
  Collector c;
  absl::StatusOr<CaptureInfo> info = ReadCapture(path, c);
  ASSERT_TRUE(info.ok()) << info.status();
  EXPECT_TRUE(info->truncated);
  ASSERT_EQ(info->warnings.size(), 1u);
  EXPECT_THAT(info->warnings[0], HasSubstr("major version"));
}

TEST(PcapReaderTest, BigEndianPcap) {
  // 5 DNS-over-UDP packets: `capinfos -c` 5, `tshark -Y tcp` none.
  CCREPLAY_PATH_OR_SKIP(path,
                        SharedTestData("pcap-format/pcap-parser_be.pcap"));
  Collector c;
  absl::StatusOr<CaptureInfo> info = ReadCapture(path, c);
  ASSERT_TRUE(info.ok()) << info.status();
  EXPECT_EQ(info->format, "pcap");
  EXPECT_EQ(info->packets, 5u);
  EXPECT_EQ(info->tcp_packets, 0u);
}

TEST(PcapReaderTest, BsdLoopbackIpv6) {
  // DLT_NULL with IPv6 over ::1: `tshark -r F -Y tcp | wc -l` = 24.
  CCREPLAY_PATH_OR_SKIP(path, GopacketTestData("pcap/test_loopback.pcap"));
  Collector c;
  absl::StatusOr<CaptureInfo> info = ReadCapture(path, c);
  ASSERT_TRUE(info.ok()) << info.status();
  EXPECT_THAT(info->link_types, ElementsAre("NULL"));
  EXPECT_EQ(info->tcp_packets, 24u);
  EXPECT_EQ(c.segments[0].src.ToString(), "::1");
  EXPECT_EQ(c.segments[0].src.family, 6);
}

TEST(PcapReaderTest, NanosecondTimestampsOnLinuxSll) {
  // tshark -r F -T fields -e frame.time_epoch: 1418145369.924505488, …
  CCREPLAY_PATH_OR_SKIP(
      path, SharedTestData("pcap-format/tcpdump_tcp-handshake-nano.pcap"));
  Collector c;
  absl::StatusOr<CaptureInfo> info = ReadCapture(path, c);
  ASSERT_TRUE(info.ok()) << info.status();
  EXPECT_THAT(info->link_types, ElementsAre("LINUX_SLL"));
  ASSERT_EQ(c.segments.size(), 3u);
  EXPECT_EQ(c.segments[0].time_ns, 1418145369924505488);
  EXPECT_EQ(c.segments[2].time_ns, 1418145370052115157);
}

TEST(PcapReaderTest, BigTcpLengthsComeFromTheCapture) {
  CCREPLAY_PATH_OR_SKIP(path4,
                        SharedTestData("pcap-format/tcpdump_bigtcp-ipv4.pcap"));
  CCREPLAY_PATH_OR_SKIP(path6,
                        SharedTestData("pcap-format/tcpdump_bigtcp-ipv6.pcap"));
  Collector c4;
  absl::StatusOr<CaptureInfo> v4 = ReadCapture(path4, c4);
  ASSERT_TRUE(v4.ok()) << v4.status();
  ASSERT_EQ(c4.segments.size(), 1u);
  // tshark: frame.len 80066, ip.len (from capture) 80052, tcp.len 80000.
  EXPECT_EQ(c4.segments[0].payload_bytes, 80000u);
  EXPECT_TRUE(c4.segments[0].length_from_capture);
  EXPECT_EQ(v4->big_tcp_packets, 1u);
  EXPECT_THAT(v4->warnings[0], HasSubstr("BIG TCP"));

  Collector c6;
  absl::StatusOr<CaptureInfo> v6 = ReadCapture(path6, c6);
  ASSERT_TRUE(v6.ok()) << v6.status();
  ASSERT_EQ(c6.segments.size(), 1u);
  // tshark: frame.len 80054, ipv6.plen 0, ipv6.nxt 6, tcp.hdr_len 32 (tshark
  // gives no tcp.len): 80054 - 14 - 40 - 32 = 79968.
  EXPECT_EQ(c6.segments[0].payload_bytes, 79968u);
  EXPECT_TRUE(c6.segments[0].length_from_capture);
}

TEST(PcapReaderTest, GzipIsTransparent) {
  // `zcat F | capinfos -c -`: 54152 packets, all TCP (tshark -Y tcp).
  CCREPLAY_PATH_OR_SKIP(
      path, SharedTestData("tcp/l4s-tests_prague_dualpi2_wifi.pcap.gz"));
  Collector c;
  absl::StatusOr<CaptureInfo> info = ReadCapture(path, c);
  ASSERT_TRUE(info.ok()) << info.status();
  EXPECT_TRUE(info->gzip);
  EXPECT_EQ(info->packets, 54152u);
  EXPECT_EQ(info->tcp_packets, 54152u);
}

TEST(PcapReaderTest, MissingFileIsNotFound) {
  Collector c;
  absl::StatusOr<CaptureInfo> info =
      ReadCapture(TestDataPath("no/such/file.pcap"), c);
  EXPECT_TRUE(absl::IsNotFound(info.status())) << info.status();
  EXPECT_THAT(std::string(info.status().message()),
              HasSubstr("no/such/file.pcap"));
}

TEST(PcapReaderTest, TextFileIsRefusedByName) {
  CCREPLAY_PATH_OR_SKIP(
      path, SharedTestData("pcap-format/pcap-parser_malformed.pcap"));
  Collector c;
  absl::StatusOr<CaptureInfo> info = ReadCapture(path, c);
  EXPECT_TRUE(absl::IsInvalidArgument(info.status())) << info.status();
  EXPECT_THAT(std::string(info.status().message()), HasSubstr(path));
  EXPECT_THAT(std::string(info.status().message()),
              HasSubstr("not a pcap or pcapng capture"));
}

TEST(PcapReaderTest, UnsupportedLinkTypeIsNamed) {
  // A classic pcap header (LE magic, v2.4, snaplen 65535) with link type
  // 105 (IEEE 802.11 without radiotap) and one 4-byte record.
  std::vector<uint8_t> bytes = {
      0xd4, 0xc3, 0xb2, 0xa1, 2, 0,   4, 0, 0, 0, 0, 0, 0, 0, 0,
      0,    0xff, 0xff, 0,    0, 105, 0, 0, 0, 1, 0, 0, 0, 0, 0,
      0,    0,    4,    0,    0, 0,   4, 0, 0, 0, 1, 2, 3, 4};
  Collector c;
  absl::StatusOr<CaptureInfo> info =
      ReadCapture(WriteTemp("wifi.pcap", bytes), c);
  EXPECT_TRUE(absl::IsUnimplemented(info.status())) << info.status();
  EXPECT_THAT(std::string(info.status().message()),
              HasSubstr("unsupported link type IEEE802_11 (105)"));
}

TEST(PcapReaderTest, CutCaptureKeepsFlowsUpToTheCutAndNamesTheOffset) {
  // Cut the reno lab capture (snaplen 128, so every record is at most 144
  // bytes) 1,000,000 bytes into its decompressed data:
  // `zcat sender.pcap.gz | head -c 1000000 > cut.pcap; capinfos -c cut.pcap`
  // reads 8043 packets and says it was cut in the middle of a packet.
  Collector whole;
  ASSERT_TRUE(
      ReadCapture(TestDataPath("lab/reno_ecn1_stepK60k_50mbit/sender.pcap.gz"),
                  whole)
          .ok());
  // zcat decompresses independently of the reader's zlib path.
  std::vector<uint8_t> bytes;
  FILE* pipe = popen(
      ("zcat " + TestDataPath("lab/reno_ecn1_stepK60k_50mbit/sender.pcap.gz"))
          .c_str(),
      "r");
  ASSERT_NE(pipe, nullptr);
  bytes.resize(1000000);
  ASSERT_EQ(std::fread(bytes.data(), 1, bytes.size(), pipe), bytes.size());
  pclose(pipe);
  Collector cut;
  absl::StatusOr<CaptureInfo> info =
      ReadCapture(WriteTemp("cut.pcap", bytes), cut);
  ASSERT_TRUE(info.ok()) << info.status();
  EXPECT_TRUE(info->truncated);
  EXPECT_EQ(info->packets, 8043u);
  ASSERT_EQ(cut.segments.size(), 8043u);
  // What was read is exactly the whole capture's first 8043 segments.
  EXPECT_EQ(cut.segments.back().seq, whole.segments[8042].seq);
  EXPECT_EQ(cut.segments.back().time_ns, whole.segments[8042].time_ns);
  // The incomplete record starts where the last complete one ended: the
  // 24-byte file header plus 8043 records of 16 + caplen bytes.
  EXPECT_LT(info->truncated_at_offset, 1000000u);
  EXPECT_GT(info->truncated_at_offset, 1000000u - 144u);
  ASSERT_FALSE(info->warnings.empty());
  EXPECT_THAT(
      info->warnings[0],
      HasSubstr(absl::StrCat("byte offset ", info->truncated_at_offset)));
}

TEST(PcapReaderTest, CutGzipStreamKeepsWhatDecompressed) {
  std::vector<uint8_t> gz =
      ReadBytes(TestDataPath("lab/reno_ecn1_stepK60k_50mbit/sender.pcap.gz"));
  gz.resize(300000);
  Collector c;
  absl::StatusOr<CaptureInfo> info =
      ReadCapture(WriteTemp("cut.pcap.gz", gz), c);
  ASSERT_TRUE(info.ok()) << info.status();
  EXPECT_TRUE(info->truncated);
  EXPECT_GT(info->packets, 1000u);
  EXPECT_EQ(c.segments.size(), info->tcp_packets);
}

// A second read with the same `reuse` takes the bytes the first one
// decompressed, not the file: it gives the same segments after the file is
// gone, and its progress counts the 2,286,208 decompressed bytes (`gzip -l
// testdata/lab/reno_ecn1_stepK60k_50mbit/sender.pcap.gz`, uncompressed).
TEST(PcapReaderTest, SecondReadOfAGzipCaptureTakesTheKeptBytes) {
  const std::string path = WriteTemp(
      "kept.pcap.gz",
      ReadBytes(TestDataPath("lab/reno_ecn1_stepK60k_50mbit/sender.pcap.gz")));
  CaptureReadOptions options;
  options.reuse = std::make_shared<DecompressedCapture>();
  Collector first;
  absl::StatusOr<CaptureInfo> a = ReadCapture(path, first, options);
  ASSERT_TRUE(a.ok()) << a.status();
  EXPECT_TRUE(options.reuse->whole);
  EXPECT_EQ(options.reuse->bytes.size(), 2286208u);
  ASSERT_EQ(std::remove(path.c_str()), 0);
  std::vector<ReadProgress> reports;
  options.progress = RecordingProgress(&reports).progress;
  Collector second;
  absl::StatusOr<CaptureInfo> b = ReadCapture(path, second, options);
  ASSERT_TRUE(b.ok()) << b.status();
  EXPECT_TRUE(b->gzip);
  EXPECT_EQ(b->packets, 18487u);  // capinfos -c
  EXPECT_EQ(b->packets, a->packets);
  EXPECT_EQ(b->tcp_packets, a->tcp_packets);
  ASSERT_EQ(second.segments.size(), first.segments.size());
  for (size_t i = 0; i < first.segments.size(); ++i) {
    ASSERT_EQ(second.segments[i].seq, first.segments[i].seq) << i;
    ASSERT_EQ(second.segments[i].time_ns, first.segments[i].time_ns) << i;
  }
  ASSERT_FALSE(reports.empty());
  EXPECT_EQ(reports.back().bytes_read, 2286208u);
  EXPECT_EQ(reports.back().total_bytes, 2286208u);
  // Without the kept bytes the file is missing.
  Collector third;
  EXPECT_TRUE(absl::IsNotFound(ReadCapture(path, third).status()));
}

// A cut gzip stream is not kept: the next read goes to the file again and
// names the same offset in it.
TEST(PcapReaderTest, CutGzipStreamIsNotKept) {
  std::vector<uint8_t> gz =
      ReadBytes(TestDataPath("lab/reno_ecn1_stepK60k_50mbit/sender.pcap.gz"));
  gz.resize(300000);
  const std::string path = WriteTemp("cut-kept.pcap.gz", gz);
  CaptureReadOptions options;
  options.reuse = std::make_shared<DecompressedCapture>();
  Collector first, second;
  absl::StatusOr<CaptureInfo> a = ReadCapture(path, first, options);
  ASSERT_TRUE(a.ok()) << a.status();
  EXPECT_TRUE(a->truncated);
  EXPECT_FALSE(options.reuse->whole);
  EXPECT_EQ(options.reuse->bytes.size(), 0u);
  absl::StatusOr<CaptureInfo> b = ReadCapture(path, second, options);
  ASSERT_TRUE(b.ok()) << b.status();
  EXPECT_EQ(b->truncated_at_offset, a->truncated_at_offset);
  EXPECT_EQ(b->warnings, a->warnings);
  EXPECT_EQ(second.segments.size(), first.segments.size());
}

// A plain file's last progress report, made after libpcap closed its FILE,
// is the file's size (`stat -c %s`).
TEST(PcapReaderTest, PlainFileProgressReachesItsSize) {
  CCREPLAY_PATH_OR_SKIP(path, SharedTestData("tcp/zeek-tcprs_fast019.pcap"));
  std::vector<ReadProgress> reports;
  CaptureReadOptions options = RecordingProgress(&reports);
  Collector c;
  ASSERT_TRUE(ReadCapture(path, c, options).ok());
  ASSERT_FALSE(reports.empty());
  EXPECT_EQ(reports.back().total_bytes, ReadBytes(path).size());
  EXPECT_EQ(reports.back().bytes_read, ReadBytes(path).size());
}

TEST(PcapReaderTest, FromMemoryMatchesFromFile) {
  CCREPLAY_PATH_OR_SKIP(path, SharedTestData("tcp/zeek-tcprs_fast019.pcap"));
  std::vector<uint8_t> bytes = ReadBytes(path);
  Collector a, b;
  absl::StatusOr<CaptureInfo> from_file = ReadCapture(path, a);
  absl::StatusOr<CaptureInfo> from_memory =
      ReadCaptureFromMemory("mem", bytes.data(), bytes.size(), b);
  ASSERT_TRUE(from_file.ok() && from_memory.ok());
  EXPECT_EQ(from_file->packets, 654u);  // capinfos -c
  EXPECT_EQ(from_memory->packets, 654u);
  EXPECT_EQ(a.segments.size(), b.segments.size());
}

}  // namespace
}  // namespace ccreplay
