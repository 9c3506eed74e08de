// ReadBundle on the checked-in bundles: every path and meta.json field is
// asserted against the bundle's own files (meta.json was converted from
// each bundle's former meta.txt; the ports from the captures' SYNs, read
// with python3's gzip+struct over the pcap records:
// `SYN from 10.98.1.1:51026 to 10.98.2.1:5201` and so on).
#include "parsers/bundle.h"

#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <string>
#include <utility>
#include <vector>

#include "gtest/gtest.h"
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
