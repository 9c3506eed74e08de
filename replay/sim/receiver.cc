#include "replay/sim/receiver.h"

#include <algorithm>

#include "absl/base/macros.h"
#include "absl/strings/str_cat.h"
#include "parsers/tcp_segment.h"

namespace ccreplay {

absl::StatusOr<RecoveryAcks> ParseRecoveryAcks(absl::string_view name) {
  if (name == "every_packet_while_hole") {
    return RecoveryAcks::kEveryPacketWhileHole;
  }
  if (name == "on_new_gap") return RecoveryAcks::kOnNewGap;
  return absl::InvalidArgumentError(
      absl::StrCat("unknown recovery ACK policy '", name,
                   "': expected every_packet_while_hole or on_new_gap"));
}

Receiver::Receiver(const ReceiverConfig& config) : config_(config) {
  out_of_order_.reserve(16);
}

bool Receiver::Reassemble(uint64_t seq, uint32_t bytes) {
  const uint64_t end = seq + bytes;
  if (end <= rcv_nxt_) return true;  // duplicate
  if (seq > rcv_nxt_) {
    // Out of order: insert [seq, end) and merge neighbours.
    auto it = std::lower_bound(
        out_of_order_.begin(), out_of_order_.end(), seq,
        [](const OutOfOrderRange& r, uint64_t s) { return r.end < s; });
    uint64_t start = seq, stop = end;
    auto last = it;
    while (last != out_of_order_.end() && last->start <= stop) {
      start = std::min(start, last->start);
      stop = std::max(stop, last->end);
      ++last;
    }
    it = out_of_order_.erase(it, last);
    out_of_order_.insert(it, {start, stop, ++out_of_order_arrivals_});
    // lower_bound above needs the ranges sorted and disjoint (receiver.h).
    ABSL_ASSERT(std::adjacent_find(out_of_order_.begin(), out_of_order_.end(),
                                   [](const auto& a, const auto& b) {
                                     return a.end >= b.start;
                                   }) == out_of_order_.end());
    return true;
  }
  rcv_nxt_ = end;
  const bool had_holes = !out_of_order_.empty();
  size_t merged = 0;
  while (merged < out_of_order_.size() &&
         out_of_order_[merged].start <= rcv_nxt_) {
    rcv_nxt_ = std::max(rcv_nxt_, out_of_order_[merged].end);
    ++merged;
  }
  out_of_order_.erase(out_of_order_.begin(), out_of_order_.begin() + merged);
  return had_holes;  // filled all or part of a hole
}

void Receiver::BuildAck(int64_t now_ns, SimAck& ack) {
  ack = SimAck();
  ack.sent_ns = now_ns;
  ack.flow = config_.flow;
  ack.pn_first = pending_first_pn_;
  ack.pn_last = last_pn_;
  ack.cumulative_ack = rcv_nxt_;
  switch (config_.feedback) {
    case EcnFeedback::kRfc3168:
      ack.ece = ece_latched_;
      break;
    case EcnFeedback::kDctcp:
      ack.ece = dctcp_ce_;
      break;
    case EcnFeedback::kNone:
    case EcnFeedback::kAccEcn:
      break;
  }
  ack.ce_packets = ce_packets_;
  ack.ce_bytes = ce_bytes_;
  ack.ect0_bytes = ect0_bytes_;
  ack.ect1_bytes = ect1_bytes_;
  ack.echo_sent_ns = echo_sent_ns_;
  pending_packets_ = 0;
  ++generation_;
  if (config_.sack_blocks) AddSackBlocks(ack);
}

void Receiver::AddSackBlocks(SimAck& ack) const {
  // RFC 2018 section 4: the first block holds the segment that triggered
  // the ACK, the others the most recently reported ones (Linux
  // tcp_sack_new_ofo_skb() moves the block a segment grows to the front):
  // the three most recently grown ranges, newest first. So the sender
  // learns of every arrival when it happens, however many holes there are.
  size_t blocks = 0;
  const OutOfOrderRange* newest[3] = {nullptr, nullptr, nullptr};
  for (const OutOfOrderRange& r : out_of_order_) {
    // Insertion into the three newest so far, newest first.
    size_t at = blocks < 3 ? blocks++ : 3;
    while (at > 0 && newest[at - 1]->last_arrival < r.last_arrival) {
      if (at < 3) newest[at] = newest[at - 1];
      --at;
    }
    if (at < 3) newest[at] = &r;
  }
  ack.sack_blocks = static_cast<uint8_t>(blocks);
  for (size_t i = 0; i < blocks; ++i) {
    ack.sack_start[i] = newest[i]->start;
    ack.sack_end[i] = newest[i]->end;
  }
}

void Receiver::OnPacket(const SimPacket& packet, int64_t now_ns, Output& out) {
  out.ack_count = 0;
  out.arm_timer = false;
  const bool ce = packet.ecn == kCe;
  const bool pn_gap = any_packet_ && packet.pn != last_pn_ + 1;
  const bool dctcp_change =
      config_.feedback == EcnFeedback::kDctcp && ce != dctcp_ce_;
  // Flush what is pending before a drop shows, or (DCTCP) with the old ECE.
  if (pending_packets_ > 0 && (pn_gap || dctcp_change)) {
    BuildAck(now_ns, out.acks[out.ack_count++]);
  }
  const bool accecn_change = config_.feedback == EcnFeedback::kAccEcn &&
                             any_packet_ && ce != last_was_ce_;
  dctcp_ce_ = ce;
  last_was_ce_ = ce;
  if (packet.cwr) ece_latched_ = false;
  if (ce) {
    ece_latched_ = true;
    ++ce_packets_;
    ce_bytes_ += packet.bytes;
  } else if (packet.ecn == kEct0) {
    ect0_bytes_ += packet.bytes;
  } else if (packet.ecn == kEct1) {
    ect1_bytes_ += packet.bytes;
  }
  const bool not_in_order = Reassemble(packet.seq, packet.bytes);
  if (pending_packets_ == 0) pending_first_pn_ = packet.pn;
  ++pending_packets_;
  last_pn_ = packet.pn;
  any_packet_ = true;
  echo_sent_ns_ = packet.sent_ns;
  const bool recovery_ack = config_.recovery_acks == RecoveryAcks::kOnNewGap
                                ? pn_gap || ce
                                : not_in_order || !out_of_order_.empty();
  if (recovery_ack || accecn_change || pending_packets_ >= config_.ack_every) {
    BuildAck(now_ns, out.acks[out.ack_count++]);
  } else if (pending_packets_ == 1) {
    out.arm_timer = true;
  }
}

bool Receiver::OnDelayedAckTimer(uint64_t generation, int64_t now_ns,
                                 SimAck& ack) {
  if (generation != generation_ || pending_packets_ == 0) return false;
  BuildAck(now_ns, ack);
  return true;
}

}  // namespace ccreplay
