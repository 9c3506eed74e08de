// End-to-end tests of the ccreplay binary: exit codes, error lines and the
// `flows --json` contract, run as a user would run them.
#include <sys/wait.h>

#include <cstdio>
#include <fstream>
#include <string>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "simdjson.h"

namespace ccreplay {
namespace {

using ::testing::HasSubstr;

struct CommandResult {
  int exit_code;
  std::string out;
  std::string err;
};

CommandResult Ccreplay(const std::string& args) {
  const std::string err_path = ::testing::TempDir() + "/stderr.txt";
  const std::string command =
      std::string(CCREPLAY_BINARY_DIR) + "/cli/ccreplay " + args + " 2>" + err_path;
  CommandResult run;
  FILE* pipe = popen(command.c_str(), "r");
  char chunk[65536];
  size_t n;
  while ((n = std::fread(chunk, 1, sizeof(chunk), pipe)) > 0) run.out.append(chunk, n);
  int status = pclose(pipe);
  run.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  std::ifstream err(err_path);
  run.err.assign(std::istreambuf_iterator<char>(err), std::istreambuf_iterator<char>());
  return run;
}

std::string Data(const std::string& relative) {
  return std::string(CCREPLAY_TESTDATA_DIR) + "/" + relative;
}

TEST(CliTest, ExitCodesAreDistinctPerFailure) {
  CommandResult missing = Ccreplay("flows " + Data("nope.pcap"));
  EXPECT_EQ(missing.exit_code, 3);
  EXPECT_THAT(missing.err, HasSubstr("nope.pcap: No such file or directory"));

  CommandResult text = Ccreplay("flows " + Data("pcap-format/pcap-parser_malformed.pcap"));
  EXPECT_EQ(text.exit_code, 4);
  EXPECT_THAT(text.err, HasSubstr("not a pcap or pcapng capture"));

  CommandResult usage = Ccreplay("flows");
  EXPECT_EQ(usage.exit_code, 2);
  CommandResult unknown = Ccreplay("frobnicate");
  EXPECT_EQ(unknown.exit_code, 2);
  EXPECT_THAT(unknown.err, HasSubstr("unknown command 'frobnicate'"));
}

TEST(CliTest, UnsupportedLinkTypeExitsFive) {
  // pcap header with link type 105 (IEEE 802.11) and one record.
  const unsigned char bytes[] = {0xd4, 0xc3, 0xb2, 0xa1, 2, 0, 4, 0, 0, 0, 0, 0, 0, 0, 0, 0,
                                 0xff, 0xff, 0, 0, 105, 0, 0, 0, 1, 0, 0, 0, 0, 0, 0, 0,
                                 4, 0, 0, 0, 4, 0, 0, 0, 1, 2, 3, 4};
  const std::string path = ::testing::TempDir() + "/wifi.pcap";
  std::ofstream(path, std::ios::binary).write(reinterpret_cast<const char*>(bytes), sizeof(bytes));
  CommandResult run = Ccreplay("flows " + path);
  EXPECT_EQ(run.exit_code, 5);
  EXPECT_THAT(run.err, HasSubstr("unsupported link type IEEE802_11 (105)"));
}

TEST(CliTest, TruncatedCaptureExitsSixWithFlowsAndAWarning) {
  std::ifstream in(Data("tcp/zeek-tcprs_fast019.pcap"), std::ios::binary);
  std::string bytes(30000, '\0');
  in.read(bytes.data(), static_cast<std::streamsize>(bytes.size()));
  const std::string path = ::testing::TempDir() + "/cut_fast019.pcap";
  std::ofstream(path, std::ios::binary) << bytes;
  CommandResult run = Ccreplay("flows --json " + path);
  EXPECT_EQ(run.exit_code, 6);
  EXPECT_THAT(run.err, HasSubstr("capture cut short"));
  EXPECT_THAT(run.err, HasSubstr("byte offset"));
  simdjson::dom::parser parser;
  simdjson::dom::element doc = parser.parse(run.out);
  EXPECT_EQ(doc["flows"].get_array().size(), 1u);
  EXPECT_EQ(doc["capture"]["warnings"].get_array().size(), 1u);
}

TEST(CliTest, FlowsJsonContract) {
  CommandResult run = Ccreplay("flows --json " + Data("tcp/l4s-tests_prague_dualpi2_wifi.pcap.gz"));
  ASSERT_EQ(run.exit_code, 0) << run.err;
  simdjson::dom::parser parser;
  simdjson::dom::element doc = parser.parse(run.out);
  simdjson::dom::object capture = doc["capture"];
  EXPECT_EQ(std::string_view(capture["format"]), "pcap");
  EXPECT_EQ(int64_t(capture["packets"]), 54152);
  EXPECT_EQ(int64_t(capture["tcp_packets"]), 54152);
  EXPECT_EQ(std::string_view(capture["link_types"].at(0)), "EN10MB");
  simdjson::dom::array flows = doc["flows"];
  ASSERT_EQ(flows.size(), 2u);
  simdjson::dom::object f = flows.at(1);
  // Every key of the contract, with its JSON type.
  const char* ints[] = {"index", "packets_data_dir", "packets_ack_dir", "data_bytes",
                        "retransmitted_segments", "max_payload_bytes", "mss_option_sender",
                        "mss_option_receiver", "wscale_sender", "wscale_receiver",
                        "ect0_packets", "ect1_packets", "ce_packets", "not_ect_packets",
                        "ece_acks", "cwr_packets", "ace_changes"};
  for (const char* key : ints) {
    EXPECT_TRUE(f[key].is_int64()) << key;
  }
  for (const char* key : {"start_s", "duration_s", "goodput_bps"}) {
    EXPECT_TRUE(f[key].is_number()) << key;
  }
  EXPECT_TRUE(f["sack_permitted"].is_bool());
  EXPECT_TRUE(f["timestamps"].is_bool());
  EXPECT_EQ(std::string_view(f["protocol"]), "tcp");
  EXPECT_EQ(std::string_view(f["sender"]), "192.168.122.79:38754");
  EXPECT_EQ(std::string_view(f["ecn_mode"]), "accecn");
  EXPECT_EQ(int64_t(f["ace_changes"]), 4856);
  EXPECT_EQ(f.size(), 26u);  // No key more, none less.
}

TEST(CliTest, MissingHandshakeOptionsAreNull) {
  // The DLT_NULL capture's first flow starts after its handshake.
  CommandResult run = Ccreplay("flows --json " + Data("pcap-format/gopacket_test_loopback_dltnull.pcap"));
  ASSERT_EQ(run.exit_code, 0) << run.err;
  simdjson::dom::parser parser;
  simdjson::dom::element doc = parser.parse(run.out);
  simdjson::dom::object f = doc["flows"].at(0);
  EXPECT_TRUE(f["mss_option_sender"].is_null());
  EXPECT_EQ(std::string_view(f["sender"]), "[::1]:8080");
}

TEST(CliTest, HelpNamesTheCommandAndAnExample) {
  CommandResult run = Ccreplay("flows --help");
  EXPECT_THAT(run.out + run.err, HasSubstr("ccreplay flows CAPTURE"));
  EXPECT_THAT(run.out + run.err, HasSubstr("Example"));
}

}  // namespace
}  // namespace ccreplay
