#include "replay/handshake_rtt.h"

#include "gtest/gtest.h"

namespace ccreplay {
namespace {

constexpr int64_t kMs = 1000000;

// A capture in the middle: 10 ms to the server and back, 30 ms to the
// client and back; either end measured the 40 ms path round trip.
TEST(HandshakeRttTest, SumsBothHalvesAtAnyVantage) {
  HandshakeRtt rtt;
  rtt.OnSyn(100 * kMs, /*ts_known=*/false, 0);
  rtt.OnSynAck(110 * kMs, /*has_ts=*/false, 0, 0);
  EXPECT_EQ(rtt.sample_us(), 0);  // Not complete yet.
  rtt.OnHandshakeAck(140 * kMs, false, 0);
  EXPECT_EQ(rtt.sample_us(), 40000);
}

// Karn's rule (RFC 6298 section 3): a resent SYN answered by a SYN-ACK
// without timestamps could answer either SYN: no sample.
TEST(HandshakeRttTest, ResentSynWithoutTimestampsGivesNone) {
  HandshakeRtt rtt;
  rtt.OnSyn(0, false, 0);
  rtt.OnSyn(1000 * kMs, false, 0);
  rtt.OnSynAck(1020 * kMs, false, 0, 0);
  rtt.OnHandshakeAck(1020 * kMs + 5000, false, 0);
  EXPECT_EQ(rtt.sample_us(), 0);
}

// RFC 7323 section 4: the SYN-ACK echoes the resent SYN's TSval, so it
// answers that one (Linux tcp_ack_update_rtt() takes the echo).
TEST(HandshakeRttTest, ResentSynTimedByTheEcho) {
  HandshakeRtt rtt;
  rtt.OnSyn(0, false, 0);
  rtt.OnSyn(1000 * kMs, true, 777);
  rtt.OnSynAck(1020 * kMs, true, 5, /*ts_ecr=*/777);
  rtt.OnHandshakeAck(1020 * kMs + 5000, true, /*ts_ecr=*/5);
  EXPECT_EQ(rtt.sample_us(), 20005);

  // An echo of the first SYN's TSval (not kept): which one, unknown.
  HandshakeRtt other;
  other.OnSyn(0, false, 0);
  other.OnSyn(1000 * kMs, true, 777);
  other.OnSynAck(1020 * kMs, true, 5, /*ts_ecr=*/776);
  other.OnHandshakeAck(1020 * kMs + 5000, true, 5);
  EXPECT_EQ(other.sample_us(), 0);
}

// A resent SYN-ACK: the ACK's echo names the one it answers.
TEST(HandshakeRttTest, ResentSynAckTimedByTheEcho) {
  HandshakeRtt rtt;
  rtt.OnSyn(0, true, 1);
  rtt.OnSynAck(2 * kMs, true, 50, 1);
  rtt.OnSynAck(1002 * kMs, true, 60, 1);
  rtt.OnHandshakeAck(1012 * kMs, true, 60);
  EXPECT_EQ(rtt.sample_us(), 12000);  // 2 ms + 10 ms.
  HandshakeRtt blind;
  blind.OnSyn(0, false, 0);
  blind.OnSynAck(2 * kMs, false, 0, 0);
  blind.OnSynAck(1002 * kMs, false, 0, 0);
  blind.OnHandshakeAck(1012 * kMs, false, 0);
  EXPECT_EQ(blind.sample_us(), 0);
}

}  // namespace
}  // namespace ccreplay
