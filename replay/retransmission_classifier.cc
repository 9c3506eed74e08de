#include "replay/retransmission_classifier.h"

#include <algorithm>

#include "parsers/tcp_segment.h"

namespace ccreplay {

const char* RetransmissionKindName(RetransmissionKind kind) {
  switch (kind) {
    case RetransmissionKind::kFast:
      return "fast";
    case RetransmissionKind::kRto:
      return "rto";
    case RetransmissionKind::kTlp:
      return "tlp";
    case RetransmissionKind::kOther:
      break;
  }
  return "other";
}

void RetransmissionClassifier::OnAck(int64_t time_ns, bool advanced,
                                     bool duplicate, bool sacked_above,
                                     int64_t snd_una, uint32_t ts_val) {
  last_ack_ns_ = time_ns;
  ack_seen_ = true;
  sacked_above_ = sacked_above;
  if (advanced) {
    // RFC 6298 (5.3): the timer restarts when new data is acknowledged;
    // (5.7): the backoff ends with a new RTT sample, which needs new data
    // acknowledged.
    timer_start_ns_ = time_ns;
    backoff_ = 0;
    duplicate_acks_ = 0;
    closed_with_loss_pending_ = false;
    if (episode_open_ && snd_una >= recovery_point_) {
      episode_open_ = false;
      episode_first_ts_val_ = 0;
      closed_with_loss_pending_ = episode_kind_ == RetransmissionKind::kFast &&
                                  next_window_loss_end_ > snd_una;
      next_window_loss_end_ = 0;
    }
  } else if (duplicate) {
    ++duplicate_acks_;
  }
  if (ts_val != 0) {
    acks_[next_ack_] = {ts_val, time_ns, duplicate_acks_, sacked_above};
    next_ack_ = (next_ack_ + 1) % kRecentAcks;
  }
}

void RetransmissionClassifier::OnSendFromIdle(int64_t time_ns) {
  timer_start_ns_ = time_ns;
}

RetransmissionClassifier::Result RetransmissionClassifier::Classify(
    int64_t time_ns, int64_t start, int64_t end,
    const SackScoreboard::SendResult& sent, const RttEstimator& rtt,
    int64_t snd_una, int64_t snd_nxt, uint64_t outstanding_bytes,
    uint32_t mss_bytes, uint32_t ts_val, uint32_t ts_ecr) {
  const SenderView view = ViewAsOf(ts_ecr);
  const Signals signals =
      Observe(time_ns, view, sent, rtt, snd_una, outstanding_bytes, mss_bytes);
  Result r;
  r.kind = Decide(signals, sent, view.duplicate_acks);
  r.starts_episode = MaybeStartEpisode(r.kind, signals, time_ns, snd_nxt);
  if (r.starts_episode) {
    next_window_loss_end_ = 0;
    episode_first_ts_val_ =
        episode_kind_ == RetransmissionKind::kFast ? ts_val : 0;
  } else if (r.kind == RetransmissionKind::kFast && episode_open_ &&
             start >= recovery_point_) {
    next_window_loss_end_ = std::max(next_window_loss_end_, end);
  }
  Remember(start, end, ts_val);
  return r;
}

bool RetransmissionClassifier::TakeDelayedOriginal(uint32_t ts_ecr) {
  if (episode_first_ts_val_ == 0 || ts_ecr == 0 ||
      !TsBefore(ts_ecr, episode_first_ts_val_)) {
    return false;
  }
  episode_first_ts_val_ = 0;
  return true;
}

bool RetransmissionClassifier::ReenterRecovery(int64_t snd_nxt) {
  if (!closed_with_loss_pending_) return false;
  closed_with_loss_pending_ = false;
  episode_open_ = episode_seen_ = true;
  episode_kind_ = RetransmissionKind::kFast;
  recovery_point_ = snd_nxt;
  return true;
}

RetransmissionClassifier::SenderView RetransmissionClassifier::ViewAsOf(
    uint32_t ts_ecr) const {
  // The sender's view: the latest ACK it had processed.
  SenderView view;
  view.last_ack_ns = last_ack_ns_;
  view.duplicate_acks = duplicate_acks_;
  view.sacked_above = sacked_above_;
  // The sender's silence since that ACK is at most the gap to the next ACK
  // the capture saw, which it had not processed yet (its echo would name
  // it). Where the capture sees the ACKs long before the sender does (a
  // receiver-side capture, a queue on the ACK path), this bound holds while
  // the capture-time difference does not.
  if (ts_ecr == 0) return view;
  for (size_t k = 1; k <= kRecentAcks; ++k) {
    const AckState& a = acks_[(next_ack_ + kRecentAcks - k) % kRecentAcks];
    if (a.ts_val != ts_ecr || a.time_ns == 0) continue;
    view.last_ack_ns = a.time_ns;
    view.duplicate_acks = a.duplicate_acks;
    view.sacked_above = a.sacked_above;
    if (k > 1) {
      view.next_ack_gap_ns =
          acks_[(next_ack_ + kRecentAcks - k + 1) % kRecentAcks].time_ns -
          a.time_ns;
    }
    break;
  }
  return view;
}

RetransmissionClassifier::Signals RetransmissionClassifier::Observe(
    int64_t time_ns, const SenderView& view,
    const SackScoreboard::SendResult& sent, const RttEstimator& rtt,
    int64_t snd_una, uint64_t outstanding_bytes, uint32_t mss_bytes) const {
  Signals s;
  // A timeout follows silence: no new data acknowledged for an RTO (the
  // timer, RFC 6298 5.3) and no ACK at all for that long either (while
  // duplicate ACKs keep coming, the sender retransmits in answer to them).
  const int64_t timer_us = (time_ns - timer_start_ns_) / 1000;
  int64_t since_ack_us = (time_ns - view.last_ack_ns) / 1000;
  if (view.next_ack_gap_ns >= 0)
    since_ack_us = std::min(since_ack_us, view.next_ack_gap_ns / 1000);
  const double rto_us =
      static_cast<double>(rtt.rto_us()) * static_cast<double>(1 << backoff_);
  s.timed_out = timer_us >= kRtoFraction * rto_us &&
                (!ack_seen_ || since_ack_us >= kRtoFraction * rto_us);
  // Data already cumulatively acknowledged is resent only by a sender the
  // ACK has not reached yet (the capture saw it first): for that sender,
  // the last recovery episode is still on.
  s.in_episode = (episode_open_ && snd_una < recovery_point_) ||
                 (sent.was_acked && episode_seen_);
  // Loss detection by ACKs: three duplicate ACKs, the scoreboard's
  // IsLost(), SACKed data above with one duplicate (RACK, RFC 8985 6.2), or
  // early retransmit with little in flight (RFC 5827: fewer than four
  // segments outstanding lower the threshold).
  const bool small_flight =
      outstanding_bytes < 4ull * std::max<uint32_t>(mss_bytes, 1);
  const uint32_t dups = view.duplicate_acks;
  s.ack_detected = dups >= SackScoreboard::kDupThresh || sent.was_lost ||
                   (view.sacked_above && dups >= 1) ||
                   (small_flight && dups >= 1);
  s.probe_delay =
      rtt.has_sample() &&
      since_ack_us >= kPtoMinSrtts * static_cast<double>(rtt.srtt_us());
  // A retransmission right after an ACK that revealed the loss answers
  // that ACK, whatever the time since the timer started.
  s.ack_triggered =
      s.ack_detected &&
      since_ack_us < std::max<int64_t>(kAckTriggerMinUs, rtt.srtt_us() / 4);
  return s;
}

RetransmissionKind RetransmissionClassifier::Decide(
    const Signals& s, const SackScoreboard::SendResult& sent,
    uint32_t duplicate_acks) const {
  if (s.timed_out && !s.ack_triggered) return RetransmissionKind::kRto;
  if (s.in_episode && episode_kind_ == RetransmissionKind::kRto) {
    // Go-back-N after a timeout (RFC 5681 section 3.1, RFC 6582).
    return RetransmissionKind::kRto;
  }
  if (s.ack_detected ||
      (s.in_episode && episode_kind_ == RetransmissionKind::kFast)) {
    return RetransmissionKind::kFast;
  }
  if (sent.is_tail && !sent.is_head && duplicate_acks == 0 && s.probe_delay)
    return RetransmissionKind::kTlp;
  return RetransmissionKind::kOther;
}

bool RetransmissionClassifier::MaybeStartEpisode(RetransmissionKind kind,
                                                 const Signals& s,
                                                 int64_t time_ns,
                                                 int64_t snd_nxt) {
  if (kind == RetransmissionKind::kRto) {
    // Every timeout is an episode of its own; the next one backs off.
    if (!s.timed_out) return false;
    timer_start_ns_ = time_ns;
    ++backoff_;
    backoff_ = std::min(backoff_, 16);
    episode_open_ = episode_seen_ = true;
    episode_kind_ = RetransmissionKind::kRto;
    recovery_point_ = snd_nxt;
    duplicate_acks_ = 0;
    return true;
  }
  if (kind == RetransmissionKind::kFast && !s.in_episode) {
    episode_open_ = episode_seen_ = true;
    episode_kind_ = RetransmissionKind::kFast;
    recovery_point_ = snd_nxt;
    return true;
  }
  return false;
}

void RetransmissionClassifier::Remember(int64_t start, int64_t end,
                                        uint32_t ts_val) {
  const Recent& replaced = recent_[next_recent_];
  if (replaced.used && !replaced.acked) --recent_awaiting_ack_;
  recent_[next_recent_] = {start, end, ts_val, false, false, true};
  ++recent_awaiting_ack_;
  next_recent_ = (next_recent_ + 1) % kRecent;
}

int RetransmissionClassifier::OnDsack(const SackBlock& block) {
  int found = 0;
  for (Recent& e : recent_) {
    if (!e.used || e.spurious || e.end <= block.start || e.start >= block.end)
      continue;
    e.spurious = true;
    ++found;
  }
  return found;
}

int RetransmissionClassifier::OnCumulativeAck(int64_t ack, bool has_timestamps,
                                              uint32_t ts_ecr) {
  int found = 0;
  if (recent_awaiting_ack_ == 0) return 0;  // The common case, cheaply.
  for (Recent& e : recent_) {
    if (!e.used || e.acked || e.end > ack) continue;
    e.acked = true;
    --recent_awaiting_ack_;
    // RFC 3522 section 3.2: an echoed timestamp older than the
    // retransmission's means the original arrived.
    if (has_timestamps && e.ts_val != 0 && !e.spurious &&
        TsBefore(ts_ecr, e.ts_val)) {
      e.spurious = true;
      ++found;
    }
  }
  return found;
}

}  // namespace ccreplay
