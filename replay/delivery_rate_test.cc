#include "replay/delivery_rate.h"

#include "gtest/gtest.h"
#include "replay/sack_scoreboard.h"

namespace ccreplay {
namespace {

constexpr uint32_t kMss = 1000;
constexpr int64_t kMs = 1'000'000;  // ns

// A sender and its scoreboard: sends 1000-byte segments, takes ACKs. Times
// are given from an origin 1 s into the capture (0 means "no snapshot").
constexpr int64_t kOriginNs = 1000 * kMs;
class RateSender {
 public:
  RateSender() { board_.Reset(1); }

  void Send(int64_t time_ns) {
    time_ns += kOriginNs;
    const RateSnapshot tx =
        rate_.OnSend(time_ns, board_.outstanding_bytes() == 0);
    board_.OnSend(next_, next_ + kMss, time_ns, 0, tx);
    next_ += kMss;
  }
  std::optional<DeliveryRateSample> Ack(int64_t time_ns, int64_t ack,
                                        const SackBlock* sack = nullptr,
                                        int64_t min_rtt_us = 1000) {
    const SackScoreboard::AckResult r =
        board_.OnAck(ack, sack, sack != nullptr ? 1 : 0, kMss);
    return rate_.OnAck(kOriginNs + time_ns, r.packets_delivered,
                       r.newest_delivered, min_rtt_us, r.reneged);
  }
  DeliveryRateEstimator& rate() { return rate_; }

