#include "parsers/sequence_sanity.h"

#include <algorithm>
#include <cstdlib>

#include "absl/strings/str_format.h"

namespace ccreplay {
namespace {

// |a − b| modulo 2^32, as the nearer of the two ways round.
uint64_t Distance(uint32_t a, uint32_t b) {
  return static_cast<uint64_t>(
      std::llabs(static_cast<int64_t>(static_cast<int32_t>(a - b))));
}

}  // namespace

bool SequenceSanity::Plausible(Field& field, uint32_t value, uint64_t bound) {
  if (!field.known || Distance(value, field.last) <= bound) return true;
  // Rejected: count how many rejected values in a row agree.
  field.agreeing =
      field.agreeing > 0 && Distance(value, field.candidate) <= bound
          ? field.agreeing + 1
          : 1;
  field.candidate = value;
  return field.agreeing >= kSegmentsToResync;
}

void SequenceSanity::Accept(Field& field, uint32_t value) {
  field.known = true;
  field.last = value;
  field.agreeing = 0;
}

uint64_t SequenceSanity::WindowBytes(const Direction& d, const Direction& peer,
                                     const TcpSegment& s) {
  const bool scaled = d.syn_wscale && peer.syn_wscale && !(s.flags & kTcpSyn);
  return uint64_t{s.window_raw}
         << (scaled ? std::min<uint8_t>(d.wscale_shift, 14) : 0);
}

void SequenceSanity::Lookup(const TcpSegment& s, Direction** d,
                            Direction** peer) {
  // Compared field by field, without building keys: this runs per packet.
  const Key& k = last_key_;
  if (last_ != nullptr && s.src_port == k.src_port &&
      s.dst_port == k.dst_port && s.src == k.src && s.dst == k.dst) {
    *d = last_;
    *peer = last_peer_;
    return;
  }
  if (last_ != nullptr && s.src_port == k.dst_port &&
      s.dst_port == k.src_port && s.src == k.dst && s.dst == k.src) {
    *d = last_peer_;
    *peer = last_;
    return;
  }
  const bool src_low = EndpointNotAfter(s.src, s.src_port, s.dst, s.dst_port);
  Connection& c =
      connections_[src_low ? Key{s.src, s.dst, s.src_port, s.dst_port}
                           : Key{s.dst, s.src, s.dst_port, s.src_port}];
  *d = &c.direction[src_low ? 0 : 1];
  *peer = &c.direction[src_low ? 1 : 0];
  last_key_ = Key{s.src, s.dst, s.src_port, s.dst_port};
  last_ = *d;
  last_peer_ = *peer;
}

std::string SequenceSanity::Check(const TcpSegment& s) {
  Direction* d_state;
  Direction* peer_state;
  Lookup(s, &d_state, &peer_state);
  Direction& d = *d_state;
  Direction& peer = *peer_state;
  const bool syn = s.flags & kTcpSyn;
  const bool has_ack = s.flags & kTcpAck;
  if (syn) {
    // A SYN starts (or restarts, on port reuse) this direction's numbers,
    // and a SYN-ACK acknowledges the peer's new ones.
    d.seq = Field();
    d.ack = Field();
    d.syn_seen = true;
    d.syn_wscale = s.options.has_wscale;
    d.wscale_shift = s.options.wscale_shift;
  }
  // Sequence numbers move within what the peer lets this side send; ACKs
  // within what this side lets the peer send.
  const uint64_t seq_bound =
      std::max(2 * peer.largest_window_bytes, kMinJumpBytes);
  const uint64_t ack_bound =
      std::max(2 * d.largest_window_bytes, kMinJumpBytes);
  if (!Plausible(d.seq, s.seq, seq_bound)) {
    return absl::StrFormat(
        "sequence number %u is %u bytes from the last one (%u), more than %u",
        s.seq, Distance(s.seq, d.seq.last), d.seq.last, seq_bound);
  }
  if (has_ack && !Plausible(d.ack, s.ack, ack_bound)) {
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
  Accept(d.seq, s.seq);
  if (has_ack) Accept(d.ack, s.ack);
  d.largest_window_bytes =
      std::max(d.largest_window_bytes, WindowBytes(d, peer, s));
  return "";
}

}  // namespace ccreplay
