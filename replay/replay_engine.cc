#include "replay/replay_engine.h"

#include <algorithm>
#include <utility>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/string_view.h"
#include "cc/registry.h"

namespace ccreplay {

namespace {

constexpr absl::string_view kMonoOffsetOption = "mono_offset_us";

// The ECN feedback the negotiated mode carries: ECE (RFC 3168) or the
// AccECN counters' CE packets and bytes.
void SetEcnFeedback(const TimelineEvent& event, EcnMode ecn, AckEvent* ack) {
  switch (ecn) {
    case EcnMode::kNone:
      break;
    case EcnMode::kRfc3168:
      ack->ece = event.ece;
      break;
    case EcnMode::kAccEcn:
      ack->packets_ce = event.ce_packets;
      ack->bytes_ce = event.ce_bytes;
      break;
  }
}

// A D-SACK block (RFC 2883) in segments, as tcp_dsack_seen() counts it:
// max(1, DIV_ROUND_UP(bytes, mss)); needs ack->mss_bytes set.
void SetDsack(const TimelineEvent& event, AckEvent* ack) {
  if (event.bytes_dsacked == 0 || event.dsack_end <= 0) return;
  const uint64_t mss = std::max<uint32_t>(ack->mss_bytes, 1);
  ack->packets_dsacked =
      std::max<uint64_t>(1, (event.bytes_dsacked + mss - 1) / mss);
  ack->dsack_end_bytes = static_cast<uint64_t>(event.dsack_end);
}

}  // namespace

AckEvent ToAckEvent(const TimelineEvent& event, const ReplayFlowFacts& facts,
                    uint64_t prior_sacked_bytes) {
  AckEvent ack;
  ack.time_us = event.time_ns / 1000;
  const uint64_t delivered_with_sack = event.bytes_acked + event.sacked_bytes;
  ack.bytes_acked = delivered_with_sack > prior_sacked_bytes
                        ? delivered_with_sack - prior_sacked_bytes
                        : 0;
  ack.packets_delivered = event.packets_delivered;
  ack.data_acked = event.bytes_acked > 0;
  SetEcnFeedback(event, facts.ecn, &ack);
  ack.rtt_sample_us = event.rtt_sample_us;
  ack.sack_rtt_sample_us = event.sack_rtt_sample_us;
  ack.srtt_us = event.srtt_us;
  ack.min_rtt_us = event.min_rtt_us;
  ack.bytes_in_flight = event.pipe_bytes;
  ack.largest_acked_send_order = event.send_order;
  ack.acked_packets = event.acked_packets;
  ack.delivery_rate_bytes_per_s = event.delivery_rate_bytes_per_s;
  // The timeline knows the sender was not cwnd-limited when it was held
  // by the application or the receive window; pacing or an unknown cause
  // leaves the kernel's own check (tcp_is_cwnd_limited()) to decide, which
  // lets cwnd grow, so those count as limited. An ACK held after a short
  // segment (window or Nagle, TimelineEvent::held_after_short) is no
  // evidence of a full window: counting it as limited let a Linux Reno
  // replay grow after an idle restart with one segment in flight where
  // tcp_cwnd_validate() (net/ipv4/tcp_output.c, 6.18) leaves the kernel
  // not cwnd-limited. The Linux models still grow there when their own
  // window was full (LinuxTcpSender::ValidateCwnd).
  ack.cwnd_limited = event.limit != SendLimit::kApp &&
                     event.limit != SendLimit::kRwnd && !event.held_after_short;
  if (event.ack > 0) {
    ack.snd_una_bytes = static_cast<uint64_t>(event.ack);
    ack.snd_nxt_bytes = ack.snd_una_bytes + event.outstanding_bytes;
  }
  // The timeline reports the sender's MSS from the handshake on and follows
  // its changes (Prague v0.7 lowers it); the handshake value covers events
  // before the timeline knew it.
  ack.mss_bytes =
      event.mss_bytes > 0 ? event.mss_bytes : facts.handshake_mss_bytes;
  ack.rate_sample = event.rate_sample;
  ack.packets_newly_lost = event.packets_newly_lost;
  ack.retransmissions_visible = true;
  ack.packets_rack_lost = event.packets_rack_lost;
  ack.ts_ecr = event.ts_ecr;
  SetDsack(event, &ack);
  ack.bytes_retransmitted_in_flight = event.retransmitted_bytes;
  ack.reordering_segments = event.reordering;
  if (event.highest_sack > 0) {
    ack.highest_sack_bytes = static_cast<uint64_t>(event.highest_sack);
  }
  return ack;
}

std::optional<RetransmitEvent> ToRetransmitEvent(const TimelineEvent& event) {
  if (event.type != TimelineEvent::Type::kRetransmission) return std::nullopt;
  RetransmitEvent retransmit;
  retransmit.time_us = event.time_ns / 1000;
  const uint64_t mss = std::max<uint32_t>(event.mss_bytes, 1);
  const auto bytes = static_cast<uint64_t>(event.seq_end - event.seq_start);
  retransmit.packets =
      static_cast<uint32_t>(std::max<uint64_t>(1, (bytes + mss - 1) / mss));
  retransmit.ts_val = event.ts_val;
  return retransmit;
}

std::optional<LossEvent> ToLossEvent(const TimelineEvent& event) {
  if (event.type != TimelineEvent::Type::kRetransmission ||
      !event.starts_episode || event.kind == RetransmissionKind::kTlp) {
    return std::nullopt;
  }
  LossEvent loss;
  loss.time_us = event.time_ns / 1000;
  loss.kind = event.kind == RetransmissionKind::kRto
                  ? LossEvent::Kind::kRto
                  : LossEvent::Kind::kFastRetransmit;
  loss.bytes_lost = static_cast<uint64_t>(event.seq_end - event.seq_start);
  loss.bytes_in_flight = event.outstanding_bytes;
  loss.send_order = event.send_order;
  return loss;
}

absl::StatusOr<ReplayEngine> ReplayEngine::Create(
    const std::vector<std::string>& specs, const ReplayFlowFacts& facts) {
  if (specs.empty()) {
    return absl::InvalidArgumentError("no controller to replay");
  }
  std::vector<std::unique_ptr<CongestionController>> controllers;
  for (const std::string& text : specs) {
    absl::StatusOr<ControllerSpec> spec = ControllerSpec::Parse(text);
    if (!spec.ok()) return spec.status();
    if (facts.kernel_mono_offset_us.has_value() &&
        spec->Takes(kMonoOffsetOption) && !spec->Sets(kMonoOffsetOption)) {
      // Modulo 1 s, as the option takes it: a whole number of ticks at
      // any HZ that divides 10^6.
      constexpr int64_t kSecondUs = 1000000;
      const int64_t offset_us =
          (*facts.kernel_mono_offset_us % kSecondUs + kSecondUs) % kSecondUs;
      spec = spec->With(kMonoOffsetOption, absl::StrCat(offset_us));
      if (!spec.ok()) return spec.status();
    }
    absl::StatusOr<std::unique_ptr<CongestionController>> controller =
        MakeController(*spec);
    if (!controller.ok()) return controller.status();
    controllers.push_back(*std::move(controller));
  }
  return ReplayEngine(specs, std::move(controllers), facts);
}

ReplayEngine::ReplayEngine(
    std::vector<std::string> specs,
    std::vector<std::unique_ptr<CongestionController>> controllers,
    const ReplayFlowFacts& facts)
    : specs_(std::move(specs)),
      controllers_(std::move(controllers)),
      facts_(facts) {}

void ReplayEngine::OnEvent(const TimelineEvent& event) {
  if (event.type == TimelineEvent::Type::kAck) {
    if (event.idle_restart_idle_us > 0) {
      // The send that ended the idle period came before this ACK.
      IdleRestartEvent idle;
      idle.time_us = event.idle_restart_time_ns / 1000;
      idle.idle_us = event.idle_restart_idle_us;
      idle.rto_us = event.rto_us;
      idle.app_limited = event.idle_restart_app_limited;
      for (auto& controller : controllers_) controller->OnIdleRestart(idle);
    }
    AckEvent ack = ToAckEvent(event, facts_, prior_sacked_bytes_);
    ack.bytes_retransmitted_before = retransmitted_bytes_;
    retransmitted_bytes_ = 0;
    prior_sacked_bytes_ = event.sacked_bytes;
    ++acks_;
    for (auto& controller : controllers_) controller->OnAck(ack);
    if (event.reenters_recovery) {
      // Recovery ended and began again on this ACK (tcp_fastretrans_alert()).
      LossEvent loss;
      loss.time_us = ack.time_us;
      loss.bytes_in_flight = event.outstanding_bytes;
      loss.reenters_recovery = true;
      for (auto& controller : controllers_) {
        controller->OnRecoveryReentered(loss);
      }
    }
    return;
  }
  if (event.type == TimelineEvent::Type::kRetransmission) {
    retransmitted_bytes_ += static_cast<uint64_t>(
        std::max<int64_t>(0, event.seq_end - event.seq_start));
  }
  const std::optional<LossEvent> loss = ToLossEvent(event);
  if (loss.has_value()) {
    for (auto& controller : controllers_) controller->OnLoss(*loss);
  }
  const std::optional<RetransmitEvent> retransmit = ToRetransmitEvent(event);
  if (!retransmit.has_value()) return;
  for (auto& controller : controllers_) controller->OnRetransmit(*retransmit);
}

}  // namespace ccreplay
