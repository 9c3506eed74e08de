#include "replay/stack_profile.h"

#include "gtest/gtest.h"

namespace ccreplay {
namespace {

HostTrace QuicTrace(const std::string& name, std::vector<double> cwnd) {
  HostTrace trace;
  trace.quic = true;
  trace.name = name;
  int64_t t = 0;
  for (double v : cwnd) trace.series.cwnd_bytes.push_back({t++, v});
  return trace;
}

// ngtcp2 0.12.1: Reno halves (42674 -> 21337, the first reduction in
// testdata/quic/ngtcp2_reno_20mbit_pfifo12/server.sqlog.gz), CUBIC keeps
// 0.7; IW 14520 = 10 * 1452.
TEST(StackProfileTest, Ngtcp2FamilyFromTheFirstReduction) {
  std::optional<StackProfile> p =
      DetectStackProfile(QuicTrace("ngtcp2", {14520, 42674, 21337, 22000}));
  ASSERT_TRUE(p.has_value());
  EXPECT_EQ(p->spec, "ngtcp2:reno");
  EXPECT_NE(p->reason.find("controller profile: ngtcp2:reno, from qlog"),
            std::string::npos)
      << p->reason;
  p = DetectStackProfile(QuicTrace("ngtcp2", {14520, 44664, 31264}));
  ASSERT_TRUE(p.has_value());
  EXPECT_EQ(p->spec, "ngtcp2:cubic");
  // No reduction: ngtcp2's default, CUBIC.
  p = DetectStackProfile(QuicTrace("ngtcp2 server", {14520, 20000}));
  ASSERT_TRUE(p.has_value());
  EXPECT_EQ(p->spec, "ngtcp2:cubic");
}

TEST(StackProfileTest, MssFromTheInitialWindow) {
  std::optional<StackProfile> p =
      DetectStackProfile(QuicTrace("ngtcp2", {12000, 24000, 12000}));
  ASSERT_TRUE(p.has_value());
  EXPECT_EQ(p->spec, "ngtcp2:reno,mss=1200");
}

TEST(StackProfileTest, OtherStacksHaveNone) {
  EXPECT_FALSE(DetectStackProfile(QuicTrace("quiche", {14520})).has_value());
  HostTrace tcp = QuicTrace("ngtcp2", {14520});
  tcp.quic = false;
  EXPECT_FALSE(DetectStackProfile(tcp).has_value());
}

}  // namespace
}  // namespace ccreplay
