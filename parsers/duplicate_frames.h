// Recognises the same frame captured twice: a SPAN port mirroring both
// directions of a switch, or `tcpdump -i any` seeing a packet on a bridge
// and again on the veth behind it. Such a copy is not a retransmission (the
// sender sent the segment once) and must not reach the flow's counts or
// timeline; `editcap -d` removes the same copies before tshark's analysis.
#ifndef CCREPLAY_PARSERS_DUPLICATE_FRAMES_H_
#define CCREPLAY_PARSERS_DUPLICATE_FRAMES_H_

#include <cstddef>
#include <cstdint>

#include "absl/container/flat_hash_map.h"
#include "parsers/last_connection.h"
#include "parsers/tcp_segment.h"

namespace ccreplay {

// Two captures of one frame are microseconds apart; a sender's own second
// copy of a segment (a retransmission) waits at least for the ACKs that
// trigger it, or a timer of 200 ms and more (RFC 6298 §2.4, Linux
// TCP_RTO_MIN). Frames with an IPv4 identification are told apart by it
// (RFC 6864 §4.1: a source does not repeat an ID within the datagram's
// lifetime), so 1 ms is safe for them.
constexpr int64_t kDuplicateWithIpIdNs = 1'000'000;
// IPv6 frames, and IPv4 frames with ID 0 (RFC 6864 atomic datagrams; Linux
// sends SYN-ACKs and RSTs so), have nothing but their contents: a copy must
// follow within 20 us, with no segment of the reverse direction between
// (which a retransmission, or a repeated RST, would need).
constexpr int64_t kDuplicateWithoutIpIdNs = 20'000;
// Frames compared per direction: copies from a SPAN port arrive within a
// few frames of each other.
constexpr int kDuplicateLookback = 8;
// A connection's recent frames are dropped once it has had no frame for
// this long (by the newest capture time read): no copy can match them
// after kDuplicateWithIpIdNs, and the rest is a margin for captures whose
// time steps back a little (multi-queue capture). So the state follows
// the connections of the last few milliseconds, not all the capture's.
constexpr int64_t kDuplicateStateNs = 10 * kDuplicateWithIpIdNs;

class DuplicateFrames {
 public:
  // True when `s`, not an RST, repeats one of the last kDuplicateLookback
  // frames of its direction: same IP ID, TCP flags, sequence and acknowledgment
  // numbers, window, payload length, timestamps option and first SACK block,
  // within the limits above. Otherwise remembers `s`.
  bool IsDuplicate(const TcpSegment& s);
  void Reset();
  // Connections whose recent frames are held.
  size_t connections() const { return connections_.size(); }

 private:
  using Key = EndpointPair;
  struct Signature {
    int64_t time_ns = 0;
    uint64_t peer_frames = 0;  // The reverse direction's count then.
    uint32_t seq = 0, ack = 0, payload_bytes = 0, ts_val = 0, ts_ecr = 0;
    uint32_t sack_left = 0, sack_right = 0;
    uint16_t ip_id = 0, flags = 0, window_raw = 0;
    bool valid = false;
  };
  struct Direction {
    Signature recent[kDuplicateLookback];
    int next = 0;
    uint64_t frames = 0;
  };
  // Both directions, dropped together: a direction's copies are told
  // apart by its peer's frame count.
  struct Connection {
    Direction direction[2];  // [0]: from the lower endpoint.
    int64_t last_ns = 0;     // Its newest frame.
  };
  static Signature SignatureOf(const TcpSegment& s, uint64_t peer_frames);
  static bool Repeats(const Signature& copy, const Signature& original);
  // Drops the connections without a frame for kDuplicateStateNs.
  void DropIdle(int64_t now_ns);
  // The segment's connection (from the cache, else the map, inserting it)
  // and the index of its direction in it.
  Connection& Lookup(const TcpSegment& s, int* side);

  absl::flat_hash_map<Key, Connection> connections_;
  LastConnection<Connection> last_;
  int64_t next_sweep_ns_ = -1;  // -1: no frame yet.
};

}  // namespace ccreplay

#endif  // CCREPLAY_PARSERS_DUPLICATE_FRAMES_H_
