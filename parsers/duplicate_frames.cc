#include "parsers/duplicate_frames.h"

#include <algorithm>
#include <cstdlib>

namespace ccreplay {

DuplicateFrames::Signature DuplicateFrames::SignatureOf(const TcpSegment& s,
                                                        uint64_t peer_frames) {
  Signature g;
  g.time_ns = s.time_ns;
  g.peer_frames = peer_frames;
  g.seq = s.seq;
  g.ack = s.ack;
  g.payload_bytes = s.payload_bytes;
  g.ts_val = s.options.ts_val;
  g.ts_ecr = s.options.ts_ecr;
  if (s.options.sack_block_count > 0) {
    g.sack_left = s.options.sack_left[0];
    g.sack_right = s.options.sack_right[0];
  }
  g.ip_id = s.ip_id;
  g.flags = s.flags;
  g.window_raw = s.window_raw;
  g.valid = true;
  return g;
}

bool DuplicateFrames::Repeats(const Signature& copy,
                              const Signature& original) {
  if (!original.valid || copy.seq != original.seq || copy.ack != original.ack ||
      copy.payload_bytes != original.payload_bytes ||
      copy.flags != original.flags || copy.ip_id != original.ip_id ||
      copy.window_raw != original.window_raw ||
      copy.ts_val != original.ts_val || copy.ts_ecr != original.ts_ecr ||
      copy.sack_left != original.sack_left ||
      copy.sack_right != original.sack_right) {
    return false;
  }
  const int64_t apart_ns = std::llabs(copy.time_ns - original.time_ns);
  if (copy.ip_id != 0) return apart_ns < kDuplicateWithIpIdNs;
  return apart_ns < kDuplicateWithoutIpIdNs &&
         copy.peer_frames == original.peer_frames;
}

bool DuplicateFrames::IsDuplicate(const TcpSegment& s) {
  // A stack answers each segment it refuses with its own RST (RFC 9293
  // §3.10.7.1), identical to the last and sometimes microseconds after it
  // (l4s-tests_cubic_fq_codel_wifi frames 77395-77396, 13 us apart, IP ID
  // 0): an RST is never taken for a copy.
  if (s.flags & kTcpRst) return false;
  if (next_sweep_ns_ < 0) next_sweep_ns_ = s.time_ns + kDuplicateStateNs;
  if (s.time_ns >= next_sweep_ns_) {
    DropIdle(s.time_ns);
    next_sweep_ns_ = s.time_ns + kDuplicateStateNs;
  }
  int side = 0;
  Connection& c = Lookup(s, &side);
  c.last_ns = std::max(c.last_ns, s.time_ns);
  Direction& d = c.direction[side];
  const Signature signature = SignatureOf(s, c.direction[1 - side].frames);
  for (const Signature& original : d.recent) {
    if (Repeats(signature, original)) return true;
  }
  d.recent[d.next] = signature;
  d.next = (d.next + 1) % kDuplicateLookback;
  ++d.frames;
  return false;
}

DuplicateFrames::Connection& DuplicateFrames::Lookup(const TcpSegment& s,
                                                     int* side) {
  return last_.Lookup(connections_, s, side);
}

void DuplicateFrames::Reset() {
  last_.Forget();
  connections_.clear();
  next_sweep_ns_ = -1;
}

void DuplicateFrames::DropIdle(int64_t now_ns) {
  last_.Forget();  // It may be dropped.
  absl::erase_if(connections_, [now_ns](const auto& entry) {
    return now_ns - entry.second.last_ns >= kDuplicateStateNs;
  });
}

}  // namespace ccreplay
