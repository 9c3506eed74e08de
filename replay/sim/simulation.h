// The closed-loop path simulator: flows, each a bulk sender driven by a
// reference controller (sender.h) and a receiver (receiver.h), share one
// bottleneck (bottleneck.h).
//
//   sender_i --(base_rtt_i / 2)--> bottleneck --> receiver_i
//   sender_i <--(base_rtt_i / 2)-- receiver_i            (ACKs, no queue)
//
// Discrete events on integer nanoseconds (event_queue.h); the per-flow delay
// lines are FIFOs whose head alone is scheduled. A run is a pure function of
// its configuration (the seed drives the optional random loss and the
// optional per-packet sender jitter, sender_jitter.h), and
// per-packet work allocates nothing once the buffers have reached their
// working size.
#ifndef CCREPLAY_REPLAY_SIM_SIMULATION_H_
#define CCREPLAY_REPLAY_SIM_SIMULATION_H_

#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <random>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "replay/series.h"
#include "replay/sim/bottleneck.h"
#include "replay/sim/event_queue.h"
#include "replay/sim/receiver.h"
#include "replay/sim/sender.h"
#include "replay/sim/sender_jitter.h"
#include "replay/sim/sim_packet.h"

namespace ccreplay {

struct FlowConfig {
  // A spec for MakeController(). Its `mss=`, when set, must agree with
  // packet_bytes; when unset, the controller is made with packet_bytes.
  std::string cc_spec = "reno";
  // When set, makes the flow's controller instead of cc_spec (which still
  // picks the ECN feedback): tests drive deliberately broken controllers.
  std::function<std::unique_ptr<CongestionController>()> make_controller;
  uint32_t packet_bytes = 1448;
  bool pacing = false;
  int64_t start_ns = 0;
  // When the sender stops: from then on it sends nothing, new data or
  // retransmission (the application closed; in-flight packets are still
  // delivered and acknowledged). -1: never.
  int64_t stop_ns = -1;
  int64_t base_rtt_ns = -1;  // -1: the path's
  // Unset: AccECN for Prague, DCTCP feedback for DCTCP, otherwise RFC 3168
  // when the bottleneck marks CE and no ECN when it does not.
  std::optional<EcnFeedback> feedback;
  uint32_t ack_every = 2;
  // Linux TCP_DELACK_MIN (include/net/tcp.h: HZ / 25).
  int64_t delayed_ack_ns = 40'000'000;
  // ACK aggregation on the return path, as Wi-Fi, cellular and cable
  // links and ACK-decimating middleboxes give (Linux commit 78dc70ebaa38,
  // "tcp_bbr: adapt cwnd based on ack aggregation estimation", 2019): in
  // every period of `ack_hold_period_ns` from the flow's start, the ACKs
  // the receiver sends during the first `ack_hold_ns` are held and leave
  // together when the hold ends. hold == period: one ACK burst per period.
  // 0: no hold.
  int64_t ack_hold_ns = 0;
  int64_t ack_hold_period_ns = 0;
  // An application that writes `app_write_bytes` at a time, at
  // `app_rate_bps`, until `app_limited_until_ns`, and from then on always
  // has data (the lab's built-in sender with --app_limited_rate writes 16
  // KB at a time). 0: a bulk sender from the start.
  int64_t app_rate_bps = 0;
  int64_t app_limited_until_ns = 0;
  uint32_t app_write_bytes = 16384;
  // With app_rate_bps: a first write of this many bytes at the flow's
  // start, before the writes at the rate (which queue behind it): a bulk
  // phase that measures the path, then the application-limited one. 0:
  // none.
  uint64_t app_first_write_bytes = 0;
  // The receiver's advertised window; 0: unlimited (a bulk sender is then
  // bounded by cwnd alone).
  uint64_t receive_window_bytes = 0;
  // A cap on the sender's window in packets, as the Linux sender's
  // snd_cwnd_clamp, from `cwnd_clamp_from_ns` on. A locked route metric
  // (`ip route ... cwnd N lock`) sets it when the connection starts
  // (net/ipv4/tcp_metrics.c tcp_init_metrics(), Linux 6.18); a sock_ops
  // BPF program may set it at any time (bpf_setsockopt()
  // TCP_BPF_SNDCWND_CLAMP, net/core/filter.c, Linux 6.18). 0: none.
  // Applied by the sender, not the controller (sender.h), so a replay of
  // the same controller does not know about it.
  uint32_t cwnd_clamp_packets = 0;
  int64_t cwnd_clamp_from_ns = 0;
  // Immediate ACKs while data is missing (receiver.h); ours by default.
  RecoveryAcks recovery_acks = RecoveryAcks::kEveryPacketWhileHole;
  // TSO bursts of a paced sender: when a pacing slot comes, up to
  // TsoBurstPackets(pacing rate, shift) packets leave together and the next
  // slot is as many pacing gaps later, as Linux's EDT pacing of a TSO skb
  // (net/ipv4/tcp_output.c tcp_update_skb_after_send(), Linux 6.18: wstamp
  // advances by the skb's length / pacing rate). 10: tcp_tso_autosize(),
  // 12: Prague v0.5's .tso_segs (sender.h). 0: one packet per slot.
  uint32_t tso_burst_shift = 0;
  // The sender NIC's line rate: back-to-back packets leave it one
  // serialization time apart (a 10 Gb/s NIC sends a 64 KB TSO burst in 52
  // us). 0: no NIC, packets leave when sent.
  int64_t nic_rate_bps = 0;
  // The receiver's ACK timers on a clock of this tick, as quicly's endpoint
  // in its simulator (h2o/quicly t/simulator.c and lib/quicly.c @
  // b11d3634): quicly's clock is whole milliseconds (quic_now_cb() returns
  // (int64_t)(now * 1000)); record_receipt() sets send_ack_at to the
  // packet's receipt time in those ms for an immediate ACK, + 25 ms
  // (QUICLY_DELAYED_ACK_TIMEOUT) for a delayed one; the simulator runs an
  // endpoint at max(now, quicly_get_first_timeout() / 1000 + 0.0001 s)
  // (net_endpoint_next_run_at()). So an immediate ACK due at t leaves at
  // max(t, tick(t) + 0.1 ms) and a delayed one at tick(t) + delay + 0.1 ms
  // (TimerTickRelease()). The sender is not affected: with no pacer
  // quicly_get_first_timeout() returns 0 while it can send, so it sends at
  // once. 0: no clock, ACKs leave when due.
  int64_t timer_granularity_ns = 0;
  // The sender's clock, as quicly's (the same sources): its RTT samples,
  // smoothed RTT and the times its controller is told in whole ticks of
  // this size (SenderConfig::clock_ns). 0: exact.
  int64_t sender_clock_ns = 0;
};

// The slack quicly's simulator adds to every timeout "to avoid the timer
// firing earlier than specified due to rounding error" (0.0001 s,
// net_endpoint_next_run_at(), h2o/quicly t/simulator.c @ b11d3634).
inline constexpr int64_t kQuiclyTimerSlackNs = 100'000;

// When a timer set at `now_ns` to fire `delay_ns` later fires on a clock of
// `granularity_ns` ticks (FlowConfig::timer_granularity_ns): the delay
// counts from the tick `now_ns` falls in, plus kQuiclyTimerSlackNs, and
// never before `now_ns`. granularity_ns <= 0: now_ns + delay_ns.
int64_t TimerTickRelease(int64_t now_ns, int64_t delay_ns,
                         int64_t granularity_ns);

struct SimulationConfig {
  int64_t rate_bps = 0;
  int64_t base_rtt_ns = 0;
  uint64_t buffer_bytes = 0;
  AdmissionPolicy admission = AdmissionPolicy::kPacketSizeNeutral;
  // Whether the packet in service counts against the buffer
  // (bottleneck.h); ours by default.
  InServiceAccounting in_service = InServiceAccounting::kUntilLastBit;
  // When a packet reaches the receiver (bottleneck.h); ours by default.
  BottleneckDelivery delivery = BottleneckDelivery::kAtLastBit;
  int64_t ce_sojourn_threshold_ns = -1;     // -1: off
  int64_t ce_backlog_threshold_bytes = -1;  // -1: off
  // Sojourn marking decided once per TSO skb (BottleneckConfig::ce_per_skb).
  bool ce_per_skb = false;
  // A token-bucket policer before the buffer (BottleneckConfig): rate and
  // burst; 0: none.
  int64_t policer_rate_bps = 0;
  uint64_t policer_burst_bytes = 0;
  // The bottleneck rate becomes `rate_after_step_bps` at `rate_step_ns`
  // (BottleneckConfig); -1: never.
  int64_t rate_step_ns = -1;
  int64_t rate_after_step_bps = 0;
  // Probability that a packet is lost after the bottleneck (quicly -r).
  double random_loss = 0;
  // A random delay per packet at each sender, against drop-tail phase
  // effects (sender_jitter.h); off by default.
  SenderJitterSpec sender_jitter;
  uint64_t seed = 1;
  std::vector<FlowConfig> flows;
  // Series sampling period; 0 records no series.
  int64_t sample_interval_ns = 0;
};

// The packet size a controller spec sets with `mss=` (cc/registry.h
// SpecMssBytes), `default_bytes` when it sets none. InvalidArgument for a
// bad spec.
absl::StatusOr<uint32_t> SpecPacketBytes(absl::string_view cc_spec,
                                         uint32_t default_bytes);

// The feedback a flow gets when FlowConfig::feedback is unset.
EcnFeedback DefaultFeedback(absl::string_view cc_spec, bool path_marks);
absl::string_view EcnFeedbackName(EcnFeedback feedback);
absl::StatusOr<EcnFeedback> ParseEcnFeedback(absl::string_view name);

// Sees what the data senders see, in time order (for the pcap export).
class PacketObserver {
 public:
  virtual ~PacketObserver() = default;
  virtual void OnFlowStart(uint32_t flow, int64_t now_ns,
                           const FlowConfig& config, EcnFeedback feedback) = 0;
  virtual void OnDataSent(const SimPacket& packet) = 0;
  virtual void OnAckReceived(const SimAck& ack) = 0;
};

struct FlowStats {
  SenderStats sender;
  uint64_t egress_bytes = 0;  // left the bottleneck
  uint64_t drops = 0;         // refused by the buffer
  uint64_t random_losses = 0;
  uint64_t ce_marked = 0;  // marked at the bottleneck
  uint64_t acks_sent = 0;
};

// One sample of the bottleneck on the series grid.
struct PathSample {
  int64_t time_us = 0;
  uint64_t queue_bytes = 0;
  double utilization = 0;  // over the interval ending here
};

class Simulation {
 public:
  // InvalidArgument for a bad controller spec or an impossible path.
  static absl::StatusOr<std::unique_ptr<Simulation>> Create(
      const SimulationConfig& config, PacketObserver* observer = nullptr);

