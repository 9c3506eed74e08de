#include "replay/sack_scoreboard.h"

#include <algorithm>

#include "parsers/tcp_segment.h"

namespace ccreplay {
namespace {

uint64_t PacketCount(uint64_t bytes, uint32_t mss_bytes) {
  if (mss_bytes == 0) return bytes > 0 ? 1 : 0;
  return (bytes + mss_bytes - 1) / mss_bytes;
}

// tcp_skb_sent_after() (include/net/tcp.h, 6.18): sent later, or at the
// same time with a higher end.
bool SentAfter(int64_t t1_ns, int64_t t2_ns, int64_t end1, int64_t end2) {
  return t1_ns > t2_ns || (t1_ns == t2_ns && end1 > end2);
}

}  // namespace

void SackScoreboard::Reset(int64_t snd_una) {
  segments_.clear();
  snd_una_ = snd_nxt_ = snd_una;
  highest_sacked_end_ = lost_below_ = snd_una;
  sacked_bytes_ = lost_bytes_ = retrans_bytes_ = 0;
  rack_xmit_ns_ = INT64_MIN;
  rack_end_ = rack_last_sent_ns_ = 0;
  rack_advanced_ = false;
}

size_t SackScoreboard::Find(int64_t seq) const {
  auto it =
      std::upper_bound(segments_.begin(), segments_.end(), seq,
                       [](int64_t v, const Segment& s) { return v < s.end; });
  return static_cast<size_t>(it - segments_.begin());
}

size_t SackScoreboard::SplitAt(int64_t seq) {
  const size_t i = Find(seq);
  if (i == segments_.size() || segments_[i].start >= seq) return i;
  Segment right = segments_[i];
  right.start = seq;
  segments_[i].end = seq;
  segments_.insert(segments_.begin() + static_cast<std::ptrdiff_t>(i) + 1,
                   right);
  return i + 1;
}

void SackScoreboard::SetFlag(Segment& s, Flag flag) {
  if (s.flags & flag) return;
  s.flags |= flag;
  if (flag == kSacked) sacked_bytes_ += s.length();
  if (flag == kLost) lost_bytes_ += s.length();
  if (flag == kRetransInFlight) retrans_bytes_ += s.length();
}

void SackScoreboard::ClearFlag(Segment& s, Flag flag) {
  if (!(s.flags & flag)) return;
  s.flags &= static_cast<uint8_t>(~flag);
  if (flag == kSacked) sacked_bytes_ -= s.length();
  if (flag == kLost) lost_bytes_ -= s.length();
  if (flag == kRetransInFlight) retrans_bytes_ -= s.length();
}

SackScoreboard::SendResult SackScoreboard::OnSend(int64_t start, int64_t end,
                                                  int64_t time_ns,
                                                  uint32_t ts_val,
                                                  const RateSnapshot& tx) {
  SendResult r;
  if (end <= start) return r;
  if (start < snd_nxt_) {
    r.resent_bytes = static_cast<uint64_t>(std::min(end, snd_nxt_) - start);
    r.is_tail = end >= snd_nxt_;
    if (start < snd_una_) {
      r.was_acked = true;
    } else {
      r.is_head = start == snd_una_;
    }
    const int64_t from = std::max(start, snd_una_);
    const int64_t to = std::min(end, snd_nxt_);
    if (from < to) {
      size_t i = SplitAt(from);
      SplitAt(to);
      const Segment& first = segments_[i];
      if (!r.was_acked) {
        r.was_sacked = first.flags & kSacked;
        r.was_lost = first.flags & kLost;
        r.was_retransmitted = first.flags & kEverRetransmitted;
        r.was_unseen = first.flags & kUnseen;
        r.previous_send_ns = first.sent_ns;
        r.previous_ts_val = first.ts_val;
      }
      for (; i < segments_.size() && segments_[i].start < to; ++i) {
        Segment& s = segments_[i];
        if (s.flags & kUnseen) {
          // First sighting: the capture missed the original transmission.
          s.flags &= static_cast<uint8_t>(~kUnseen);
          s.first_sent_ns = time_ns;
          s.first_ts_val = ts_val;
        } else {
          s.flags |= kEverRetransmitted;
          if (!(s.flags & kSacked)) SetFlag(s, kRetransInFlight);
        }
        s.sent_ns = time_ns;
        s.ts_val = ts_val;
        s.tx = tx;
      }
    }
  }
  if (end > snd_nxt_) {
    if (start > snd_nxt_) {
      segments_.push_back(
          {snd_nxt_, start, time_ns, time_ns, 0, 0, kUnseen, RateSnapshot{}});
    }
    const int64_t from = std::max(start, snd_nxt_);
    r.new_bytes = static_cast<uint64_t>(end - from);
    segments_.push_back({from, end, time_ns, time_ns, ts_val, ts_val, 0, tx});
    snd_nxt_ = end;
  }
  return r;
}

void SackScoreboard::DropAcked(int64_t ack, uint32_t mss_bytes,
                               AckResult& result) {
  const int64_t to = std::min(ack, snd_nxt_);
  result.acked_unsent = ack > snd_nxt_;
  result.bytes_acked = static_cast<uint64_t>(to - snd_una_);
  while (!segments_.empty() && segments_.front().start < to) {
    Segment& s = segments_.front();
    const bool whole = s.end <= to;
    const int64_t cut = whole ? s.end : to;
    result.has_acked_segment = true;
    result.acked_segment_retransmitted = s.flags & kEverRetransmitted;
    if (s.flags & kEverRetransmitted) result.retransmitted_data_acked = true;
    result.acked_segment_unseen = s.flags & kUnseen;
    result.acked_segment_sent_ns = s.sent_ns;
    result.acked_segment_first_sent_ns = s.first_sent_ns;
    result.acked_segment_ts_val = s.ts_val;
    result.acked_segment_first_ts_val = s.first_ts_val;
    TakeRateState(s, /*sacked=*/false, result);
    const uint64_t bytes = static_cast<uint64_t>(cut - s.start);
    if (!(s.flags & kSacked)) {
      result.packets_delivered += PacketCount(bytes, mss_bytes);
      if (!SpuriouslyRetransmitted(s)) RackAdvance(s, /*cumulative=*/true);
    }
    if (!(s.flags & (kSacked | kEverRetransmitted))) {
      result.lowest_original_delivered =
          std::min(result.lowest_original_delivered, s.start);
    }
    // Take the acknowledged bytes out of the counters.
    if (s.flags & kSacked) sacked_bytes_ -= bytes;
    if (s.flags & kLost) lost_bytes_ -= bytes;
    if (s.flags & kRetransInFlight) retrans_bytes_ -= bytes;
    if (whole) {
      segments_.pop_front();
    } else {
      s.start = cut;  // A partial ACK of a (TSO) super-segment.
    }
  }
  snd_una_ = to;
}

void SackScoreboard::TakeRateState(Segment& s, bool sacked, AckResult& result) {
  if (s.tx.delivered_ns == 0) return;  // unseen, or SACKed before
  std::optional<DeliveredPacket>& newest = result.newest_delivered;
  // "!rs->prior_delivered || after(scb->tx.delivered, rs->prior_delivered)":
  // ties keep the first, except at delivered 0, where the last wins.
  if (!newest.has_value() || newest->tx.delivered == 0 ||
      s.tx.delivered > newest->tx.delivered) {
    newest = DeliveredPacket{s.tx, s.sent_ns};
  }
  // "Mark off the skb delivered once it's sacked to avoid being used again
  // when it's cumulatively acked."
  if (sacked) s.tx.delivered_ns = 0;
}

void SackScoreboard::Sack(int64_t start, int64_t end, uint32_t mss_bytes,
                          AckResult& result) {
  const std::optional<size_t> first = SplitRange(start, end);
  if (!first.has_value()) return;
  for (size_t i = *first; i < segments_.size() && segments_[i].start < end;
       ++i) {
    Segment& s = segments_[i];
    if (s.flags & kSacked) continue;
    ClearFlag(s, kLost);
    ClearFlag(s, kRetransInFlight);
    SetFlag(s, kSacked);
    TakeRateState(s, /*sacked=*/true, result);
    RackAdvance(s, /*cumulative=*/false);
    result.bytes_sacked += s.length();
    result.packets_delivered += PacketCount(s.length(), mss_bytes);
    if (!(s.flags & kEverRetransmitted)) {
      result.lowest_original_delivered =
          std::min(result.lowest_original_delivered, s.start);
      if (!(s.flags & kUnseen) && s.start > result.last_sackt_start) {
        result.last_sackt_start = s.start;
        result.last_sackt_ns = s.sent_ns;
      }
    }
  }
  highest_sacked_end_ = std::max(highest_sacked_end_, end);
}

void SackScoreboard::UpdateLost(uint32_t mss_bytes) {
  if (sacked_bytes_ == 0 || highest_sacked_end_ <= snd_una_) return;
  // Walk down from the highest SACKed byte until DupThresh SACKed segments
  // or more than (DupThresh - 1) * SMSS SACKed bytes lie above.
  size_t i = Find(highest_sacked_end_ - 1);
  uint64_t sacked_segments = 0, sacked_bytes = 0;
  const uint64_t byte_limit = static_cast<uint64_t>(kDupThresh - 1) * mss_bytes;
  int64_t boundary = snd_una_;
  for (;; --i) {
    const Segment& s = segments_[i];
    if (s.flags & kSacked) {
      sacked_segments += PacketCount(s.length(), mss_bytes);
      sacked_bytes += s.length();
      if (sacked_segments >= kDupThresh || sacked_bytes > byte_limit) {
        boundary = s.start;
        break;
      }
    }
    if (i == 0) break;
  }
  if (boundary <= lost_below_) return;
  dupthresh_from_ = std::max(lost_below_, snd_una_);
  dupthresh_to_ = boundary;
  for (size_t j = Find(dupthresh_from_); j < segments_.size(); ++j) {
    Segment& s = segments_[j];
    if (s.start >= boundary) break;
    if (!(s.flags & (kSacked | kLost))) {
      SetFlag(s, kLost);
      s.flags |= kDupthreshLost;
    }
  }
  lost_below_ = boundary;
}

void SackScoreboard::TakeSackBlocks(int64_t ack, const SackBlock* blocks,
                                    int block_count, uint32_t mss_bytes,
                                    AckResult& r) {
  // RFC 2883 section 4: the first block is a D-SACK when it lies below the
  // cumulative ACK or inside the second block.
  int first = 0;
  if (block_count > 0) {
    const SackBlock& b = blocks[0];
    const bool below_ack = b.end <= ack;
    const bool inside_second =
        block_count > 1 && b.start >= blocks[1].start && b.end <= blocks[1].end;
    if (b.end > b.start && (below_ack || inside_second)) {
      r.bytes_dsacked = static_cast<uint64_t>(b.end - b.start);
      r.dsack = b;
      first = 1;
    }
  }
  for (int k = first; k < block_count; ++k)
    Sack(blocks[k].start, blocks[k].end, mss_bytes, r);
}

SackScoreboard::AckResult SackScoreboard::OnAck(
    int64_t ack, const SackBlock* blocks, int block_count, uint32_t mss_bytes,
    int64_t ack_ns, int64_t min_rtt_ns, uint32_t ts_ecr) {
  AckResult r;
  rack_ack_ns_ = ack_ns;
  rack_min_rtt_ns_ = min_rtt_ns;
  rack_ts_ecr_ = ts_ecr;
  // The previous ACK's RFC 6675 marks are no longer this ACK's.
  for (size_t i = Find(std::max(dupthresh_from_, snd_una_));
       i < segments_.size() && segments_[i].start < dupthresh_to_; ++i) {
    segments_[i].flags &= static_cast<uint8_t>(~kDupthreshLost);
  }
  dupthresh_to_ = dupthresh_from_;
  rack_cumulative_sent_ns_.reset();
  rack_sacked_.reset();
  const int64_t old_una = snd_una_;
  const int64_t prior_fack = HighestSackSeq();
  if (ack > snd_una_) DropAcked(ack, mss_bytes, r);
  TakeSackBlocks(ack, blocks, block_count, mss_bytes, r);
  // RFC 2018 section 8, Linux tcp_check_sack_reneging(): the cumulative ACK
  // stops at a byte the receiver had SACKed, so it dropped SACKed data.
  if (ack >= old_una && !segments_.empty() &&
      (segments_.front().flags & kSacked)) {
    r.reneged = true;
    for (Segment& s : segments_) ClearFlag(s, kSacked);
    highest_sacked_end_ = lost_below_ = snd_una_;
  }
  // Reordering when an original delivered now lay below the highest SACK
  // before the ACK; its metric is measured from the highest SACK after it
  // (tcp_check_sack_reordering() reads tcp_highest_sack_seq() when called,
  // after tcp_sacktag_write_queue() or tcp_clean_rtx_queue(): snd_una once
  // nothing SACKed is left), so a late segment acked together with data
  // above the old highest SACK counts that data too.
  if (r.lowest_original_delivered < prior_fack) {
    r.reordering_bytes =
        static_cast<uint64_t>(HighestSackSeq() - r.lowest_original_delivered);
  }
  if (r.bytes_sacked > 0) {
    const uint64_t lost_before = lost_bytes_;
    UpdateLost(mss_bytes);
    r.bytes_newly_lost = lost_bytes_ - lost_before;
  }
  // The segment the sender took last: tcp_clean_rtx_queue() runs after
  // tcp_sacktag_write_queue(), both in ascending sequence.
  if (rack_cumulative_sent_ns_.has_value()) {
    rack_last_sent_ns_ = *rack_cumulative_sent_ns_;
  } else if (rack_sacked_.has_value()) {
    rack_last_sent_ns_ = rack_sacked_->second;
  }
  return r;
}

void SackScoreboard::RackAdvance(const Segment& s, bool cumulative) {
  if (s.flags & kUnseen) return;  // No send time.
  // "If the sacked packet was retransmitted, it's ambiguous whether the
  // retransmission or the original (or the prior retransmission) was
  // sacked": taken only once a min RTT has passed since it was resent.
  if ((s.flags & kEverRetransmitted) && rack_ack_ns_ > 0 &&
      rack_ack_ns_ - s.sent_ns < rack_min_rtt_ns_) {
    return;
  }
  rack_advanced_ = true;
  if (SentAfter(s.sent_ns, rack_xmit_ns_, s.end, rack_end_)) {
    rack_xmit_ns_ = s.sent_ns;
    rack_end_ = s.end;
  }
  if (cumulative) {
    rack_cumulative_sent_ns_ = s.sent_ns;
  } else if (!rack_sacked_.has_value() || s.start > rack_sacked_->first) {
    rack_sacked_ = std::make_pair(s.start, s.sent_ns);
  }
}

bool SackScoreboard::SpuriouslyRetransmitted(const Segment& s) const {
  // tcp_tsopt_ecr_before(): an echo of 0 says nothing; `before()` is
  // serial-number order.
  return (s.flags & kEverRetransmitted) && rack_ts_ecr_ != 0 &&
         TsBefore(rack_ts_ecr_, s.ts_val);
}

SackScoreboard::RackMarks SackScoreboard::RackDetectLoss(int64_t reo_wnd_ns) {
  RackMarks marks;
  if (!rack_advanced_) return marks;
  rack_advanced_ = false;
  const uint64_t lost_before = lost_bytes_;
  const int64_t deadline_ns = rack_last_sent_ns_ - reo_wnd_ns;
  for (Segment& s : segments_) {
    // First transmissions leave in sequence order, and a segment resent
    // left later still: past the first one sent after the deadline, none
    // qualifies.
    if (s.first_sent_ns > deadline_ns) break;
    if (s.flags & kSacked) continue;
    const bool lost = s.flags & kLost;
    const bool lost_here = s.flags & kDupthreshLost;
    if (lost && !lost_here && !(s.flags & kRetransInFlight)) continue;
    if (s.sent_ns > deadline_ns ||
        !SentAfter(rack_xmit_ns_, s.sent_ns, rack_end_, s.end)) {
      continue;
    }
    if (lost_here) {
      marks.rack_bytes += s.length();
      ClearFlag(s, kRetransInFlight);  // tcp_mark_skb_lost(), if resent
    } else if (lost) {
      ClearFlag(s, kRetransInFlight);  // "retransmits that are lost again"
    } else {
      SetFlag(s, kLost);
    }
  }
  marks.newly_lost_bytes = lost_bytes_ - lost_before;
  marks.rack_bytes += marks.newly_lost_bytes;
  return marks;
}

int64_t SackScoreboard::HighestSackSeq() const {
  // "Start sequence of the skb just after the highest skb with SACKed
  // bit" (tp->highest_sack points past it: tcp_advance_highest_sack()),
  // snd_nxt when none follows: in one sequence space, the highest SACKed
  // segment's end.
  return sacked_bytes_ > 0 && highest_sacked_end_ > snd_una_
             ? highest_sacked_end_
             : snd_una_;
}

void SackScoreboard::ShrinkToFit() { segments_.shrink_to_fit(); }

void SackScoreboard::MarkLost(int64_t start, int64_t end) {
  const std::optional<size_t> first = SplitRange(start, end);
  if (!first.has_value()) return;
  for (size_t i = *first; i < segments_.size() && segments_[i].start < end;
       ++i) {
    if (!(segments_[i].flags & kSacked)) SetFlag(segments_[i], kLost);
  }
}

std::optional<size_t> SackScoreboard::SplitRange(int64_t start, int64_t& end) {
  start = std::max(start, snd_una_);
  end = std::min(end, snd_nxt_);
  if (start >= end) return std::nullopt;
  const size_t first = SplitAt(start);
  SplitAt(end);
  return first;
}

void SackScoreboard::MarkAllLost(int64_t resent_start, int64_t resent_end) {
  for (Segment& s : segments_) {
    if (s.start >= resent_end || s.end <= resent_start)
      ClearFlag(s, kRetransInFlight);
    if (!(s.flags & kSacked)) SetFlag(s, kLost);
  }
  lost_below_ = snd_nxt_;
}

}  // namespace ccreplay
