// Plain structs for one decoded TCP segment: the hot-path currency between
// the capture reader and its consumers (flow table, sender reconstruction).
// No allocation per packet.
#ifndef CCREPLAY_PARSERS_TCP_SEGMENT_H_
#define CCREPLAY_PARSERS_TCP_SEGMENT_H_

#include <cstdint>
#include <cstring>
#include <string>
#include <utility>

namespace ccreplay {

// An IPv4 or IPv6 address, stored in 16 bytes (IPv4 in the first four).
struct IpAddress {
  uint8_t family = 0;  // 4 or 6; 0 when unset.
  uint8_t bytes[16] = {};

  bool operator==(const IpAddress& o) const {
    // Two 8-byte words each: memcmp() of 16 bytes is a library call, and
    // the flow table compares addresses on every packet.
    uint64_t a[2], b[2];
    std::memcpy(a, bytes, 16);
    std::memcpy(b, o.bytes, 16);
    return family == o.family && ((a[0] ^ b[0]) | (a[1] ^ b[1])) == 0;
  }
  bool operator!=(const IpAddress& o) const { return !(*this == o); }
  // Numeric text: dotted quad, or RFC 5952 IPv6 without brackets.
  std::string ToString() const;
  template <typename H>
  friend H AbslHashValue(H h, const IpAddress& a) {
    return H::combine(H::combine_contiguous(std::move(h), a.bytes, 16),
                      a.family);
  }
};

// Two endpoints as a hash-map key: one direction of a connection (source
// first), or a connection in EndpointNotAfter order (lower first).
struct EndpointPair {
  IpAddress src, dst;
  uint16_t src_port = 0, dst_port = 0;
  bool operator==(const EndpointPair& o) const {
    return src_port == o.src_port && dst_port == o.dst_port && src == o.src &&
           dst == o.dst;
  }
  template <typename H>
  friend H AbslHashValue(H h, const EndpointPair& k) {
    return H::combine(std::move(h), k.src, k.dst, k.src_port, k.dst_port);
  }
};

// "ADDR:PORT", IPv6 in brackets.
std::string EndpointString(const IpAddress& address, uint16_t port);
// Whether endpoint a sorts no later than b (address bytes, then port): the
// order in which the flow table and SequenceSanity key a connection, so
// both directions find it.
inline bool EndpointNotAfter(const IpAddress& a, uint16_t a_port,
                             const IpAddress& b, uint16_t b_port) {
  const int order = std::memcmp(a.bytes, b.bytes, 16);
  return order < 0 || (order == 0 && a_port <= b_port);
}

// TCP header flags as a 9-bit value: the eight classic bits and the AccECN
// AE bit (formerly NS, RFC 3540), the lowest of the reserved bits, as 0x100.
enum TcpFlag : uint16_t {
  kTcpFin = 0x01,
  kTcpSyn = 0x02,
  kTcpRst = 0x04,
  kTcpPsh = 0x08,
  kTcpAck = 0x10,
  kTcpUrg = 0x20,
  kTcpEce = 0x40,
  kTcpCwr = 0x80,
  kTcpAe = 0x100,
};

// The IP header's ECN field (RFC 3168 §5).
// RFC 7323 section 5.2's "<" on timestamps (and RFC 1982 serial numbers):
// `a` is before `b` modulo 2^32.
inline bool TsBefore(uint32_t a, uint32_t b) {
  return static_cast<int32_t>(a - b) < 0;
}

enum IpEcnCodepoint : uint8_t {
  kNotEct = 0,
  kEct1 = 1,
  kEct0 = 2,
  kCe = 3,
};

// The AccECN option (RFC 9768 §3.2.3): up to three 24-bit byte counters.
// Kind 172 (AccECN0) orders them EE0B, ECEB, EE1B; kind 174 (AccECN1) orders
// them EE1B, ECEB, EE0B. Before IANA assignment the experimental kind 254
// carried ExID 0xACC0 / 0xACC1 for the two orders (what tcpdump prints as
// exp-acc0 / exp-acc1).
struct AccEcnOption {
  uint16_t kind = 0;        // 0 when absent; 172, 174, or 254.
  bool order1 = false;      // true for AccECN1 (kind 174, ExID 0xACC1).
  uint8_t field_count = 0;  // 0..3 counters present.
  uint32_t ee0b = 0;        // Bytes received with ECT(0), mod 2^24.
  uint32_t eceb = 0;        // Bytes received with CE, mod 2^24.
  uint32_t ee1b = 0;        // Bytes received with ECT(1), mod 2^24.
  bool has_ee0b() const { return field_count >= (order1 ? 3 : 1); }
  bool has_eceb() const { return field_count >= 2; }
  bool has_ee1b() const { return field_count >= (order1 ? 1 : 3); }
};

struct TcpOptions {
  uint16_t mss_bytes = 0;  // 0 when absent.
  bool has_mss = false;
  bool has_wscale = false;
  uint8_t wscale_shift = 0;
  bool sack_permitted = false;
  bool has_timestamps = false;
  uint32_t ts_val = 0;
  uint32_t ts_ecr = 0;
  uint8_t sack_block_count = 0;  // At most 4 fit in 40 bytes of options.
  uint32_t sack_left[4] = {};
  uint32_t sack_right[4] = {};
  AccEcnOption accecn;
  // The options area was cut by the snapshot length or was malformed; what
  // was before the cut is kept.
  bool truncated = false;
};

// The tunnel a segment was carried in, outside its own IP header.
enum class Encapsulation : uint8_t {
  kNone,
  kGre,     // RFC 2784 / RFC 2890, carrying IP, Ethernet (TEB) or MPLS.
  kErspan,  // Cisco ERSPAN type I, II or III inside GRE.
  kVxlan,   // RFC 7348, UDP port 4789.
  kGeneve,  // RFC 8926, UDP port 6081.
  kGtpU,    // 3GPP TS 29.281, UDP port 2152.
};

// "GRE", "ERSPAN", "VXLAN", "GENEVE", "GTP-U"; "" for kNone.
const char* EncapsulationName(Encapsulation encapsulation);

// Why a tunnelled frame was not decoded (DecodeResult::kTunnelNotDecoded).
enum class TunnelProblem : uint8_t {
  kPayloadType,  // `value` is the protocol type it carries (an EtherType).
  kVersion,      // `value` is the header's version.
  kFlags,        // `value` is the flags byte that is not valid.
  kRouting,      // GRE with RFC 1701 source routing.
  kNested,       // A tunnel inside a tunnel.
  kNotIp,        // GTP-U T-PDU that is not IP; `value` is its first byte.
};

struct UndecodedTunnel {
  Encapsulation encapsulation = Encapsulation::kNone;
  TunnelProblem problem = TunnelProblem::kPayloadType;
  uint16_t value = 0;

