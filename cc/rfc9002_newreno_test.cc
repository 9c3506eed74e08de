// rfc9002:newreno against RFC 9002 section 7 and the appendix B pseudocode.
#include "cc/rfc9002_newreno.h"

#include <cstdint>

#include "cc/controller_testing.h"
#include "gtest/gtest.h"

namespace ccreplay {
namespace {

using testing::BytesAck;
using testing::FastRetransmit;

constexpr uint32_t kMds = 1200;

Rfc9002NewReno Make() {
  ControllerOptions options;
  options.mss_bytes = kMds;
  return Rfc9002NewReno(options);
}

// Section 7.2: min(10 * mds, max(14720, 2 * mds)).
TEST(Rfc9002NewRenoTest, InitialWindow) {
  EXPECT_EQ(Rfc9002NewReno::InitialWindowBytes(10, 1200), 12000u);
  EXPECT_EQ(Rfc9002NewReno::InitialWindowBytes(10, 1472), 14720u);
  EXPECT_EQ(Rfc9002NewReno::InitialWindowBytes(10, 1500), 14720u);
  EXPECT_EQ(Rfc9002NewReno::InitialWindowBytes(10, 9000), 18000u);
  EXPECT_EQ(Make().cwnd_bytes(), 12000u);
}

// B.5 slow start: cwnd += acked bytes, exactly; section 7.8: no increase
// while not cwnd-limited.
TEST(Rfc9002NewRenoTest, SlowStartCountsBytesWhenCwndLimited) {
  Rfc9002NewReno reno = Make();
  reno.OnAck(BytesAck(1000, 1, kMds, 0));
  EXPECT_EQ(reno.cwnd_bytes(), 12001u);
  reno.OnAck(BytesAck(2000, 5000, kMds, 0, 0, /*cwnd_limited=*/false));
  EXPECT_EQ(reno.cwnd_bytes(), 12001u);
}

// Section 7.3.2 / B.6: ssthresh = cwnd * 0.5, cwnd = max(ssthresh, 2 mds),
// once per recovery period; section 7.2 minimum window 2 * mds.
TEST(Rfc9002NewRenoTest, OneReductionPerRecoveryPeriodDownToTheMinimum) {
  Rfc9002NewReno reno = Make();
  reno.OnLoss(FastRetransmit(1000, /*in_flight_bytes=*/1));
  EXPECT_EQ(reno.cwnd_bytes(), 6000u);
  EXPECT_EQ(reno.ssthresh_bytes(), 6000u);
  reno.OnLoss(FastRetransmit(1100, 1));  // same period
  EXPECT_EQ(reno.cwnd_bytes(), 6000u);
  reno.OnAck(BytesAck(2000, 0, kMds, 0));  // nothing new delivered
  reno.OnLoss(FastRetransmit(2100, 1));
  EXPECT_EQ(reno.cwnd_bytes(), 6000u);
  reno.OnAck(BytesAck(3000, 1, kMds, 0, 0, /*cwnd_limited=*/false));
  reno.OnLoss(FastRetransmit(3100, 1));
  EXPECT_EQ(reno.cwnd_bytes(), 3000u);
  reno.OnAck(BytesAck(4000, 1, kMds, 0, 0, false));
  reno.OnLoss(FastRetransmit(4100, 1));
  EXPECT_EQ(reno.cwnd_bytes(), 2400u);  // 1500 < kMinimumWindow
}

// B.5 congestion avoidance, per packet: cwnd += mds * sent_bytes / cwnd.
// Five 1200-byte packets from 6000: 6000 + 240 + 230.77 + 222.57 + ... =
// 7116.89 with real numbers (python3: c=6000.0; exec('for i in range(5):
// c+=1200*1200/c'); print(c)), 7116 B in whole bytes. Under one mds per
// cwnd acknowledged (section 7.3.3).
TEST(Rfc9002NewRenoTest, CongestionAvoidancePerPacket) {
  Rfc9002NewReno reno = Make();
  reno.OnLoss(FastRetransmit(1000, 1));
  AckEvent ack = BytesAck(2000, 5 * kMds, kMds, 0);
  ack.packets_delivered = 5;
  reno.OnAck(ack);
  EXPECT_EQ(reno.cwnd_bytes(), 7116u);
}

// Section 7.6.2 / B.8: persistent congestion collapses cwnd to the minimum
// window and ends the recovery period; slow start resumes up to ssthresh.
TEST(Rfc9002NewRenoTest, PersistentCongestion) {
  Rfc9002NewReno reno = Make();
  LossEvent rto = FastRetransmit(1000, 8 * kMds);
  rto.kind = LossEvent::Kind::kRto;
  reno.OnLoss(rto);
  EXPECT_EQ(reno.cwnd_bytes(), 2400u);
  EXPECT_EQ(reno.ssthresh_bytes(), 6000u);
  reno.OnAck(BytesAck(2000, kMds, kMds, 0));
  EXPECT_EQ(reno.cwnd_bytes(), 3600u);
}

// B.6 processes ECN before the ACK's packets: the CE ACK reduces and its
// own bytes (sent before the new recovery period) do not grow cwnd.
TEST(Rfc9002NewRenoTest, EcnReducesBeforeGrowth) {
  Rfc9002NewReno reno = Make();
  AckEvent ce = BytesAck(1000, kMds, kMds, 4 * kMds);
  ce.packets_ce = 1;
  reno.OnAck(ce);
  EXPECT_EQ(reno.cwnd_bytes(), 6000u);
  EXPECT_EQ(reno.ssthresh_bytes(), 6000u);
}

}  // namespace
}  // namespace ccreplay
