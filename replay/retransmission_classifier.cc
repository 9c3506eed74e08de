#include "replay/retransmission_classifier.h"

#include <algorithm>

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
    if (episode_open_ && snd_una >= recovery_point_) episode_open_ = false;
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
  Result r;
  // The sender's view: the latest ACK it had processed.
  int64_t last_ack_ns = last_ack_ns_;
  uint32_t duplicate_acks = duplicate_acks_;
  bool sacked_above = sacked_above_;
  // The sender's silence since that ACK is at most the gap to the next ACK
  // the capture saw, which it had not processed yet (its echo would name
  // it). Where the capture sees the ACKs long before the sender does (a
  // receiver-side capture, a queue on the ACK path), this bound holds while
  // the capture-time difference does not.
  int64_t next_ack_gap_ns = -1;
  if (ts_ecr != 0) {
    for (size_t k = 1; k <= kRecentAcks; ++k) {
      const AckState& a = acks_[(next_ack_ + kRecentAcks - k) % kRecentAcks];
      if (a.ts_val != ts_ecr || a.time_ns == 0) continue;
      last_ack_ns = a.time_ns;
      duplicate_acks = a.duplicate_acks;
      sacked_above = a.sacked_above;
      if (k > 1) {
        next_ack_gap_ns =
            acks_[(next_ack_ + kRecentAcks - k + 1) % kRecentAcks].time_ns -
            a.time_ns;
      }
      break;
    }
  }
  // A timeout follows silence: no new data acknowledged for an RTO (the
  // timer, RFC 6298 5.3) and no ACK at all for that long either (while
  // duplicate ACKs keep coming, the sender retransmits in answer to them).
  const int64_t timer_us = (time_ns - timer_start_ns_) / 1000;
  int64_t since_ack_us = (time_ns - last_ack_ns) / 1000;
  if (next_ack_gap_ns >= 0)
    since_ack_us = std::min(since_ack_us, next_ack_gap_ns / 1000);
  const double rto_us =
      static_cast<double>(rtt.rto_us()) * static_cast<double>(1 << backoff_);
  const bool timed_out = timer_us >= kRtoFraction * rto_us &&
                         (!ack_seen_ || since_ack_us >= kRtoFraction * rto_us);
  // Data already cumulatively acknowledged is resent only by a sender the
  // ACK has not reached yet (the capture saw it first): for that sender,
  // the last recovery episode is still on.
  const bool in_episode = (episode_open_ && snd_una < recovery_point_) ||
                          (sent.was_acked && episode_seen_);
  // Loss detection by ACKs: three duplicate ACKs, the scoreboard's
  // IsLost(), SACKed data above with one duplicate (RACK, RFC 8985 6.2), or
  // early retransmit with little in flight (RFC 5827: fewer than four
  // segments outstanding lower the threshold).
  const bool small_flight =
      outstanding_bytes < 4ull * std::max<uint32_t>(mss_bytes, 1);
  const bool ack_detected = duplicate_acks >= SackScoreboard::kDupThresh ||
                            sent.was_lost ||
                            (sacked_above && duplicate_acks >= 1) ||
                            (small_flight && duplicate_acks >= 1);
  const bool probe_delay =
      rtt.has_sample() &&
      since_ack_us >= kPtoMinSrtts * static_cast<double>(rtt.srtt_us());

  // A retransmission right after an ACK that revealed the loss answers
  // that ACK, whatever the time since the timer started.
  const bool ack_triggered =
      ack_detected &&
      since_ack_us < std::max<int64_t>(kAckTriggerMinUs, rtt.srtt_us() / 4);
  if (timed_out && !ack_triggered) {
    r.kind = RetransmissionKind::kRto;
  } else if (in_episode && episode_kind_ == RetransmissionKind::kRto) {
    // Go-back-N after a timeout (RFC 5681 section 3.1, RFC 6582).
    r.kind = RetransmissionKind::kRto;
  } else if (ack_detected ||
             (in_episode && episode_kind_ == RetransmissionKind::kFast)) {
    r.kind = RetransmissionKind::kFast;
  } else if (sent.is_tail && !sent.is_head && duplicate_acks == 0 &&
             probe_delay) {
    r.kind = RetransmissionKind::kTlp;
  } else {
    r.kind = RetransmissionKind::kOther;
  }

  if (r.kind == RetransmissionKind::kRto) {
    // Every timeout is an episode of its own; the next one backs off.
    const bool new_timeout = timed_out;
    if (new_timeout) {
      r.starts_episode = true;
      timer_start_ns_ = time_ns;
      ++backoff_;
      backoff_ = std::min(backoff_, 16);
      episode_open_ = episode_seen_ = true;
      episode_kind_ = RetransmissionKind::kRto;
      recovery_point_ = snd_nxt;
      duplicate_acks_ = 0;
    }
  } else if (r.kind == RetransmissionKind::kFast && !in_episode) {
    r.starts_episode = true;
    episode_open_ = episode_seen_ = true;
    episode_kind_ = RetransmissionKind::kFast;
    recovery_point_ = snd_nxt;
  }

  const Recent& replaced = recent_[next_recent_];
  if (replaced.used && !replaced.acked) --recent_awaiting_ack_;
  recent_[next_recent_] = {start, end, ts_val, false, false, true};
  ++recent_awaiting_ack_;
  next_recent_ = (next_recent_ + 1) % kRecent;
  return r;
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
        static_cast<int32_t>(ts_ecr - e.ts_val) < 0) {
      e.spurious = true;
      ++found;
    }
  }
  return found;
}

}  // namespace ccreplay
