#include "lab/lab_config.h"

#include "gtest/gtest.h"

namespace ccreplay::lab {
namespace {

LabFlagValues Defaults() {
  LabFlagValues flags;
  flags.cc = "cubic";
  flags.ecn = "off";
  flags.rate = BitRate{50'000'000};
  flags.queue = BufferSize{BufferSize::Unit::kPackets, 1000};
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

}  // namespace
}  // namespace ccreplay::lab
