#include "cc/linux_bbr.h"

#include <cstdint>
#include <vector>

#include "cc/registry.h"
#include "gtest/gtest.h"

namespace ccreplay {
namespace {

constexpr uint32_t kMss = 1448;
constexpr int64_t kRttUs = 10'000;

// Drives a LinuxBbr with ACKs that each carry a tcp_rate.c sample.
class BbrDriver {
 public:
  explicit BbrDriver(uint32_t start_phase = 2)
      : bbr_(OptionsWithPhase(start_phase)) {}
  explicit BbrDriver(const LinuxBbrOptions& options) : bbr_(options) {}
  static LinuxBbrOptions OptionsWithPhase(uint32_t start_phase) {
    LinuxBbrOptions options;
    options.start_phase = start_phase;
    return options;
  }

  // An ACK at `now_us` of `acked` packets leaving `in_flight` packets, whose
  // newest packet was sent when `prior_delivered` packets had been
  // delivered; the sample: `sample_delivered` packets over `interval_us`.
  // `new_round`: the acked packet was sent after the previous ACK, so a
  // round ends (prior_delivered = delivered before this ACK).
  void Ack(int64_t now_us, uint32_t acked, uint32_t in_flight,
           int64_t sample_delivered, int64_t interval_us, bool new_round,
           int64_t rtt_us = kRttUs, bool app_limited = false,
           uint32_t losses = 0) {
    AckEvent ack;
    ack.time_us = now_us;
    ack.bytes_acked = uint64_t{acked} * kMss;
    ack.packets_delivered = acked;
    ack.rtt_sample_us = rtt_us;
    ack.srtt_us = rtt_us;
    ack.min_rtt_us = rtt_us;
    ack.bytes_in_flight = uint64_t{in_flight} * kMss;
    ack.mss_bytes = kMss;
    DeliveryRateSample rs;
    rs.delivered_packets = sample_delivered;
    rs.interval_us = interval_us;
    rs.prior_delivered_packets = new_round ? delivered_ : 0;
    rs.app_limited = app_limited;
    ack.rate_sample = rs;
    ack.packets_newly_lost = losses;
    delivered_ += acked;
    bbr_.OnAck(ack);
  }

  LinuxBbr& bbr() { return bbr_; }
  uint64_t delivered() const { return delivered_; }

