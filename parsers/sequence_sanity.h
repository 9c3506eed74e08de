// Drops TCP segments whose sequence, acknowledgment or SACK numbers cannot
// belong to their connection: one bit flipped in a capture (a corrupt
// frame with a good checksum, or a damaged file) would otherwise move the
// unwrapped sequence space of every later segment by 2^32
// (SequenceTracker::Unwrap follows the nearest value).
//
// A value is implausible when it lies further from the last accepted one
// of the same field and direction than any real connection moves between
// two of its segments: more than max(2 × the largest window the connection
// advertised, 1 GiB). The window bounds what can be sent or acknowledged
// beyond the last acknowledgment (RFC 9293 §3.8.6); RFC 7323 §2.3 caps a
// window at 2^30 bytes, so the bound stays below 2^31, the distance a
// flipped bit 31 makes. The 1 GiB floor keeps a capture that lost packets
// (tcpdump drops) from looking corrupt.
//
// A connection's state is dropped when it ends, as the flow index ends a
// flow (parsers/connection_expiry.h): kClosedLingerNs after its RST or its
// second FIN, or after kFlowIdleTimeoutNs without a segment. So memory
// follows the connections open at once, not all the capture's.
//
// The state (ConnectionSanity) is held by the consumer when it keeps a
// record of the connection anyway (the flow table, in its Flow): one key
// and one lookup a connection for both, and a few tens of bytes more per
// record instead of a map node. Held state is dropped lazily: when a
// segment comes, it is taken as fresh if a sweep since its last segment
// found it ended or idle, as the sweep of a map of its own would have.
#ifndef CCREPLAY_PARSERS_SEQUENCE_SANITY_H_
#define CCREPLAY_PARSERS_SEQUENCE_SANITY_H_

#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <utility>

#include "absl/container/node_hash_map.h"
#include "parsers/last_connection.h"
#include "parsers/node_pool.h"
#include "parsers/tcp_segment.h"

namespace ccreplay {

// One connection's state, wherever it is held. Small (64 bytes; see
// sequence_sanity_test): a flow table holds one per flow.
class ConnectionSanity {
 public:
  // For a holder that orders the endpoints the other way round.
  void SwapDirections() { std::swap(direction[0], direction[1]); }

 private:
  friend class SequenceSanity;
  // One 32-bit number (sequence or acknowledgment) of one direction.
  struct Field {
    uint32_t last = 0;       // The last accepted value.
    uint32_t candidate = 0;  // The last rejected value.
  };
  struct Direction {
    Field seq, ack;
    // Advertised by this direction; 65535 << 14 at most (RFC 7323 §2.3).
    uint32_t largest_window_bytes = 0;
    // Rejected values in a row near each other (kSegmentsToResync at
    // most), of seq and ack.
    uint8_t seq_agreeing = 0, ack_agreeing = 0;
    uint8_t wscale_shift = 0;
    uint8_t bits = 0;  // kSeqKnown | kAckKnown | kSynWscale | kFin.
  };
  static constexpr uint8_t kSeqKnown = 1, kAckKnown = 2, kSynWscale = 4,
                           kFin = 8;  // Sent a FIN (accepted).

  // When a sweep drops it: kClosedLingerNs after its RST or second FIN,
  // else kFlowIdleTimeoutNs after its newest segment. Before its first
  // segment, the lowest time.
  int64_t expiry_ns = INT64_MIN;
  // [0]: from the lower endpoint, in SequenceSanity's own map; in a
  // holder's record, its own order (HeldSanity's `side`).
  Direction direction[2];
  // SequenceSanity::sweeps_ at its newest segment.
  uint32_t sweeps = 0;
  bool ended = false;  // Its RST or second FIN was seen.
};

class SequenceSanity {
 public:
  // The floor of the bound, 1 GiB.
  static constexpr uint64_t kMinJumpBytes = uint64_t{1} << 30;
  // A connection whose numbers really jumped (a capture gap wider than the
  // bound) is followed again after this many consecutive segments agree
  // with each other; the ones before are dropped.
  static constexpr int kSegmentsToResync = 3;
  // How often, in capture time, ended connections are looked for.
  static constexpr int64_t kSweepIntervalNs = 1'000'000'000;

