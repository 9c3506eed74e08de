#include "cc/reno_sender.h"

#include <cstdint>

#include "cc/controller_testing.h"
#include "gtest/gtest.h"

namespace ccreplay {
namespace {

using testing::FastRetransmit;
using testing::SegmentAck;

constexpr uint32_t kMss = 1200;

// A Reno sender in congestion avoidance at 100 segments: IW 200, then a
// fast retransmit with 200 segments in flight (ssthresh = cwnd = 100 x MSS),
// then one flight of ACKs to end recovery.
RenoSender InCongestionAvoidance(uint32_t normalize_bytes, int64_t* now_us) {
  ControllerOptions options;
  options.mss_bytes = kMss;
  options.initial_window_segments = 200;
  options.normalize_bytes = normalize_bytes;
  RenoSender reno(options);
  reno.OnLoss(FastRetransmit(0, 200 * kMss));
  for (int i = 0; i < 200; ++i) {
    reno.OnAck(SegmentAck(++*now_us, 1, kMss, (199 - i) * kMss));
  }
  return reno;
}

// Acks `windows` windows, each one cwnd (as at its start) of 1-MSS ACKs.
void AckWindows(RenoSender& reno, int windows, int64_t* now_us) {
  for (int w = 0; w < windows; ++w) {
    const uint64_t segments = reno.cwnd_bytes() / kMss;
    for (uint64_t i = 0; i < segments; ++i) {
      reno.OnAck(SegmentAck(++*now_us, 1, kMss, reno.cwnd_bytes()));
    }
  }
}

TEST(RenoSenderTest, StartsWithTenSegments) {
  RenoSender reno(ControllerOptions{});
  EXPECT_EQ(reno.cwnd_bytes(), 10u * 1448);  // RFC 6928 IW10, MSS 1448
  EXPECT_EQ(reno.ssthresh_bytes(), kNoSsthreshBytes);
  EXPECT_EQ(reno.state().phase, Phase::kSlowStart);
}

TEST(RenoSenderTest, FastRetransmitHalvesFlightSize) {
  int64_t now_us = 0;
  RenoSender reno = InCongestionAvoidance(0, &now_us);
  // RFC 5681 eq. 4: ssthresh = max(FlightSize / 2, 2 * SMSS) = 100 x 1200.
  EXPECT_EQ(reno.ssthresh_bytes(), 120000u);
  EXPECT_EQ(reno.cwnd_bytes(), 120000u);
  EXPECT_EQ(reno.state().phase, Phase::kCongestionAvoidance);
}

TEST(RenoSenderTest, NormalizationAddsSixStepsInFiveWindows) {
  // quicly t/cc.c test_reno: "Five windows of ACKs therefore accumulate six
  // 1200-byte steps (floor(5 * 1462 / 1200))". Cross-check of this exact
  // schedule (RFC 3465 counter, window = cwnd at its start):
  //   python3: cnt+=1200*g per ACK; while cnt>=cwnd*1200: cnt-=cwnd*1200;
  //   cwnd+=1200  -> 6 steps for g=1462, 5 for g=1200 (cwnd 100 segments).
  int64_t now_us = 0;
  RenoSender normalized = InCongestionAvoidance(1462, &now_us);
  AckWindows(normalized, 5, &now_us);
  EXPECT_EQ(normalized.cwnd_bytes(), 120000u + 6 * kMss);

  now_us = 0;
  RenoSender plain = InCongestionAvoidance(0, &now_us);
  AckWindows(plain, 5, &now_us);
  EXPECT_EQ(plain.cwnd_bytes(), 120000u + 5 * kMss);
}

TEST(RenoSenderTest, NormalizationLeavesSlowStartAlone) {
  ControllerOptions options;
  options.mss_bytes = kMss;
  RenoSender plain(options);
  options.normalize_bytes = 1462;
  RenoSender normalized(options);
  for (int i = 0; i < 50; ++i) {
    plain.OnAck(SegmentAck(i, 2, kMss, 0));
    normalized.OnAck(SegmentAck(i, 2, kMss, 0));
  }
  // Slow start adds the bytes acknowledged: 10 + 50 x 2 segments.
  EXPECT_EQ(plain.cwnd_bytes(), 110u * kMss);
  EXPECT_EQ(normalized.cwnd_bytes(), plain.cwnd_bytes());
}

TEST(RenoSenderTest, EceReducesOncePerWindow) {
  ControllerOptions options;
  options.mss_bytes = kMss;
  RenoSender reno(options);
  AckEvent ack = SegmentAck(1, 1, kMss, 10 * kMss);
  ack.ece = true;
  reno.OnAck(ack);
  // FlightSize = 10 + 1 segments before the ACK: 11 * 1200 / 2 = 6600.
  EXPECT_EQ(reno.cwnd_bytes(), 6600u);
  EXPECT_EQ(reno.state().phase, Phase::kCwr);
  ack.time_us = 2;
  ack.bytes_in_flight = 9 * kMss;
  reno.OnAck(ack);  // same window: no second reduction, no growth
  EXPECT_EQ(reno.cwnd_bytes(), 6600u);
}

TEST(RenoSenderTest, CloneContinuesIndependently) {
  RenoSender reno(ControllerOptions{});
  reno.OnAck(SegmentAck(1, 4, 1448, 0));
  std::unique_ptr<CongestionController> copy = reno.Clone();
  copy->OnAck(SegmentAck(2, 4, 1448, 0));
  EXPECT_EQ(reno.cwnd_bytes(), 14u * 1448);
  EXPECT_EQ(copy->cwnd_bytes(), 18u * 1448);
}

}  // namespace
}  // namespace ccreplay
