// quicly:pico against the vectors of h2o/quicly t/cc.c (the t/cc.c of
// lib/cc-pico.c @ 01aa5e7c, after PRs #678/#686; our stored copy does not
// record its commit): test_pico_ack_countdown and test_pico_ecn.
#include "cc/quicly_pico.h"

#include <cstdint>

#include "cc/controller_testing.h"
#include "gtest/gtest.h"

namespace ccreplay {
namespace {

using testing::BytesAck;
using testing::FastRetransmit;

constexpr uint32_t kMtu = 1200;
constexpr int64_t kSrttUs = 100000;  // t/cc.c: rtt.smoothed = 100 ms

QuiclyPico Make() {
  ControllerOptions options;
  options.mss_bytes = kMtu;
  options.initial_window_segments = 10;
  QuiclyPico pico(options);
  pico.OnAck(BytesAck(0, 0, kMtu, 0, kSrttUs));  // srtt known, no growth
  return pico;
}

// test_pico_ack_countdown: slow start counts down one MTU per increase.
TEST(QuiclyPicoTest, SlowStartCountdown) {
  QuiclyPico pico = Make();
  pico.OnAck(BytesAck(100, kMtu - 1, kMtu, kMtu - 1, kSrttUs));
  EXPECT_EQ(pico.cwnd_bytes(), 10u * kMtu);
  EXPECT_EQ(pico.bytes_to_mtu_increase(), 1u);
  pico.OnAck(BytesAck(100, 1, kMtu, 1, kSrttUs));
  EXPECT_EQ(pico.cwnd_bytes(), 11u * kMtu);
  EXPECT_EQ(pico.bytes_to_mtu_increase(), kMtu);
}

// test_pico_ecn: a loss out of slow start halves cwnd; "a CE mark (i.e.,
// zero-byte congestion report) reduces CWND by QUICLY_BETA_ECN rather than
// by QUICLY_BETA_LOSS"; "the increase rate follows the factor being used;
// here, Reno's 1 MTU per RTT, i.e. per post-reduction CWND bytes acked";
// "a packet loss reduces CWND by QUICLY_BETA_LOSS".
TEST(QuiclyPicoTest, EcnUsesBetaEcn) {
  QuiclyPico pico = Make();
  pico.OnLoss(FastRetransmit(1000, /*in_flight_bytes=*/1));
  EXPECT_EQ(pico.cwnd_bytes(), 10u * kMtu / 2);
  // First interval: min(6000 * 0.7, cubic 80396) = 4200 (python3 -c
  // 'import math; print(1.293700525984/0.3*1000*math.cbrt(0.3/0.4*6000/
  // 1200)/100*1200)' gives 80396.57).
  EXPECT_EQ(pico.bytes_to_mtu_increase(), 4200u);
  AckEvent ce = BytesAck(2000, 1, kMtu, /*in_flight_bytes=*/1, kSrttUs);
  ce.packets_ce = 1;
  pico.OnAck(ce);                       // ends recovery, then CE
  EXPECT_EQ(pico.cwnd_bytes(), 5100u);  // 6000 * 0.85
  EXPECT_EQ(pico.ssthresh_bytes(), 5100u);
  EXPECT_EQ(pico.bytes_to_mtu_increase(), pico.cwnd_bytes());
  pico.OnAck(BytesAck(3000, 1, kMtu, 0, kSrttUs));  // ends recovery
  pico.OnLoss(FastRetransmit(4000, 1));
  EXPECT_EQ(pico.cwnd_bytes(), 3570u);  // 5100 * 0.7
}

// The CUBIC-mimicking branch binds at long RTTs: W = 100 MTUs, srtt 1 s,
// beta 0.7: 1.2937 / 0.3 * 1000 * cbrt(0.75 * 100) / 1000 * 1200 = 21822.99
// (python3, as above), below Reno's 84000.
TEST(QuiclyPicoTest, CubicBranchOfTheInterval) {
  EXPECT_EQ(QuiclyPico::BytesPerMtuIncrease(100 * kMtu, 1000, kMtu, 0.7),
            21822u);
  EXPECT_EQ(QuiclyPico::BytesPerMtuIncrease(100 * kMtu, 100, kMtu, 0.7),
            84000u);
}

// After a loss at 20
// MTUs the interval is min(24000 / 2 * 0.7, ...) = 8400, and a window of
// 12000 B acknowledged adds one MTU, leaving 12000 - 8400 = 3600 credit.
TEST(QuiclyPicoTest, CongestionAvoidanceUsesTheInterval) {
  ControllerOptions options;
  options.mss_bytes = kMtu;
  options.initial_window_segments = 20;
  QuiclyPico pico(options);
  pico.OnAck(BytesAck(0, 0, kMtu, 0, kSrttUs));
  pico.OnLoss(FastRetransmit(1000, 1));
  ASSERT_EQ(pico.cwnd_bytes(), 12000u);
  pico.OnAck(BytesAck(2000, 12000, kMtu, 0, kSrttUs));
  EXPECT_EQ(pico.cwnd_bytes(), 13200u);
  EXPECT_EQ(pico.bytes_to_mtu_increase(), 8400u - 3600);
}

}  // namespace
}  // namespace ccreplay
