#include "parsers/sequence_sanity.h"

#include <algorithm>
#include <cstdlib>

#include "absl/strings/str_format.h"
#include "parsers/connection_expiry.h"

namespace ccreplay {
namespace {

// |a − b| modulo 2^32, as the nearer of the two ways round.
uint64_t Distance(uint32_t a, uint32_t b) {
  return static_cast<uint64_t>(
      std::llabs(static_cast<int64_t>(static_cast<int32_t>(a - b))));
}

}  // namespace

bool SequenceSanity::Plausible(Field& field, bool known, uint8_t& agreeing,
                               uint32_t value, uint64_t bound) {
  if (!known || Distance(value, field.last) <= bound) return true;
  // Rejected: count how many rejected values in a row agree.
  // Capped: only reaching kSegmentsToResync matters.
  agreeing = agreeing > 0 && Distance(value, field.candidate) <= bound
                 ? std::min(agreeing + 1, kSegmentsToResync)
                 : 1;
  field.candidate = value;
  return agreeing >= kSegmentsToResync;
}

uint64_t SequenceSanity::WindowBytes(const Direction& d, const Direction& peer,
                                     const TcpSegment& s) {
  const bool scaled = (d.bits & ConnectionSanity::kSynWscale) &&
                      (peer.bits & ConnectionSanity::kSynWscale) &&
                      !(s.flags & kTcpSyn);
  return uint64_t{s.window_raw}
         << (scaled ? std::min<uint8_t>(d.wscale_shift, 14) : 0);
}

ConnectionSanity& SequenceSanity::Lookup(const TcpSegment& s, int* side) {
  return last_.Lookup(connections_, s, side);
}

void SequenceSanity::HandOver(const TcpSegment& s, ConnectionSanity& held,
                              int side) {
  const bool src_low = EndpointNotAfter(s.src, s.src_port, s.dst, s.dst_port);
  auto it =
      connections_.find(src_low ? Key{s.src, s.dst, s.src_port, s.dst_port}
                                : Key{s.dst, s.src, s.dst_port, s.src_port});
  if (it == connections_.end()) return;
  held = it->second;
  if ((src_low ? 0 : 1) != side) held.SwapDirections();
  if (last_.Is(&it->second)) last_.Forget();
  connections_.erase(it);
}

void SequenceSanity::Reset() {
  connections_.clear();
  last_.Forget();
  next_sweep_ns_ = -1;
  sweeps_ = 0;
  last_sweep_ns_ = 0;
}

void SequenceSanity::NoteEnd(ConnectionSanity& c, int side,
                             const TcpSegment& s) {
  if (c.ended) return;
  if (s.flags & kTcpFin) c.direction[side].bits |= ConnectionSanity::kFin;
  if ((s.flags & kTcpRst) ||
      (c.direction[0].bits & c.direction[1].bits & ConnectionSanity::kFin)) {
    c.ended = true;
    c.expiry_ns = s.time_ns + kClosedLingerNs;
  }
}

void SequenceSanity::DropEnded(int64_t now_ns) {
  absl::erase_if(connections_, [now_ns](const auto& entry) {
    return now_ns >= entry.second.expiry_ns;
  });
  last_.Forget();  // It may have been dropped.
  ++sweeps_;
  last_sweep_ns_ = now_ns;
}

void SequenceSanity::Advance(int64_t now_ns) {
  // Capture time steps back a little at times (multi-queue capture): the
  // sweeps follow the newest time seen.
  if (next_sweep_ns_ < 0) next_sweep_ns_ = now_ns + kSweepIntervalNs;
  if (now_ns >= next_sweep_ns_) {
    DropEnded(now_ns);
    next_sweep_ns_ = now_ns + kSweepIntervalNs;
  }
}

std::string SequenceSanity::Check(const TcpSegment& s) {
  Advance(s.time_ns);
  int side;
  ConnectionSanity& c = Lookup(s, &side);
  return CheckState(s, c, side);
}

std::string SequenceSanity::Check(const TcpSegment& s, ConnectionSanity& held,
                                  int side) {
  Advance(s.time_ns);
  if (Expired(held)) held = ConnectionSanity();
  return CheckState(s, held, side);
}

std::string SequenceSanity::CheckState(const TcpSegment& s, ConnectionSanity& c,
                                       int side) {
  // The newest segment (the idle rule) counts rejected ones too.
  if (!c.ended)
    c.expiry_ns = std::max(c.expiry_ns, s.time_ns + kFlowIdleTimeoutNs);
  c.sweeps = sweeps_;
  Direction& d = c.direction[side];
  Direction& peer = c.direction[1 - side];
  const bool syn = s.flags & kTcpSyn;
  const bool has_ack = s.flags & kTcpAck;
  if (syn) {
    // A SYN starts (or restarts, on port reuse) this direction's numbers,
    // and a SYN-ACK acknowledges the peer's new ones.
    d.seq = Field();
    d.ack = Field();
    d.seq_agreeing = d.ack_agreeing = 0;
    d.bits &= ConnectionSanity::kFin;
    if (s.options.has_wscale) d.bits |= ConnectionSanity::kSynWscale;
    d.wscale_shift = s.options.wscale_shift;
  }
  // Sequence numbers move within what the peer lets this side send; ACKs
  // within what this side lets the peer send.
  const uint64_t seq_bound =
      std::max(2 * uint64_t{peer.largest_window_bytes}, kMinJumpBytes);
  const uint64_t ack_bound =
      std::max(2 * uint64_t{d.largest_window_bytes}, kMinJumpBytes);
  if (!Plausible(d.seq, d.bits & ConnectionSanity::kSeqKnown, d.seq_agreeing,
                 s.seq, seq_bound)) {
    return absl::StrFormat(
        "sequence number %u is %u bytes from the last one (%u), more than %u",
        s.seq, Distance(s.seq, d.seq.last), d.seq.last, seq_bound);
  }
  if (has_ack && !Plausible(d.ack, d.bits & ConnectionSanity::kAckKnown,
                            d.ack_agreeing, s.ack, ack_bound)) {
    return absl::StrFormat(
        "acknowledgment number %u is %u bytes from the last one (%u), more "
        "than %u",
        s.ack, Distance(s.ack, d.ack.last), d.ack.last, ack_bound);
  }
  for (int k = 0; has_ack && k < s.options.sack_block_count; ++k) {
    for (uint32_t edge : {s.options.sack_left[k], s.options.sack_right[k]}) {
      if (Distance(edge, s.ack) > ack_bound) {
        return absl::StrFormat(
            "SACK edge %u is %u bytes from the acknowledgment number %u, "
            "more than %u",
            edge, Distance(edge, s.ack), s.ack, ack_bound);
      }
    }
  }
  Accept(c, side, s);
  return "";
}

void SequenceSanity::Accept(ConnectionSanity& c, int side,
                            const TcpSegment& s) {
  Direction& d = c.direction[side];
  d.seq.last = s.seq;
  d.seq_agreeing = 0;
  d.bits |= ConnectionSanity::kSeqKnown;
  if (s.flags & kTcpAck) {
    d.ack.last = s.ack;
    d.ack_agreeing = 0;
    d.bits |= ConnectionSanity::kAckKnown;
  }
  d.largest_window_bytes = static_cast<uint32_t>(std::max<uint64_t>(
      d.largest_window_bytes, WindowBytes(d, c.direction[1 - side], s)));
  NoteEnd(c, side, s);
}

}  // namespace ccreplay