  // Processes every event up to and including `end_ns`.
  void RunUntil(int64_t end_ns);

  int64_t now_ns() const { return now_ns_; }
  size_t flow_count() const { return flows_.size(); }
  FlowStats flow_stats(size_t i) const {
    FlowStats stats = flows_[i].stats;
    stats.sender = flows_[i].sender.stats();
    return stats;
  }
  const Sender& sender(size_t i) const { return flows_[i].sender; }
  EcnFeedback feedback(size_t i) const { return flows_[i].feedback; }
  const Bottleneck& bottleneck() const { return bottleneck_; }
  uint64_t events_processed() const { return events_processed_; }
  // Data packets sent by all flows (retransmissions included).
  uint64_t packets_sent() const;
  const std::vector<FlowSeries>& flow_series() const { return series_; }
  const std::vector<PathSample>& path_series() const { return path_series_; }
  const SimulationConfig& config() const { return config_; }

 private:
  enum EventKind : uint32_t {
    kFlowStart,
    kForwardArrival,
    kLinkDone,
    kAckArrival,
    kDelayedAck,
    kSenderTimer,
    kPacing,
    kSample,
    kCwndClamp,
    kAppWrite,
  };
  // The application's next write (FlowConfig::app_rate_bps).
  void OnAppWrite(uint32_t i);
  struct Flow {
    Flow(const SenderConfig& sender_config,
         std::unique_ptr<CongestionController> controller,
         const ReceiverConfig& receiver_config, const SenderJitter& jitter)
        : sender(sender_config, std::move(controller)),
          receiver(receiver_config),
          jitter(jitter) {}
    Sender sender;
    Receiver receiver;
    SenderJitter jitter;
    EcnFeedback feedback = EcnFeedback::kNone;
    int64_t start_ns = 0;
    int64_t stop_ns = -1;  // FlowConfig::stop_ns
    int64_t forward_delay_ns = 0;
    int64_t return_delay_ns = 0;
    int64_t delayed_ack_ns = 0;
    int64_t ack_hold_ns = 0;         // FlowConfig::ack_hold_ns
    int64_t ack_hold_period_ns = 0;  // FlowConfig::ack_hold_period_ns
    // One delayed-ACK event per flow at a time (a heap entry per armed
    // timer would keep ~rate x delay stale entries): the deadline of the
    // latest arming, its receiver generation, and the pending event's time.
    int64_t delayed_ack_deadline_ns = 0;
    uint64_t delayed_ack_generation = 0;
    int64_t delayed_ack_event_ns = Sender::kNever;
    bool started = false;
    RingBuffer<SimPacket> forward{256};
    RingBuffer<SimAck> returning{256};
    int64_t timer_event_ns = Sender::kNever;
    int64_t pacing_event_ns = Sender::kNever;
    int64_t nic_rate_bps = 0;          // FlowConfig::nic_rate_bps
    int64_t timer_granularity_ns = 0;  // FlowConfig::timer_granularity_ns
    int64_t nic_free_ns = 0;           // when the NIC has sent its last packet
    uint64_t skbs_sent = 0;            // TSO bursts so far (SimPacket::skb)
    FlowStats stats;
    uint64_t last_sample_egress_bytes = 0;
  };

