#include "lab/lab_config.h"

#include "gtest/gtest.h"

namespace ccreplay::lab {
namespace {

LabFlagValues Defaults() {
  LabFlagValues flags;
  flags.cc = "cubic";
  flags.ecn = "off";
  flags.rate = BitRate{50'000'000};
  flags.queue =
      BufferSize{BufferSize::Unit::kPackets, 1000, absl::ZeroDuration()};
  flags.mark = "none";
  flags.transfer = "auto";
  flags.duration = absl::Seconds(5);
  flags.output_dir = "/tmp/bundle";
  return flags;
}

TEST(ParseMark, NoneOrStep) {
  EXPECT_EQ(*ParseMarkStepBytes("none"), 0);
  EXPECT_EQ(*ParseMarkStepBytes("step:60000"), 60'000);
  EXPECT_EQ(*ParseMarkStepBytes("step:60kB"), 60'000);
  EXPECT_FALSE(ParseMarkStepBytes("red:5").ok());
  EXPECT_FALSE(ParseMarkStepBytes("step:").ok());
}

TEST(ParseFlowSpec, ControllerMssRate) {
  FlowSpec flow = *ParseFlowSpec("cubic:mss=1200:rate=10mbit");
  EXPECT_EQ(flow.cc, "cubic");
  EXPECT_EQ(flow.mss_bytes, 1200);
  EXPECT_EQ(flow.app_rate_bits_per_s, 10'000'000);
  EXPECT_EQ(ParseFlowSpec("reno")->mss_bytes, 0);
  EXPECT_FALSE(ParseFlowSpec("reno:mss=10").ok());
  EXPECT_FALSE(ParseFlowSpec("reno:window=3").ok());
  EXPECT_FALSE(ParseFlowSpec("re no").ok());
}

TEST(ParseLabConfig, PacedAutoOnOff) {
  LabFlagValues flags = Defaults();
  EXPECT_EQ(ParseLabConfig(flags)->paced, PacingMode::kAuto);
  flags.paced = "on";
  EXPECT_EQ(ParseLabConfig(flags)->paced, PacingMode::kOn);
  flags.paced = "off";
  flags.transfer = "builtin";
  EXPECT_EQ(ParseLabConfig(flags)->paced, PacingMode::kOff);
  EXPECT_EQ(PacingModeName(PacingMode::kOff), "off");
  flags.paced = "yes";
  EXPECT_FALSE(ParseLabConfig(flags).ok());
  // ngtcp2 paces in user space: no socket to pace.
  flags.paced = "on";
  flags.transfer = "ngtcp2";
  EXPECT_FALSE(ParseLabConfig(flags).ok());
  flags.paced = "auto";
  EXPECT_TRUE(ParseLabConfig(flags).ok());
}

TEST(ParseFlowSpec, RateForIsAnApplicationLimitedPhase) {
  FlowSpec flow = *ParseFlowSpec("bbr:rate=5mbit:rate_for=1500ms");
  EXPECT_EQ(flow.app_rate_bits_per_s, 5'000'000);
  EXPECT_EQ(flow.app_rate_for, absl::Milliseconds(1500));
  EXPECT_EQ(ParseFlowSpec("bbr:rate=5mbit")->app_rate_for,
            absl::ZeroDuration());
  // A phase of what rate? A time without a unit? Not a time?
  EXPECT_FALSE(ParseFlowSpec("bbr:rate_for=1s").ok());
  EXPECT_FALSE(ParseFlowSpec("bbr:rate=5mbit:rate_for=1").ok());
  EXPECT_FALSE(ParseFlowSpec("bbr:rate=5mbit:rate_for=0s").ok());
  // Only the built-in sender can change its rate mid-run.
  LabFlagValues flags = Defaults();
  flags.flows = {"bbr:rate=5mbit:rate_for=1s"};
  flags.transfer = "builtin";
  EXPECT_TRUE(ParseLabConfig(flags).ok());
  flags.transfer = "iperf3";
  EXPECT_FALSE(ParseLabConfig(flags).ok());
  flags.transfer = "auto";
  EXPECT_FALSE(ParseLabConfig(flags).ok());
}

TEST(ParseFlowSpec, RcvbufIsTheBuiltinReceiversBuffer) {
  EXPECT_EQ(ParseFlowSpec("reno:rcvbuf=65536")->rcvbuf_bytes, 65536);
  EXPECT_EQ(ParseFlowSpec("reno")->rcvbuf_bytes, 0);
  EXPECT_FALSE(ParseFlowSpec("reno:rcvbuf=100").ok());  // Under 4096.
  EXPECT_FALSE(ParseFlowSpec("reno:rcvbuf=64k").ok());  // Bytes, no unit.
  LabFlagValues flags = Defaults();
  flags.flows = {"reno:rcvbuf=65536"};
  flags.transfer = "builtin";
  EXPECT_TRUE(ParseLabConfig(flags).ok());
  flags.transfer = "iperf3";  // iperf3's receiver is not the lab's.
  EXPECT_FALSE(ParseLabConfig(flags).ok());
}

TEST(ParseLabConfig, DefaultsMakeOneFlowOfCc) {
  LabFlagValues flags = Defaults();
  flags.cc = "reno";
  flags.mss_bytes = 1400;
  LabConfig config = *ParseLabConfig(flags);
  ASSERT_EQ(config.flows.size(), 1u);
  EXPECT_EQ(config.flows[0].cc, "reno");
  EXPECT_EQ(config.flows[0].mss_bytes, 1400);
}

TEST(ParseLabConfig, FlowsInheritMss) {
  LabFlagValues flags = Defaults();
  flags.mss_bytes = 1400;
  flags.flows = {"reno", "cubic:mss=1200"};
  LabConfig config = *ParseLabConfig(flags);
  ASSERT_EQ(config.flows.size(), 2u);
  EXPECT_EQ(config.flows[0].mss_bytes, 1400);
  EXPECT_EQ(config.flows[1].mss_bytes, 1200);
}

TEST(ParseLabConfig, QueueTimeIsBytesAtTheRate) {
  LabFlagValues flags = Defaults();
  flags.queue = *ParseBufferSize("10ms");
  LabConfig config = *ParseLabConfig(flags);
  // 50 Mbit/s for 10 ms = 500 kbit = 62500 bytes of bfifo.
  EXPECT_FALSE(config.queue.in_packets);
  EXPECT_EQ(config.queue.limit, 62'500);
  EXPECT_EQ(ParseLabConfig(Defaults())->queue.limit, 1000);
}

TEST(ParseLabConfig, RefusesBadCombinations) {
  LabFlagValues flags = Defaults();
  flags.mark = "step:60000";  // marking needs ECN-capable packets
  EXPECT_FALSE(ParseLabConfig(flags).ok());
  flags = Defaults();
  flags.output_dir = "";
  EXPECT_FALSE(ParseLabConfig(flags).ok());
  flags = Defaults();
  flags.ecn = "l4s";
  EXPECT_FALSE(ParseLabConfig(flags).ok());
  flags = Defaults();
  flags.duration = absl::ZeroDuration();
  EXPECT_FALSE(ParseLabConfig(flags).ok());
  flags = Defaults();
  flags.transfer = "netperf";
  EXPECT_FALSE(ParseLabConfig(flags).ok());
}

TEST(ParseLabConfig, ReorderPercentAndExtraDelay) {
  LabFlagValues flags = Defaults();
  EXPECT_EQ(ParseLabConfig(flags)->reorder_percent, 0);
  EXPECT_EQ(ParseLabConfig(flags)->reorder_delay, absl::Milliseconds(1));
  flags.reorder_percent = 2;
  flags.reorder_delay = absl::Microseconds(1500);
  LabConfig config = *ParseLabConfig(flags);
  EXPECT_EQ(config.reorder_percent, 2);
  EXPECT_EQ(config.reorder_delay, absl::Microseconds(1500));
  flags.reorder_percent = -1;
  EXPECT_FALSE(ParseLabConfig(flags).ok());
  flags.reorder_percent = 51;
  EXPECT_FALSE(ParseLabConfig(flags).ok());
  flags.reorder_percent = 2;
  flags.reorder_delay = absl::ZeroDuration();
  EXPECT_FALSE(ParseLabConfig(flags).ok());
}

TEST(ParseFlowSpec, Path) {
  EXPECT_EQ(ParseFlowSpec("cubic")->path, 1);
  EXPECT_EQ(ParseFlowSpec("cubic:path=1")->path, 1);
  FlowSpec flow = *ParseFlowSpec("cubic:mss=1200:path=2");
  EXPECT_EQ(flow.path, 2);
  EXPECT_EQ(flow.mss_bytes, 1200);
  EXPECT_FALSE(ParseFlowSpec("cubic:path=3").ok());
  EXPECT_FALSE(ParseFlowSpec("cubic:path=").ok());
}

TEST(ParseLabConfig, SecondPathOnlyWithAPath2Flow) {
  LabFlagValues flags = Defaults();
  flags.flows = {"cubic", "cubic"};
  EXPECT_FALSE(ParseLabConfig(flags)->second_path.has_value());
  flags.rate2 = BitRate{12'000'000};  // shapes nothing: refused
  EXPECT_FALSE(ParseLabConfig(flags).ok());
}

TEST(ParseLabConfig, SecondPathDefaultsToTheFirst) {
  LabFlagValues flags = Defaults();
  flags.queue = *ParseBufferSize("10ms");
  flags.delay = absl::Milliseconds(40);
  flags.flows = {"cubic", "cubic:path=2"};
  LabConfig config = *ParseLabConfig(flags);
  ASSERT_TRUE(config.second_path.has_value());
  EXPECT_EQ(config.second_path->rate_bits_per_s, 50'000'000);
  EXPECT_FALSE(config.second_path->queue.in_packets);
  EXPECT_EQ(config.second_path->queue.limit, 62'500);
  EXPECT_EQ(config.second_path->delay_ms, 40);
  // A queue time is bytes at the second path's own rate: 12 Mbit/s for
  // 10 ms = 15000 bytes.
  flags.rate2 = BitRate{12'000'000};
  flags.delay2 = absl::Milliseconds(25);
  config = *ParseLabConfig(flags);
  EXPECT_EQ(config.second_path->rate_bits_per_s, 12'000'000);
  EXPECT_EQ(config.second_path->queue.limit, 15'000);
  EXPECT_EQ(config.second_path->delay_ms, 25);
  EXPECT_EQ(config.rate_bits_per_s, 50'000'000);
  EXPECT_EQ(config.queue.limit, 62'500);
  EXPECT_EQ(config.delay_ms, 40);
  flags.queue2 =
      BufferSize{BufferSize::Unit::kPackets, 30, absl::ZeroDuration()};
  config = *ParseLabConfig(flags);
  EXPECT_TRUE(config.second_path->queue.in_packets);
  EXPECT_EQ(config.second_path->queue.limit, 30);
  flags.delay2 = absl::Seconds(11);
  EXPECT_FALSE(ParseLabConfig(flags).ok());
}

TEST(ParseLabConfig, StepMarkerIsRefusedWithTwoPaths) {
  LabFlagValues flags = Defaults();
  flags.ecn = "rfc3168";
  flags.mark = "step:60000";
  flags.flows = {"cubic", "cubic:path=2"};
  absl::StatusOr<LabConfig> config = ParseLabConfig(flags);
  ASSERT_FALSE(config.ok());
  EXPECT_NE(config.status().message().find("path=2"), absl::string_view::npos);
}

TEST(ParseLabConfig, Path2IsForTcpFlows) {
  LabFlagValues flags = Defaults();
  flags.transfer = "ngtcp2";
  flags.flows = {"cubic", "cubic:path=2"};
  absl::StatusOr<LabConfig> config = ParseLabConfig(flags);
  ASSERT_FALSE(config.ok());
  EXPECT_NE(config.status().message().find("TCP flows only"),
            absl::string_view::npos);
  flags.flows = {"cubic", "cubic:path=1"};
  EXPECT_TRUE(ParseLabConfig(flags).ok());
}

}  // namespace
}  // namespace ccreplay::lab
