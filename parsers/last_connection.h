// The connection of the previous segment, either way round: a capture's
// consecutive segments mostly belong to one connection, so a per-packet
// table keyed by both endpoints (SequenceSanity, DuplicateFrames) looks
// it up here before it hashes.
#ifndef CCREPLAY_PARSERS_LAST_CONNECTION_H_
#define CCREPLAY_PARSERS_LAST_CONNECTION_H_

#include "parsers/tcp_segment.h"

namespace ccreplay {

template <typename Connection>
class LastConnection {
 public:
  // The cached connection when `s` belongs to it, with `s`'s side in it
  // (the side Set() was given, or the other one for the reverse
  // direction); null otherwise. Compared field by field, without building
  // a key: this runs per packet.
  Connection* Find(const TcpSegment& s, int* side) const {
    if (connection_ == nullptr) return nullptr;
    if (s.src_port == key_.src_port && s.dst_port == key_.dst_port &&
        s.src == key_.src && s.dst == key_.dst) {
      *side = side_;
      return connection_;
    }
    if (s.src_port == key_.dst_port && s.dst_port == key_.src_port &&
        s.src == key_.dst && s.dst == key_.src) {
      *side = 1 - side_;
      return connection_;
    }
    return nullptr;
  }
  // Remembers `connection` (an element of the caller's table, valid until
  // the table inserts or erases: call Set() again or Forget() then) as
  // `s`'s, `s` on `side`.
  void Set(const TcpSegment& s, Connection* connection, int side) {
    key_ = EndpointPair{s.src, s.dst, s.src_port, s.dst_port};
    connection_ = connection;
    side_ = side;
  }
  // The connection of `s` in `table` (keyed by EndpointPair, lower
  // endpoint first, EndpointNotAfter()): the cached one, else looked up or
  // inserted there and cached; `side` 0 when `s` comes from the lower
  // endpoint.
  template <typename Table>
  Connection& Lookup(Table& table, const TcpSegment& s, int* side) {
    if (Connection* cached = Find(s, side)) return *cached;
    const bool src_low = EndpointNotAfter(s.src, s.src_port, s.dst, s.dst_port);
    Connection& c =
        table[src_low ? EndpointPair{s.src, s.dst, s.src_port, s.dst_port}
                      : EndpointPair{s.dst, s.src, s.dst_port, s.src_port}];
    *side = src_low ? 0 : 1;
    Set(s, &c, *side);
    return c;
  }
  void Forget() { connection_ = nullptr; }
  bool Is(const Connection* connection) const {
    return connection_ == connection;
  }

 private:
  EndpointPair key_;
  Connection* connection_ = nullptr;
  int side_ = 0;
};

}  // namespace ccreplay

#endif  // CCREPLAY_PARSERS_LAST_CONNECTION_H_