  Simulation(const SimulationConfig& config, PacketObserver* observer,
             const BottleneckConfig& bottleneck);
  void Schedule(int64_t time_ns, EventKind kind, uint32_t flow);
  void Dispatch(const SimEvent& event);
  void TrySend(uint32_t flow);
  // When a packet sent now leaves the sender: after the jitter, behind the
  // NIC's previous packet.
  int64_t Departure(Flow& flow, uint32_t bytes);
  void ArmSenderTimer(uint32_t flow);
  void OnForwardArrival(uint32_t flow);
  // Starts sending the bottleneck's head packet, and delivers it at once
  // under BottleneckDelivery::kAtStart.
  void StartTransmission();
  void OnLinkDone();
  // The packet leaves the bottleneck for the receiver (after random loss).
  void Deliver(const SimPacket& packet);
  void OnAckArrival(uint32_t flow);
  void OnDelayedAckEvent(uint32_t flow);
  void SendAck(uint32_t flow, const SimAck& ack);
  void Sample();

  SimulationConfig config_;
  PacketObserver* observer_;
  Bottleneck bottleneck_;
  std::vector<Flow> flows_;
  EventQueue events_;
  int64_t now_ns_ = 0;
  uint64_t events_processed_ = 0;
  std::mt19937_64 rng_;
  Receiver::Output receiver_output_;
  std::vector<FlowSeries> series_;
  std::vector<PathSample> path_series_;
  uint64_t last_sample_link_bytes_ = 0;
};

}  // namespace ccreplay

#endif  // CCREPLAY_REPLAY_SIM_SIMULATION_H_
