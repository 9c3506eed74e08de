#include "replay/sim/simulation.h"

#include <algorithm>
#include <cmath>
#include <utility>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "cc/registry.h"
#include "parsers/tcp_segment.h"

namespace ccreplay {
namespace {

// The controller of a flow, made with the flow's packet size.
absl::StatusOr<std::unique_ptr<CongestionController>> MakeFlowController(
    const FlowConfig& flow) {
  if (flow.make_controller) return flow.make_controller();
  absl::StatusOr<ControllerSpec> spec = ControllerSpec::Parse(flow.cc_spec);
  if (!spec.ok()) return spec.status();
  absl::StatusOr<std::optional<uint32_t>> mss_bytes = SpecMssBytes(*spec);
  if (!mss_bytes.ok()) return mss_bytes.status();
  if (mss_bytes->has_value()) {
    if (**mss_bytes != flow.packet_bytes) {
      return absl::InvalidArgumentError(absl::StrCat(
          "controller spec '", flow.cc_spec, "' sets mss ", **mss_bytes,
          ", not the flow's packet size ", flow.packet_bytes));
    }
    return MakeController(*spec);
  }
  absl::StatusOr<ControllerSpec> sized =
      spec->With("mss", absl::StrCat(flow.packet_bytes));
  if (!sized.ok()) return sized.status();
  return MakeController(*sized);
}

}  // namespace

absl::StatusOr<uint32_t> SpecPacketBytes(absl::string_view cc_spec,
                                         uint32_t default_bytes) {
  absl::StatusOr<ControllerSpec> spec = ControllerSpec::Parse(cc_spec);
  if (!spec.ok()) return spec.status();
  absl::StatusOr<std::optional<uint32_t>> mss_bytes = SpecMssBytes(*spec);
  if (!mss_bytes.ok()) return mss_bytes.status();
  return mss_bytes->value_or(default_bytes);
}

EcnFeedback DefaultFeedback(absl::string_view cc_spec, bool path_marks) {
  // A spec that does not parse fails in MakeFlowController() instead.
  absl::StatusOr<ControllerSpec> spec = ControllerSpec::Parse(cc_spec);
  if (spec.ok() && spec->family == "prague") return EcnFeedback::kAccEcn;
  if (spec.ok() && spec->family == "dctcp") return EcnFeedback::kDctcp;
  return path_marks ? EcnFeedback::kRfc3168 : EcnFeedback::kNone;
}

absl::string_view EcnFeedbackName(EcnFeedback feedback) {
  switch (feedback) {
    case EcnFeedback::kNone:
      return "none";
    case EcnFeedback::kRfc3168:
      return "rfc3168";
    case EcnFeedback::kDctcp:
      return "dctcp";
    case EcnFeedback::kAccEcn:
      return "accecn";
  }
  return "none";
}

absl::StatusOr<EcnFeedback> ParseEcnFeedback(absl::string_view name) {
  for (EcnFeedback feedback : {EcnFeedback::kNone, EcnFeedback::kRfc3168,
                               EcnFeedback::kDctcp, EcnFeedback::kAccEcn}) {
    if (EcnFeedbackName(feedback) == name) return feedback;
  }
  return absl::InvalidArgumentError(
      absl::StrCat("unknown ECN feedback '", name,
                   "': expected none, rfc3168, dctcp or accecn"));
}

int64_t TimerTickRelease(int64_t now_ns, int64_t delay_ns,
                         int64_t granularity_ns) {
  if (granularity_ns <= 0) return now_ns + delay_ns;
  const int64_t tick_ns = now_ns - now_ns % granularity_ns;
  return std::max(now_ns, tick_ns + delay_ns + kQuiclyTimerSlackNs);
}

namespace {

// The bottleneck of a valid configuration, or why it is not one.
absl::StatusOr<BottleneckConfig> CheckedBottleneck(
    const SimulationConfig& config) {
  if (config.rate_bps <= 0) {
    return absl::InvalidArgumentError("the bottleneck rate must be positive");
  }
  if (config.base_rtt_ns < 0) {
    return absl::InvalidArgumentError("the base RTT must not be negative");
  }
  if (config.flows.empty()) {
    return absl::InvalidArgumentError("a simulation needs at least one flow");
  }
  if (config.random_loss < 0 || config.random_loss >= 1) {
    return absl::InvalidArgumentError("random loss must be in [0, 1)");
  }
  BottleneckConfig bottleneck;
  bottleneck.rate_bps = config.rate_bps;
  bottleneck.buffer_bytes = config.buffer_bytes;
  bottleneck.admission = config.admission;
  bottleneck.in_service = config.in_service;
  bottleneck.ce_sojourn_threshold_ns = config.ce_sojourn_threshold_ns;
  bottleneck.ce_backlog_threshold_bytes = config.ce_backlog_threshold_bytes;
  bottleneck.ce_per_skb = config.ce_per_skb;
  if (config.policer_rate_bps < 0 ||
      (config.policer_rate_bps > 0 && config.policer_burst_bytes == 0)) {
    return absl::InvalidArgumentError(
        "a policer needs a positive rate and burst");
  }
  bottleneck.policer_rate_bps = config.policer_rate_bps;
  bottleneck.policer_burst_bytes = config.policer_burst_bytes;
  if (config.rate_step_ns >= 0 && config.rate_after_step_bps <= 0) {
    return absl::InvalidArgumentError(
        "the rate after a rate step must be positive");
  }
  bottleneck.rate_step_ns = config.rate_step_ns;
  bottleneck.rate_after_step_bps = config.rate_after_step_bps;
  for (const FlowConfig& flow : config.flows) {
    if (flow.packet_bytes == 0 || flow.ack_every == 0) {
      return absl::InvalidArgumentError(
          "packet size and ack_every must be positive");
    }
    if (flow.tso_burst_shift > 30 || flow.nic_rate_bps < 0) {
      return absl::InvalidArgumentError(
          "tso_burst_shift must be in [0, 30] and the NIC rate not negative");
    }
    if (flow.timer_granularity_ns < 0 || flow.sender_clock_ns < 0) {
      return absl::InvalidArgumentError(
          "the timer granularity and the sender's clock must not be negative");
    }
    bottleneck.largest_packet_bytes =
        std::max(bottleneck.largest_packet_bytes, flow.packet_bytes);
  }
  if (bottleneck.buffer_bytes < bottleneck.largest_packet_bytes) {
    return absl::InvalidArgumentError(
        absl::StrCat("the buffer (", bottleneck.buffer_bytes,
                     " bytes) cannot hold one packet of ",
                     bottleneck.largest_packet_bytes, " bytes"));
  }
  return bottleneck;
}

SenderConfig FlowSender(uint32_t index, const FlowConfig& flow,
                        bool path_marks) {
  SenderConfig sender;
  sender.flow = index;
  sender.packet_bytes = flow.packet_bytes;
  sender.pacing = flow.pacing;
  sender.receive_window_bytes = flow.receive_window_bytes;
  sender.tso_burst_shift = flow.tso_burst_shift;
  sender.clock_ns = flow.sender_clock_ns;
  sender.application_limited = flow.app_rate_bps > 0;
  if (flow.cwnd_clamp_from_ns <= 0) {
    sender.cwnd_clamp_bytes =
        uint64_t{flow.cwnd_clamp_packets} * flow.packet_bytes;
  }
  sender.feedback =
      flow.feedback.value_or(DefaultFeedback(flow.cc_spec, path_marks));
  return sender;
}

}  // namespace

absl::StatusOr<std::unique_ptr<Simulation>> Simulation::Create(
    const SimulationConfig& config, PacketObserver* observer) {
  absl::StatusOr<BottleneckConfig> bottleneck = CheckedBottleneck(config);
  if (!bottleneck.ok()) return bottleneck.status();
  auto sim = std::unique_ptr<Simulation>(
      new Simulation(config, observer, *bottleneck));
  const int64_t jitter_bound_ns = config.sender_jitter.BoundNs(
      config.rate_bps, bottleneck->largest_packet_bytes);
  const bool path_marks = config.ce_sojourn_threshold_ns >= 0 ||
                          config.ce_backlog_threshold_bytes >= 0;
  sim->flows_.reserve(config.flows.size());
  for (uint32_t i = 0; i < config.flows.size(); ++i) {
    const FlowConfig& flow = config.flows[i];
    absl::StatusOr<std::unique_ptr<CongestionController>> controller =
        MakeFlowController(flow);
    if (!controller.ok()) return controller.status();
    const SenderConfig sender = FlowSender(i, flow, path_marks);
    ReceiverConfig receiver;
    receiver.flow = i;
    receiver.feedback = sender.feedback;
    receiver.ack_every = flow.ack_every;
    receiver.recovery_acks = flow.recovery_acks;
    // Only an observer reads SACK blocks (the sender reads pn ranges).
    receiver.sack_blocks = observer != nullptr;
    sim->flows_.emplace_back(sender, std::move(*controller), receiver,
                             SenderJitter(jitter_bound_ns, config.seed, i));
    Flow& f = sim->flows_.back();
    f.feedback = sender.feedback;
    f.start_ns = flow.start_ns;
    f.stop_ns = flow.stop_ns;
    const int64_t rtt_ns =
        flow.base_rtt_ns >= 0 ? flow.base_rtt_ns : config.base_rtt_ns;
    f.forward_delay_ns = rtt_ns / 2;
    f.return_delay_ns = rtt_ns - rtt_ns / 2;
    f.delayed_ack_ns = flow.delayed_ack_ns;
    f.ack_hold_ns = flow.ack_hold_ns;
    f.ack_hold_period_ns = flow.ack_hold_period_ns;
    f.nic_rate_bps = flow.nic_rate_bps;
    f.timer_granularity_ns = flow.timer_granularity_ns;
    sim->Schedule(flow.start_ns, kFlowStart, i);
    if (flow.app_rate_bps > 0) sim->Schedule(flow.start_ns, kAppWrite, i);
    if (flow.cwnd_clamp_packets > 0 && flow.cwnd_clamp_from_ns > 0) {
      sim->Schedule(flow.cwnd_clamp_from_ns, kCwndClamp, i);
    }
    if (config.sample_interval_ns > 0) {
      sim->series_.push_back({flow.cc_spec, {}});
    }
  }
  if (config.sample_interval_ns > 0) {
    sim->Schedule(config.sample_interval_ns, kSample, 0);
  }
  return sim;
}

Simulation::Simulation(const SimulationConfig& config, PacketObserver* observer,
                       const BottleneckConfig& bottleneck)
    : config_(config),
      observer_(observer),
      bottleneck_(bottleneck),
      events_(1024),
      rng_(config.seed) {}

uint64_t Simulation::packets_sent() const {
  uint64_t packets = 0;
  for (const Flow& flow : flows_) packets += flow.sender.stats().packets_sent;
  return packets;
}

void Simulation::Schedule(int64_t time_ns, EventKind kind, uint32_t flow) {
  events_.Push({time_ns, kind, flow});
}

void Simulation::RunUntil(int64_t end_ns) {
  while (!events_.empty() && events_.next_time_ns() <= end_ns) {
    const SimEvent event = events_.Pop();
    now_ns_ = event.time_ns;
    ++events_processed_;
    Dispatch(event);
  }
  now_ns_ = std::max(now_ns_, end_ns);
}

void Simulation::Dispatch(const SimEvent& event) {
  const uint32_t i = event.flow;
  switch (static_cast<EventKind>(event.kind)) {
    case kFlowStart:
      flows_[i].started = true;
      if (observer_ != nullptr) {
        observer_->OnFlowStart(i, now_ns_, config_.flows[i],
                               flows_[i].feedback);
      }
      TrySend(i);
      break;
    case kForwardArrival:
      OnForwardArrival(i);
      break;
    case kLinkDone:
      OnLinkDone();
      break;
    case kAckArrival:
      OnAckArrival(i);
      break;
    case kDelayedAck:
      OnDelayedAckEvent(i);
      break;
    case kSenderTimer:
      if (flows_[i].timer_event_ns == now_ns_) {
        flows_[i].timer_event_ns = Sender::kNever;
      }
      flows_[i].sender.OnTimer(now_ns_);
      TrySend(i);
      break;
    case kPacing:
      if (flows_[i].pacing_event_ns == now_ns_) {
        flows_[i].pacing_event_ns = Sender::kNever;
      }
      TrySend(i);
      break;
    case kCwndClamp:
      flows_[i].sender.set_cwnd_clamp_bytes(
          uint64_t{config_.flows[i].cwnd_clamp_packets} *
          config_.flows[i].packet_bytes);
      break;
    case kAppWrite:
      OnAppWrite(i);
      break;
    case kSample:
      Sample();
      Schedule(now_ns_ + config_.sample_interval_ns, kSample, 0);
      break;
  }
}

void Simulation::TrySend(uint32_t i) {
  Flow& flow = flows_[i];
  if (!flow.started) return;
  if (flow.stop_ns >= 0 && now_ns_ >= flow.stop_ns) return;
  // Packets left in the current TSO burst: a burst is one skb, sized when
  // its slot comes and cut short by the window (tcp_write_xmit()).
  uint32_t burst_left = 0;
  while (flow.sender.CanSend()) {
    if (flow.sender.paced() && burst_left == 0) {
      if (flow.sender.next_send_ns() > now_ns_) {
        const int64_t at_ns = flow.sender.next_send_ns();
        if (flow.pacing_event_ns != at_ns) {
          flow.pacing_event_ns = at_ns;
          Schedule(at_ns, kPacing, i);
        }
        break;
      }
      burst_left = flow.sender.burst_packets();
      ++flow.skbs_sent;
    }
    if (burst_left > 0) --burst_left;
    SimPacket packet = flow.sender.Send(now_ns_);
    if (flow.sender.config().tso_burst_shift > 0) packet.skb = flow.skbs_sent;
    if (observer_ != nullptr) observer_->OnDataSent(packet);
    packet.arrival_ns = Departure(flow, packet.bytes) + flow.forward_delay_ns;
    if (flow.forward.empty()) Schedule(packet.arrival_ns, kForwardArrival, i);
    flow.forward.push_back(packet);
  }
  ArmSenderTimer(i);
}

int64_t Simulation::Departure(Flow& flow, uint32_t bytes) {
  const int64_t release_ns =
      std::max(flow.jitter.Release(now_ns_), flow.nic_free_ns);
  if (flow.nic_rate_bps > 0) {
    flow.nic_free_ns =
        release_ns + static_cast<int64_t>(8 * int64_t{bytes} * 1'000'000'000 /
                                          flow.nic_rate_bps);
  }
  return release_ns;
}

void Simulation::ArmSenderTimer(uint32_t i) {
  Flow& flow = flows_[i];
  const int64_t deadline_ns = flow.sender.timer_deadline_ns();
  if (deadline_ns < flow.timer_event_ns) {
    flow.timer_event_ns = deadline_ns;
    Schedule(deadline_ns, kSenderTimer, i);
  }
}

void Simulation::OnForwardArrival(uint32_t i) {
  Flow& flow = flows_[i];
  const SimPacket packet = flow.forward.front();
  flow.forward.pop_front();
  if (!flow.forward.empty()) {
    Schedule(flow.forward.front().arrival_ns, kForwardArrival, i);
  }
  if (!bottleneck_.Enqueue(packet, now_ns_)) {
    ++flow.stats.drops;
    return;
  }
  if (!bottleneck_.transmitting()) StartTransmission();
}

void Simulation::StartTransmission() {
  Schedule(bottleneck_.StartTransmission(now_ns_), kLinkDone, 0);
  if (config_.delivery == BottleneckDelivery::kAtStart) {
    const SimPacket head = bottleneck_.in_service();
    Deliver(head);
  }
}

void Simulation::OnLinkDone() {
  const SimPacket packet = bottleneck_.FinishTransmission();
  if (bottleneck_.has_waiting()) StartTransmission();
  if (config_.delivery == BottleneckDelivery::kAtLastBit) Deliver(packet);
}

void Simulation::Deliver(const SimPacket& packet) {
  Flow& flow = flows_[packet.flow];
  flow.stats.egress_bytes += packet.bytes;
  if (packet.ecn == kCe) ++flow.stats.ce_marked;
  // Random loss after the bottleneck: 53 random bits as a uniform [0, 1).
  if (config_.random_loss > 0 &&
      static_cast<double>(rng_() >> 11) * 0x1p-53 < config_.random_loss) {
    ++flow.stats.random_losses;
    return;
  }
  flow.receiver.OnPacket(packet, now_ns_, receiver_output_);
  for (int k = 0; k < receiver_output_.ack_count; ++k) {
    SendAck(packet.flow, receiver_output_.acks[k]);
  }
  if (receiver_output_.arm_timer) {
    flow.delayed_ack_generation = flow.receiver.generation();
    flow.delayed_ack_deadline_ns = TimerTickRelease(
        now_ns_, flow.delayed_ack_ns, flow.timer_granularity_ns);
    if (flow.delayed_ack_event_ns == Sender::kNever) {
      flow.delayed_ack_event_ns = flow.delayed_ack_deadline_ns;
      Schedule(flow.delayed_ack_deadline_ns, kDelayedAck, packet.flow);
    }
  }
}

void Simulation::OnDelayedAckEvent(uint32_t i) {
  Flow& flow = flows_[i];
  flow.delayed_ack_event_ns = Sender::kNever;
  if (flow.delayed_ack_deadline_ns > now_ns_) {
    // Re-armed since this event was scheduled: wait for the new deadline.
    flow.delayed_ack_event_ns = flow.delayed_ack_deadline_ns;
    Schedule(flow.delayed_ack_deadline_ns, kDelayedAck, i);
    return;
  }
  SimAck ack;
  if (flow.receiver.OnDelayedAckTimer(flow.delayed_ack_generation, now_ns_,
                                      ack)) {
    SendAck(i, ack);
  }
}

void Simulation::OnAppWrite(uint32_t i) {
  const FlowConfig& config = config_.flows[i];
  if (now_ns_ >= config.app_limited_until_ns) {
    flows_[i].sender.OnAppWrite(Sender::kUnlimitedBytes);
  } else {
    const uint64_t first =
        now_ns_ == config.start_ns ? config.app_first_write_bytes : 0;
    flows_[i].sender.OnAppWrite(first + config.app_write_bytes);
    const int64_t next_ns =
        now_ns_ +
        static_cast<int64_t>(8.0 * config.app_write_bytes * 1e9 /
                             static_cast<double>(config.app_rate_bps));
    Schedule(std::min(next_ns, config.app_limited_until_ns), kAppWrite, i);
  }
  TrySend(i);
}

void Simulation::SendAck(uint32_t i, const SimAck& ack) {
  Flow& flow = flows_[i];
  ++flow.stats.acks_sent;
  // An immediate ACK waits for the receiver's clock tick
  // (FlowConfig::timer_granularity_ns); a delayed one fires on it already.
  int64_t leaves_ns = TimerTickRelease(now_ns_, 0, flow.timer_granularity_ns);
  // FlowConfig::ack_hold_ns: an ACK sent within a period's hold leaves
  // when the hold ends. Both steps are non-decreasing in now_ns_, so the
  // release times never decrease and FIFO holds.
  if (flow.ack_hold_ns > 0 && flow.ack_hold_period_ns > 0) {
    const int64_t into = (leaves_ns - flow.start_ns) % flow.ack_hold_period_ns;
    if (into < flow.ack_hold_ns) leaves_ns += flow.ack_hold_ns - into;
  }
  const int64_t arrival_ns = leaves_ns + flow.return_delay_ns;
  if (flow.returning.empty()) Schedule(arrival_ns, kAckArrival, i);
  flow.returning.push_back(ack);
  flow.returning.back().arrival_ns = arrival_ns;
}

void Simulation::OnAckArrival(uint32_t i) {
  Flow& flow = flows_[i];
  const SimAck& ack = flow.returning.front();
  flow.sender.OnAck(ack, now_ns_);
  if (observer_ != nullptr) observer_->OnAckReceived(ack);
  flow.returning.pop_front();
  if (!flow.returning.empty()) {
    Schedule(flow.returning.front().arrival_ns, kAckArrival, i);
  }
  TrySend(i);
}

void Simulation::Sample() {
  const double interval_s =
      static_cast<double>(config_.sample_interval_ns) * 1e-9;
  const int64_t time_us = now_ns_ / 1000;
  for (size_t i = 0; i < flows_.size(); ++i) {
    Flow& flow = flows_[i];
    const CongestionController& cc = flow.sender.controller();
    const ControllerState state = cc.state();
    SeriesSample sample;
    sample.time_us = time_us;
    sample.cwnd_bytes = cc.cwnd_bytes();
    sample.ssthresh_bytes = cc.ssthresh_bytes();
    sample.phase = state.phase;
    sample.alpha = state.alpha;
    sample.ai_factor = state.ai_factor;
    sample.bytes_in_flight = flow.sender.bytes_in_flight();
    sample.delivered_bytes = flow.stats.egress_bytes;
    sample.throughput_bps = 8.0 *
                            static_cast<double>(flow.stats.egress_bytes -
                                                flow.last_sample_egress_bytes) /
                            interval_s;
    flow.last_sample_egress_bytes = flow.stats.egress_bytes;
    sample.queue_bytes = static_cast<int64_t>(bottleneck_.queued_bytes());
    sample.srtt_us = flow.sender.srtt_ns() / 1000;
    series_[i].samples.push_back(sample);
  }
  PathSample path;
  path.time_us = time_us;
  path.queue_bytes = bottleneck_.queued_bytes();
  path.utilization = 8.0 *
                     static_cast<double>(bottleneck_.transmitted_bytes() -
                                         last_sample_link_bytes_) /
                     (static_cast<double>(config_.rate_bps) * interval_s);
  last_sample_link_bytes_ = bottleneck_.transmitted_bytes();
  path_series_.push_back(path);
}

}  // namespace ccreplay
