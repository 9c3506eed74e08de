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
  if (p[9] != kIpProtoTcp) return DecodeResult::kNotTcp;
  // Only the first fragment carries the TCP header; reassembly is not done.
  uint16_t fragment = Be16(p + 6);
  if ((fragment & 0x1fff) != 0 || (fragment & 0x2000) != 0)
    return DecodeResult::kNotTcp;
  if (captured < header_length) return DecodeResult::kTruncated;
  s->src.family = s->dst.family = 4;
  std::memcpy(s->src.bytes, p + 12, 4);
  std::memcpy(s->dst.bytes, p + 16, 4);
  std::memset(s->src.bytes + 4, 0, 12);
  std::memset(s->dst.bytes + 4, 0, 12);
  s->ip_ecn = p[1] & 0x03;
  return DecodeTcp(p + header_length, captured - header_length,
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
    if (next == kIpProtoTcp) break;
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
  return DecodeTcp(p + offset, captured - offset,
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
  uint32_t offset;
  switch (link_type) {
    case kLinkEthernet: {
      if (captured < 14) return DecodeResult::kTruncated;
      uint16_t ether_type = Be16(p + 12);
      offset = 14;
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
