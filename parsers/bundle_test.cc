// ReadBundle on the checked-in bundles: every path and meta.json field is
// asserted against the bundle's own files (meta.json was converted from
// each bundle's former meta.txt; the ports from the captures' SYNs, read
// with python3's gzip+struct over the pcap records:
// `SYN from 10.98.1.1:51026 to 10.98.2.1:5201` and so on).
#include "parsers/bundle.h"

#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <optional>
#include <string>
#include <tuple>
#include <utility>
#include <vector>

#include "absl/strings/match.h"
#include "gtest/gtest.h"
#include "parsers/flow_table.h"
#include "parsers/pcap_reader.h"
#include "proto/testing/test_data.h"

namespace ccreplay {
namespace {

const std::string kLab = TestDataPath("lab/");

TEST(BundleTest, CubicEcnDelayLineBundle) {
  const std::string dir = kLab + "cubic_ecn_K60k_40mbit_ackdelay10ms";
  absl::StatusOr<Bundle> bundle = ReadBundle(dir);
  ASSERT_TRUE(bundle.ok()) << bundle.status();
  EXPECT_EQ(bundle->sender_capture, dir + "/sender.pcap.gz");
  EXPECT_EQ(bundle->receiver_capture, dir + "/receiver.pcap.gz");
  EXPECT_EQ(bundle->tcp_probe, dir + "/tcp_probe.txt.gz");
  EXPECT_EQ(bundle->ss_log, dir + "/ss.log");
  // Per ACK: tcp_probe wins over ss.
  EXPECT_EQ(bundle->host_state(), dir + "/tcp_probe.txt.gz");
  EXPECT_EQ(bundle->controller(), "cubic");
  const proto::BundleMeta& m = bundle->meta;
  EXPECT_EQ(m.kernel_release(), "6.18.44-fc-v657");
  EXPECT_EQ(m.written_time_utc(), "2026-11-29T20:58:14Z");
  EXPECT_EQ(m.duration_s(), 4);
  EXPECT_EQ(m.transfer_tool(), "iperf3");
  EXPECT_EQ(m.sender().ecn_mode(), proto::BUNDLE_ECN_RFC3168);
  EXPECT_EQ(m.sender().sender_tcp_ecn_sysctl(), 1);
  EXPECT_EQ(m.sender().receiver_tcp_ecn_sysctl(), 1);
  EXPECT_FALSE(m.sender().has_gso_max_size_bytes());  // not recorded
  EXPECT_FALSE(m.sender().has_config_hz());
  EXPECT_EQ(m.bottleneck().rate_bits_per_s(), 40'000'000);
  EXPECT_EQ(m.bottleneck().qdisc(), "pfifo");
  EXPECT_EQ(m.bottleneck().limit_packets(), 1000);
  EXPECT_FALSE(m.bottleneck().has_limit_bytes());
  // A bundle from before paths[]: its one bottleneck, whatever the sender.
  std::optional<BundleQueue> queue = BundleFlowQueue(m, "");
  ASSERT_TRUE(queue.has_value());
  EXPECT_EQ(queue->qdisc, "pfifo");
  EXPECT_EQ(queue->limit, 1000);
  EXPECT_EQ(m.bottleneck().marker(), "step");
  EXPECT_EQ(m.bottleneck().marker_threshold_bytes(), 60'000);
  EXPECT_EQ(m.delay().delay_ms(), 10);
  EXPECT_EQ(m.delay().method(), "tun");
  EXPECT_EQ(m.delay().device(), "hdly");
  EXPECT_EQ(m.delay().route_table(), 100);
  const proto::BundleDelayLine& line = m.delay().delay_line();
  EXPECT_EQ(line.delay_us(), 10'000);
  EXPECT_EQ(line.packets(), 6762);
  EXPECT_EQ(line.max_backlog_packets(), 36);
  EXPECT_EQ(line.late_max_us(), 170);
  EXPECT_EQ(line.late_over_100us_packets(), 9);
  EXPECT_EQ(line.late_over_1ms_packets(), 0);
  EXPECT_DOUBLE_EQ(line.late_mean_us(), 19.7);
  EXPECT_EQ(line.late_p50_us(), 17);
  EXPECT_EQ(line.late_p90_us(), 29);
  EXPECT_EQ(line.late_p99_us(), 60);
  EXPECT_EQ(line.late_p999_us(), 108);
  EXPECT_EQ(line.sched_fifo_priority(), 20);
  EXPECT_EQ(line.first_release_mono_ns(), 5402780420234);
  EXPECT_EQ(line.last_release_mono_ns(), 5407730388779);
  EXPECT_EQ(m.topology().sender_netns(), "hosnd");
  EXPECT_EQ(m.topology().sender_device(), "hs0");
  EXPECT_EQ(m.topology().router_netns(), "hortr");
  EXPECT_EQ(m.topology().router_receiver_device(), "hr1");
  EXPECT_EQ(m.topology().receiver_device(), "hd1");
  ASSERT_EQ(m.flows_size(), 1);
  EXPECT_EQ(m.flows(0).controller(), "cubic");
  EXPECT_EQ(m.flows(0).sender(), "10.98.1.1:51026");
  EXPECT_EQ(m.flows(0).receiver(), "10.98.2.1:5201");
  // `python3: struct.unpack('<IHHiIII', gzip.open(f).read(24))[5]` = 128.
  EXPECT_EQ(m.sender_capture().snaplen_bytes(), 128);
  EXPECT_EQ(m.sender_capture().interface(), "hs0");
  EXPECT_EQ(m.receiver_capture().interface(), "hd1");
  EXPECT_EQ(m.ss().interval_ms(), 10);
  EXPECT_EQ(m.trace().events_size(), 3);
  EXPECT_EQ(m.trace().filter(), "sport == 5201 || dport == 5201");
  EXPECT_EQ(m.trace().trace_clock(), "mono");
  EXPECT_EQ(m.trace().buffer_size_kb_per_cpu(), 65536);
  EXPECT_EQ(m.trace().overrun_events(), 0);
  ASSERT_EQ(m.trace().clock_pairs_size(), 2);
  // The offset the replay uses to map tcp_probe's mono clock to the pcap's
  // realtime clock (replay/captured_cwnd_test.cc).
  EXPECT_EQ(m.trace().clock_pairs(0).offset_ns(), 1795980485536831306);
  EXPECT_EQ(m.trace().clock_pairs(1).realtime_ns(), 1795985893778354426);
  EXPECT_EQ(m.sender_nstat().at("TcpExtTCPDeliveredCE"), 488);
  EXPECT_EQ(m.sender_nstat().at("TcpRetransSegs"), 0);
  EXPECT_EQ(m.sender_nstat().size(), 10u);
  EXPECT_EQ(m.tool_versions_size(), 3);
}

// The two-flow bundles of testdata/SOURCES.md (issue 19): one flow with
// 1448-byte segments, one with 1188 (mss=1200), through one bottleneck or
// two. Per flow: what meta.json says, and what the flow table reads from
// sender.pcap.gz, against tshark 4.0.17:
//   payload bytes: `tshark -r sender.pcap.gz -Y tcp.srcport==RPORT -T fields
//     -e tcp.ack | sort -n | tail -1` minus 2 (SYN and FIN);
//   data frames: `tshark -r sender.pcap.gz -q -z conv,tcp` ("->" frames);
//   SYN MSS: `-Y tcp.flags.syn==1 -T fields -e tcp.options.mss_val`;
//   segment size: `-Y tcp.srcport==SPORT -T fields -e tcp.len | sort | uniq
//   -c`.
struct TwoFlowExpected {
  const char* sender;
  const char* receiver;
  int path;
  uint64_t data_bytes, data_frames;
  uint32_t syn_mss, segment_bytes;
};

struct TwoFlowBundle {
  const char* dir;
  // Path rate, qdisc, its limit (packets for pfifo, bytes for bfifo) and
  // ACK delay, path 1 first.
  std::vector<std::tuple<int64_t, const char*, int64_t, double>> paths;
  std::vector<TwoFlowExpected> flows;
};

class TwoFlowBundleTest : public ::testing::TestWithParam<TwoFlowBundle> {};

TEST_P(TwoFlowBundleTest, MetaAndCaptureAgreeWithTshark) {
  const TwoFlowBundle& e = GetParam();
  absl::StatusOr<Bundle> bundle = ReadBundle(kLab + e.dir);
  ASSERT_TRUE(bundle.ok()) << bundle.status();
  const proto::BundleMeta& m = bundle->meta;
  EXPECT_TRUE(m.complete());
  ASSERT_EQ(m.paths_size(), static_cast<int>(e.paths.size()));
  for (int i = 0; i < m.paths_size(); ++i) {
    EXPECT_EQ(m.paths(i).path(), i + 1);
    EXPECT_EQ(m.paths(i).rate_bits_per_s(), std::get<0>(e.paths[i]));
    EXPECT_EQ(m.paths(i).qdisc(), std::get<1>(e.paths[i]));
    EXPECT_EQ(m.paths(i).qdisc() == "bfifo" ? m.paths(i).limit_bytes()
                                            : m.paths(i).limit_packets(),
              std::get<2>(e.paths[i]));
    EXPECT_EQ(m.paths(i).delay_ms(), std::get<3>(e.paths[i]));
  }
  FlowTable table;
  absl::StatusOr<CaptureInfo> info = ReadCapture(bundle->sender_capture, table);
  ASSERT_TRUE(info.ok()) << info.status();
  ASSERT_EQ(table.flows().size(), e.flows.size());
  ASSERT_EQ(m.flows_size(), static_cast<int>(e.flows.size()));
  for (size_t i = 0; i < e.flows.size(); ++i) {
    const TwoFlowExpected& want = e.flows[i];
    const proto::BundleFlow& flow = m.flows(static_cast<int>(i));
    EXPECT_EQ(flow.sender(), want.sender);
    EXPECT_EQ(flow.receiver(), want.receiver);
    EXPECT_EQ(flow.path(), want.path);
    // The flow's receiver is its path's receiver address.
    EXPECT_TRUE(absl::StartsWith(
        flow.receiver(), m.paths(want.path - 1).receiver_address() + ":"));
    EXPECT_EQ(flow.bytes_sent(), static_cast<int64_t>(want.data_bytes));
    // The queue of the flow's own path, as `tc -s qdisc show` in
    // meta.bottleneck.qdisc_stats reads it ("qdisc pfifo 10: parent 1:10
    // limit 70p", "qdisc bfifo 10: parent 1:10 limit 100000b").
    std::optional<BundleQueue> queue = BundleFlowQueue(m, want.sender);
    ASSERT_TRUE(queue.has_value());
    EXPECT_EQ(queue->qdisc, std::get<1>(e.paths[want.path - 1]));
    EXPECT_EQ(queue->limit, std::get<2>(e.paths[want.path - 1]));
    EXPECT_EQ(queue->counts_bytes(), queue->qdisc == "bfifo");
    FlowSummary f = SummarizeFlow(table.flows()[i], info->first_packet_time_ns);
    EXPECT_EQ(f.sender, want.sender);
    EXPECT_EQ(f.receiver, want.receiver);
    EXPECT_EQ(f.data_bytes, want.data_bytes);
    EXPECT_EQ(f.packets_data_dir, want.data_frames);
    EXPECT_EQ(f.mss_option_sender.value_or(0), want.syn_mss);
    EXPECT_EQ(f.max_payload_bytes, want.segment_bytes);
  }
  // Two paths: a sender that is no flow's crossed neither.
  if (m.paths_size() > 1) {
    EXPECT_FALSE(BundleFlowQueue(m, "192.0.2.1:9").has_value());
  }
}

// clang-format off
INSTANTIATE_TEST_SUITE_P(Issue19, TwoFlowBundleTest, ::testing::Values(
  TwoFlowBundle{"two_mss_1448_1188_shared_20mbit_40ms",
                {{20'000'000, "pfifo", 70, 40}},
                {{"10.70.82.1:23590", "10.70.83.1:23580", 1, 24'641'536, 17'040, 1460, 1448},
                 {"10.70.82.1:23591", "10.70.83.1:23581", 1, 23'330'816, 19'711, 1200, 1188}}},
  TwoFlowBundle{"two_mss_1448_1188_apart_20mbit_40ms_12mbit_25ms",
                {{20'000'000, "pfifo", 70, 40}, {12'000'000, "pfifo", 30, 25}},
                {{"10.103.234.1:21390", "10.103.235.1:21380", 1, 47'841'280, 33'056, 1460, 1448},
                 {"10.103.234.1:21391", "10.103.235.2:21381", 2, 28'573'696, 24'102, 1200, 1188}}},
  TwoFlowBundle{"two_mss_1448_1188_shared_20mbit_40ms_bfifo100k",
                {{20'000'000, "bfifo", 100'000, 40}},
                {{"10.86.178.1:27710", "10.86.179.1:27700", 1, 25'100'288, 17'371, 1460, 1448},
                 {"10.86.178.1:27711", "10.86.179.1:27701", 1, 21'364'736, 18'052, 1200, 1188}}}));
// clang-format on

TEST(BundleTest, OlderBundlesWithSsOnly) {
  struct Expected {
    const char* dir;
    const char* controller;
    int tcp_ecn;
    int64_t limit_packets;
    const char* marker;
    const char* flow_sender;
  };
  for (const Expected& e : {
           Expected{"cubic_noecn_droptail100_50mbit", "cubic", 0, 100, "none",
                    "10.99.1.1:53138"},
           Expected{"reno_ecn1_stepK60k_50mbit", "reno", 1, 1000, "step",
                    "10.99.1.1:42408"},
       }) {
    SCOPED_TRACE(e.dir);
    const std::string dir = kLab + e.dir;
    absl::StatusOr<Bundle> bundle = ReadBundle(dir);
    ASSERT_TRUE(bundle.ok()) << bundle.status();
    EXPECT_EQ(bundle->sender_capture, dir + "/sender.pcap.gz");
    EXPECT_EQ(bundle->receiver_capture, dir + "/receiver.pcap.gz");
    EXPECT_EQ(bundle->tcp_probe, "");
    EXPECT_EQ(bundle->host_state(), dir + "/ss.log");
    EXPECT_EQ(bundle->controller(), e.controller);
    const proto::BundleMeta& m = bundle->meta;
    EXPECT_EQ(m.sender().sender_tcp_ecn_sysctl(), e.tcp_ecn);
    EXPECT_FALSE(m.sender().has_receiver_tcp_ecn_sysctl());
    EXPECT_EQ(m.bottleneck().rate_bits_per_s(), 50'000'000);
    EXPECT_EQ(m.bottleneck().limit_packets(), e.limit_packets);
    EXPECT_EQ(m.bottleneck().marker(), e.marker);
    EXPECT_EQ(m.bottleneck().has_marker_threshold_bytes(),
              std::string(e.marker) == "step");
    EXPECT_EQ(m.duration_s(), 3);
    EXPECT_EQ(m.delay().method(), "none");
    EXPECT_EQ(m.topology().router_receiver_device(), "vr1");
    ASSERT_EQ(m.flows_size(), 1);
    EXPECT_EQ(m.flows(0).sender(), e.flow_sender);
    EXPECT_EQ(m.flows(0).receiver(), "10.99.2.1:5201");
    EXPECT_FALSE(m.has_trace());
  }
}

// The h5 folder has ss logs and a trace but no capture: its meta.json
// reads, the bundle does not.
TEST(BundleTest, FolderWithoutCaptureIsNotABundle) {
  const std::string dir = kLab + "h5_cubic_20mbit_pfifo12";
  absl::StatusOr<proto::BundleMeta> meta = ReadBundleMeta(dir);
  ASSERT_TRUE(meta.ok()) << meta.status();
  EXPECT_EQ(meta->bottleneck().rate_bits_per_s(), 20'000'000);
  EXPECT_EQ(meta->bottleneck().limit_packets(), 12);
  ASSERT_EQ(meta->flows_size(), 2);
  EXPECT_EQ(meta->flows(0).retransmitted_segments(), 77);
  EXPECT_EQ(meta->flows(1).controller(), "reno");
  EXPECT_EQ(meta->trace().instance(), "h5probe");
  absl::StatusOr<Bundle> bundle = ReadBundle(dir);
  EXPECT_EQ(bundle.status().code(), absl::StatusCode::kNotFound);
  EXPECT_NE(bundle.status().message().find("no sender.pcap"),
            std::string::npos);
}

class BundleErrorTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = std::filesystem::temp_directory_path() /
           ("ccreplay-bundle-test-" + std::to_string(::getpid()));
    std::filesystem::create_directories(dir_);
    std::ofstream(dir_ / "sender.pcap") << "not read here";
  }
  void TearDown() override { std::filesystem::remove_all(dir_); }
  std::filesystem::path dir_;
};

TEST_F(BundleErrorTest, MissingMetaJsonIsNamed) {
  // A bundle from before meta.json: meta.txt only.
  std::ofstream(dir_ / "meta.txt") << "cc: cubic  tcp_ecn: 1\n";
  absl::StatusOr<Bundle> bundle = ReadBundle(dir_.string());
  EXPECT_EQ(bundle.status().code(), absl::StatusCode::kNotFound);
  EXPECT_NE(bundle.status().message().find("meta.json"), std::string::npos)
      << bundle.status();
}

TEST_F(BundleErrorTest, CorruptMetaJsonIsInvalid) {
  for (const char* text :
       {"{\"tool\": \"ccreplay lab\",", "{\"no_such_field\": 1}",
        "{\"duration_s\": \"four\"}"}) {
    std::ofstream(dir_ / "meta.json") << text;
    absl::StatusOr<Bundle> bundle = ReadBundle(dir_.string());
    EXPECT_EQ(bundle.status().code(), absl::StatusCode::kInvalidArgument)
        << text;
    EXPECT_NE(bundle.status().message().find("meta.json"), std::string::npos);
  }
  std::ofstream(dir_ / "meta.json") << "{\"duration_s\": 4}";
  absl::StatusOr<Bundle> bundle = ReadBundle(dir_.string());
  ASSERT_TRUE(bundle.ok()) << bundle.status();
  EXPECT_EQ(bundle->meta.duration_s(), 4);
  EXPECT_EQ(bundle->receiver_capture, "");
  EXPECT_EQ(bundle->host_state(), "");
}

// "complete": false marks a bundle whose lab run was cut short; an unset
// field (every bundle from before it) reads as complete.
TEST_F(BundleErrorTest, CompleteFlag) {
  for (auto [text, complete] : std::vector<std::pair<const char*, bool>>{
           {"{\"duration_s\": 4}", true},
           {"{\"complete\": true}", true},
           {"{\"complete\": false}", false}}) {
    std::ofstream(dir_ / "meta.json") << text;
    absl::StatusOr<Bundle> bundle = ReadBundle(dir_.string());
    ASSERT_TRUE(bundle.ok()) << bundle.status();
    EXPECT_EQ(bundle->complete(), complete) << text;
  }
  absl::StatusOr<Bundle> bundle = ReadBundle(dir_.string());
  ASSERT_TRUE(bundle.ok()) << bundle.status();
  EXPECT_EQ(IncompleteBundleWarning(*bundle),
            dir_.string() +
                ": incomplete bundle (meta.json complete=false): the lab run "
                "was cut short, captures and logs may end early");
  // The checked-in bundles predate the field.
  bundle = ReadBundle(kLab + "cubic_ecn_K60k_40mbit_ackdelay10ms");
  ASSERT_TRUE(bundle.ok()) << bundle.status();
  EXPECT_FALSE(bundle->meta.has_complete());
  EXPECT_TRUE(bundle->complete());
}

TEST(BundleTest, DirectoryWithoutSenderCaptureIsNotFound) {
  EXPECT_EQ(ReadBundle(TestDataPath("quic")).status().code(),
            absl::StatusCode::kNotFound);
}

}  // namespace
}  // namespace ccreplay
