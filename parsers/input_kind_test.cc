#include "parsers/input_kind.h"

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <string>

#include "gtest/gtest.h"
#include "parsers/parser_testing.h"
#include "proto/testing/test_data.h"

namespace ccreplay {
namespace {

struct Case {
  const char* file;
  InputKind kind;
  bool gzip;
};

TEST(ClassifyInput, EveryKindFromRealFiles) {
  // The kinds as `file -z` and `zcat | head` show them.
  const Case cases[] = {
      {"shared:tcp/zeek-tcprs_fast019.pcap", InputKind::kPcap, false},
      {"shared:tcp/l4s-tests_prague_dualpi2_wifi.pcap.gz", InputKind::kPcap,
       true},
      {"shared:pcap-format/tcpdump_tcp-handshake-nano.pcap", InputKind::kPcap,
       false},
      {"shared:pcap-format/pcap-parser_be.pcap", InputKind::kPcap, false},
      {"shared:tcp/gopacket_test301_tls-download_dsb.pcapng",
       InputKind::kPcapng, false},
      {"lab/reno_ecn1_stepK60k_50mbit/ss.log", InputKind::kSsLog, false},
      {"lab/reno_ecn1_stepK60k_50mbit/ss-receiver.log.gz", InputKind::kSsLog,
       true},
      {"lab/cubic_ecn_K60k_40mbit_ackdelay10ms/tcp_probe.txt.gz",
       InputKind::kTcpProbe, true},
      {"shared:qlog/picoquic_multipath_qlog_ref.draft-00.qlog",
       InputKind::kQlogJson, false},
      {"shared:qlog/qvis_aioquic_parallel_10_50KB_f5.draft-01.qlog",
       InputKind::kQlogJson, false},
      {"quic/ngtcp2_reno_30mbit_pfifo100_40ms/client-0.sqlog.gz",
       InputKind::kQlogJsonSeq, true},
      {"shared:pcap-format/pcap-parser_malformed.pcap", InputKind::kUnknown,
       false},
      {"lab/reno_ecn1_stepK60k_50mbit", InputKind::kBundleDirectory, false},
  };
  // Project files always run; a third-party file is skipped when
  // ../shared/testdata is absent, and the test says how many were.
  int absent = 0;
  for (const Case& c : cases) {
    const absl::StatusOr<std::string> located = FindTestData(c.file);
    if (!located.ok()) {
      ++absent;
      continue;
    }
    const std::string& path = *located;
    absl::StatusOr<InputClass> input = ClassifyInput(path);
    ASSERT_TRUE(input.ok()) << c.file << ": " << input.status();
    EXPECT_EQ(input->kind, c.kind)
        << c.file << " is " << InputKindName(input->kind);
    EXPECT_EQ(input->gzip, c.gzip) << c.file;
  }
  if (absent > 0) GTEST_SKIP() << absent << " third-party files are absent";
}

TEST(ClassifyInput, QlogWithAMisleadingName) {
  CCREPLAY_PATH_OR_SKIP(
      qlog, SharedTestData("qlog/picoquic_qlog_trace_ecn_ref.draft-00.qlog"));
  const std::string renamed = ::testing::TempDir() + "/capture.pcap";
  std::filesystem::copy_file(qlog, renamed,
                             std::filesystem::copy_options::overwrite_existing);
  EXPECT_EQ(ClassifyInput(renamed)->kind, InputKind::kQlogJson);
  // And a capture named like a qlog is still a capture.
  const std::string pcap =
      TestDataPath("lab/reno_ecn1_stepK60k_50mbit/sender.pcap.gz");
  const std::string named_qlog = ::testing::TempDir() + "/trace.qlog";
  std::filesystem::copy_file(pcap, named_qlog,
                             std::filesystem::copy_options::overwrite_existing);
  EXPECT_EQ(ClassifyInput(named_qlog)->kind, InputKind::kPcap);
}

// A directory is a bundle only with meta.json; any other cannot be read
// (exit 3, as a missing file), and the message names it.
TEST(ClassifyInput, DirectoryWithoutMetaJsonIsNotABundle) {
  const std::string dir = ::testing::TempDir() + "/not-a-bundle";
  std::filesystem::create_directories(dir);
  absl::StatusOr<InputClass> input = ClassifyInput(dir);
  ASSERT_FALSE(input.ok());
  EXPECT_EQ(input.status().code(), absl::StatusCode::kNotFound);
  EXPECT_NE(input.status().message().find(dir + ": is a directory"),
            std::string::npos);
  EXPECT_EQ(ClassifyInput(TestDataPath("lab/reno_ecn1_stepK60k_50mbit"))->kind,
            InputKind::kBundleDirectory);
}

TEST(ClassifyInput, MissingFileIsNotFound) {
  EXPECT_EQ(ClassifyInput(TestDataPath("missing")).status().code(),
            absl::StatusCode::kNotFound);
}

// quicly is not packaged in Debian, so there is no real `cli -e` log: this
// line follows quicly's lib/quicly.c QUICLY_LOG_CONN layout, as
// parsers/quicly_log_test.cc does.
TEST(ClassifyBytes, QuiclyAndTextFormats) {
  EXPECT_EQ(ClassifyBytes(R"({"module":"quicly","type":"accept","tid":7,)"
                          R"("time":1000,"conn":1,"dcid":"ab"})"
                          "\n"),
            InputKind::kQuiclyLog);
  EXPECT_EQ(
      ClassifyInput(WriteTemp("q.log", R"({"module":"quicly","type":"accept"})"
                                       "\n"))
          ->kind,
      InputKind::kQuiclyLog);
  // RFC 7464: a JSON-SEQ record starts with RS (0x1E).
  EXPECT_EQ(ClassifyBytes("\x1e{\"qlog_version\":\"0.3\"}\n"),
            InputKind::kQlogJsonSeq);
  // /proc/net/tcpprobe (Linux < 4.16), net/ipv4/tcp_probe.c's format.
  EXPECT_EQ(ClassifyBytes("0.073108918 10.0.0.1:5001 10.0.0.2:40000 32 "
                          "0x1 0x1 10 2147483647 29200 200 65535\n"),
            InputKind::kTcpProbe);
  EXPECT_EQ(ClassifyBytes(""), InputKind::kEmpty);
  EXPECT_EQ(ClassifyBytes(" \n\t"), InputKind::kEmpty);
  EXPECT_EQ(ClassifyBytes("hello world\n"), InputKind::kUnknown);
  // Magic numbers alone decide, from 4 bytes.
  EXPECT_EQ(ClassifyBytes(absl::string_view("\xd4\xc3\xb2\xa1", 4)),
            InputKind::kPcap);
  EXPECT_EQ(ClassifyBytes(absl::string_view("\x0a\x0d\x0d\x0a", 4)),
            InputKind::kPcapng);
  EXPECT_EQ(ClassifyBytes(absl::string_view("\x1f\x8b\x08\x00", 4)),
            InputKind::kGzip);
}

}  // namespace
}  // namespace ccreplay

namespace ccreplay {
namespace {

// zstd's frame magic, 28 B5 2F FD (RFC 8878 3.1.1; `zstd -c x | xxd | head
// -1` shows it), is named with what to do, not left as "unknown format".
TEST(ClassifyInput, ZstdIsNamedWithWhatToDo) {
  const std::string path = ::testing::TempDir() + "/capture.pcap.zst";
  std::ofstream(path, std::ios::binary)
      .write("\x28\xb5\x2f\xfd\x04\x58\x01\x00", 8);
  const absl::StatusOr<InputClass> kind = ClassifyInput(path);
  ASSERT_FALSE(kind.ok());
  EXPECT_EQ(kind.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_NE(kind.status().message().find(
                "zstd-compressed: decompress with zstd -d first"),
            std::string::npos);
}

}  // namespace
}  // namespace ccreplay
