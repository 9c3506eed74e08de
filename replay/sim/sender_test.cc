#include "replay/sim/sender.h"

#include <memory>
#include <vector>

#include "gtest/gtest.h"

namespace ccreplay {
namespace {

// Records what the sender tells its controller; a fixed, large window.
class Recorder : public CongestionController {
 public:
  explicit Recorder(std::vector<AckEvent>* acks) : acks_(acks) {}
  void OnAck(const AckEvent& ack) override { acks_->push_back(ack); }
  void OnLoss(const LossEvent&) override {}
  void OnPacketSent(const PacketSentEvent&) override {}
  void OnIdleRestart(const IdleRestartEvent&) override {}
  uint64_t cwnd_bytes() const override { return 100 * 1448; }
  double cwnd_segments() const override { return 100; }
  uint64_t ssthresh_bytes() const override { return kNoSsthreshBytes; }
  std::optional<double> pacing_rate_bps() const override {
    return std::nullopt;
  }
  ControllerState state() const override { return {}; }
  std::unique_ptr<CongestionController> Clone() const override {
    return std::make_unique<Recorder>(*this);
  }

 private:
  std::vector<AckEvent>* acks_;
};

constexpr int64_t kUs = 1000;

// Three packets, each acknowledged alone: sent at 1.4, 5.9 and 7.1 ms,
// acknowledged at 3.2, 6.1 and 7.8 ms (exact RTTs 1.8, 0.2 and 0.7 ms).
std::vector<AckEvent> ThreeExchanges(int64_t clock_ns) {
  SenderConfig config;
  config.clock_ns = clock_ns;
  std::vector<AckEvent> acks;
  Sender sender(config, std::make_unique<Recorder>(&acks));
  const int64_t sent[] = {1400 * kUs, 5900 * kUs, 7100 * kUs};
  const int64_t acked[] = {3200 * kUs, 6100 * kUs, 7800 * kUs};
  for (int i = 0; i < 3; ++i) {
    const SimPacket p = sender.Send(sent[i]);
    SimAck ack;
    ack.pn_first = p.pn;
    ack.pn_last = p.pn;
    ack.cumulative_ack = p.seq + p.bytes;
    sender.OnAck(ack, acked[i]);
  }
  return acks;
}

// One field of each ACK event, in order.
std::vector<int64_t> Column(const std::vector<AckEvent>& acks,
                            int64_t AckEvent::*field) {
  std::vector<int64_t> values;
  for (const AckEvent& a : acks) values.push_back(a.*field);
  return values;
}
std::vector<int64_t> Us(std::vector<int64_t> values) { return values; }

// quicly's clock (h2o/quicly include/quicly/loss.h @ 026098dc,
// quicly_rtt_update()): whole-ms samples 3 - 1 = 2, 6 - 5 = 1 and 7 - 7 =
// 0, raised to 1; smoothed 2, then (7 x 2 + 1) / 8 = 1 and (7 + 1) / 8 = 1
// in integer ms; the controller's time the ACKs' ms.
TEST(SenderTest, ClockOfAMillisecondTicksRttAndControllerTime) {
  const std::vector<AckEvent> acks = ThreeExchanges(1'000'000);
  ASSERT_EQ(acks.size(), 3u);
  EXPECT_EQ(Column(acks, &AckEvent::time_us), Us({3000, 6000, 7000}));
  EXPECT_EQ(Column(acks, &AckEvent::rtt_sample_us), Us({2000, 1000, 1000}));
  EXPECT_EQ(Column(acks, &AckEvent::srtt_us), Us({2000, 1000, 1000}));
  EXPECT_EQ(acks[2].min_rtt_us, 1000);
}

// Without a clock the same exchange gives RFC 6298's averages of the exact
// samples: 1.8; (7 x 1.8 + 0.2) / 8 = 1.6; (7 x 1.6 + 0.7) / 8 = 1.4875 ms.
TEST(SenderTest, WithoutAClockTimesAreExact) {
  const std::vector<AckEvent> acks = ThreeExchanges(0);
  ASSERT_EQ(acks.size(), 3u);
  EXPECT_EQ(Column(acks, &AckEvent::time_us), Us({3200, 6100, 7800}));
  EXPECT_EQ(Column(acks, &AckEvent::rtt_sample_us), Us({1800, 200, 700}));
  EXPECT_EQ(Column(acks, &AckEvent::srtt_us), Us({1800, 1600, 1487}));
  EXPECT_EQ(acks[2].min_rtt_us, 200);
}

}  // namespace
}  // namespace ccreplay