 private:
  LinuxBbr bbr_;
  uint64_t delivered_ = 0;
};

// bw in the kernel's unit for `packets` delivered over 10 ms.
uint32_t BwOf(int64_t packets) {
  return static_cast<uint32_t>((uint64_t(packets) << 24) / kRttUs);
}

TEST(LinuxBbrTest, ConstantsAreTheKernels) {
  // tcp_bbr.c: BBR_UNIT * 2885 / 1000 + 1, BBR_UNIT * 1000 / 2885,
  // BBR_UNIT * 2; ss prints them /256: 2.88672 and 0.34375, the values the
  // lab's ss log shows in STARTUP and DRAIN (bbr_20mbit_20ms_pfifo50).
  EXPECT_EQ(LinuxBbr::kHighGain, 739u);
  EXPECT_EQ(LinuxBbr::kDrainGain, 88u);
  EXPECT_EQ(LinuxBbr::kCwndGain, 512u);
  EXPECT_EQ(LinuxBbr::kBwFilterRounds, 10u);
  const std::vector<uint32_t> cycle(std::begin(LinuxBbr::kPacingGainCycle),
                                    std::end(LinuxBbr::kPacingGainCycle));
  EXPECT_EQ(cycle,
            (std::vector<uint32_t>{320, 192, 256, 256, 256, 256, 256, 256}));
}

TEST(LinuxBbrTest, BandwidthPrintsAsSsDoes) {
  // bbr_get_info(): bw * mss * 1e6 >> 24 bytes/s, which ss prints in bit/s.
  // The lab's ss log shows bw:19470280bps at mss 1448; the only kernel bw
  // giving it is 28199 (python3: (28199*1448*10**6 >> 24) * 8).
  BbrDriver d;
  d.Ack(1000, 1, 10, 1, kRttUs, true);
  EXPECT_EQ(d.bbr().bw(), BwOf(1));
  // A sample of 28199 * 10000 / 2^24 = 16.808 packets per 10 ms cannot be
  // given in whole packets; 17 packets over 10114 µs gives bw 28199.
  d.Ack(2000, 1, 10, 17, 10114, true);
  EXPECT_EQ(d.bbr().bw(), 28199u);
  EXPECT_EQ(d.bbr().bw_bps(), 19470280);
}

TEST(LinuxBbrTest, StartupEndsAfterThreeRoundsWithoutTwentyFivePercentGrowth) {
  // Samples of 10, 20, 40 packets per round grow the max filter by >= 25 %
  // (bbr_full_bw_thresh); 49 is 22.5 % above 40, so it does not count as
  // growth although the filter takes it: full bw after the 3rd such round.
  BbrDriver d;
  int64_t now = 0;
  for (int64_t packets : {10, 20, 40, 49, 49}) {
    now += kRttUs;
    d.Ack(now, 10, 200, packets, kRttUs, true);
    EXPECT_EQ(d.bbr().mode(), BbrMode::kStartup) << packets;
    EXPECT_EQ(d.bbr().pacing_gain(), 739u);
    EXPECT_FALSE(d.bbr().full_bw_reached());
  }
  now += kRttUs;
  d.Ack(now, 10, 200, 49, kRttUs, true);
  EXPECT_TRUE(d.bbr().full_bw_reached());
  EXPECT_EQ(d.bbr().bw(), BwOf(49));
  EXPECT_EQ(d.bbr().round_count(), 6u);
  // 200 packets in flight are above the BDP: DRAIN, with ssthresh at the
  // estimated inflight (bbr_check_drain()).
  EXPECT_EQ(d.bbr().mode(), BbrMode::kDrain);
  EXPECT_EQ(d.bbr().pacing_gain(), 88u);
  EXPECT_EQ(d.bbr().cwnd_gain(), 739u);
}

TEST(LinuxBbrTest, AppLimitedRoundsNeitherLowerBwNorEndStartup) {
  BbrDriver d;
  int64_t now = 0;
  for (int64_t packets : {10, 20, 40}) {
    now += kRttUs;
    d.Ack(now, 10, 200, packets, kRttUs, true);
  }
  for (int i = 0; i < 5; ++i) {
    now += kRttUs;
    d.Ack(now, 2, 2, 2, kRttUs, true, kRttUs, /*app_limited=*/true);
  }
  EXPECT_EQ(d.bbr().bw(), BwOf(40));
  EXPECT_EQ(d.bbr().mode(), BbrMode::kStartup);
}

// Reaches PROBE_BW at bw 49 packets / 10 ms, min RTT 10 ms.
int64_t ReachProbeBw(BbrDriver& d) {
  int64_t now = 0;
  for (int64_t packets : {10, 20, 40, 49, 49, 49}) {
    now += kRttUs;
    d.Ack(now, 10, 200, packets, kRttUs, true);
  }
  now += 1000;
  d.Ack(now, 10, 40, 49, kRttUs, false);
  return now;
}

TEST(LinuxBbrTest, DrainLastsUntilInflightIsAtMostTheBdp) {
  // bbr_inflight(bw, 1.0) = bbr_quantization_budget(bbr_bdp()), by the
  // kernel formulas in python3 at bw = (49 << 24) // 10000 = 82208, mss
  // 1448: BDP = ceil(82208 * 10000 / 2^24) = 49; TSO goal = max(pacing
  // rate >> 10 bytes / mss, 2): at STARTUP's pacing (20276940 B/s) 13, so
  // ssthresh on entering DRAIN = 49 + 3 * 13 = 88; at DRAIN's (2414574
  // B/s) 2, so DRAIN ends once inflight <= 49 + 6, rounded up to even: 56.
  BbrDriver d;
  int64_t now = 0;
  for (int64_t packets : {10, 20, 40, 49, 49, 49}) {
    now += kRttUs;
    d.Ack(now, 10, 200, packets, kRttUs, true);
  }
  ASSERT_EQ(d.bbr().mode(), BbrMode::kDrain);
  EXPECT_EQ(d.bbr().snd_ssthresh(), 88u);
  d.Ack(now += 1000, 10, 57, 49, kRttUs, false);
  EXPECT_EQ(d.bbr().mode(), BbrMode::kDrain);
  d.Ack(now += 1000, 1, 56, 49, kRttUs, false);
  EXPECT_EQ(d.bbr().mode(), BbrMode::kProbeBw);
  EXPECT_EQ(d.bbr().cycle_index(), 2u);  // LinuxBbrOptions::start_phase
  EXPECT_EQ(d.bbr().pacing_gain(), 256u);
  EXPECT_EQ(d.bbr().cwnd_gain(), 512u);
}

TEST(LinuxBbrTest, GainCycleRunsInTheKernelsOrder) {
  BbrDriver d(/*start_phase=*/0);
  int64_t now = ReachProbeBw(d);
  ASSERT_EQ(d.bbr().mode(), BbrMode::kProbeBw);
  std::vector<uint32_t> gains = {d.bbr().pacing_gain()};
  // Each phase lasts one min RTT (the 1.25 phase also needs inflight >=
  // 1.25 BDP + quanta: 100 packets is above it; the 0.75 phase ends at one
  // min RTT too since 100 > BDP).
  for (int i = 0; i < 8; ++i) {
    d.Ack(now += kRttUs / 2, 1, 100, 49, kRttUs, false);
    EXPECT_EQ(d.bbr().pacing_gain(), gains.back()) << "mid-phase " << i;
    d.Ack(now += kRttUs / 2 + 1, 1, 100, 49, kRttUs, false);
    gains.push_back(d.bbr().pacing_gain());
  }
  EXPECT_EQ(gains, (std::vector<uint32_t>{320, 192, 256, 256, 256, 256, 256,
                                          256, 320}));
}

TEST(LinuxBbrTest, CwndSettlesAtTwiceTheBdpPlusQuanta) {
  // PROBE_BW in a cruise phase (python3, kernel formulas): 2 x BDP =
  // ceil(82208 * 10000 * 512 / 256 / 2^24) = 98; TSO goal at the cruise
  // pacing rate (7024217 B/s) 4, so 3 x 4 quanta; plus extra_acked, the
  // data acked beyond bw x time in STARTUP's bursts of 10 packets per
  // ACK: 16. 98 + 16 + 12 = 126, even. Below it cwnd grows by what is
  // acked (slow start toward the target), never above it.
  BbrDriver d(/*start_phase=*/2);
  int64_t now = ReachProbeBw(d);
  EXPECT_EQ(d.bbr().extra_acked(), 16u);
  EXPECT_EQ(d.bbr().snd_cwnd(), 80u);  // IW 10 + 7 ACKs of 10 packets
  // ACKs at the estimated rate (5 packets per 1021 µs < 49 per 10 ms)
  // add no aggregation.
  for (int i = 0; i < 12; ++i) d.Ack(now += 1021, 5, 60, 49, kRttUs, false);
  EXPECT_EQ(d.bbr().extra_acked(), 16u);
  EXPECT_EQ(d.bbr().snd_cwnd(), 126u);
}

// bbr_cwnd_event() (tcp_bbr.c, Linux 6.18) restarts the ACK-aggregation
// epoch on CA_EVENT_TX_START only when tp->app_limited is set. After an ACK
// silence of 20 ms, one ACK for 40 packets (bw 49 packets per 10 ms, so
// the epoch restarts there: extra_acked 40); the sender resumes from an
// empty flight 0.5 ms later; 0.5 ms after that, an ACK for 30 more. A bulk
// sender keeps the epoch: 40 + 30 acked against floor(82208 x 1000 /
// 2^24) = 4 expected, extra_acked 66. An app-limited one starts a new
// epoch, which the next ACK finds behind the rate (0 <= 2 expected) and
// restarts: 30 acked, 0 expected, so the max stays the burst's 40.
TEST(LinuxBbrTest, TxStartRestartsTheAggregationEpochOnlyWhenAppLimited) {
  BbrDriver bulk(/*start_phase=*/2);
  int64_t now = ReachProbeBw(bulk);
  now += 20'000;
  bulk.Ack(now, 40, 0, 49, kRttUs, false);
  EXPECT_EQ(bulk.bbr().extra_acked(), 40u);
  BbrDriver app_limited = bulk;
  IdleRestartEvent idle;
  idle.time_us = now + 500;
  idle.idle_us = 20'000;
  bulk.bbr().OnIdleRestart(idle);
  idle.app_limited = true;
  app_limited.bbr().OnIdleRestart(idle);
  bulk.Ack(now + 1000, 30, 0, 49, kRttUs, false);
  app_limited.Ack(now + 1000, 30, 0, 49, kRttUs, false);
  EXPECT_EQ(bulk.bbr().extra_acked(), 66u);
  EXPECT_EQ(app_limited.bbr().extra_acked(), 40u);
}

TEST(LinuxBbrTest, ProbeRttAfterTenSecondsWithoutANewMinRttHoldsFourPackets) {
  BbrDriver d;
  int64_t now = ReachProbeBw(d);
  const uint32_t cruising_cwnd = [&] {
    for (int i = 0; i < 3; ++i) d.Ack(now += 3000, 1, 60, 49, kRttUs, false);
    return d.bbr().snd_cwnd();
  }();
  // RTT samples above the 10 ms minimum for 10 s: still PROBE_BW at the
  // window's end, PROBE_RTT on the first ACK after it (bbr_update_min_rtt()).
  const int64_t min_rtt_stamp = now;  // the last 10 ms sample
  while (now + 5000 <= min_rtt_stamp + LinuxBbr::kMinRttWindowUs) {
    d.Ack(now += 5000, 1, 60, 49, kRttUs, false, 12'000);
  }
  EXPECT_EQ(d.bbr().mode(), BbrMode::kProbeBw);
  d.Ack(now += 5000, 1, 60, 49, kRttUs, false, 12'000);
  EXPECT_EQ(d.bbr().mode(), BbrMode::kProbeRtt);
  EXPECT_EQ(d.bbr().snd_cwnd(), 4u);
  EXPECT_EQ(d.bbr().pacing_gain(), 256u);
  EXPECT_EQ(d.bbr().cwnd_gain(), 256u);
  // The expired filter took that sample as the new min RTT.
  EXPECT_EQ(d.bbr().min_rtt_us(), 12'000u);
  // In flight falls to 4: the 200 ms starts; it ends only after 200 ms and
  // a round.
  d.Ack(now += 1000, 1, 4, 4, kRttUs, false, 12'000);
  const int64_t done_at = now + LinuxBbr::kProbeRttModeUs;
  d.Ack(now += 12'000, 1, 4, 4, kRttUs, true, 12'000);  // the round
  while (now + 12'000 <= done_at) {
    d.Ack(now += 12'000, 1, 4, 4, kRttUs, false, 12'000);
    EXPECT_EQ(d.bbr().mode(), BbrMode::kProbeRtt);
    EXPECT_EQ(d.bbr().snd_cwnd(), 4u);
  }
  d.Ack(now = done_at + 1, 1, 4, 4, kRttUs, false, 12'000);
  EXPECT_EQ(d.bbr().mode(), BbrMode::kProbeBw);
  // bbr_check_probe_rtt_done() restores the cwnd saved on entry.
  EXPECT_GE(d.bbr().snd_cwnd(), cruising_cwnd);
}

TEST(LinuxBbrTest, RecoveryConservesPacketsAndTakesLossesOff) {
  // bbr_set_cwnd_to_recover_or_restore(): entering Recovery, cwnd = in
  // flight + acked; each later ACK first takes its losses off, then keeps
  // at least in flight + acked; leaving Recovery restores the saved cwnd.
  BbrDriver d;
  int64_t now = ReachProbeBw(d);
  for (int i = 0; i < 12; ++i) d.Ack(now += 1021, 5, 60, 49, kRttUs, false);
  const uint32_t before = d.bbr().snd_cwnd();
  ASSERT_EQ(before, 126u);
  d.Ack(now += 1000, 2, 100, 49, kRttUs, false);
  LossEvent loss;
  loss.time_us = now;
  loss.kind = LossEvent::Kind::kFastRetransmit;
  loss.bytes_in_flight = 100 * kMss;
  d.bbr().OnLoss(loss);
  EXPECT_EQ(d.bbr().snd_cwnd(), 102u);  // 100 in flight + 2 acked
  // 3 newly lost, 1 acked, 90 in flight: max(102 - 3, 90 + 1) = 99.
  AckEvent ack;
  ack.time_us = now += 1000;
  ack.bytes_acked = kMss;
  ack.packets_delivered = 1;
  ack.bytes_in_flight = 90 * kMss;
  ack.mss_bytes = kMss;
  ack.packets_newly_lost = 3;
  d.bbr().OnAck(ack);
  EXPECT_EQ(d.bbr().snd_cwnd(), 99u);
  // 30 newly lost: max(99 - 30, 60 + 1) = 69.
  ack.time_us = now += 1000;
  ack.bytes_in_flight = 60 * kMss;
  ack.packets_newly_lost = 30;
  d.bbr().OnAck(ack);
  EXPECT_EQ(d.bbr().snd_cwnd(), 69u);
  // 40 more: max(69 - 40, 50 + 1) = 51, in flight sets the floor.
  ack.time_us = now += 1000;
  ack.bytes_in_flight = 50 * kMss;
  ack.packets_newly_lost = 40;
  d.bbr().OnAck(ack);
  EXPECT_EQ(d.bbr().snd_cwnd(), 51u);
}

// bbr_lt_bw_sampling(), worked by hand: from the first loss, intervals of
// 4 rounds (10 ms each) that deliver 20 packets and lose 10 per round
// (lost / delivered = 0.5 >= 50/256) and end on a loss. The first, from the
// loss at t0 to t0 + 30 ms, delivers 60 packets in 30 ms: lt_bw = (60 <<
// 24) / 30000 = BwOf(20); the second, t0 + 30 to t0 + 70 ms, 80 in 40 ms,
// the same rate, so the path is judged policed with lt_bw their average.
// After 48 rounds in PROBE_BW, long-term mode ends.
TEST(LinuxBbrTest, LongTermModeAfterTwoLossyConsistentIntervals) {
  BbrDriver d;
  int64_t now = ReachProbeBw(d);
  ASSERT_EQ(d.bbr().mode(), BbrMode::kProbeBw);
  const uint32_t max_bw = d.bbr().max_bw();
  ASSERT_EQ(max_bw, BwOf(49));
  for (int i = 0; i < 7; ++i) {
    d.Ack(now += kRttUs, 20, 20, 20, kRttUs, true, kRttUs, false, 10);
    EXPECT_FALSE(d.bbr().lt_use_bw()) << i;
  }
  EXPECT_EQ(d.bbr().lt_bw(), BwOf(20));  // the first interval's
  d.Ack(now += kRttUs, 20, 20, 20, kRttUs, true, kRttUs, false, 10);
  ASSERT_TRUE(d.bbr().lt_use_bw());
  EXPECT_EQ(d.bbr().lt_bw(), BwOf(20));
  EXPECT_DOUBLE_EQ(d.bbr().lt_loss_ratio(), 0.5);
  EXPECT_EQ(d.bbr().bw(), BwOf(20));    // bbr_bw() is lt_bw now...
  EXPECT_EQ(d.bbr().max_bw(), max_bw);  // ...the max filter keeps its own
  EXPECT_EQ(d.bbr().pacing_gain(), LinuxBbr::kBbrUnit);
  // 47 more rounds keep it, the 48th ends it (bbr_lt_bw_max_rtts).
  for (int i = 0; i < 47; ++i) {
    d.Ack(now += kRttUs, 20, 20, 20, kRttUs, true);
    ASSERT_TRUE(d.bbr().lt_use_bw()) << i;
    ASSERT_EQ(d.bbr().pacing_gain(), LinuxBbr::kBbrUnit) << i;
  }
  d.Ack(now += kRttUs, 20, 20, 20, kRttUs, true);
  EXPECT_FALSE(d.bbr().lt_use_bw());
  EXPECT_EQ(d.bbr().lt_bw(), 0u);
}

// An interval with loss under 20 % (lost / delivered = 3/20 < 50/256) is
// not lossy; sampling goes on, and after 16 rounds it restarts.
TEST(LinuxBbrTest, NoLongTermModeUnderTwentyPercentLoss) {
  BbrDriver d;
  int64_t now = ReachProbeBw(d);
  for (int i = 0; i < 40; ++i) {
    d.Ack(now += kRttUs, 20, 20, 20, kRttUs, true, kRttUs, false, 3);
    ASSERT_FALSE(d.bbr().lt_use_bw()) << i;
    ASSERT_EQ(d.bbr().lt_bw(), 0u) << i;
  }
}

// The counterfactuals' knobs (LinuxBbrOptions), each one of tcp_bbr.c's
// constants. bbr_full_bw_cnt = 5: the rounds of
// StartupEndsAfterThreeRoundsWithoutTwentyFivePercentGrowth, whose third
// round without 25 % growth (round 6) ended STARTUP, now need two more.
TEST(LinuxBbrTest, FullBwCntGivesStartupMoreRounds) {
  LinuxBbrOptions options;
  options.full_bw_cnt = 5;
  BbrDriver d(options);
  int64_t now = 0;
  for (int64_t packets : {10, 20, 40, 49, 49, 49, 49}) {
    d.Ack(now += kRttUs, 10, 200, packets, kRttUs, true);
    EXPECT_FALSE(d.bbr().full_bw_reached()) << d.bbr().round_count();
  }
  d.Ack(now += kRttUs, 10, 200, 49, kRttUs, true);
  EXPECT_TRUE(d.bbr().full_bw_reached());
  EXPECT_EQ(d.bbr().round_count(), 8u);
  EXPECT_EQ(d.bbr().mode(), BbrMode::kDrain);
}

// bbr_probe_rtt_mode_ms = 0: bbr_update_min_rtt() still takes the expired
// filter's sample as the min RTT, but never enters PROBE_RTT (its test is
// "bbr_probe_rtt_mode_ms > 0 && filter_expired && ..."), so cwnd keeps its
// cruise value where the default drops to 4
// (ProbeRttAfterTenSecondsWithoutANewMinRttHoldsFourPackets).
TEST(LinuxBbrTest, ProbeRttMsZeroNeverEntersProbeRtt) {
  LinuxBbrOptions options;
  options.probe_rtt_mode_us = 0;
  BbrDriver d(options);
  int64_t now = ReachProbeBw(d);
  for (int i = 0; i < 3; ++i) d.Ack(now += 3000, 1, 60, 49, kRttUs, false);
  const uint32_t cruising_cwnd = d.bbr().snd_cwnd();
  const int64_t min_rtt_stamp = now;
  while (now <= min_rtt_stamp + LinuxBbr::kMinRttWindowUs + 50'000) {
    d.Ack(now += 5000, 1, 60, 49, kRttUs, false, 12'000);
    EXPECT_NE(d.bbr().mode(), BbrMode::kProbeRtt);
  }
  EXPECT_EQ(d.bbr().min_rtt_us(), 12'000u);
  EXPECT_EQ(d.bbr().mode(), BbrMode::kProbeBw);
  EXPECT_GE(d.bbr().snd_cwnd(), cruising_cwnd);
}

// bbr_extra_acked_max_us = 1 ms: the allowance added to cwnd is at most
// floor(82208 x 1000 / 2^24) = 4 packets of the 16 extra_acked holds, so
// CwndSettlesAtTwiceTheBdpPlusQuanta's 98 + 16 + 12 = 126 becomes
// 98 + 4 + 12 = 114.
TEST(LinuxBbrTest, ExtraAckedMaxCapsTheAllowance) {
  LinuxBbrOptions options;
  options.extra_acked_max_us = 1000;
  BbrDriver d(options);
  int64_t now = ReachProbeBw(d);
  EXPECT_EQ(d.bbr().extra_acked(), 16u);
  for (int i = 0; i < 12; ++i) d.Ack(now += 1021, 5, 60, 49, kRttUs, false);
  EXPECT_EQ(d.bbr().snd_cwnd(), 114u);
}

// bbr_extra_acked_win_rtts: with the default 5 the burst's 40 packets of
// extra_acked age out within 10 rounds of ACKs at the estimated rate once
// a late ACK has restarted the aggregation epoch; at
// 32 the kernel's 5-bit round counter (capped at 31) never reaches the
// window, and the 40 stay.
TEST(LinuxBbrTest, ExtraAckedWindowOf32NeverAges) {
  LinuxBbrOptions kept_options;
  kept_options.extra_acked_win_rounds = 32;
  BbrDriver ageing;
  BbrDriver kept(kept_options);
  for (BbrDriver* d : {&ageing, &kept}) {
    int64_t now = ReachProbeBw(*d);
    d->Ack(now += 20'000, 40, 0, 49, kRttUs, false);
    EXPECT_EQ(d->bbr().extra_acked(), 40u);
    // An ACK behind the rate restarts the epoch (1 acked <= 98 expected).
    d->Ack(now += 20'000, 1, 60, 49, kRttUs, true);
    for (int i = 0; i < 40; ++i) d->Ack(now += 1021, 5, 60, 49, kRttUs, true);
  }
  EXPECT_LT(ageing.bbr().extra_acked(), 40u);
  EXPECT_EQ(kept.bbr().extra_acked(), 40u);
}

TEST(LinuxBbrTest, RegistryTakesTheCounterfactualOptions) {
  EXPECT_TRUE(MakeController("bbr:linux,probe_rtt_ms=0,full_bw_cnt=6,"
                             "extra_acked_win=32,extra_acked_max_ms=150")
                  .ok());
  EXPECT_FALSE(MakeController("bbr:linux,full_bw_cnt=0").ok());
  EXPECT_FALSE(MakeController("bbr:linux,extra_acked_win=0").ok());
  EXPECT_FALSE(MakeController("bbr:linux,extra_acked_max_ms=5000").ok());
  EXPECT_FALSE(MakeController("bbr:linux,probe_rtt_ms=-1").ok());
}

TEST(LinuxBbrTest, RegistryBuildsItAndRejectsPhaseOne) {
  EXPECT_TRUE(MakeController("bbr:linux").ok());
  EXPECT_TRUE(MakeController("bbr:linux,phase=0").ok());
  EXPECT_FALSE(MakeController("bbr:linux,phase=1").ok());
  EXPECT_FALSE(MakeController("bbr:linux,phase=8").ok());
}

}  // namespace
}  // namespace ccreplay
