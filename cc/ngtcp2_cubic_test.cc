#include "cc/ngtcp2_cubic.h"

#include "gtest/gtest.h"

namespace ccreplay {
namespace {

// ngtcp2_cbrt(): Newton's method from above ends at the floor.
TEST(Ngtcp2CubicTest, IntegerCubeRoot) {
  EXPECT_EQ(Ngtcp2Cubic::IntegerCubeRoot(0), 0u);
  EXPECT_EQ(Ngtcp2Cubic::IntegerCubeRoot(26), 2u);
  EXPECT_EQ(Ngtcp2Cubic::IntegerCubeRoot(27), 3u);
  EXPECT_EQ(Ngtcp2Cubic::IntegerCubeRoot(1000000), 100u);
}

// The first reduction of testdata/quic/ngtcp2_cubic_20mbit_pfifo12/
// server.sqlog.gz: cwnd 44664 (41776 logged, then two 1444-byte packets
// acked by the ACK that revealed the loss), then 31264 = 44664 * 7 / 10,
// ssthresh 31264; a second loss below W_max keeps 0.85 of cwnd as W_max.
TEST(Ngtcp2CubicTest, ReducesAsTheLogShows) {
  Ngtcp2Cubic cubic(1452);
  AckEvent ack;
  ack.time_us = 1000;
  ack.bytes_acked = 44664 - 14520;
  ack.packets_delivered = 1;
  ack.largest_acked_send_order = 0;
  cubic.OnAck(ack);
  ASSERT_EQ(cubic.cwnd_bytes(), 44664u);
  LossEvent loss;
  loss.send_order = 30;
  cubic.OnLoss(loss);
  EXPECT_EQ(cubic.cwnd_bytes(), 31264u);
  EXPECT_EQ(cubic.ssthresh_bytes(), 31264u);
  loss.send_order = 40;
  cubic.OnLoss(loss);
  EXPECT_EQ(cubic.cwnd_bytes(), 21884u);  // 31264 * 7 / 10
}

// In congestion avoidance right after a reduction, K = cbrt(2.5 * 13400 /
// 1452) = cbrt(23) = 2 s, so the curve asks for less than cwnd for the
// first seconds; W_est (alpha = 1) adds mss * packet / cwnd per packet:
// 1452 * 1444 / 31264 = 67 (CUBIC's own term adds 1452 / (100 * cwnd) = 0).
TEST(Ngtcp2CubicTest, RenoFriendlyTermWinsEarly) {
  Ngtcp2Cubic cubic(1452);
  AckEvent ack;
  ack.time_us = 1000;
  ack.bytes_acked = 44664 - 14520;
  ack.packets_delivered = 1;
  ack.largest_acked_send_order = 0;
  cubic.OnAck(ack);
  LossEvent loss;
  loss.send_order = 30;
  cubic.OnLoss(loss);
  ack.time_us = 10000;
  ack.srtt_us = 5000;
  ack.bytes_acked = 1444;
  ack.largest_acked_send_order = 31;
  cubic.OnAck(ack);
  // W_est reaches cwnd + 67 after one packet, so the step is
  // 1452 * 67 / 31264 = 3.
  EXPECT_EQ(cubic.cwnd_bytes(), 31264u + 3);
}

}  // namespace
}  // namespace ccreplay