  // One number per distinct (encapsulation, problem, value), for counting.
  uint32_t Key() const {
    return static_cast<uint32_t>(encapsulation) << 24 |
           static_cast<uint32_t>(problem) << 16 | value;
  }
  static UndecodedTunnel FromKey(uint32_t key) {
    return {static_cast<Encapsulation>(key >> 24),
            static_cast<TunnelProblem>((key >> 16) & 0xff),
            static_cast<uint16_t>(key & 0xffff)};
  }
  // "GRE protocol 0x88be (ERSPAN type I/II)", "VXLAN flags 0x00", ...
  std::string Describe() const;
};

struct TcpSegment {
  int64_t time_ns = 0;  // Capture time, ns since the Unix epoch.
  IpAddress src;
  IpAddress dst;
  uint16_t src_port = 0;
  uint16_t dst_port = 0;
  uint8_t ip_ecn = kNotEct;
  uint32_t seq = 0;
  uint32_t ack = 0;
  uint16_t flags = 0;       // TcpFlag bits.
  uint16_t window_raw = 0;  // Unscaled, as on the wire.
  // Payload length from the IP header; for BIG TCP (IP length 0) from the
  // captured bytes, with length_from_capture set.
  uint32_t payload_bytes = 0;
  // Payload bytes actually present in the capture (snaplen may cut them).
  uint32_t captured_payload_bytes = 0;
  bool length_from_capture = false;
  // The IPv4 identification field (RFC 791 §3.1); 0 for IPv6.
  uint16_t ip_id = 0;
  // The tunnel the segment came through (the inner headers are the ones
  // above); kNone when it was not tunnelled.
  Encapsulation encapsulation = Encapsulation::kNone;
  // The tunnel packet was the first IP fragment of several: the inner
  // payload goes on in the next fragment (not a snaplen cut).
  bool in_outer_fragment = false;
  // Filled when DecodeFrame returns kTunnelNotDecoded.
  UndecodedTunnel undecoded_tunnel;
  TcpOptions options;

  // The AccECN ACE field: (AE, CWR, ECE) read as a 3-bit number.
  uint8_t ace() const {
    return static_cast<uint8_t>(((flags & kTcpAe) ? 4 : 0) |
                                ((flags & kTcpCwr) ? 2 : 0) |
                                ((flags & kTcpEce) ? 1 : 0));
  }
};

}  // namespace ccreplay

#endif  // CCREPLAY_PARSERS_TCP_SEGMENT_H_
