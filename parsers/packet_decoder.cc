#include "parsers/packet_decoder.h"

#include <pcap/pcap.h>

#include "absl/strings/str_cat.h"

namespace ccreplay {
namespace {

constexpr uint16_t kEtherTypeIpv4 = 0x0800;
constexpr uint16_t kEtherTypeIpv6 = 0x86DD;
// 802.1Q, 802.1ad (QinQ outer tag) and the pre-standard QinQ value.
constexpr uint16_t kEtherTypeVlan = 0x8100;
constexpr uint16_t kEtherTypeQinQ = 0x88A8;
constexpr uint16_t kEtherTypeQinQOld = 0x9100;
// MPLS unicast and multicast (RFC 3032 §5, RFC 5332 §4).
constexpr uint16_t kEtherTypeMpls = 0x8847;
constexpr uint16_t kEtherTypeMplsMulticast = 0x8848;
constexpr uint8_t kIpProtoTcp = 6;
constexpr uint8_t kIpProtoUdp = 17;
constexpr uint8_t kIpProtoGre = 47;
// Transparent Ethernet bridging (RFC 1701 §3.3): Ethernet inside GRE or
// GENEVE.
constexpr uint16_t kEtherTypeTeb = 0x6558;
// ERSPAN (draft-foschiano-erspan-03 §4): type I and II share 0x88BE (type II
// sets GRE's sequence bit and adds an 8-byte header), type III is 0x22EB.
constexpr uint16_t kEtherTypeErspan2 = 0x88BE;
constexpr uint16_t kEtherTypeErspan3 = 0x22EB;
// IANA-assigned UDP ports of the UDP tunnels decoded.
constexpr uint16_t kUdpPortVxlan = 4789;   // RFC 7348 §5
constexpr uint16_t kUdpPortGeneve = 6081;  // RFC 8926 §3.3
constexpr uint16_t kUdpPortGtpU = 2152;    // 3GPP TS 29.281 §4.4.2
// GTP-U extension headers seen in practice number 1-2 (PDU session
// container, UDP port); 16 bounds the walk.
constexpr int kMaxGtpExtensionHeaders = 16;

inline uint16_t Be16(const uint8_t* p) {
  return static_cast<uint16_t>(p[0] << 8 | p[1]);
}
inline uint32_t Be32(const uint8_t* p) {
  return static_cast<uint32_t>(p[0]) << 24 | static_cast<uint32_t>(p[1]) << 16 |
         static_cast<uint32_t>(p[2]) << 8 | p[3];
}
inline uint32_t Be24(const uint8_t* p) {
  return static_cast<uint32_t>(p[0]) << 16 | static_cast<uint32_t>(p[1]) << 8 |
         p[2];
}

// TCP option kinds (IANA "TCP Option Kind Numbers").
constexpr uint8_t kOptEol = 0;
constexpr uint8_t kOptNop = 1;
constexpr uint8_t kOptMss = 2;             // RFC 9293 §3.2
constexpr uint8_t kOptWscale = 3;          // RFC 7323 §2
constexpr uint8_t kOptSackPermitted = 4;   // RFC 2018 §2
constexpr uint8_t kOptSack = 5;            // RFC 2018 §3
constexpr uint8_t kOptTimestamps = 8;      // RFC 7323 §3
constexpr uint8_t kTimestampsLength = 10;  // RFC 7323 §3: kind, length, 2×4
constexpr uint8_t kOptAccEcn0 = 172;       // RFC 9768 §3.2.3
constexpr uint8_t kOptAccEcn1 = 174;
constexpr uint8_t kOptExperiment = 254;  // RFC 6994 shared experimental
constexpr uint16_t kExIdAccEcn0 = 0xACC0;
constexpr uint16_t kExIdAccEcn1 = 0xACC1;

void ParseAccEcnCounters(const uint8_t* p, int length, bool order1,
                         AccEcnOption* out) {
  out->order1 = order1;
  out->field_count = static_cast<uint8_t>(length / 3);
  if (out->field_count > 3) out->field_count = 3;
  uint32_t fields[3] = {0, 0, 0};
  for (int i = 0; i < out->field_count; ++i) fields[i] = Be24(p + 3 * i);
  // Order 0: EE0B, ECEB, EE1B. Order 1: EE1B, ECEB, EE0B.
  out->ee0b = order1 ? fields[2] : fields[0];
  out->eceb = fields[1];
  out->ee1b = order1 ? fields[0] : fields[2];
}

// Parses the options area [p, p + length). `length` already excludes any
// part the capture cut; `cut` says whether it did.
// long: one loop over the option kinds, each case a few bounds-checked reads.
void ParseTcpOptions(const uint8_t* p, int length, bool cut, TcpOptions* o) {
  o->truncated = cut;
  int i = 0;
  // Most segments start with NOP, NOP, timestamps (the layout of RFC 7323
  // Appendix A, which Linux sends), and many carry nothing else: read it
  // without the option walk.
  if (length >= 12 && p[0] == kOptNop && p[1] == kOptNop &&
      p[2] == kOptTimestamps && p[3] == kTimestampsLength) {
    o->has_timestamps = true;
    o->ts_val = Be32(p + 4);
    o->ts_ecr = Be32(p + 8);
    i = 12;
  }
  while (i < length) {
    uint8_t kind = p[i];
    if (kind == kOptEol) break;
    if (kind == kOptNop) {
      ++i;
      continue;
    }
    if (i + 1 >= length) {
      o->truncated = true;
      break;
    }
    int option_length = p[i + 1];
    if (option_length < 2 || i + option_length > length) {
      o->truncated = true;
      break;
    }
    const uint8_t* v = p + i + 2;
    int value_length = option_length - 2;
    switch (kind) {
      case kOptMss:
        if (value_length == 2) {
          o->has_mss = true;
          o->mss_bytes = Be16(v);
        }
        break;
      case kOptWscale:
        if (value_length == 1) {
          o->has_wscale = true;
          // RFC 7323 §2.3: a shift above 14 is used as 14.
          o->wscale_shift = v[0] > 14 ? 14 : v[0];
        }
        break;
      case kOptSackPermitted:
        o->sack_permitted = true;
        break;
      case kOptSack:
        for (int b = 0; b + 8 <= value_length && o->sack_block_count < 4;
             b += 8) {
          o->sack_left[o->sack_block_count] = Be32(v + b);
          o->sack_right[o->sack_block_count] = Be32(v + b + 4);
          ++o->sack_block_count;
        }
        break;
      case kOptTimestamps:
        if (value_length == 8) {
          o->has_timestamps = true;
          o->ts_val = Be32(v);
          o->ts_ecr = Be32(v + 4);
        }
        break;
      case kOptAccEcn0:
      case kOptAccEcn1:
        o->accecn.kind = kind;
        ParseAccEcnCounters(v, value_length, kind == kOptAccEcn1, &o->accecn);
        break;
      case kOptExperiment:
        if (value_length >= 2 &&
            (Be16(v) == kExIdAccEcn0 || Be16(v) == kExIdAccEcn1)) {
          o->accecn.kind = kind;
          ParseAccEcnCounters(v + 2, value_length - 2, Be16(v) == kExIdAccEcn1,
                              &o->accecn);
        }
        break;
      default:
        break;
    }
    i += option_length;
  }
}

// `p` points at the TCP header; `available` bytes of it were captured;
// `segment_length` is the TCP header + payload length from the IP layer.
DecodeResult DecodeTcp(const uint8_t* p, uint32_t available,
                       uint32_t segment_length, TcpSegment* s) {
  if (available < 20) return DecodeResult::kTruncated;
  uint32_t header_length = (p[12] >> 4) * 4u;
  if (header_length < 20 || header_length > segment_length)
    return DecodeResult::kMalformed;
  s->src_port = Be16(p);
  s->dst_port = Be16(p + 2);
  s->seq = Be32(p + 4);
  s->ack = Be32(p + 8);
  s->flags = static_cast<uint16_t>(p[13] | ((p[12] & 0x01) << 8));
  s->window_raw = Be16(p + 14);
  s->payload_bytes = segment_length - header_length;
  s->captured_payload_bytes =
      available > header_length
          ? std::min(available - header_length, s->payload_bytes)
          : 0;
  s->options = TcpOptions();
  uint32_t options_available = std::min(available, header_length) - 20;
  ParseTcpOptions(p + 20, static_cast<int>(options_available),
                  options_available < header_length - 20, &s->options);
  return DecodeResult::kTcp;
}

// What an IP header carries, from its protocol number on: TCP, or a GRE or
// UDP tunnel whose inner packet is decoded in turn. Defined further down.
DecodeResult DecodeTransport(uint8_t protocol, const uint8_t* p,
                             uint32_t captured, uint32_t length, TcpSegment* s);

bool IsTunnelProtocol(uint8_t protocol) {
  return protocol == kIpProtoGre || protocol == kIpProtoUdp;
}

DecodeResult DecodeIpv4(const uint8_t* p, uint32_t captured, uint32_t wire,
                        TcpSegment* s) {
  if (captured < 20) return DecodeResult::kTruncated;
  if ((p[0] >> 4) != 4) return DecodeResult::kMalformed;
  uint32_t header_length = (p[0] & 0x0f) * 4u;
  if (header_length < 20) return DecodeResult::kMalformed;
  uint32_t total_length = Be16(p + 2);
  s->length_from_capture = false;
  if (total_length == 0) {
    // BIG TCP / TSO super-segment: the kernel leaves the 16-bit length 0 and
    // the capture's original length is the real one (tcpdump does the same).
    total_length = wire;
    s->length_from_capture = true;
  }
  if (total_length < header_length) return DecodeResult::kMalformed;
  const uint8_t protocol = p[9];
  if (protocol != kIpProtoTcp && !IsTunnelProtocol(protocol))
    return DecodeResult::kNotTcp;
  // Only the first fragment carries the TCP header; reassembly is not done.
  // The first fragment of a tunnel packet holds the inner headers whole (a
  // tunnel's fragments are MTU-sized), and is decoded as Wireshark does
  // with reassembly off.
  uint16_t fragment = Be16(p + 6);
  if ((fragment & 0x1fff) != 0 ||
      ((fragment & 0x2000) != 0 && protocol == kIpProtoTcp))
    return DecodeResult::kNotTcp;
  if (captured < header_length) return DecodeResult::kTruncated;
  if (fragment & 0x2000) s->in_outer_fragment = true;
  s->src.family = s->dst.family = 4;
  std::memcpy(s->src.bytes, p + 12, 4);
  std::memcpy(s->dst.bytes, p + 16, 4);
  std::memset(s->src.bytes + 4, 0, 12);
  std::memset(s->dst.bytes + 4, 0, 12);
  s->ip_ecn = p[1] & 0x03;
  s->ip_id = Be16(p + 4);
  return DecodeTransport(protocol, p + header_length, captured - header_length,
                         total_length - header_length, s);
}

DecodeResult DecodeIpv6(const uint8_t* p, uint32_t captured, uint32_t wire,
                        TcpSegment* s) {
  if (captured < 40) return DecodeResult::kTruncated;
  if ((p[0] >> 4) != 6) return DecodeResult::kMalformed;
  uint32_t payload_length = Be16(p + 4);
  s->length_from_capture = false;
  if (payload_length == 0) {
    // RFC 2675 jumbogram or BIG TCP (which drops the hop-by-hop jumbo
    // option before capture): the original frame length tells the size.
    if (wire < 40) return DecodeResult::kMalformed;
    payload_length = wire - 40;
    s->length_from_capture = true;
  }
  uint8_t next = p[6];
  uint32_t offset = 40;
  // Walk the extension headers (RFC 8200 §4).
  for (int hops = 0;; ++hops) {
    if (next == kIpProtoTcp || IsTunnelProtocol(next)) break;
    if (hops == kMaxIpv6ExtensionHeaders)
      return DecodeResult::kTooManyExtensionHeaders;
    uint32_t ext_length;
    switch (next) {
      case 0:    // Hop-by-hop options
      case 43:   // Routing
      case 60:   // Destination options
      case 135:  // Mobility
      case 139:  // HIP
      case 140:  // Shim6
        if (captured < offset + 2) return DecodeResult::kTruncated;
        ext_length = (p[offset + 1] + 1u) * 8u;
        break;
      case 44:  // Fragment: only an unfragmented or first fragment is TCP.
        if (captured < offset + 8) return DecodeResult::kTruncated;
        if ((Be16(p + offset + 2) & 0xfff9) != 0) return DecodeResult::kNotTcp;
        ext_length = 8;
        break;
      case 51:  // Authentication header (RFC 4302 §2.2: length in 4-byte units,
                // minus 2)
        if (captured < offset + 2) return DecodeResult::kTruncated;
        ext_length = (p[offset + 1] + 2u) * 4u;
        break;
      default:
        return DecodeResult::kNotTcp;
    }
    next = p[offset];
    offset += ext_length;
    if (offset - 40 > payload_length) return DecodeResult::kMalformed;
  }
  if (captured < offset) return DecodeResult::kTruncated;
  s->src.family = s->dst.family = 6;
  std::memcpy(s->src.bytes, p + 8, 16);
  std::memcpy(s->dst.bytes, p + 24, 16);
  // Traffic class straddles bytes 0 and 1; ECN is its two low bits.
  s->ip_ecn = (p[1] >> 4) & 0x03;
  s->ip_id = 0;
  return DecodeTransport(next, p + offset, captured - offset,
                         payload_length - (offset - 40), s);
}

DecodeResult DecodeIp(const uint8_t* p, uint32_t captured, uint32_t wire,
                      TcpSegment* s) {
  if (captured < 1) return DecodeResult::kTruncated;
  switch (p[0] >> 4) {
    case 4:
      return DecodeIpv4(p, captured, wire, s);
    case 6:
      return DecodeIpv6(p, captured, wire, s);
    default:
      return DecodeResult::kNotTcp;
  }
}

// An MPLS label stack (RFC 3032 §2.1: 4-byte entries, the S bit, the
// lowest bit of the third byte, marks the bottom). The stack does not say
// what it carries; as tcpdump and Wireshark do, the first nibble after it
// tells IPv4 (4) from IPv6 (6). Anything else (a pseudowire control word,
// RFC 4385 §3, or Ethernet over MPLS) is not decoded, and is counted.
DecodeResult DecodeMpls(const uint8_t* p, uint32_t captured, uint32_t wire,
                        TcpSegment* s) {
  uint32_t offset = 0;
  for (int labels = 0;; ++labels) {
    if (labels == kMaxMplsLabels) return DecodeResult::kMplsPayloadNotIp;
    if (captured < offset + 4 || wire < offset + 4)
      return DecodeResult::kTruncated;
    const bool bottom_of_stack = (p[offset + 2] & 1) != 0;
    offset += 4;
    if (bottom_of_stack) break;
  }
  if (captured <= offset) return DecodeResult::kTruncated;
  const int ip_version = p[offset] >> 4;
  if (ip_version != 4 && ip_version != 6)
    return DecodeResult::kMplsPayloadNotIp;
  return DecodeIp(p + offset, captured - offset, wire - offset, s);
}

DecodeResult DecodeByEtherType(uint16_t ether_type, const uint8_t* p,
                               uint32_t captured, uint32_t wire,
                               TcpSegment* s) {
  if (ether_type == kEtherTypeIpv4) return DecodeIpv4(p, captured, wire, s);
  if (ether_type == kEtherTypeIpv6) return DecodeIpv6(p, captured, wire, s);
  if (ether_type == kEtherTypeMpls || ether_type == kEtherTypeMplsMulticast)
    return DecodeMpls(p, captured, wire, s);
  return DecodeResult::kNotTcp;
}

// BSD loopback families: AF_INET is 2 everywhere; AF_INET6 is 24, 28 or 30
// depending on the BSD (and 10 on Linux).
DecodeResult DecodeByFamily(uint32_t family, const uint8_t* p,
                            uint32_t captured, uint32_t wire, TcpSegment* s) {
  if (family == 2) return DecodeIpv4(p, captured, wire, s);
  if (family == 10 || family == 24 || family == 28 || family == 30) {
    return DecodeIpv6(p, captured, wire, s);
  }
  return DecodeResult::kNotTcp;
}

// Ethernet II with up to four 802.1Q / 802.1ad tags: the capture's link
// layer, or the inner frame of a VXLAN, GENEVE, GRE (TEB) or ERSPAN tunnel.
DecodeResult DecodeEthernet(const uint8_t* p, uint32_t captured, uint32_t wire,
                            TcpSegment* s) {
  if (captured < 14) return DecodeResult::kTruncated;
  uint16_t ether_type = Be16(p + 12);
  uint32_t offset = 14;
  for (int tags = 0; tags < 4 && (ether_type == kEtherTypeVlan ||
                                  ether_type == kEtherTypeQinQ ||
                                  ether_type == kEtherTypeQinQOld);
       ++tags) {
    if (captured < offset + 4) return DecodeResult::kTruncated;
    ether_type = Be16(p + offset + 2);
    offset += 4;
  }
  if (wire < offset) return DecodeResult::kMalformed;
  return DecodeByEtherType(ether_type, p + offset, captured - offset,
                           wire - offset, s);
}

DecodeResult NotDecoded(TcpSegment* s, Encapsulation encapsulation,
                        TunnelProblem problem, uint16_t value) {
  s->undecoded_tunnel = {encapsulation, problem, value};
  return DecodeResult::kTunnelNotDecoded;
}

// Marks `s` as carried by `encapsulation`. One tunnel level is decoded: a
// tunnel inside a tunnel is named and counted instead.
bool EnterTunnel(TcpSegment* s, Encapsulation encapsulation) {
  if (s->encapsulation != Encapsulation::kNone) {
    NotDecoded(s, encapsulation, TunnelProblem::kNested, 0);
    return false;
  }
  s->encapsulation = encapsulation;
  return true;
}

// The header a tunnel announces by EtherType (GRE's protocol type, GENEVE's
// protocol type): Ethernet, IPv4, IPv6 or MPLS; anything else is named.
DecodeResult DecodeTunnelPayload(uint16_t ether_type, const uint8_t* p,
                                 uint32_t captured, uint32_t wire,
                                 TcpSegment* s) {
  switch (ether_type) {
    case kEtherTypeTeb:
      return DecodeEthernet(p, captured, wire, s);
    case kEtherTypeIpv4:
    case kEtherTypeIpv6:
    case kEtherTypeMpls:
    case kEtherTypeMplsMulticast:
      return DecodeByEtherType(ether_type, p, captured, wire, s);
    default:
      return NotDecoded(s, s->encapsulation, TunnelProblem::kPayloadType,
                        ether_type);
  }
}

// ERSPAN after its GRE header (draft-foschiano-erspan-03 §4.1-4.3): type I
// (0x88BE without GRE sequence number) has no header of its own, type II
// (0x88BE with it) 8 bytes with version 1, type III (0x22EB) 12 bytes with
// version 2, plus an 8-byte platform sub-header when its O bit is set.
DecodeResult DecodeErspan(uint16_t protocol, bool gre_sequence,
                          const uint8_t* p, uint32_t captured, uint32_t wire,
                          TcpSegment* s) {
  s->encapsulation = Encapsulation::kErspan;
  uint32_t header_bytes = 0;
  if (protocol == kEtherTypeErspan3) {
    if (captured < 12) return DecodeResult::kTruncated;
    header_bytes = (p[11] & 0x01) ? 20 : 12;
  } else if (gre_sequence) {
    header_bytes = 8;
  }
  if (captured < header_bytes || wire < header_bytes)
    return DecodeResult::kTruncated;
  const int expected_version = protocol == kEtherTypeErspan3 ? 2 : 1;
  if (header_bytes > 0 && (p[0] >> 4) != expected_version) {
    return NotDecoded(s, Encapsulation::kErspan, TunnelProblem::kVersion,
                      p[0] >> 4);
  }
  return DecodeEthernet(p + header_bytes, captured - header_bytes,
                        wire - header_bytes, s);
}

// GRE (RFC 2784 §2, RFC 2890 §2): 4 bytes, plus 4 for each of the checksum
// (C), key (K) and sequence number (S) bits. RFC 1701's routing bit (R) and
// version 1 (PPTP's enhanced GRE, RFC 2637 §4.1, carrying PPP) are named,
// not decoded.
DecodeResult DecodeGre(const uint8_t* p, uint32_t captured, uint32_t wire,
                       TcpSegment* s) {
  if (!EnterTunnel(s, Encapsulation::kGre))
    return DecodeResult::kTunnelNotDecoded;
  if (captured < 4) return DecodeResult::kTruncated;
  const uint8_t flags = p[0];
  const uint8_t version = p[1] & 0x07;
  if (version != 0)
    return NotDecoded(s, Encapsulation::kGre, TunnelProblem::kVersion, version);
  if (flags & 0x40)
    return NotDecoded(s, Encapsulation::kGre, TunnelProblem::kRouting, 0);
  const bool sequence = flags & 0x10;
  const uint32_t offset = 4 + ((flags & 0x80) ? 4 : 0) +
                          ((flags & 0x20) ? 4 : 0) + (sequence ? 4 : 0);
  if (captured < offset || wire < offset) return DecodeResult::kTruncated;
  const uint16_t protocol = Be16(p + 2);
  if (protocol == kEtherTypeErspan2 || protocol == kEtherTypeErspan3) {
    return DecodeErspan(protocol, sequence, p + offset, captured - offset,
                        wire - offset, s);
  }
  return DecodeTunnelPayload(protocol, p + offset, captured - offset,
                             wire - offset, s);
}

// VXLAN (RFC 7348 §5): 8 bytes, the I flag (0x08) set for a valid VNI; the
// other flag bits are ignored on receipt. Ethernet follows.
DecodeResult DecodeVxlan(const uint8_t* p, uint32_t captured, uint32_t wire,
                         TcpSegment* s) {
  if (!EnterTunnel(s, Encapsulation::kVxlan))
    return DecodeResult::kTunnelNotDecoded;
  if (captured < 8 || wire < 8) return DecodeResult::kTruncated;
  if ((p[0] & 0x08) == 0)
    return NotDecoded(s, Encapsulation::kVxlan, TunnelProblem::kFlags, p[0]);
  return DecodeEthernet(p + 8, captured - 8, wire - 8, s);
}

// GENEVE (RFC 8926 §3.4): version 0 in the top two bits, options length in
// 4-byte words in the low six, the O bit (control message, no user data)
// at the top of byte 1, the protocol type (an EtherType) in bytes 2-3.
DecodeResult DecodeGeneve(const uint8_t* p, uint32_t captured, uint32_t wire,
                          TcpSegment* s) {
  if (!EnterTunnel(s, Encapsulation::kGeneve))
    return DecodeResult::kTunnelNotDecoded;
  if (captured < 8) return DecodeResult::kTruncated;
  const int version = p[0] >> 6;
  if (version != 0) {
    return NotDecoded(s, Encapsulation::kGeneve, TunnelProblem::kVersion,
                      static_cast<uint16_t>(version));
  }
  if (p[1] & 0x80) return DecodeResult::kNotTcp;
  const uint32_t offset = 8 + (p[0] & 0x3f) * 4u;
  if (captured < offset || wire < offset) return DecodeResult::kTruncated;
  return DecodeTunnelPayload(Be16(p + 2), p + offset, captured - offset,
                             wire - offset, s);
}

// The length of a GTP-U header (3GPP TS 29.281 §5.1-5.2) at `p`: 8 bytes,
// 12 when any of the E, S, PN flags is set, then, with E, a chain of
// extension headers, each with its length in 4-byte units first and the
// next header's type last (0: none). 0 when cut or malformed.
uint32_t GtpUHeaderLength(const uint8_t* p, uint32_t captured) {
  if ((p[0] & 0x07) == 0) return 8;
  if (captured < 12) return 0;
  uint32_t offset = 12;
  uint8_t next = (p[0] & 0x04) ? p[11] : 0;
  for (int hops = 0; next != 0; ++hops) {
    if (hops == kMaxGtpExtensionHeaders || captured < offset + 1) return 0;
    const uint32_t length = p[offset] * 4u;
    if (length == 0 || captured < offset + length) return 0;
    next = p[offset + length - 1];
    offset += length;
  }
  return offset;
}

// GTP-U (3GPP TS 29.281 §5.1): version 1 with the protocol type bit set;
// only a G-PDU (message type 255) carries user data, an IP packet told by
// its first nibble. Echo, error indication and end marker are not TCP.
DecodeResult DecodeGtpU(const uint8_t* p, uint32_t captured, uint32_t wire,
                        TcpSegment* s) {
  if (!EnterTunnel(s, Encapsulation::kGtpU))
    return DecodeResult::kTunnelNotDecoded;
  if (captured < 8) return DecodeResult::kTruncated;
  if ((p[0] >> 5) != 1 || (p[0] & 0x10) == 0) {
    return NotDecoded(s, Encapsulation::kGtpU, TunnelProblem::kVersion,
                      p[0] >> 5);
  }
  if (p[1] != 0xFF) return DecodeResult::kNotTcp;
  const uint32_t offset = GtpUHeaderLength(p, captured);
  if (offset == 0 || captured <= offset || wire <= offset)
    return DecodeResult::kTruncated;
  const int ip_version = p[offset] >> 4;
  if (ip_version != 4 && ip_version != 6) {
    return NotDecoded(s, Encapsulation::kGtpU, TunnelProblem::kNotIp,
                      p[offset]);
  }
  return DecodeIp(p + offset, captured - offset, wire - offset, s);
}

// UDP (RFC 768): a tunnel by its IANA port (VXLAN and GENEVE by destination
// port, GTP-U by either, since both GTP-U endpoints listen on 2152), any
// other datagram is not TCP.
DecodeResult DecodeUdp(const uint8_t* p, uint32_t captured, uint32_t length,
                       TcpSegment* s) {
  if (captured < 4) return DecodeResult::kNotTcp;
  const uint16_t src_port = Be16(p);
  const uint16_t dst_port = Be16(p + 2);
  DecodeResult (*tunnel)(const uint8_t*, uint32_t, uint32_t, TcpSegment*) =
      nullptr;
  if (dst_port == kUdpPortVxlan) {
    tunnel = DecodeVxlan;
  } else if (dst_port == kUdpPortGeneve) {
    tunnel = DecodeGeneve;
  } else if (dst_port == kUdpPortGtpU || src_port == kUdpPortGtpU) {
    tunnel = DecodeGtpU;
  } else {
    return DecodeResult::kNotTcp;
  }
  if (captured < 8 || length < 8) return DecodeResult::kTruncated;
  return tunnel(p + 8, captured - 8, length - 8, s);
}

DecodeResult DecodeTransport(uint8_t protocol, const uint8_t* p,
                             uint32_t captured, uint32_t length,
                             TcpSegment* s) {
  switch (protocol) {
    case kIpProtoTcp:
      return DecodeTcp(p, captured, length, s);
    case kIpProtoGre:
      return DecodeGre(p, captured, length, s);
    case kIpProtoUdp:
      return DecodeUdp(p, captured, length, s);
    default:
      return DecodeResult::kNotTcp;
  }
}

}  // namespace

bool IsSupportedLinkType(int link_type) {
  switch (link_type) {
    case kLinkNull:
    case kLinkEthernet:
    case kLinkRawDlt:
    case kLinkRawDltBsd:
    case kLinkRaw:
    case kLinkLoop:
    case kLinkLinuxSll:
    case kLinkIpv4:
    case kLinkIpv6:
    case kLinkLinuxSll2:
      return true;
    default:
      return false;
  }
}

std::string LinkTypeName(int link_type) {
  if (link_type == kLinkRaw) return "RAW";
  const char* name = pcap_datalink_val_to_name(link_type);
  if (name != nullptr) return name;
  return absl::StrCat("LINKTYPE_", link_type);
}

DecodeResult DecodeFrame(int link_type, const uint8_t* p, uint32_t captured,
                         uint32_t wire, TcpSegment* s) {
  s->encapsulation = Encapsulation::kNone;
  s->in_outer_fragment = false;
  switch (link_type) {
    case kLinkEthernet:
      return DecodeEthernet(p, captured, wire, s);
    case kLinkLinuxSll:
      // 16-byte cooked header; protocol (an EtherType) in the last 2 bytes.
      if (captured < 16 || wire < 16) return DecodeResult::kTruncated;
      return DecodeByEtherType(Be16(p + 14), p + 16, captured - 16, wire - 16,
                               s);
    case kLinkLinuxSll2:
      // 20-byte cooked header v2; protocol in the first 2 bytes.
      if (captured < 20 || wire < 20) return DecodeResult::kTruncated;
      return DecodeByEtherType(Be16(p), p + 20, captured - 20, wire - 20, s);
    case kLinkNull: {
      if (captured < 4 || wire < 4) return DecodeResult::kTruncated;
      // Host byte order of the capturing machine: families are small, so
      // whichever end holds the non-zero byte is the low end.
      uint32_t family = p[0] != 0 ? (p[0] | p[1] << 8) : Be32(p);
      return DecodeByFamily(family, p + 4, captured - 4, wire - 4, s);
    }
    case kLinkLoop:
      if (captured < 4 || wire < 4) return DecodeResult::kTruncated;
      return DecodeByFamily(Be32(p), p + 4, captured - 4, wire - 4, s);
    case kLinkRawDlt:
    case kLinkRawDltBsd:
    case kLinkRaw:
      return DecodeIp(p, captured, wire, s);
    case kLinkIpv4:
      return DecodeIpv4(p, captured, wire, s);
    case kLinkIpv6:
      return DecodeIpv6(p, captured, wire, s);
    default:
      return DecodeResult::kMalformed;
  }
}

}  // namespace ccreplay
