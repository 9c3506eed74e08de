#include "replay/sim/simulation.h"

#include <algorithm>
#include <cmath>
#include <memory>
#include <vector>

#include "gtest/gtest.h"

namespace ccreplay {
namespace {

constexpr int64_t kMs = 1'000'000;
constexpr int64_t kS = 1'000'000'000;

SimulationConfig OneFlow(const std::string& cc, int64_t rate_bps,
                         int64_t rtt_ns, uint64_t buffer_bytes,
                         uint32_t packet_bytes, uint32_t ack_every) {
  SimulationConfig config;
  config.rate_bps = rate_bps;
  config.base_rtt_ns = rtt_ns;
  config.buffer_bytes = buffer_bytes;
  FlowConfig flow;
  flow.cc_spec = cc;
  flow.packet_bytes = packet_bytes;
  flow.ack_every = ack_every;
  config.flows.push_back(flow);
  return config;
}

// Times at which the flow's congestion episodes began, sampled every ms.
struct Episodes {
  std::vector<int64_t> start_ns;
  std::vector<uint64_t> egress_bytes;  // at each start
};

Episodes RunAndRecordEpisodes(Simulation& sim, int64_t end_ns) {
  Episodes episodes;
  uint64_t seen = 0;
  for (int64_t t = kMs; t <= end_ns; t += kMs) {
    sim.RunUntil(t);
    const FlowStats stats = sim.flow_stats(0);
    if (stats.sender.congestion_episodes > seen) {
      seen = stats.sender.congestion_episodes;
      episodes.start_ns.push_back(t);
      episodes.egress_bytes.push_back(stats.egress_bytes);
    }
  }
  return episodes;
}

// One Reno flow, drop-tail, 1000-byte packets at 16 Mbit/s (2000 packets/s),
// 100 ms base RTT: BDP = 200 packets, buffer B = 20 packets, ACK per packet.
//
// Textbook sawtooth (Mathis et al., "The Macroscopic Behavior of the TCP
// Congestion Avoidance Algorithm", CCR 27(3), 1997, section 2: cwnd cycles
// from W/2 to W growing one packet per round trip; with a buffer the round
// trip of window w is max(RTT0, w / C), Appenzeller et al., "Sizing Router
// Buffers", SIGCOMM 2004, section 2): W = BDP + B = 220 packets,
//   period T = sum_{w=110}^{199} 0.1 s + sum_{w=200}^{220} w / 2000 s
//            = 9 + 2.205 = 11.205 s
//   packets per period = sum_{w=110}^{220} w = 18315
//   mean rate = 18315 * 8000 bit / 11.205 s = 13.08 Mbit/s (81.7 %)
// Cross-check: python3 -c "T=sum(0.1 if w<200 else w/2000 for w in
//   range(110,221)); P=sum(range(110,221)); print(T, P*8000/T/1e6)"
//   -> 11.205 13.076
TEST(Simulation, RenoSawtoothMatchesTheTextbook) {
  absl::StatusOr<std::unique_ptr<Simulation>> sim = Simulation::Create(
      OneFlow("reno", 16'000'000, 100 * kMs, 20'000, 1000, /*ack_every=*/1));
  ASSERT_TRUE(sim.ok()) << sim.status();
  const Episodes episodes = RunAndRecordEpisodes(**sim, 100 * kS);
  // Slow-start exit, then a sawtooth every ~11 s.
  ASSERT_GE(episodes.start_ns.size(), 7u);
  const size_t first = 2, last = episodes.start_ns.size() - 1;
  const double span_s =
      static_cast<double>(episodes.start_ns[last] - episodes.start_ns[first]) /
      kS;
  const double period_s = span_s / static_cast<double>(last - first);
  const double rate_bps = 8.0 *
                          static_cast<double>(episodes.egress_bytes[last] -
                                              episodes.egress_bytes[first]) /
                          span_s;
  EXPECT_NEAR(period_s, 11.205, 11.205 * 0.04);
  EXPECT_NEAR(rate_bps, 13.08e6, 13.08e6 * 0.04);
  // Drop-tail with a sawtooth: one drop per period, no timeouts.
  EXPECT_EQ((*sim)->flow_stats(0).sender.rtos, 0u);
}

// One CUBIC flow (RFC 9438) with a buffer of one BDP: after a loss the window
// falls to 0.7 * 2 BDP = 1.4 BDP > BDP, so the link never idles (the
// "Sizing Router Buffers" rule B = BDP for one flow, with beta 0.7).
TEST(Simulation, CubicWithOneBdpBufferFillsTheLink) {
  // 50 Mbit/s, 40 ms: BDP = 250,000 bytes.
  absl::StatusOr<std::unique_ptr<Simulation>> sim = Simulation::Create(
      OneFlow("cubic", 50'000'000, 40 * kMs, 250'000, 1448, 2));
  ASSERT_TRUE(sim.ok()) << sim.status();
  (*sim)->RunUntil(5 * kS);
  const uint64_t warm_bytes = (*sim)->flow_stats(0).egress_bytes;
  (*sim)->RunUntil(65 * kS);
  const double utilization =
      8.0 *
      static_cast<double>((*sim)->flow_stats(0).egress_bytes - warm_bytes) /
      (50e6 * 60);
  EXPECT_GT(utilization, 0.98);
  // At most the one packet on the wire at the 5 s mark counts twice.
  EXPECT_LE(utilization, 1.0 + 1448 * 8 / (50e6 * 60));
  EXPECT_GE((*sim)->flow_stats(0).sender.congestion_episodes, 3u);
}

TEST(Simulation, SameConfigurationSameResult) {
  SimulationConfig config =
      OneFlow("cubic", 20'000'000, 30 * kMs, 60'000, 1280, 2);
  config.random_loss = 0.01;
  config.seed = 7;
  auto a = Simulation::Create(config);
  auto b = Simulation::Create(config);
  ASSERT_TRUE(a.ok() && b.ok());
  (*a)->RunUntil(3 * kS);
  (*b)->RunUntil(3 * kS);
  EXPECT_EQ((*a)->events_processed(), (*b)->events_processed());
  EXPECT_EQ((*a)->flow_stats(0).egress_bytes, (*b)->flow_stats(0).egress_bytes);
  EXPECT_GT((*a)->flow_stats(0).random_losses, 0u);
  config.seed = 8;
  auto c = Simulation::Create(config);
  ASSERT_TRUE(c.ok());
  (*c)->RunUntil(3 * kS);
  EXPECT_NE((*a)->events_processed(), (*c)->events_processed());
}

// Per-packet sender jitter (sender_jitter.h): a run is a pure function of
// its seed, another seed gives another run, and the jitter never reorders a
// flow's packets: with a buffer no window reaches there are no drops, so
// any retransmission would be a reordering taken for a loss. A receive
// window below the BDP keeps the queue empty, so the jitter shows in every
// RTT sample instead of being absorbed by a standing queue.
TEST(Simulation, SenderJitterIsSeededAndKeepsOrder) {
  // 10 Mbit/s, 20 ms: BDP 25 packets of 1000 bytes; one service time of a
  // 1000-byte packet is 800 us.
  SimulationConfig config =
      OneFlow("reno", 10'000'000, 20 * kMs, 10'000'000, 1000, 2);
  config.flows[0].receive_window_bytes = 20'000;
  config.sender_jitter = *ParseSenderJitter("service");
  config.seed = 7;
  auto a = Simulation::Create(config);
  auto b = Simulation::Create(config);
  config.seed = 8;
  auto c = Simulation::Create(config);
  config.sender_jitter = SenderJitterSpec();
  auto off = Simulation::Create(config);
  ASSERT_TRUE(a.ok() && b.ok() && c.ok() && off.ok());
  for (auto* sim : {&a, &b, &c, &off}) (**sim)->RunUntil(2 * kS);
  EXPECT_EQ((*a)->events_processed(), (*b)->events_processed());
  EXPECT_EQ((*a)->sender(0).srtt_ns(), (*b)->sender(0).srtt_ns());
  EXPECT_NE((*a)->sender(0).srtt_ns(), (*c)->sender(0).srtt_ns());
  for (auto* sim : {&a, &c}) {
    const FlowStats stats = (**sim)->flow_stats(0);
    EXPECT_GT(stats.sender.packets_sent, 1000u);
    EXPECT_EQ(stats.drops, 0u);
    EXPECT_EQ(stats.sender.retransmissions, 0u);
  }
  // The jitter adds to the path: the smoothed RTT is larger than without
  // it, by at most one bound (800 us).
  EXPECT_GT((*a)->sender(0).srtt_ns(), (*off)->sender(0).srtt_ns());
  EXPECT_LE((*a)->sender(0).srtt_ns(), (*off)->sender(0).srtt_ns() + 800'000);
}

// Prague v0.5's .ssthresh hook returns max(cwnd, ssthresh), which is the
// initial infinite ssthresh, and its slow start returns before the step
// that applies the loss backlog (tcp_prague.c v0.5 (L4STeam/l4steam.github.io @
// 0125ddd7), prague_ssthresh() and prague_cong_control()): on a drop-tail path
// without CE marks the flow never leaves slow start and cwnd grows by one
// segment per delivered segment. A receive window bounds it as in a real stack:
// once cwnd exceeds the window the flow is not cwnd-limited, the backlog step
// runs and sets ssthresh.
TEST(Simulation, PragueV05WithoutCeLeavesSlowStartOnlyUnderAReceiveWindow) {
  // 100 Mbit/s, 10 ms: BDP 125 kB, buffer 125 kB.
  SimulationConfig config =
      OneFlow("prague:v05", 100'000'000, 10 * kMs, 125'000, 1448, 2);
  config.flows[0].pacing = true;
  auto unbounded = Simulation::Create(config);
  config.flows[0].receive_window_bytes = 1'000'000;
  auto bounded = Simulation::Create(config);
  ASSERT_TRUE(unbounded.ok() && bounded.ok());
  (*unbounded)->RunUntil(2 * kS);
  (*bounded)->RunUntil(2 * kS);
  const Sender& storm = (*unbounded)->sender(0);
  EXPECT_EQ(storm.controller().ssthresh_bytes(), kNoSsthreshBytes);
  EXPECT_GT((*unbounded)->flow_stats(0).sender.congestion_episodes, 1u);
  // 2 s at 100 Mbit/s deliver ~17,000 packets; the unbounded window is of
  // that order (it grows with every delivered segment).
  EXPECT_GT(storm.controller().cwnd_bytes(), 10'000'000u);
  const Sender& sane = (*bounded)->sender(0);
  EXPECT_NE(sane.controller().ssthresh_bytes(), kNoSsthreshBytes);
  EXPECT_LE(sane.bytes_in_flight(), 1'000'000u);
  EXPECT_LT((*bounded)->flow_stats(0).sender.retransmissions,
            (*unbounded)->flow_stats(0).sender.retransmissions / 10);
}

// A flow with a stop time sends nothing from then on: its counters freeze
// once what it had in flight is acknowledged, while a second flow goes on.
TEST(Simulation, AStoppedFlowSendsNothingMore) {
  // 10 Mbit/s, 20 ms, a buffer no window reaches before 1 s.
  SimulationConfig config =
      OneFlow("reno", 10'000'000, 20 * kMs, 10'000'000, 1000, 2);
  config.flows.push_back(config.flows[0]);
  config.flows[0].stop_ns = 500 * kMs;
  auto sim = Simulation::Create(config);
  ASSERT_TRUE(sim.ok());
  (*sim)->RunUntil(500 * kMs);
  const uint64_t sent_at_stop = (*sim)->flow_stats(0).sender.packets_sent;
  const uint64_t other_at_stop = (*sim)->flow_stats(1).sender.packets_sent;
  EXPECT_GT(sent_at_stop, 100u);
  (*sim)->RunUntil(2 * kS);
  const FlowStats stopped = (*sim)->flow_stats(0);
  EXPECT_EQ(stopped.sender.packets_sent, sent_at_stop);
  EXPECT_EQ(stopped.sender.bytes_acked, stopped.sender.bytes_sent);
  EXPECT_EQ((*sim)->sender(0).bytes_in_flight(), 0u);
  // 1.5 s more at 10 Mbit/s is ~1,875 packets of 1000 bytes for the other.
  EXPECT_GT((*sim)->flow_stats(1).sender.packets_sent, other_at_stop + 1500);
}

// The clamp (Linux snd_cwnd_clamp) holds the flight at N packets on a path
// whose BDP is twice that, without loss; the controller stops growing once
// past it (it is not cwnd-limited there).
TEST(Simulation, ACwndClampHoldsTheFlight) {
  // 10 Mbit/s, 40 ms: a BDP of 50 packets of 1000 bytes.
  SimulationConfig config =
      OneFlow("cubic:linux", 10'000'000, 40 * kMs, 10'000'000, 1000, 2);
  config.flows[0].cwnd_clamp_packets = 25;
  auto sim = Simulation::Create(config);
  ASSERT_TRUE(sim.ok());
  uint64_t most_in_flight = 0;
  for (int64_t t = kMs; t <= 3 * kS; t += kMs) {
    (*sim)->RunUntil(t);
    most_in_flight =
        std::max(most_in_flight, (*sim)->sender(0).bytes_in_flight());
  }
  EXPECT_EQ(most_in_flight, 25'000u);
  EXPECT_EQ((*sim)->flow_stats(0).sender.retransmissions, 0u);
  EXPECT_LT((*sim)->sender(0).controller().cwnd_bytes(), 2 * 25'000u);
  // Half the link: ~3 s x 10 Mbit/s / 2 = 1.9 MB, less the first RTTs.
  EXPECT_NEAR((*sim)->flow_stats(0).sender.bytes_acked, 1'800'000, 150'000);
}

// Set mid-flow (a sock_ops program), the clamp takes effect at once: the
// flight, above it before, never exceeds it once an RTT has passed.
TEST(Simulation, ACwndClampSetMidFlow) {
  // 10 Mbit/s, 40 ms: a BDP of 50 packets of 1000 bytes, as much buffer
  // (the RTT stays within 80 ms).
  SimulationConfig config =
      OneFlow("cubic:linux", 10'000'000, 40 * kMs, 50'000, 1000, 2);
  config.flows[0].cwnd_clamp_packets = 20;
  config.flows[0].cwnd_clamp_from_ns = 2 * kS;
  auto sim = Simulation::Create(config);
  ASSERT_TRUE(sim.ok());
  uint64_t most_before = 0, most_after = 0;
  for (int64_t t = kMs; t <= 4 * kS; t += kMs) {
    (*sim)->RunUntil(t);
    const uint64_t flight = (*sim)->sender(0).bytes_in_flight();
    if (t < 2 * kS) most_before = std::max(most_before, flight);
    if (t > 2 * kS + 160 * kMs) most_after = std::max(most_after, flight);
  }
  EXPECT_GT(most_before, 40'000u);
  EXPECT_EQ(most_after, 20'000u);
}

// Records when each ACK left the receiver.
class AckTimes : public PacketObserver {
 public:
  void OnFlowStart(uint32_t, int64_t, const FlowConfig&, EcnFeedback) override {
  }
  void OnDataSent(const SimPacket&) override {}
  void OnAckReceived(const SimAck& ack) override {
    sent_ns.push_back(ack.sent_ns);
    arrival_ns.push_back(ack.arrival_ns);
  }
  std::vector<int64_t> sent_ns, arrival_ns;
};

// BottleneckDelivery::kAtStart (quicly's net_bottleneck_run() forwards the
// packet it starts to send): at 10 Mbit/s a 1250-byte packet takes 1 ms on
// the wire, so each packet of the initial window reaches the receiver, and
// its ACK leaves, exactly 1 ms sooner than when its last bit has left.
TEST(Simulation, DeliveryAtTheStartOfTransmissionSkipsTheServiceTime) {
  auto run = [](BottleneckDelivery delivery) {
    SimulationConfig config =
        OneFlow("reno", 10'000'000, 10 * kMs, 1'000'000, 1250, 1);
    config.delivery = delivery;
    AckTimes acks;
    auto sim = Simulation::Create(config, &acks);
    EXPECT_TRUE(sim.ok());
    (*sim)->RunUntil(40 * kMs);
    return acks;
  };
  const AckTimes at_end = run(BottleneckDelivery::kAtLastBit);
  const AckTimes at_start = run(BottleneckDelivery::kAtStart);
  ASSERT_GE(at_end.sent_ns.size(), 10u);
  ASSERT_GE(at_start.sent_ns.size(), 10u);
  for (size_t i = 0; i < 10; ++i) {
    EXPECT_EQ(at_end.sent_ns[i] - at_start.sent_ns[i], kMs) << i;
    // The first packet starts at once and the others queue behind it.
    EXPECT_EQ(at_start.sent_ns[i] - at_start.sent_ns[0],
              static_cast<int64_t>(i) * kMs)
        << i;
  }
}

// ACK aggregation on the return path (FlowConfig::ack_hold_ns): with a
// 30-ms hold every 100 ms on a 10-ms path, an ACK the receiver sends in
// the first 30 ms of a period reaches the sender 30 ms after the period
// began plus the 5-ms return delay, the others 5 ms after they left; the
// sender then sees ACK silences of at least the hold.
TEST(Simulation, AckHoldReleasesTheHeldAcksTogether) {
  SimulationConfig config =
      OneFlow("cubic", 50'000'000, 10 * kMs, 62'500, 1448, 2);
  config.flows[0].ack_hold_ns = 30 * kMs;
  config.flows[0].ack_hold_period_ns = 100 * kMs;
  AckTimes acks;
  auto sim = Simulation::Create(config, &acks);
  ASSERT_TRUE(sim.ok());
  (*sim)->RunUntil(kS);
  ASSERT_GT(acks.sent_ns.size(), 1000u);
  int held = 0;
  int64_t longest_gap = 0;
  for (size_t i = 0; i < acks.sent_ns.size(); ++i) {
    const int64_t into = acks.sent_ns[i] % (100 * kMs);
    const int64_t leaves =
        into < 30 * kMs ? acks.sent_ns[i] - into + 30 * kMs : acks.sent_ns[i];
    held += into < 30 * kMs;
    EXPECT_EQ(acks.arrival_ns[i], leaves + 5 * kMs) << i;
    if (i > 0) {
      longest_gap =
          std::max(longest_gap, acks.arrival_ns[i] - acks.arrival_ns[i - 1]);
    }
  }
  EXPECT_GT(held, 100);
  EXPECT_GE(longest_gap, 30 * kMs);
}

// The GRO flush timer: with ACK every 64 and two packets in flight, the
// first ACK leaves the receiver one flush timeout after the first packet
// arrived: 200 us of propagation + 11.584 us of serialization (1448 B at 1
// Gbit/s) + 500 us.
TEST(Simulation, GroFlushTimerFiresAfterTheTimeout) {
  SimulationConfig config =
      OneFlow("reno", 1'000'000'000, 400'000, 1'000'000, 1448, 64);
  config.flows[0].delayed_ack_ns = 500'000;
  config.flows[0].cwnd_clamp_packets = 2;
  AckTimes acks;
  auto sim = Simulation::Create(config, &acks);
  ASSERT_TRUE(sim.ok());
  (*sim)->RunUntil(2 * kMs);
  ASSERT_FALSE(acks.sent_ns.empty());
  EXPECT_EQ(acks.sent_ns[0], 200'000 + 11'584 + 500'000);
}

// quicly's timer rule (FlowConfig::timer_granularity_ns): a timer set at t
// for d fires at max(t, floor_ms(t) + d + 0.1 ms), the arithmetic of
// h2o/quicly t/simulator.c @ b11d3634 (quic_now_cb() truncates to ms,
// net_endpoint_next_run_at() adds 0.0001 s and never goes below now).
TEST(Simulation, TimerTickReleaseFollowsQuiclysClock) {
  EXPECT_EQ(TimerTickRelease(5'250'000, 0, kMs), 5'250'000);  // past 0.1 ms
  EXPECT_EQ(TimerTickRelease(5'040'000, 0, kMs), 5'100'000);  // waits
  EXPECT_EQ(TimerTickRelease(5'000'000, 0, kMs), 5'100'000);  // on the tick
  EXPECT_EQ(TimerTickRelease(5'100'000, 0, kMs), 5'100'000);
  EXPECT_EQ(TimerTickRelease(5'999'999, 25 * kMs, kMs), 30'100'000);
  EXPECT_EQ(TimerTickRelease(5'999'999, 25 * kMs, 0), 30'999'999);  // off
}

// With the receiver on a 1-ms clock every immediate ACK of a bulk CUBIC
// flow (50 Mbit/s, 10 ms, 1448-byte packets: one every 231.68 us, an ACK
// every 2) leaves at max(t, floor_ms(t) + 0.1 ms), so no ACK leaves in the
// first 0.1 ms of a millisecond; the same run without the clock has ACKs
// there (packets arrive at phases spread over the ms), which the clock
// moves.
TEST(Simulation, AcksOnAMillisecondClockLeaveAfterTheTick) {
  auto run = [](int64_t granularity_ns) {
    SimulationConfig config =
        OneFlow("cubic", 50'000'000, 10 * kMs, 62'500, 1448, 2);
    config.flows[0].timer_granularity_ns = granularity_ns;
    AckTimes acks;
    auto sim = Simulation::Create(config, &acks);
    EXPECT_TRUE(sim.ok());
    (*sim)->RunUntil(kS);
    return acks;
  };
  const AckTimes off = run(0);
  const AckTimes on = run(kMs);
  ASSERT_GT(on.sent_ns.size(), 1000u);
  int early_off = 0;
  for (size_t i = 0; i < off.sent_ns.size(); ++i) {
    EXPECT_EQ(off.arrival_ns[i], off.sent_ns[i] + 5 * kMs) << i;
    early_off += off.sent_ns[i] % kMs < 100'000;
  }
  int moved = 0;
  for (size_t i = 0; i < on.sent_ns.size(); ++i) {
    const int64_t leaves = on.arrival_ns[i] - 5 * kMs;
    EXPECT_GE(leaves % kMs, 100'000) << i;
    EXPECT_EQ(leaves, std::max(on.sent_ns[i],
                               on.sent_ns[i] - on.sent_ns[i] % kMs + 100'000))
        << i;
    moved += leaves != on.sent_ns[i];
  }
  // About a tenth of the ACKs fall in the first 0.1 ms without the clock.
  EXPECT_GT(early_off, static_cast<int>(off.sent_ns.size() / 20));
  EXPECT_GT(moved, static_cast<int>(on.sent_ns.size() / 20));
}

// The delayed ACK on the 1-ms clock: with ACK every 64 and two packets in
// flight (as the GRO test above), the first packet arrives at 211,584 ns
// (200 us of propagation + 11.584 us of serialization), in the tick that
// starts at 0, so the 25-ms timer (quicly's QUICLY_DELAYED_ACK_TIMEOUT)
// fires at 0 + 25 ms + 0.1 ms, not at 25.211584 ms.
TEST(Simulation, DelayedAckOnAMillisecondClockCountsFromTheTick) {
  SimulationConfig config =
      OneFlow("reno", 1'000'000'000, 400'000, 1'000'000, 1448, 64);
  config.flows[0].delayed_ack_ns = 25 * kMs;
  config.flows[0].cwnd_clamp_packets = 2;
  config.flows[0].timer_granularity_ns = kMs;
  AckTimes acks;
  auto sim = Simulation::Create(config, &acks);
  ASSERT_TRUE(sim.ok());
  (*sim)->RunUntil(30 * kMs);
  ASSERT_FALSE(acks.sent_ns.empty());
  EXPECT_EQ(acks.sent_ns[0], 25'100'000);
  EXPECT_EQ(acks.arrival_ns[0], 25'100'000 + 200'000);
}

// Back-to-back packets leave a 10 Gbit/s NIC one serialization time (1448 B
// x 8 / 10 Gbit/s = 1158 ns) apart; the bottleneck (100 Gbit/s) keeps that
// spacing and an ACK per packet shows it: the initial window of 10, sent at
// once, gives 9 gaps of 1158 ns. Without the NIC the bottleneck alone
// spaces them 1448 x 8 / 100 Gbit/s = 115.84 ns (115 or 116).
TEST(Simulation, ANicSerializesBackToBackPacketsAtLineRate) {
  auto first_gaps = [](int64_t nic_rate_bps) {
    SimulationConfig config =
        OneFlow("reno", 100'000'000'000, 400'000, 10'000'000, 1448, 1);
    config.flows[0].pacing = true;
    config.flows[0].tso_burst_shift = 12;
    config.flows[0].nic_rate_bps = nic_rate_bps;
    AckTimes acks;
    auto sim = Simulation::Create(config, &acks);
    EXPECT_TRUE(sim.ok());
    (*sim)->RunUntil(kMs / 2);  // the first round only
    std::vector<int64_t> gaps;
    for (size_t k = 1; k < acks.sent_ns.size(); ++k) {
      gaps.push_back(acks.sent_ns[k] - acks.sent_ns[k - 1]);
    }
    return gaps;
  };
  // +-1 ns: the bottleneck rounds each 115.84 ns serialization.
  const std::vector<int64_t> nic_gaps = first_gaps(10'000'000'000);
  ASSERT_EQ(nic_gaps.size(), 9u);
  for (int64_t gap : nic_gaps) EXPECT_NEAR(gap, 1158, 1);
  const std::vector<int64_t> link_gaps = first_gaps(0);
  ASSERT_EQ(link_gaps.size(), 9u);
  for (int64_t gap : link_gaps) {
    EXPECT_GE(gap, 115);
    EXPECT_LE(gap, 116);
  }
}

// tcp_tso_autosize() and Prague v0.5's .tso_segs at 1 Gbit/s, 1448-byte
// segments: 125e6 B/s >> 12 = 30517 B = 21 segments; >> 10 = 122070 B,
// capped at 64 KB = 45 segments; at 10 Mbit/s the minimum of 2.
TEST(Simulation, TsoBurstPacketsFollowThePacingRate) {
  EXPECT_EQ(TsoBurstPackets(1e9, 12, 1448), 21u);
  EXPECT_EQ(TsoBurstPackets(1e9, 10, 1448), 45u);
  EXPECT_EQ(TsoBurstPackets(1e7, 10, 1448), 2u);
}

TEST(Simulation, RejectsBadConfigurations) {
  SimulationConfig config =
      OneFlow("nosuchcc", 1'000'000, kMs, 10'000, 1000, 2);
  EXPECT_EQ(Simulation::Create(config).status().code(),
            absl::StatusCode::kInvalidArgument);
  config = OneFlow("reno:mss=1200", 1'000'000, kMs, 10'000, 1000, 2);
  EXPECT_EQ(Simulation::Create(config).status().code(),
            absl::StatusCode::kInvalidArgument);
  config = OneFlow("reno", 1'000'000, kMs, 500, 1000, 2);
  EXPECT_EQ(Simulation::Create(config).status().code(),
            absl::StatusCode::kInvalidArgument);
  config = OneFlow("reno", 1'000'000, kMs, 10'000, 1000, 2);
  config.flows[0].timer_granularity_ns = -1;
  EXPECT_EQ(Simulation::Create(config).status().code(),
            absl::StatusCode::kInvalidArgument);
}

}  // namespace
}  // namespace ccreplay
