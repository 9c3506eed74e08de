#include "reports/flow_observation.h"

#include <optional>

#include "gtest/gtest.h"

namespace ccreplay {
namespace {

constexpr int64_t kMs = 1'000'000;

TimelineEvent Ack(int64_t time_ns, uint64_t segments, uint64_t sacked = 0) {
  TimelineEvent e;
  e.type = TimelineEvent::Type::kAck;
  e.time_ns = time_ns;
  e.packets_delivered = segments;
  e.bytes_acked = segments * 1448;
  e.sacked_bytes = sacked;
  return e;
}

// A receiver that ACKs every 2 segments, or 40 ms after a lone one, behind
// a 1 Mb/s link (a 1462-byte packet's service: 11.696 ms): trains of three
// segments queued back to back, so each train gives an ACK at once on its
// second segment and, 11.696 + 40 ms later, the timer's ACK of the third.
// The trains' spacing varies (the sender's ACK clock); the gap within one
// does not.
TEST(FlowObserverTest, AckHoldIsTheGapLessTheLoneSegmentsService) {
  constexpr double kServiceUs = 11'696;
  FlowObserver observer(0);
  int64_t t = 0;
  for (int train = 0; train < 40; ++train) {
    t += 300 * kMs + train * 15 * kMs;
    observer.Add(Ack(t, 2));
    observer.Add(
        Ack(t + static_cast<int64_t>(kServiceUs * 1000) + 40 * kMs, 1));
  }
  const std::optional<FlowObserver::AckHold> hold =
      observer.AckHoldUs(2, kServiceUs);
  ASSERT_TRUE(hold.has_value());
  EXPECT_EQ(hold->hold_us, 40'000);
  EXPECT_EQ(hold->service_us, 11'696);
  // Read with a rate half the link's (one of two flows' share), the
  // service doubles and the hold comes out one service short.
  EXPECT_EQ(observer.AckHoldUs(2, 2 * kServiceUs)->hold_us, 40'000 - 11'696);
}

// While SACKed data is outstanding the receiver ACKs every segment at
// once, and the ACK that fills the hole goes at once too (RFC 5681
// section 4.2): neither is a held ACK, and neither counts.
TEST(FlowObserverTest, AckHoldLeavesOutAcksAroundAHole) {
  FlowObserver observer(0);
  int64_t t = 0;
  for (int i = 0; i < 30; ++i) {
    t += 100 * kMs;
    observer.Add(Ack(t, 2, 1448));      // A hole open: SACKed data.
    observer.Add(Ack(t + 1 * kMs, 1));  // The fill: at once.
  }
  EXPECT_FALSE(observer.AckHoldUs(2, 1000).has_value());
  for (uint64_t i = 0; i < FlowObserver::kMinHoldSamples; ++i) {
    t += 100 * kMs;
    observer.Add(Ack(t, 2));
    observer.Add(Ack(t + 41 * kMs, 1));
  }
  const std::optional<FlowObserver::AckHold> hold = observer.AckHoldUs(2, 1000);
  ASSERT_TRUE(hold.has_value());
  EXPECT_EQ(hold->hold_us, 40'000);
}

// A receiver that ACKs every 4 segments (GRO) and flushes a shorter train
// 5 ms after its last segment: the held ACKs of 1-3 segments each wait for
// their own segments' service, then the flush.
TEST(FlowObserverTest, AckHoldOfPartialAcksSubtractsEachSegmentsService) {
  FlowObserver observer(0);
  int64_t t = 0;
  for (int i = 0; i < 60; ++i) {
    const uint64_t lone = 1 + i % 3;
    t += 50 * kMs;
    observer.Add(Ack(t, 4));
    observer.Add(Ack(t + static_cast<int64_t>(lone) * kMs + 5 * kMs, lone));
  }
  const std::optional<FlowObserver::AckHold> hold = observer.AckHoldUs(4, 1000);
  ASSERT_TRUE(hold.has_value());
  EXPECT_EQ(hold->hold_us, 5'000);
  // Split at 2, only the 1-segment ACKs after 4-segment ones count.
  EXPECT_EQ(observer.AckHoldUs(2, 1000)->hold_us, 5'000);
}

}  // namespace
}  // namespace ccreplay