 private:
  SackScoreboard board_;
  DeliveryRateEstimator rate_;
  int64_t next_ = 1;
};

TEST(DeliveryRateTest, IntervalIsTheLongerOfSendAndAckPhases) {
  // tcp_rate.c: four packets sent 1 ms apart from idle, the first acked
  // 20 ms after its send. Sample 1: one packet over max(0, 20 ms).
  RateSender s;
  for (int i = 0; i < 4; ++i) s.Send(i * kMs);
  std::optional<DeliveryRateSample> rs = s.Ack(20 * kMs, 1001);
  ASSERT_TRUE(rs.has_value());
  EXPECT_EQ(rs->delivered_packets, 1);
  EXPECT_EQ(rs->prior_delivered_packets, 0u);
  EXPECT_EQ(rs->interval_us, 20'000);
  // Packets 2-4 acked together at 24 ms (a stretch ACK): the newest
  // (sent at 3 ms, before any delivery) gives 4 delivered since its
  // snapshot (delivered 0 at 0 ms) over max(3 ms send, 24 ms ACK).
  rs = s.Ack(24 * kMs, 4001);
  ASSERT_TRUE(rs.has_value());
  EXPECT_EQ(rs->delivered_packets, 4);
  EXPECT_EQ(rs->interval_us, 24'000);
  EXPECT_EQ(s.rate().delivered(), 4u);
}

TEST(DeliveryRateTest, AckCompressionUsesTheSendPhase) {
  // P1 at 0 ms and P2 at 1 ms; P1 acked at 20 ms; P3-P12 sent 20-38 ms
  // (P2 still out, so no restart: their snapshot is delivered 1 at 20 ms,
  // window start 0 ms); all acked at once at 39 ms. The newest snapshot is
  // the first with delivered 1, P3 (ties keep the first, as
  // tcp_rate_skb_delivered()'s after() does): send phase 20 - 0 = 20 ms,
  // ACK phase 39 - 20 = 19 ms; the longer one, 20 ms.
  RateSender s;
  s.Send(0);
  s.Send(kMs);
  ASSERT_TRUE(s.Ack(20 * kMs, 1001).has_value());
  for (int i = 0; i < 10; ++i) s.Send((20 + 2 * i) * kMs);
  const std::optional<DeliveryRateSample> rs = s.Ack(39 * kMs, 12001);
  ASSERT_TRUE(rs.has_value());
  EXPECT_EQ(rs->prior_delivered_packets, 1u);
  EXPECT_EQ(rs->delivered_packets, 11);
  EXPECT_EQ(rs->interval_us, 20'000);
}

TEST(DeliveryRateTest, SackedSegmentIsNotSampledAgainWhenCumulativelyAcked) {
  // P0-P2 at 0-2 ms; P0 acked at 20 ms; P3 sent at 25 ms (snapshot:
  // delivered 1 at 20 ms, window start 0 ms) and SACKed at 40 ms: 1
  // delivered over max(25 - 0, 40 - 20) = 25 ms.
  RateSender s;
  for (int i = 0; i < 3; ++i) s.Send(i * kMs);
  ASSERT_TRUE(s.Ack(20 * kMs, 1001).has_value());
  s.Send(25 * kMs);
  const SackBlock block{3001, 4001};
  std::optional<DeliveryRateSample> rs = s.Ack(40 * kMs, 1001, &block);
  ASSERT_TRUE(rs.has_value());
  EXPECT_EQ(rs->prior_delivered_packets, 1u);
  EXPECT_EQ(rs->delivered_packets, 1);
  EXPECT_EQ(rs->interval_us, 25'000);
  // The cumulative ACK of P1-P3 at 41 ms: P3 was marked off, so P2 (the
  // last with delivered 0) gives 4 delivered over max(2 - 0, 41 - 0) ms;
  // reusing P3 would give prior_delivered 1 and 3 delivered.
  rs = s.Ack(41 * kMs, 4001);
  ASSERT_TRUE(rs.has_value());
  EXPECT_EQ(rs->prior_delivered_packets, 0u);
  EXPECT_EQ(rs->delivered_packets, 4);
  EXPECT_EQ(rs->interval_us, 41'000);
}

TEST(DeliveryRateTest, ShortIntervalsAreInvalidAndBubblesAreAppLimited) {
  RateSender s;
  s.Send(0);
  // The first packets are app-limited until the first ACK (tcp_init_sock()
  // starts tp->app_limited at ~0U).
  std::optional<DeliveryRateSample> rs = s.Ack(20 * kMs, 1001);
  ASSERT_TRUE(rs.has_value());
  EXPECT_TRUE(rs->app_limited);
  s.Send(20 * kMs);
  // A sub-MSS send marks the bubble: packets sent until one beyond the
  // bubble is delivered are app-limited.
  s.rate().MarkAppLimited(1);
  s.Send(21 * kMs);
  rs = s.Ack(40 * kMs, 2001);
  ASSERT_TRUE(rs.has_value());
  EXPECT_FALSE(rs->app_limited);  // sent before the mark
  rs = s.Ack(41 * kMs, 3001);
  ASSERT_TRUE(rs.has_value());
  EXPECT_TRUE(rs->app_limited);
  // An interval below the min RTT is no sample (interval -1).
  s.Send(42 * kMs);
  rs = s.Ack(43 * kMs, 4001, nullptr, /*min_rtt_us=*/20'000);
  ASSERT_TRUE(rs.has_value());
  EXPECT_EQ(rs->interval_us, -1);
}

TEST(DeliveryRateTest, CarriesBbrV3TxInFlightAndLostSinceTheSend) {
  // google/bbr v3 tcp_rate.c: each send records tp->packets in flight (it
  // included) and tp->lost; the sample of its ACK reports that flight and
  // the losses marked since. Three packets from idle (in flight 1, 2, 3);
  // the first is marked lost, then an ACK delivers the other two, the
  // newest being the third.
  DeliveryRateEstimator rate;
  const RateSnapshot first = rate.OnSend(10 * kMs, true, 1);
  rate.OnSend(11 * kMs, false, 2);
  const RateSnapshot third = rate.OnSend(12 * kMs, false, 3);
  EXPECT_EQ(first.in_flight, 1u);
  EXPECT_EQ(third.in_flight, 3u);
  EXPECT_EQ(third.lost, 0u);
  rate.OnLoss(1);
  std::optional<DeliveryRateSample> rs = rate.OnAck(
      40 * kMs, 2, DeliveredPacket{third, 12 * kMs}, /*min_rtt_us=*/1000,
      /*reneged=*/false);
  ASSERT_TRUE(rs.has_value());
  EXPECT_EQ(rs->tx_in_flight_packets, 3u);
  EXPECT_EQ(rs->lost_packets, 1u);
  EXPECT_EQ(rs->delivered_packets, 2);
  // A packet sent after the loss does not count it.
  const RateSnapshot fourth = rate.OnSend(41 * kMs, false, 2);
  rs = rate.OnAck(70 * kMs, 1, DeliveredPacket{fourth, 41 * kMs}, 1000, false);
  ASSERT_TRUE(rs.has_value());
  EXPECT_EQ(rs->lost_packets, 0u);
  EXPECT_EQ(rs->tx_in_flight_packets, 2u);
}

}  // namespace
}  // namespace ccreplay
