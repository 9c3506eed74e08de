#include "replay/sim/sender.h"

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <utility>

#include "parsers/tcp_segment.h"

namespace ccreplay {
namespace {

constexpr int64_t kMinRtoNs = 200'000'000;          // Linux TCP_RTO_MIN
constexpr int64_t kMaxRtoNs = 120'000'000'000;      // Linux TCP_RTO_MAX
constexpr int64_t kClockGranularityNs = 1'000'000;  // RFC 9002 kGranularity
constexpr uint64_t kPacketThreshold = 3;            // RFC 9002 section 6.1.1
// RFC 9002 section 7.7: pace at N * cwnd / srtt with N = 1.25.
constexpr double kPacingGain = 1.25;

uint8_t EcnCodepointFor(EcnFeedback feedback) {
  switch (feedback) {
    case EcnFeedback::kNone:
      return kNotEct;
    case EcnFeedback::kRfc3168:
    case EcnFeedback::kDctcp:
      return kEct0;
    case EcnFeedback::kAccEcn:
      return kEct1;  // the L4S identifier, RFC 9331 section 4
  }
  return kNotEct;
}

}  // namespace

Sender::Sender(const SenderConfig& config,
               std::unique_ptr<CongestionController> controller)
    : config_(config),
      controller_(std::move(controller)),
      sent_(1024),
      retransmit_(256) {
  if (config_.application_limited) written_bytes_ = 0;
}

void Sender::OnAppWrite(uint64_t bytes) {
  const uint64_t packets_in_flight =
      (bytes_in_flight_ + config_.packet_bytes - 1) / config_.packet_bytes;
  if (written_bytes_ - next_seq_ < config_.packet_bytes &&
      bytes_in_flight_ < controller_->cwnd_bytes() && retransmit_.empty()) {
    rate_.MarkAppLimited(packets_in_flight);
  }
  written_bytes_ = bytes == kUnlimitedBytes
                       ? kUnlimitedBytes
                       : std::min(kUnlimitedBytes, written_bytes_ + bytes);
}

void Sender::NoteTxStart(int64_t now_ns) {
  if (config_.application_limited && bytes_in_flight_ == 0 &&
      last_send_ns_.has_value()) {
    // tcp_event_data_sent(): CA_EVENT_TX_START when nothing is in flight
    // (an application-limited sender only, so bulk runs stay as they
    // were).
    IdleRestartEvent idle;
    idle.time_us = ControllerTimeUs(now_ns);
    idle.idle_us = (now_ns - *last_send_ns_) / 1000;
    idle.rto_us = rto_ns_ / 1000;
    idle.app_limited = rate_.app_limited();
    controller_->OnIdleRestart(idle);
  }
  last_send_ns_ = now_ns;
}

SimPacket Sender::Send(int64_t now_ns) {
  SimPacket packet;
  packet.flow = config_.flow;
  packet.sent_ns = now_ns;
  packet.pn = next_pn_++;
  if (!retransmit_.empty()) {
    packet.seq = retransmit_.front().seq;
    packet.bytes = retransmit_.front().bytes;
    packet.retransmission = true;
    retransmit_.pop_front();
    ++stats_.retransmissions;
  } else {
    packet.seq = next_seq_;
    packet.bytes = config_.packet_bytes;
    next_seq_ += packet.bytes;
  }
  packet.ecn = EcnCodepointFor(config_.feedback);
  if (cwr_pending_) {
    packet.cwr = true;
    cwr_pending_ = false;
    cwr_sent_ = true;
    cwr_pn_ = packet.pn;
    ++stats_.cwr_packets;
  }
  NoteTxStart(now_ns);
  SentPacket record;
  record.pn = packet.pn;
  record.seq = packet.seq;
  record.bytes = packet.bytes;
  record.sent_ns = now_ns;
  record.tx = rate_.OnSend(
      now_ns, bytes_in_flight_ == 0,
      (bytes_in_flight_ + packet.bytes + config_.packet_bytes - 1) /
          config_.packet_bytes);
  sent_.push_back(record);
  bytes_in_flight_ += packet.bytes;
  ++stats_.packets_sent;
  stats_.bytes_sent += packet.bytes;

  PacketSentEvent event;
  event.time_us = ControllerTimeUs(now_ns);
  event.bytes = packet.bytes;
  event.bytes_in_flight = bytes_in_flight_;
  controller_->OnPacketSent(event);

  if (rto_deadline_ns_ == kNever) rto_deadline_ns_ = now_ns + rto_ns_;
  if (paced() && srtt_ns_ > 0) {
    const int64_t gap_ns =
        static_cast<int64_t>(8.0 * packet.bytes * 1e9 / pacing_rate_bps());
    next_send_ns_ = std::max(next_send_ns_, now_ns) + gap_ns;
  }
  return packet;
}

double Sender::pacing_rate_bps() const {
  if (srtt_ns_ <= 0) return 0;
  const std::optional<double> rate_bps = controller_->pacing_rate_bps();
  if (rate_bps.has_value()) return *rate_bps;
  return kPacingGain * 8.0 * static_cast<double>(controller_->cwnd_bytes()) *
         1e9 / static_cast<double>(srtt_ns_);
}

uint32_t Sender::burst_packets() const {
  if (config_.tso_burst_shift == 0) return 1;
  return TsoBurstPackets(pacing_rate_bps(), config_.tso_burst_shift,
                         config_.packet_bytes);
}

uint32_t TsoBurstPackets(double pacing_rate_bps, uint32_t shift,
                         uint32_t packet_bytes) {
  constexpr uint32_t kMinTsoSegs = 2;  // sysctl_tcp_min_tso_segs
  const double bytes = pacing_rate_bps / 8 / static_cast<double>(1u << shift);
  const uint32_t max_segs =
      static_cast<uint32_t>(kGsoMaxBytes / std::max<uint32_t>(packet_bytes, 1));
  const double segs = std::floor(bytes / packet_bytes);
  return static_cast<uint32_t>(std::clamp<double>(segs, kMinTsoSegs, max_segs));
}

int64_t Sender::Tick(int64_t ns) const {
  if (config_.clock_ns <= 0) return ns;
  // Floor, also for the (never negative in practice) times before 0.
  const int64_t r = ns % config_.clock_ns;
  return ns - (r < 0 ? r + config_.clock_ns : r);
}

int64_t Sender::ControllerTimeUs(int64_t now_ns) const {
  return Tick(now_ns) / 1000;
}

void Sender::UpdateRtt(int64_t now_ns, int64_t sent_ns) {
  // With a clock (SenderConfig::clock_ns): the difference of two ticked
  // times, at least one tick, and the averages in whole ticks.
  const int64_t unit = std::max<int64_t>(config_.clock_ns, 1);
  const int64_t sample =
      config_.clock_ns > 0
          ? std::max<int64_t>((Tick(now_ns) - Tick(sent_ns)) / unit, 1)
          : now_ns - sent_ns;
  const int64_t srtt = srtt_ns_ / unit;
  const int64_t rttvar = rttvar_ns_ / unit;
  latest_rtt_ns_ = sample * unit;
  min_rtt_ns_ =
      min_rtt_ns_ == 0 ? latest_rtt_ns_ : std::min(min_rtt_ns_, latest_rtt_ns_);
  // RFC 6298 section 2.2 and 2.3 (alpha = 1/8, beta = 1/4).
  if (srtt_ns_ == 0) {
    srtt_ns_ = sample * unit;
    rttvar_ns_ = sample / 2 * unit;
  } else {
    rttvar_ns_ = (3 * rttvar + std::llabs(srtt - sample)) / 4 * unit;
    srtt_ns_ = (7 * srtt + sample) / 8 * unit;
  }
  rto_ns_ = std::clamp(srtt_ns_ + std::max(kClockGranularityNs, 4 * rttvar_ns_),
                       kMinRtoNs, kMaxRtoNs);
}

int64_t Sender::LossDelayNs() const {
  // RFC 9002 section 6.1.2: 9/8 * max(smoothed_rtt, latest_rtt).
  return std::max(kClockGranularityNs,
                  std::max(srtt_ns_, latest_rtt_ns_) * 9 / 8);
}

void Sender::CountEpisode(uint64_t pn) {
  if (any_episode_ && pn < episode_end_pn_) return;
  any_episode_ = true;
  episode_end_pn_ = next_pn_;
  ++stats_.congestion_episodes;
}

void Sender::TrackMinCwnd() {
  if (controller_->ssthresh_bytes() == kNoSsthreshBytes) return;
  stats_.min_cwnd_after_slow_start_bytes = std::min(
      stats_.min_cwnd_after_slow_start_bytes, controller_->cwnd_bytes());
}

void Sender::PopSettled() {
  while (!sent_.empty() && sent_.front().state != PacketState::kInFlight) {
    sent_.pop_front();
  }
}

void Sender::MarkAcked(const SimAck& ack, int64_t now_ns, uint64_t* bytes_acked,
                       uint64_t* packets_acked,
                       std::optional<DeliveredPacket>* newest) {
  if (sent_.empty() || ack.pn_last < sent_.front().pn) return;
  const uint64_t base = sent_.front().pn;
  const uint64_t first = std::max(ack.pn_first, base);
  for (uint64_t pn = first; pn <= ack.pn_last; ++pn) {
    SentPacket& packet = sent_[pn - base];
    if (packet.state == PacketState::kInFlight) {
      bytes_in_flight_ -= packet.bytes;
    } else if (packet.state == PacketState::kAcked) {
      continue;
    }
    // A packet declared lost that arrives after all still counts as
    // delivered (its resent copy will be a duplicate).
    packet.state = PacketState::kAcked;
    *bytes_acked += packet.bytes;
    ++*packets_acked;
    // Packet numbers ascend with send time: the last is the most recently
    // sent.
    *newest = DeliveredPacket{packet.tx, packet.sent_ns};
  }
  UpdateRtt(now_ns, sent_[ack.pn_last - base].sent_ns);
}

uint64_t Sender::SenderLimitBytes() const {
  uint64_t limit = std::numeric_limits<uint64_t>::max();
  if (config_.receive_window_bytes > 0) limit = config_.receive_window_bytes;
  if (config_.cwnd_clamp_bytes > 0) {
    limit = std::min(limit, config_.cwnd_clamp_bytes);
  }
  return limit;
}

AckEvent Sender::MakeAckEvent(int64_t now_ns, uint64_t bytes_acked,
                              uint64_t packets_acked) const {
  AckEvent event;
  event.time_us = ControllerTimeUs(now_ns);
  event.bytes_acked = bytes_acked;
  event.packets_delivered = packets_acked;
  event.rtt_sample_us = latest_rtt_ns_ / 1000;
  event.srtt_us = srtt_ns_ / 1000;
  event.min_rtt_us = min_rtt_ns_ / 1000;
  event.bytes_in_flight = bytes_in_flight_;
  // A bulk sender always has data: only the receive window or the clamp
  // can hold it back before cwnd does.
  event.cwnd_limited = controller_->cwnd_bytes() <= SenderLimitBytes();
  event.mss_bytes = config_.packet_bytes;
  return event;
}

void Sender::AddEcnFeedback(const SimAck& ack, AckEvent* event) {
  switch (config_.feedback) {
    case EcnFeedback::kNone:
      break;
    case EcnFeedback::kRfc3168:
    case EcnFeedback::kDctcp:
      event->ece = ack.ece;
      break;
    case EcnFeedback::kAccEcn:
      event->packets_ce = ack.ce_packets - ce_packets_seen_;
      event->bytes_ce = ack.ce_bytes - ce_bytes_seen_;
      ce_packets_seen_ = ack.ce_packets;
      ce_bytes_seen_ = ack.ce_bytes;
      break;
  }
}

void Sender::OnAck(const SimAck& ack, int64_t now_ns) {
  ++stats_.acks_received;
  uint64_t bytes_acked = 0;
  uint64_t packets_acked = 0;
  std::optional<DeliveredPacket> newest;
  MarkAcked(ack, now_ns, &bytes_acked, &packets_acked, &newest);
  if (!any_acked_ || ack.pn_last > largest_acked_pn_) {
    largest_acked_pn_ = ack.pn_last;
    any_acked_ = true;
  }
  stats_.bytes_acked += bytes_acked;
  // RFC 6298 section 5.3: restart the timer when new data is acknowledged
  // (UpdateRtt() has undone any back-off).
  if (bytes_acked > 0) {
    rto_deadline_ns_ = bytes_in_flight_ > 0 ? now_ns + rto_ns_ : kNever;
  }
  AckEvent event = MakeAckEvent(now_ns, bytes_acked, packets_acked);
  event.rate_sample =
      rate_.OnAck(now_ns, packets_acked, newest, min_rtt_ns_ / 1000, false);
  event.packets_newly_lost = CountLosses(now_ns);
  // tcp_ack() marks these lost before tcp_rate_gen(); here DetectLosses()
  // declares them after the controller has seen the ACK.
  if (event.rate_sample.has_value()) {
    event.rate_sample->lost_packets += event.packets_newly_lost;
  }
  AddEcnFeedback(ack, &event);
  if (event.ece) {
    ++stats_.ece_acks;
    stats_.ce_packets_reported += packets_acked;
    // RFC 3168 section 6.1.2: CWR once per window of data.
    if (!cwr_sent_ || largest_acked_pn_ >= cwr_pn_) cwr_pending_ = true;
  }
  stats_.ce_packets_reported += event.packets_ce;
  if (HasCeFeedback(event)) CountEpisode(ack.pn_last);
  controller_->OnAck(event);
  TrackMinCwnd();
  DetectLosses(now_ns);
  PopSettled();
}

void Sender::DeclareLost(SentPacket& packet, LossEvent::Kind kind,
                         int64_t now_ns) {
  LossEvent loss;
  loss.time_us = ControllerTimeUs(now_ns);
  loss.kind = kind;
  loss.bytes_lost = packet.bytes;
  loss.bytes_in_flight = bytes_in_flight_;
  controller_->OnLoss(loss);
  bytes_in_flight_ -= packet.bytes;
  packet.state = PacketState::kLost;
  retransmit_.push_back({packet.seq, packet.bytes});
  ++stats_.packets_lost;
  rate_.OnLoss(1);
  CountEpisode(packet.pn);
}

bool Sender::IsLost(const SentPacket& packet, int64_t now_ns,
                    int64_t loss_delay_ns) const {
  return packet.pn + kPacketThreshold <= largest_acked_pn_ ||
         packet.sent_ns + loss_delay_ns <= now_ns;
}

uint64_t Sender::CountLosses(int64_t now_ns) const {
  if (!any_acked_) return 0;
  const int64_t loss_delay_ns = LossDelayNs();
  uint64_t lost = 0;
  for (size_t i = 0; i < sent_.size(); ++i) {
    const SentPacket& packet = sent_[i];
    if (packet.pn >= largest_acked_pn_) break;
    if (packet.state != PacketState::kInFlight) continue;
    if (!IsLost(packet, now_ns, loss_delay_ns)) break;
    ++lost;
  }
  return lost;
}

void Sender::DetectLosses(int64_t now_ns) {
  loss_time_ns_ = kNever;
  if (!any_acked_) return;
  const int64_t loss_delay_ns = LossDelayNs();
  for (size_t i = 0; i < sent_.size(); ++i) {
    SentPacket& packet = sent_[i];
    if (packet.pn >= largest_acked_pn_) break;
    if (packet.state != PacketState::kInFlight) continue;
    if (IsLost(packet, now_ns, loss_delay_ns)) {
      DeclareLost(packet, LossEvent::Kind::kFastRetransmit, now_ns);
    } else {
      // Later packets were sent later and are nearer the largest acked.
      loss_time_ns_ = packet.sent_ns + loss_delay_ns;
      break;
    }
  }
  TrackMinCwnd();
  if (bytes_in_flight_ == 0) rto_deadline_ns_ = kNever;
}

void Sender::OnRto(int64_t now_ns) {
  ++stats_.rtos;
  // RFC 6298 section 5.5: back off; everything in flight is presumed lost.
  rto_ns_ = std::min(rto_ns_ * 2, kMaxRtoNs);
  LossEvent loss;
  loss.time_us = ControllerTimeUs(now_ns);
  loss.kind = LossEvent::Kind::kRto;
  loss.bytes_lost = bytes_in_flight_;
  loss.bytes_in_flight = bytes_in_flight_;
  controller_->OnLoss(loss);
  for (size_t i = 0; i < sent_.size(); ++i) {
    SentPacket& packet = sent_[i];
    if (packet.state != PacketState::kInFlight) continue;
    packet.state = PacketState::kLost;
    retransmit_.push_back({packet.seq, packet.bytes});
    ++stats_.packets_lost;
    rate_.OnLoss(1);
    CountEpisode(packet.pn);
  }
  bytes_in_flight_ = 0;
  rto_deadline_ns_ = kNever;
  loss_time_ns_ = kNever;
  TrackMinCwnd();
  PopSettled();
}

int64_t Sender::timer_deadline_ns() const {
  return std::min(loss_time_ns_, rto_deadline_ns_);
}

void Sender::OnTimer(int64_t now_ns) {
  if (loss_time_ns_ <= now_ns) {
    DetectLosses(now_ns);
    PopSettled();
  } else if (rto_deadline_ns_ <= now_ns && bytes_in_flight_ > 0) {
    OnRto(now_ns);
  }
}

}  // namespace ccreplay
