#include "cc/hystart_plus_plus.h"

#include <algorithm>
#include <memory>
#include <vector>

#include "absl/strings/str_cat.h"
#include "cc/controller_testing.h"
#include "cc/registry.h"
#include "gtest/gtest.h"

namespace ccreplay {
namespace {

using testing::SegmentAck;
using HsPhase = HyStartPlusPlus::Phase;

constexpr uint32_t kMss = 1000;
constexpr uint64_t kFlight = 10 * kMss;

// RTT samples (us) of one-segment ACKs with 10 segments in flight: the first
// ACK ends round 0 (it alone), then each round is 10 ACKs (RFC 9406 section
// 4.2 rounds: windowEnd = snd_nxt at the round's start, cc/round_tracker.h).
// Round 1 is ACKs 2..11, round r is ACKs 10 r - 8 .. 10 r + 1.
std::vector<int64_t> Rounds(const std::vector<int64_t>& per_round_rtt_us) {
  std::vector<int64_t> rtts = {per_round_rtt_us.front()};
  for (size_t r = 1; r < per_round_rtt_us.size(); ++r) {
    rtts.insert(rtts.end(), 10, per_round_rtt_us[r]);
  }
  return rtts;
}

AckEvent Ack(size_t i, int64_t rtt_us) {
  return SegmentAck(static_cast<int64_t>(i + 1) * 1000, 1, kMss, kFlight,
                    rtt_us);
}

std::unique_ptr<CongestionController> Make(const char* spec) {
  absl::StatusOr<std::unique_ptr<CongestionController>> cc =
      MakeController(spec);
  EXPECT_TRUE(cc.ok()) << spec << ": " << cc.status();
  return *std::move(cc);
}

// Section 4.2: with lastRoundMinRTT = 40 ms, RttThresh = clamp(40 / 8, 4,
// 16) = 5 ms; round 1 at 45 ms rises by exactly RttThresh: CSS begins at
// the round's 8th sample (ACK 9), whose growth is still the full N.
TEST(HyStartPlusPlusTest, EntersCssAtTheEighthSampleOfTheRound) {
  HyStartPlusPlus hs;
  const std::vector<int64_t> rtts = Rounds({40000, 45000});
  for (size_t i = 0; i < rtts.size(); ++i) {
    const HyStartPlusPlus::Step step = hs.OnAck(Ack(i, rtts[i]), kMss);
    const bool css = i + 1 >= 9;  // ACK 9 = round 1's 8th sample
    EXPECT_EQ(hs.phase(), css ? HsPhase::kConservative : HsPhase::kSlowStart)
        << "ACK " << i + 1;
    // CSS: min(N, L * SMSS) / CSS_GROWTH_DIVISOR = 1000 / 4.
    EXPECT_EQ(step.increase_bytes, i + 1 > 9 ? 250.0 : 1000.0) << i + 1;
    EXPECT_FALSE(step.enter_congestion_avoidance);
  }
  EXPECT_EQ(hs.css_baseline_min_rtt_us(), 45000);
}

// Section 4.2: a rise 1 us short of RttThresh (5 ms) never leaves slow
// start, in that round or the next.
TEST(HyStartPlusPlusTest, SmallerRiseStaysInSlowStart) {
  HyStartPlusPlus hs;
  for (const int64_t rtt : Rounds({40000, 44999, 49998})) {
    EXPECT_EQ(hs.OnAck(Ack(0, rtt), kMss).increase_bytes, 1000.0);
    EXPECT_EQ(hs.phase(), HsPhase::kSlowStart);
  }
}

// Section 4.3: L = 8 for an unpaced sender caps one ACK's growth at 8 SMSS.
TEST(HyStartPlusPlusTest, SlowStartIncreaseCappedAtEightSegments) {
  HyStartPlusPlus hs;
  EXPECT_EQ(hs.OnAck(SegmentAck(1000, 20, kMss, kFlight), kMss).increase_bytes,
            8000.0);
}

// Section 4.2: in CSS, a round whose min RTT (after 8 samples) drops below
// cssBaselineMinRtt (45 ms) resumes slow start at its 8th sample.
TEST(HyStartPlusPlusTest, RoundBelowBaselineReturnsToSlowStart) {
  HyStartPlusPlus hs;
  const std::vector<int64_t> rtts = Rounds({40000, 45000, 44999});
  for (size_t i = 0; i < rtts.size(); ++i) {
    hs.OnAck(Ack(i, rtts[i]), kMss);
    // Round 2 is ACKs 12..21; its 8th sample is ACK 19.
    const HsPhase want = i + 1 < 9    ? HsPhase::kSlowStart
                         : i + 1 < 19 ? HsPhase::kConservative
                                      : HsPhase::kSlowStart;
    EXPECT_EQ(hs.phase(), want) << "ACK " << i + 1;
  }
  EXPECT_EQ(hs.css_baseline_min_rtt_us(), HyStartPlusPlus::kNoRtt);
}

// Section 4.2 on each RFC profile: CSS from ACK 9 (round 1) through round
// 5, the entry round the first of CSS_ROUNDS = 5; the ACK ending round 5
// (ACK 51) sets ssthresh = cwnd. By hand: 10 000 (iw; rfc9002:newreno's
// min(10 * 1000, max(14720, 2000)) too) + 9 ACKs * 1000 + 42 ACKs (10..51)
// * 250 = 29 500 bytes.
std::unique_ptr<CongestionController> RunToCongestionAvoidance(
    const char* spec) {
  std::unique_ptr<CongestionController> cc = Make(spec);
  const std::vector<int64_t> rtts =
      Rounds({40000, 45000, 45000, 45000, 45000, 45000});
  for (size_t i = 0; i < rtts.size(); ++i) {
    cc->OnAck(Ack(i, rtts[i]));
    const double want = 10000 + 1000.0 * std::min<size_t>(i + 1, 9) +
                        250.0 * (i + 1 > 9 ? i + 1 - 9 : 0);
    EXPECT_EQ(cc->cwnd_bytes(), static_cast<uint64_t>(want))
        << spec << " ACK " << i + 1;
    EXPECT_EQ(cc->ssthresh_bytes(),
              i + 1 < 51 ? kNoSsthreshBytes : uint64_t{29500})
        << spec << " ACK " << i + 1;
  }
  EXPECT_EQ(cc->state().phase, Phase::kCongestionAvoidance) << spec;
  return cc;
}

TEST(HyStartPlusPlusTest, RfcProfilesLeaveCssAfterFiveRounds) {
  RunToCongestionAvoidance("cubic:mss=1000,hystart=1");
  RunToCongestionAvoidance("rfc9002:newreno,mss=1000,hystart=1");
  // Then Reno congestion avoidance: +1 MSS per cwnd acknowledged (RFC 5681
  // section 3.1, RFC 3465): 29 ACKs of 1000 bytes (< 29 500) add nothing,
  // the 30th adds 1 MSS.
  std::unique_ptr<CongestionController> cc =
      RunToCongestionAvoidance("reno:mss=1000,hystart=1");
  for (size_t i = 51; i < 80; ++i) cc->OnAck(Ack(i, 45000));
  EXPECT_EQ(cc->cwnd_bytes(), 29500u);
  cc->OnAck(Ack(80, 45000));
  EXPECT_EQ(cc->cwnd_bytes(), 30500u);
}

// Section 4.2: loss in CSS ends slow start the usual way (Reno: ssthresh =
// FlightSize / 2 = 5000), and HyStart++ is off afterwards (section 4.3).
TEST(HyStartPlusPlusTest, LossInCssReducesAsUsual) {
  std::unique_ptr<CongestionController> cc = Make("reno:mss=1000,hystart=1");
  const std::vector<int64_t> rtts = Rounds({40000, 45000});
  for (size_t i = 0; i < 10; ++i) cc->OnAck(Ack(i, rtts[i]));
  cc->OnLoss(testing::FastRetransmit(20000, kFlight));
  EXPECT_EQ(cc->ssthresh_bytes(), 5000u);
  EXPECT_EQ(cc->cwnd_bytes(), 5000u);
}

// hystart=0 (the default) is today's slow start, uncapped byte counting
// (RFC 9002 section 7.3.1, RFC 3465 without L): cwnd = iw + every byte
// acknowledged, whatever the RTT does. hystart=1 on the same ACKs differs
// by the 8 SMSS cap on the 20-segment ACK alone (20 000 - 8 000 bytes): that
// ACK ends round 1 after 3 samples, and round 2 (ACKs 5..14) has the same
// 45 ms minimum as round 1, so no CSS.
TEST(HyStartPlusPlusTest, OffIsTodaysSlowStart) {
  for (const char* base :
       {"reno:mss=1000", "cubic:mss=1000", "rfc9002:newreno,mss=1000"}) {
    std::unique_ptr<CongestionController> by_default = Make(base);
    std::unique_ptr<CongestionController> off =
        Make(absl::StrCat(base, ",hystart=0").c_str());
    std::unique_ptr<CongestionController> on =
        Make(absl::StrCat(base, ",hystart=1").c_str());
    uint64_t acked = 0;
    const std::vector<int64_t> rtts = Rounds({40000, 45000, 60000});
    for (size_t i = 0; i < rtts.size(); ++i) {
      const uint32_t segments = i == 3 ? 20 : 1;
      const AckEvent ack =
          SegmentAck((i + 1) * 1000, segments, kMss, kFlight, rtts[i]);
      acked += ack.bytes_acked;
      for (auto* cc : {by_default.get(), off.get(), on.get()}) cc->OnAck(ack);
      EXPECT_EQ(off->cwnd_bytes(), 10000 + acked) << base << " " << i + 1;
      EXPECT_EQ(by_default->cwnd_bytes(), off->cwnd_bytes());
      EXPECT_EQ(off->ssthresh_bytes(), kNoSsthreshBytes);
    }
    EXPECT_EQ(on->cwnd_bytes(), off->cwnd_bytes() - 12000) << base;
  }
}

}  // namespace
}  // namespace ccreplay
