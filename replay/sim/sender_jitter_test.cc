#include "replay/sim/sender_jitter.h"

#include <algorithm>
#include <cstdint>
#include <vector>

#include "gtest/gtest.h"

namespace ccreplay {
namespace {

TEST(ParseSenderJitter, ReadsEveryForm) {
  EXPECT_EQ(ParseSenderJitter("off")->kind, SenderJitterSpec::Kind::kOff);
  EXPECT_EQ(ParseSenderJitter("0")->kind, SenderJitterSpec::Kind::kOff);
  EXPECT_EQ(ParseSenderJitter("service")->kind,
            SenderJitterSpec::Kind::kServiceTime);
  const absl::StatusOr<SenderJitterSpec> fixed = ParseSenderJitter("50us");
  ASSERT_TRUE(fixed.ok()) << fixed.status();
  EXPECT_EQ(fixed->kind, SenderJitterSpec::Kind::kFixed);
  EXPECT_EQ(fixed->fixed_ns, 50'000);
  EXPECT_EQ(SenderJitterName(*fixed), "50us");
  EXPECT_EQ(SenderJitterName(*ParseSenderJitter("service")), "service");
  EXPECT_EQ(ParseSenderJitter("fast").status().code(),
            absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(ParseSenderJitter("-1ms").status().code(),
            absl::StatusCode::kInvalidArgument);
}

// One bottleneck service time of a 1462-byte packet at 30 Mbit/s (the DSL
// profile): python3 -c "import math; print(math.ceil(1462*8e9/30e6))"
// -> 389867 ns.
TEST(SenderJitterSpec, ServiceTimeBound) {
  EXPECT_EQ(ServiceTimeNs(1462, 30'000'000), 389'867);
  EXPECT_EQ(ParseSenderJitter("service")->BoundNs(30'000'000, 1462), 389'867);
  EXPECT_EQ(ParseSenderJitter("2ms")->BoundNs(30'000'000, 1462), 2'000'000);
  EXPECT_EQ(ParseSenderJitter("off")->BoundNs(30'000'000, 1462), 0);
}

std::vector<int64_t> Releases(uint64_t seed, uint32_t flow, int count) {
  SenderJitter jitter(1000, seed, flow);
  std::vector<int64_t> out;
  for (int i = 0; i < count; ++i) out.push_back(jitter.Release(i * 10'000));
  return out;
}

TEST(SenderJitter, DeterministicForASeedAndDistinctAcrossSeedsAndFlows) {
  EXPECT_EQ(Releases(7, 0, 1000), Releases(7, 0, 1000));
  EXPECT_NE(Releases(7, 0, 1000), Releases(8, 0, 1000));
  EXPECT_NE(Releases(7, 0, 1000), Releases(7, 1, 1000));
}

TEST(SenderJitter, NoBoundNoDelay) {
  SenderJitter jitter(0, 1, 0);
  EXPECT_EQ(jitter.Release(5), 5);
  EXPECT_EQ(jitter.Release(5), 5);
  EXPECT_EQ(jitter.Release(9), 9);
}

// A burst handed over at one instant leaves in order, each packet within
// [now, now + bound]: a later packet never overtakes an earlier one.
TEST(SenderJitter, KeepsFifoOrderWithinTheBound) {
  SenderJitter jitter(1000, 3, 0);
  int64_t previous = 0;
  int64_t now_ns = 0;
  bool any_held_back = false;
  for (int i = 0; i < 10'000; ++i) {
    if (i % 50 == 0) now_ns += 300;  // bursts of 50 packets every 300 ns
    const int64_t release = jitter.Release(now_ns);
    EXPECT_GE(release, previous);
    EXPECT_GE(release, now_ns);
    EXPECT_LE(release, now_ns + 1000);
    any_held_back |= release == previous && i % 50 != 0;
    previous = release;
  }
  EXPECT_TRUE(any_held_back);  // the FIFO clamp did act
}

// Packets handed over further apart than the bound are never held back, so
// the delay is the uniform draw itself: mean bound / 2 = 500 ns, standard
// error sqrt((1001^2 - 1) / 12) / sqrt(1e5) = 0.91 ns; 5 ns is > 5 sigma.
TEST(SenderJitter, MeanDelayIsHalfTheBound) {
  SenderJitter jitter(1000, 11, 2);
  const int count = 100'000;
  double sum_ns = 0;
  int64_t lowest = 1000, highest = 0;
  for (int i = 0; i < count; ++i) {
    const int64_t now_ns = int64_t{i} * 2000;
    const int64_t delay_ns = jitter.Release(now_ns) - now_ns;
    sum_ns += static_cast<double>(delay_ns);
    lowest = std::min(lowest, delay_ns);
    highest = std::max(highest, delay_ns);
  }
  EXPECT_NEAR(sum_ns / count, 500.0, 5.0);
  EXPECT_EQ(lowest, 0);
  EXPECT_EQ(highest, 1000);
}

}  // namespace
}  // namespace ccreplay
