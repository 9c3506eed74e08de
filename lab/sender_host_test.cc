#include "lab/sender_host.h"

#include "gtest/gtest.h"

namespace ccreplay::lab {
namespace {

// `ip -d link show lo` on the Linux 6.18 build machine (iproute2 6.1.0):
// gso_ipv4_max_size must not be taken for gso_max_size.
constexpr char kLoopbackDetails[] =
    "1: lo: <LOOPBACK,UP,LOWER_UP> mtu 65536 qdisc noqueue state UNKNOWN\n"
    "    link/loopback 00:00:00:00:00:00 brd 00:00:00:00:00:00 promiscuity 0"
    "  allmulti 0 minmtu 0 maxmtu 0 addrgenmode eui64 numtxqueues 1 "
    "numrxqueues 1 gso_ipv4_max_size 70000 gso_max_size 65536 gso_max_segs "
    "65535 tso_max_size 524280 tso_max_segs 65535 gro_max_size 65536\n";

TEST(SenderHostTest, GsoLimitsFromIpLinkDetails) {
  SenderHostFacts facts;
  ParseGsoLimits(kLoopbackDetails, &facts);
  EXPECT_EQ(facts.gso_max_size_bytes, 65536);
  EXPECT_EQ(facts.gso_max_segs, 65535);
  ParseGsoLimits("2: hs0@if3: <BROADCAST> mtu 1500\n", &facts);
  EXPECT_FALSE(facts.gso_max_size_bytes.has_value());
  EXPECT_FALSE(facts.gso_max_segs.has_value());
}

TEST(SenderHostTest, ConfigHzFromKernelConfig) {
  // /proc/config.gz of the build machine has both lines; only the value
  // line counts.
  EXPECT_EQ(ParseConfigHz("CONFIG_HZ_250=y\nCONFIG_HZ=250\n"), 250);
  EXPECT_EQ(ParseConfigHz("CONFIG_HZ=1000"), 1000);
  EXPECT_FALSE(ParseConfigHz("# CONFIG_HZ_1000 is not set\n").has_value());
  EXPECT_FALSE(ParseConfigHz("").has_value());
}

}  // namespace
}  // namespace ccreplay::lab
