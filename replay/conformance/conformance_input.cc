#include "replay/conformance/conformance_input.h"

#include <algorithm>
#include <utility>

#include "absl/status/status.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "parsers/input_kind.h"
#include "replay/replay_session.h"

namespace ccreplay {
namespace {

// The bytes of ACK `e` the receiver echoed as CE-marked: all of a DCTCP
// ECE ACK's (RFC 8257 section 3.2), else the AccECN byte counter, else CE
// packets times the MSS (QUIC's ECN counts).
uint64_t CeBytes(const TimelineEvent& e) {
  const uint64_t acked = e.bytes_acked + e.bytes_sacked;
  if (e.ece) return acked;
  if (e.ce_bytes > 0) return e.ce_bytes;
  return e.ce_packets * e.mss_bytes;
}

// The largest pipe after `e` any loss marking gives
// (ConformanceAck::pipe_max_after_bytes).
uint64_t PipeMaxAfter(const TimelineEvent& e) {
  return e.outstanding_bytes - std::min(e.sacked_bytes, e.outstanding_bytes);
}

// An ACK the log cannot tell apart from the step before: its counts and
// events join that step's.
void AddToStep(const TimelineEvent& e, ConformanceAck* same) {
  same->bytes_acked += e.bytes_acked + e.bytes_sacked;
  same->packets_acked += e.packets_delivered;
  same->congestion_event =
      same->congestion_event || e.congestion_episode || e.reenters_recovery;
  same->ecn_event = same->ecn_event || e.congestion_episode;
  same->ce_bytes += CeBytes(e);
  same->spurious_evidence =
      same->spurious_evidence || e.spurious_retransmissions > 0;
  same->pipe_max_after_bytes = PipeMaxAfter(e);
  if (e.send_order >= 0) {
    same->newest_send_order = std::max(same->newest_send_order.value_or(0),
                                       static_cast<uint64_t>(e.send_order));
  }
}

}  // namespace

void ConformanceTraceBuilder::OnEvent(const TimelineEvent& e,
                                      const CapturedAtEvent& captured) {
  if (e.type == TimelineEvent::Type::kRetransmission) {
    if (e.starts_episode) {
      pending_event_ns_ = e.time_ns;
      pending_timeout_ = e.kind == RetransmissionKind::kRto;
      pending_send_order_ = e.send_order;
    }
    return;
  }
  // ACKs at the same time, or without a cwnd logged since the previous
  // one (ss samples between ACKs), are one step: the log cannot show a
  // cwnd between them.
  const bool nothing_logged = !captured.lags_one_ack &&
                              !captured.peak_bytes.has_value() &&
                              captured.last_bytes.has_value();
  if (!acks_.empty() &&
      (acks_.back().time_us == e.time_ns / 1000 || nothing_logged)) {
    AddToStep(e, &acks_.back());
    return;
  }
  ConformanceAck& a = acks_.emplace_back();
  a.time_us = e.time_ns / 1000;
  a.bytes_acked = e.bytes_acked + e.bytes_sacked;
  a.packets_acked = e.packets_delivered;
  a.flight_before_bytes = e.pipe_before_bytes;
  a.mss_bytes = e.mss_bytes;
  a.min_rtt_us = e.min_rtt_us;
  a.srtt_us = e.srtt_us;
  a.rttvar_us = e.rttvar_us;
  a.ce_bytes = CeBytes(e);
  a.cwnd_limited = e.limit == SendLimit::kCwnd;
  // A recovery that ends with loss still marked starts another at once
  // (TimelineEvent::reenters_recovery): a new reduction, RFC 6582 section
  // 3.2's period being over.
  a.congestion_event = e.congestion_episode || e.reenters_recovery;
  a.ecn_event = e.congestion_episode && !e.reenters_recovery;
  a.spurious_evidence = e.spurious_retransmissions > 0;
  a.pipe_max_after_bytes = PipeMaxAfter(e);
  if (e.send_order >= 0) {
    a.newest_send_order = static_cast<uint64_t>(e.send_order);
  }
  if (pending_event_ns_) AttachPendingEvent(e.time_ns);
  if (!captured.lags_one_ack) {
    a.cwnd_before_bytes = captured.last_bytes;
    a.ssthresh_before_bytes = captured.ssthresh_bytes;
    if (acks_.size() >= 2) {
      acks_[acks_.size() - 2].cwnd_peak_after_bytes = captured.peak_bytes;
    }
  } else if (acks_.size() >= 2) {
    acks_[acks_.size() - 2].cwnd_before_bytes = captured.last_bytes;
  }
}

void ConformanceTraceBuilder::AttachPendingEvent(int64_t ack_time_ns) {
  // Loss found while this ACK was processed carries its time; one found
  // later (a timer, a retransmission sent after the ACK) belongs to the
  // ACK before, whose "after" cwnd shows the reduction.
  const bool same = *pending_event_ns_ == ack_time_ns || acks_.size() == 1;
  ConformanceAck& owner = same ? acks_.back() : acks_[acks_.size() - 2];
  owner.congestion_event = true;
  owner.ecn_event = false;  // A loss at the same ACK: the loss reaction.
  owner.timeout = owner.timeout || pending_timeout_;
  if (pending_send_order_ >= 0) {
    owner.event_send_order = static_cast<uint64_t>(pending_send_order_);
  }
  pending_event_ns_.reset();
}

std::vector<ConformanceAck> ConformanceTraceBuilder::Finish() {
  uint32_t largest_packet_bytes = 0;
  for (const ConformanceAck& a : acks_) {
    if (a.packets_acked > 0) {
      largest_packet_bytes = std::max<uint32_t>(
          largest_packet_bytes, a.bytes_acked / a.packets_acked);
    }
  }
  for (ConformanceAck& a : acks_) {
    if (a.mss_bytes == 0) a.mss_bytes = largest_packet_bytes;
    if (a.cwnd_limited && a.cwnd_before_bytes) {
      a.cwnd_limited =
          a.flight_before_bytes + a.mss_bytes >= *a.cwnd_before_bytes;
    }
  }
  return std::move(acks_);
}

namespace {

absl::StatusOr<ConformanceFamily> ParseFamily(const std::string& name) {
  if (name.empty() || absl::StartsWith(name, "reno") ||
      absl::StartsWith(name, "newreno")) {
    return ConformanceFamily::kReno;
  }
  if (absl::StartsWith(name, "cubic")) return ConformanceFamily::kCubic;
  if (absl::StartsWith(name, "dctcp")) return ConformanceFamily::kDctcp;
  return absl::InvalidArgumentError(
      absl::StrCat("no conformance rules for controller family '", name,
                   "' (reno, cubic, dctcp)"));
}

}  // namespace

absl::StatusOr<CheckRun> CheckInput(const std::string& input,
                                    const CheckOptions& options) {
  absl::StatusOr<std::optional<QuicInput>> quic_input =
      ResolveQuicInput(input, options.qlog, options.flow);
  if (!quic_input.ok()) return quic_input.status();
  const bool quic = quic_input->has_value();
  CheckRun run;
  std::string family = options.family;
  run.profile.stack = options.stack;
  run.profile.transport =
      quic ? ConformanceTransport::kQuic : ConformanceTransport::kTcp;
  ConformanceTraceBuilder builder;
  ReplayOptions replay;
  // The replay needs one controller; its output is not used.
  replay.specs = {"reno"};
  replay.flow = quic ? (*quic_input)->flow : options.flow;
  replay.captured_tap = [&builder](const TimelineEvent& e,
                                   const CapturedAtEvent& captured) {
    builder.OnEvent(e, captured);
  };
  absl::StatusOr<ReplayResult> result;
  if (quic) {
    result = ReplayQuicLog((*quic_input)->qlog, replay);
  } else {
    absl::StatusOr<TcpInput> tcp =
        ResolveTcpInput(input, options.host_state_path);
    if (!tcp.ok()) return tcp.status();
    if (tcp->host_state.empty()) {
      return absl::FailedPreconditionError(absl::StrCat(
          input, ": no captured cwnd to check (give --probe or --ss)"));
    }
    if (family.empty()) family = tcp->controller;
    if (run.profile.stack.empty() && tcp->bundle_sender) {
      run.profile.stack = "linux";
    }
    replay.host_state_path = tcp->host_state;
    run.warnings = tcp->warnings;
    result = ReplayTcpCapture(tcp->capture, replay);
  }
  if (!result.ok()) return result.status();
  absl::StatusOr<ConformanceFamily> parsed = ParseFamily(family);
  if (!parsed.ok()) return parsed.status();
  run.profile.family = *parsed;
  run.source_description = result->source_description;
  if (result->source == CapturedSource::kSs) {
    run.warnings.push_back(
        "ss samples are snapshots many ACKs apart: the per-ACK rules see "
        "their sum, and reductions between samples are approximate");
  }
  run.truncated = result->truncated;
  run.warnings.insert(run.warnings.end(), result->warnings.begin(),
                      result->warnings.end());
  const std::vector<ConformanceAck> acks = builder.Finish();
  if (!acks.empty()) run.first_ack_us = acks.front().time_us;
  run.result =
      CheckConformance(acks, run.profile, result->first_captured_cwnd_bytes);
  return run;
}

}  // namespace ccreplay