  // Whether `segment` fits its connection, whose state this object holds.
  // An empty string when it does; otherwise why not (the field and the
  // distance), for a warning.
  std::string Check(const TcpSegment& segment);
  // The same with the state `held` elsewhere, `side` the index of the
  // segment's sender in held.direction.
  std::string Check(const TcpSegment& segment, ConnectionSanity& held,
                    int side);
  // Moves the state this object holds for `segment`'s connection, if any,
  // into `held` (whose `side` is the segment's sender), which from now on
  // holds it: the holder made its record after the connection's first
  // segments. Without state here, `held` is left as it is.
  void HandOver(const TcpSegment& segment, ConnectionSanity& held, int side);
  // Forget every connection (the reader starts over).
  void Reset();
  // Connections whose state this object holds.
  size_t connections() const { return connections_.size(); }

 private:
  using Field = ConnectionSanity::Field;
  using Direction = ConnectionSanity::Direction;
  // Endpoints, lower one first (EndpointNotAfter()).
  using Key = EndpointPair;

  // Whether `value` is within `bound` of `field`'s last accepted value (or
  // starts or resynchronises it); accepted values become the last one
  // only through Accept.
  static bool Plausible(Field& field, bool known, uint8_t& agreeing,
                        uint32_t value, uint64_t bound);
  // The window `d` advertises in `s`, scaled when both SYNs agreed on it
  // (RFC 7323 §2.2).
  static uint64_t WindowBytes(const Direction& d, const Direction& peer,
                              const TcpSegment& s);

  // Sweeps the map once a second of capture time (see the top).
  void Advance(int64_t now_ns);
  // The segment's connection and the index of its direction in it: from
  // the cache when the segment belongs to the previous segment's
  // connection (either way round), else from the map, inserting it.
  ConnectionSanity& Lookup(const TcpSegment& s, int* side);
  // Notes `s` (accepted, from `side`) for the connection's end.
  static void NoteEnd(ConnectionSanity& c, int side, const TcpSegment& s);
  // Whether the last sweep dropped, or would have dropped, `c`.
  bool Expired(const ConnectionSanity& c) const {
    return c.sweeps < sweeps_ && last_sweep_ns_ >= c.expiry_ns;
  }
  // `s` (from `side`) accepted: its numbers become the last ones, its
  // window and end are noted.
  static void Accept(ConnectionSanity& c, int side, const TcpSegment& s);
  // The check proper, after Advance.
  std::string CheckState(const TcpSegment& s, ConnectionSanity& c, int side);
  // Drops the connections ended, or idle, by `now_ns` (see the top).
  void DropEnded(int64_t now_ns);

  // A node map: the cache below keeps pointers into it across insertions.
  // Its nodes come from a pool (parsers/node_pool.h): a million of them
  // freed at the capture's end leave whole slabs, not a million holes.
  using Node = std::pair<const Key, ConnectionSanity>;
  absl::node_hash_map<Key, ConnectionSanity, absl::Hash<Key>,
                      std::equal_to<Key>, PoolAllocator<Node>>
      connections_{
          0, absl::Hash<Key>(), std::equal_to<Key>(),
          PoolAllocator<Node>(std::make_shared<NodePool>(sizeof(Node)))};
  // The previous segment's connection (most segments follow one of their
  // own connection): its key in that segment's order, the connection and
  // that segment's side.
  LastConnection<ConnectionSanity> last_;
  int64_t next_sweep_ns_ = -1;  // -1: no segment yet.
  uint32_t sweeps_ = 0;         // Sweeps so far.
  int64_t last_sweep_ns_ = 0;   // The time of the last one.
};

}  // namespace ccreplay

#endif  // CCREPLAY_PARSERS_SEQUENCE_SANITY_H_
