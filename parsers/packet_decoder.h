// Decodes one captured frame down to its TCP header: link layer (Ethernet
// with 802.1Q/802.1ad tags, Linux SLL and SLL2, BSD loopback, raw IP), MPLS
// label stacks carrying IP, IPv4 with options, IPv6 with extension headers,
// one level of tunnel (GRE with IP, Ethernet, MPLS or ERSPAN; VXLAN; GENEVE;
// GTP-U) and every TCP option ccreplay needs. Never reads past the captured
// bytes.
#ifndef CCREPLAY_PARSERS_PACKET_DECODER_H_
#define CCREPLAY_PARSERS_PACKET_DECODER_H_

#include <cstdint>
#include <string>

#include "parsers/tcp_segment.h"

namespace ccreplay {

// Link-layer header types (LINKTYPE_* values of the pcap and pcapng
// formats, https://www.tcpdump.org/linktypes.html). libpcap reports DLT_*
// values, which equal these except raw IP (DLT_RAW is 12 or 14 by platform).
enum LinkType : int {
  kLinkNull = 0,      // BSD loopback: 4-byte address family, host order.
  kLinkEthernet = 1,  // Ethernet II, with optional VLAN tags.
  kLinkRawDlt = 12,   // DLT_RAW on most platforms.
  kLinkRawDltBsd = 14,
  kLinkRaw = 101,   // LINKTYPE_RAW.
  kLinkLoop = 108,  // OpenBSD loopback: 4-byte family, network order.
  kLinkLinuxSll = 113,
  kLinkIpv4 = 228,
  kLinkIpv6 = 229,
  kLinkLinuxSll2 = 276,
};

bool IsSupportedLinkType(int link_type);

// "EN10MB", "LINUX_SLL2", … (libpcap's names), or "LINKTYPE_<n>".
std::string LinkTypeName(int link_type);

enum class DecodeResult {
  kTcp,        // `segment` is filled.
  kNotTcp,     // A valid frame of another protocol (or a later fragment).
  kTruncated,  // Cut by the snapshot length before the TCP header ended.
  kMalformed,  // Inconsistent lengths or versions.
  // An IPv6 packet with more than kMaxIpv6ExtensionHeaders extension
  // headers before its upper-layer header: not decoded, counted.
  kTooManyExtensionHeaders,
  // An MPLS label stack followed by something other than IPv4 or IPv6 (a
  // pseudowire, Ethernet over MPLS), or deeper than kMaxMplsLabels: not
  // decoded, counted.
  kMplsPayloadNotIp,
  // A GRE, VXLAN, GENEVE or GTP-U tunnel whose payload is not decoded (see
  // TcpSegment::undecoded_tunnel for which and why): counted and named.
  kTunnelNotDecoded,
};

// Label stacks seen in practice hold 1-4 entries (transport, service, entropy
// label and its indicator, RFC 6790 §4); 16 bounds the walk generously.
constexpr int kMaxMplsLabels = 16;

// RFC 8200 §4.1 recommends at most one of each extension header (about 8
// kinds); 16 leaves room for repeats and still bounds the walk.
constexpr int kMaxIpv6ExtensionHeaders = 16;

// `captured` bytes of a frame whose original length was `wire_length`.
// Fills `segment` (except time_ns) when the result is kTcp.
DecodeResult DecodeFrame(int link_type, const uint8_t* data, uint32_t captured,
                         uint32_t wire_length, TcpSegment* segment);

}  // namespace ccreplay

#endif  // CCREPLAY_PARSERS_PACKET_DECODER_H_
