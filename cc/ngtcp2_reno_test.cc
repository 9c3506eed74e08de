#include "cc/ngtcp2_reno.h"

#include "gtest/gtest.h"

namespace ccreplay {
namespace {

AckEvent Ack(int64_t time_us, uint64_t bytes, int64_t send_order) {
  AckEvent ack;
  ack.time_us = time_us;
  ack.bytes_acked = bytes;
  ack.packets_delivered = 1;
  ack.srtt_us = 5000;
  ack.min_rtt_us = 1000;
  ack.largest_acked_send_order = send_order;
  return ack;
}

// ngtcp2_cc_compute_initcwnd(): min(10 * mss, max(2 * mss, 14720)).
TEST(Ngtcp2RenoTest, InitialWindow) {
  EXPECT_EQ(Ngtcp2Reno(1452).cwnd_bytes(), 14520u);
  EXPECT_EQ(Ngtcp2Reno(1200).cwnd_bytes(), 12000u);
  EXPECT_EQ(Ngtcp2Reno(1500).cwnd_bytes(), 14720u);
}

// The first reduction of testdata/quic/ngtcp2_reno_20mbit_pfifo12/
// server.sqlog.gz: congestion_window 42674, then 21337 with ssthresh
// 21337 (zcat | grep -o '"congestion_window":[0-9]*' | uniq).
TEST(Ngtcp2RenoTest, HalvesAsTheLogShows) {
  Ngtcp2Reno reno(1452);
  reno.OnAck(Ack(1000, 42674 - 14520, 0));
  EXPECT_EQ(reno.cwnd_bytes(), 42674u);
  LossEvent loss;
  loss.send_order = 10;
  reno.OnLoss(loss);
  EXPECT_EQ(reno.cwnd_bytes(), 21337u);
  EXPECT_EQ(reno.ssthresh_bytes(), 21337u);
  // Packets sent before the recovery began do not grow cwnd.
  reno.OnAck(Ack(2000, 1444, 9));
  EXPECT_EQ(reno.cwnd_bytes(), 21337u);
  // After: mss * bytes / cwnd = 1452 * 1444 / 21337 = 98 (remainder kept).
  reno.OnAck(Ack(3000, 1444, 10));
  EXPECT_EQ(reno.cwnd_bytes(), 21337u + 98);
}

// An ACK whose packets straddle the recovery start: ngtcp2 judges each
// packet by its own send time (on_pkt_acked, in_congestion_recovery()), so
// only the one sent after the start grows cwnd; judged by the newest
// packet, both would (+98, then +98 more).
TEST(Ngtcp2RenoTest, EachAckedPacketIsJudgedByItsOwnSendOrder) {
  Ngtcp2Reno reno(1452);
  reno.OnAck(Ack(1000, 42674 - 14520, 0));
  LossEvent loss;
  loss.send_order = 10;
  reno.OnLoss(loss);
  const AckedPacket packets[] = {{9, 1444}, {10, 1444}};
  AckEvent ack = Ack(2000, 2 * 1444, 10);
  ack.packets_delivered = 2;
  ack.acked_packets = packets;
  reno.OnAck(ack);
  EXPECT_EQ(reno.cwnd_bytes(), 21337u + 98);
  // A Handshake-space packet (send order -1) is never held back.
  const AckedPacket handshake[] = {{-1, 1444}};
  ack = Ack(3000, 1444, -1);
  ack.acked_packets = handshake;
  reno.OnAck(ack);
  EXPECT_GT(reno.cwnd_bytes(), 21337u + 98);
}

// No growth while cwnd is above 2.89 * max(IW, rate * min_rtt): with no
// rate above IW's, 2.89 * 14520 = 41962; the ACK that crosses it still
// adds all its bytes (the check is per packet, before the increase).
TEST(Ngtcp2RenoTest, DeliveryRateCapsGrowth) {
  Ngtcp2Reno reno(1452);
  AckEvent ack = Ack(1000, 27000, 0);
  ack.delivery_rate_bytes_per_s = 2500000;  // x 1 ms = 2500 < IW
  reno.OnAck(ack);
  EXPECT_EQ(reno.cwnd_bytes(), 41520u);
  reno.OnAck(Ack(2000, 1444, 1));
  EXPECT_EQ(reno.cwnd_bytes(), 42964u);
  reno.OnAck(Ack(3000, 1444, 2));
  EXPECT_EQ(reno.cwnd_bytes(), 42964u);
}

}  // namespace
}  // namespace ccreplay
