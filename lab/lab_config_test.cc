#include "lab/lab_config.h"

#include "gtest/gtest.h"

namespace ccreplay::lab {
namespace {

LabFlagValues Defaults() {
  LabFlagValues flags;
  flags.cc = "cubic";
  flags.ecn = "off";
  flags.rate = "50mbit";
  flags.queue = "1000p";
  flags.mark = "none";
  flags.transfer = "auto";
  flags.duration_s = 5;
  flags.output_dir = "/tmp/bundle";
  return flags;
}

TEST(ParseRate, TcUnitsInBits) {
  // tc(8): "kbit" = 1000 bit/s, "mbit" = 10^6, "gbit" = 10^9.
  EXPECT_EQ(*ParseRateBitsPerSecond("50mbit"), 50'000'000);
  EXPECT_EQ(*ParseRateBitsPerSecond("800kbit"), 800'000);
  EXPECT_EQ(*ParseRateBitsPerSecond("1.5gbit"), 1'500'000'000);
  EXPECT_EQ(*ParseRateBitsPerSecond("64000bit"), 64'000);
  EXPECT_FALSE(
      ParseRateBitsPerSecond("50mbps").ok());  // bytes/s to tc: refused
  EXPECT_FALSE(ParseRateBitsPerSecond("mbit").ok());
  EXPECT_FALSE(ParseRateBitsPerSecond("-5mbit").ok());
}

TEST(ParseQueue, PacketsOrBytes) {
  QueueSpec packets = *ParseQueue("100p");
  EXPECT_TRUE(packets.in_packets);
  EXPECT_EQ(packets.limit, 100);
  QueueSpec bytes = *ParseQueue("150kB");
  EXPECT_FALSE(bytes.in_packets);
  EXPECT_EQ(bytes.limit, 150'000);
  EXPECT_EQ(ParseQueue("2MB")->limit, 2'000'000);
  EXPECT_FALSE(ParseQueue("0p").ok());
  EXPECT_FALSE(ParseQueue("100").ok());
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
  flags.duration_s = 0;
  EXPECT_FALSE(ParseLabConfig(flags).ok());
  flags = Defaults();
  flags.transfer = "netperf";
  EXPECT_FALSE(ParseLabConfig(flags).ok());
}

}  // namespace
}  // namespace ccreplay::lab
