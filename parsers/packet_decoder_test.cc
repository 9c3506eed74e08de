// Frame decoding on hand-built frames, for the header layouts no real test
// capture has (this machine's kernel has no 8021q module, and no AccECN
// negotiation): VLAN and QinQ tags, IPv6 extension headers, IPv4 options,
// the IANA AccECN option kinds, snaplen cuts. Each frame is written out
// byte by byte from the RFC layout cited.
#include "parsers/packet_decoder.h"

#include <vector>

#include "gtest/gtest.h"

namespace ccreplay {
namespace {

using Bytes = std::vector<uint8_t>;

// Byte by byte: GCC 12 at -O3 warns falsely (-Warray-bounds) about
// vector::insert of a range here.
void Append(Bytes* b, const Bytes& more) {
  for (uint8_t byte : more) b->push_back(byte);
}

// A TCP header (RFC 9293 §3.1) with the given flags and options, ports
// 5201 -> 40000, seq 0x01020304, ack 0x0a0b0c0d, window 502.
Bytes Tcp(uint16_t flags, const Bytes& options, uint32_t payload_bytes) {
  const uint8_t header_words = static_cast<uint8_t>(5 + options.size() / 4);
  Bytes b = {0x14,
             0x51,
             0x9c,
             0x40,
             1,
             2,
             3,
             4,
             0x0a,
             0x0b,
             0x0c,
             0x0d,
             static_cast<uint8_t>(header_words << 4 | ((flags >> 8) & 1)),
             static_cast<uint8_t>(flags & 0xff),
             0x01,
             0xf6,
             0,
             0,
             0,
             0};
  Append(&b, options);
  b.resize(b.size() + payload_bytes, 0xab);
  return b;
}

// IPv4 (RFC 791 §3.1) with ECN codepoint `ecn` and optional options.
Bytes Ipv4(const Bytes& tcp, uint8_t ecn, const Bytes& options = {}) {
  const uint16_t total =
      static_cast<uint16_t>(20 + options.size() + tcp.size());
  Bytes b = {static_cast<uint8_t>(0x40 | (5 + options.size() / 4)),
             ecn,
             static_cast<uint8_t>(total >> 8),
             static_cast<uint8_t>(total),
             0,
             0,
             0x40,
             0,
             64,
             6,
             0,
             0,
             192,
             0,
             2,
             1,
             198,
             51,
             100,
             7};
  Append(&b, options);
  Append(&b, tcp);
  return b;
}

Bytes Ethernet(uint16_t ether_type, const Bytes& tags, const Bytes& payload) {
  Bytes b = {2, 0, 0, 0, 0, 1, 2, 0, 0, 0, 0, 2};
  Append(&b, tags);
  b.push_back(static_cast<uint8_t>(ether_type >> 8));
  b.push_back(static_cast<uint8_t>(ether_type));
  Append(&b, payload);
  return b;
}

DecodeResult Decode(int link_type, const Bytes& frame, TcpSegment* s,
                    uint32_t captured = 0) {
  return DecodeFrame(link_type, frame.data(),
                     captured ? captured : static_cast<uint32_t>(frame.size()),
                     static_cast<uint32_t>(frame.size()), s);
}

TEST(PacketDecoderTest, PlainEthernetIpv4Tcp) {
  TcpSegment s;
  Bytes frame =
      Ethernet(0x0800, {}, Ipv4(Tcp(kTcpAck | kTcpPsh, {}, 100), kEct1));
  ASSERT_EQ(Decode(kLinkEthernet, frame, &s), DecodeResult::kTcp);
  EXPECT_EQ(s.src.ToString(), "192.0.2.1");
  EXPECT_EQ(s.dst.ToString(), "198.51.100.7");
  EXPECT_EQ(s.src_port, 5201);
  EXPECT_EQ(s.dst_port, 40000);
  EXPECT_EQ(s.seq, 0x01020304u);
  EXPECT_EQ(s.ack, 0x0a0b0c0du);
  EXPECT_EQ(s.window_raw, 502);
  EXPECT_EQ(s.payload_bytes, 100u);
  EXPECT_EQ(s.captured_payload_bytes, 100u);
  EXPECT_EQ(s.ip_ecn, kEct1);
  EXPECT_EQ(s.flags, kTcpAck | kTcpPsh);
}

TEST(PacketDecoderTest, VlanAndQinQTags) {
  TcpSegment s;
  // 802.1Q (TPID 0x8100, TCI VLAN 100), IEEE 802.1Q-2018 §9.6.
  Bytes tagged = {2, 0, 0, 0,    0,    1,    2,    0,    0,
                  0, 0, 2, 0x81, 0x00, 0x00, 0x64, 0x08, 0x00};
  Append(&tagged, Ipv4(Tcp(kTcpAck, {}, 10), kCe));
  ASSERT_EQ(Decode(kLinkEthernet, tagged, &s), DecodeResult::kTcp);
  EXPECT_EQ(s.payload_bytes, 10u);
  EXPECT_EQ(s.ip_ecn, kCe);
  // 802.1ad outer tag (0x88a8) then 802.1Q inner tag.
  Bytes qinq = {2, 0,    0,    0,    0,    1,    2,    0,    0,    0,    0,
                2, 0x88, 0xa8, 0x00, 0xc8, 0x81, 0x00, 0x01, 0x2c, 0x08, 0x00};
  Append(&qinq, Ipv4(Tcp(kTcpAck, {}, 20), kEct0));
  ASSERT_EQ(Decode(kLinkEthernet, qinq, &s), DecodeResult::kTcp);
  EXPECT_EQ(s.payload_bytes, 20u);
  EXPECT_EQ(s.ip_ecn, kEct0);
}

// MPLS label stack entries (RFC 3032 §2.1): label 20 bits, TC 3, S 1, TTL 8.
Bytes MplsLabel(uint32_t label, bool bottom_of_stack) {
  return {static_cast<uint8_t>(label >> 12), static_cast<uint8_t>(label >> 4),
          static_cast<uint8_t>((label & 0xf) << 4 | (bottom_of_stack ? 1 : 0)),
          64};
}

TEST(PacketDecoderTest, MplsLabelStacksCarryingIp) {
  TcpSegment s;
  // One label, then IPv4, on the unicast EtherType 0x8847.
  Bytes one = MplsLabel(16, true);
  Append(&one, Ipv4(Tcp(kTcpAck, {}, 30), kEct0));
  ASSERT_EQ(Decode(kLinkEthernet, Ethernet(0x8847, {}, one), &s),
            DecodeResult::kTcp);
  EXPECT_EQ(s.payload_bytes, 30u);
  EXPECT_EQ(s.src.ToString(), "192.0.2.1");
  // Three labels (S set only on the last) behind a VLAN tag, multicast
  // EtherType 0x8848.
  Bytes three = MplsLabel(1000, false);
  Append(&three, MplsLabel(7, false));
  Append(&three, MplsLabel(299776, true));
  Append(&three, Ipv4(Tcp(kTcpAck, {}, 40), kCe));
  ASSERT_EQ(Decode(kLinkEthernet,
                   Ethernet(0x8848, {0x81, 0x00, 0x00, 0x64}, three), &s),
            DecodeResult::kTcp);
  EXPECT_EQ(s.payload_bytes, 40u);
  EXPECT_EQ(s.ip_ecn, kCe);
  // Cut inside the stack: truncated, not misread.
  Bytes cut = Ethernet(0x8847, {}, three);
  EXPECT_EQ(Decode(kLinkEthernet, cut, &s, 14 + 6), DecodeResult::kTruncated);
}

TEST(PacketDecoderTest, MplsPayloadThatIsNotIpIsCounted) {
  TcpSegment s;
  // A pseudowire control word (RFC 4385 §3: first nibble 0) after the
  // stack: Ethernet over MPLS, which the decoder does not follow.
  Bytes pseudowire = MplsLabel(100, true);
  Append(&pseudowire, {0, 0, 0, 1});
  Append(&pseudowire, Ethernet(0x0800, {}, Ipv4(Tcp(kTcpAck, {}, 1), 0)));
  EXPECT_EQ(Decode(kLinkEthernet, Ethernet(0x8847, {}, pseudowire), &s),
            DecodeResult::kMplsPayloadNotIp);
  // A stack that never sets the S bit within kMaxMplsLabels entries.
  Bytes endless;
  for (int i = 0; i < kMaxMplsLabels + 1; ++i)
    Append(&endless, MplsLabel(16, false));
  Append(&endless, Ipv4(Tcp(kTcpAck, {}, 1), 0));
  EXPECT_EQ(Decode(kLinkEthernet, Ethernet(0x8847, {}, endless), &s),
            DecodeResult::kMplsPayloadNotIp);
}

TEST(PacketDecoderTest, Ipv4OptionsAreSkipped) {
  TcpSegment s;
  // Record Route (RFC 791): type 7, length 7, pointer 4, one empty slot,
  // then end-of-options padding to a 4-byte boundary.
  Bytes frame =
      Ethernet(0x0800, {},
               Ipv4(Tcp(kTcpAck, {}, 33), kNotEct, {7, 7, 4, 0, 0, 0, 0, 0}));
  ASSERT_EQ(Decode(kLinkEthernet, frame, &s), DecodeResult::kTcp);
  EXPECT_EQ(s.payload_bytes, 33u);
  EXPECT_EQ(s.dst_port, 40000);
}

TEST(PacketDecoderTest, Ipv6ExtensionHeaders) {
  TcpSegment s;
  Bytes tcp = Tcp(kTcpAck, {}, 7);
  // Hop-by-hop (RFC 8200 §4.3: next 60, length 0 = 8 bytes, PadN), then a
  // destination options header (next 6 = TCP), then TCP.
  Bytes ext = {60, 0, 1, 4, 0, 0, 0, 0, 6, 0, 1, 4, 0, 0, 0, 0};
  const uint16_t payload = static_cast<uint16_t>(ext.size() + tcp.size());
  // Traffic class 0x01 (ECT(1)) straddles bytes 0 and 1: 0x60 0x10.
  Bytes ip6 = {0x60,
               0x10,
               0,
               0,
               static_cast<uint8_t>(payload >> 8),
               static_cast<uint8_t>(payload),
               0,
               64};
  for (int i = 0; i < 15; ++i) ip6.push_back(0);
  ip6.push_back(1);  // ::1
  for (int i = 0; i < 15; ++i) ip6.push_back(i == 0 ? 0xfd : 0);
  ip6.push_back(2);  // fd00::2
  Append(&ip6, ext);
  Append(&ip6, tcp);
  ASSERT_EQ(Decode(kLinkEthernet, Ethernet(0x86dd, {}, ip6), &s),
            DecodeResult::kTcp);
  EXPECT_EQ(s.src.ToString(), "::1");
  EXPECT_EQ(s.dst.ToString(), "fd00::2");
  EXPECT_EQ(s.payload_bytes, 7u);
  EXPECT_EQ(s.ip_ecn, kEct1);
  // A later fragment (offset != 0) carries no TCP header.
  Bytes frag = ip6;
  frag[6] = 44;
  frag.resize(40);
  Append(&frag, {6, 0, 0, 0x08, 0, 0, 0, 1});  // offset 1 (8 bytes)
  Append(&frag, tcp);
  frag[4] = 0;
  frag[5] = static_cast<uint8_t>(8 + tcp.size());
  EXPECT_EQ(Decode(kLinkEthernet, Ethernet(0x86dd, {}, frag), &s),
            DecodeResult::kNotTcp);
}

// Issue 16: a chain of more than kMaxIpv6ExtensionHeaders extension headers
// was dropped silently as "not TCP"; it is now its own result, which the
// reader counts and warns about. 16 destination options headers still
// decode; 17 do not.
TEST(PacketDecoderTest, Ipv6ExtensionChainLongerThanSixteenIsCounted) {
  Bytes tcp = Tcp(kTcpAck, {}, 0);
  for (int headers : {kMaxIpv6ExtensionHeaders, kMaxIpv6ExtensionHeaders + 1}) {
    Bytes ext;
    for (int i = 0; i < headers; ++i) {
      // Destination options (RFC 8200 §4.6), 8 bytes, PadN; the last
      // names TCP (6) as the next header.
      Append(&ext, {static_cast<uint8_t>(i + 1 == headers ? 6 : 60), 0, 1, 4, 0,
                    0, 0, 0});
    }
    const uint16_t payload = static_cast<uint16_t>(ext.size() + tcp.size());
    Bytes ip6 = {0x60,
                 0,
                 0,
                 0,
                 static_cast<uint8_t>(payload >> 8),
                 static_cast<uint8_t>(payload),
                 60,
                 64};
    for (int i = 0; i < 32; ++i) ip6.push_back(i % 16 == 15 ? 1 : 0);
    Append(&ip6, ext);
    Append(&ip6, tcp);
    TcpSegment s;
    EXPECT_EQ(Decode(kLinkEthernet, Ethernet(0x86dd, {}, ip6), &s),
              headers <= kMaxIpv6ExtensionHeaders
                  ? DecodeResult::kTcp
                  : DecodeResult::kTooManyExtensionHeaders)
        << headers << " extension headers";
  }
}

TEST(PacketDecoderTest, AccEcnOptionKindsAndAeFlag) {
  TcpSegment s;
  // Kind 172 (AccECN0, RFC 9768 §3.2.3): EE0B, ECEB, EE1B, 24 bits each,
  // after two NOPs, padded to 16 bytes with end-of-options.
  Bytes opt0 = {1, 1, 172, 11, 0, 0, 1, 0, 0, 2, 0, 0, 3};
  opt0.resize(16, 0);
  ASSERT_EQ(Decode(kLinkRaw,
                   Ipv4(Tcp(kTcpAck | kTcpAe | kTcpEce, opt0, 0), kEct1), &s),
            DecodeResult::kTcp);
  EXPECT_EQ(s.options.accecn.kind, 172);
  EXPECT_EQ(s.options.accecn.ee0b, 1u);
  EXPECT_EQ(s.options.accecn.eceb, 2u);
  EXPECT_EQ(s.options.accecn.ee1b, 3u);
  EXPECT_EQ(s.ace(), 0b101);  // AE and ECE set, CWR clear.
  // Kind 174 (AccECN1) with two fields: EE1B then ECEB, no EE0B.
  Bytes opt1 = {1, 1, 174, 8, 0, 0, 9, 0, 1, 0};
  opt1.resize(12, 1);
  ASSERT_EQ(Decode(kLinkRaw, Ipv4(Tcp(kTcpAck | kTcpCwr, opt1, 0), kEct1), &s),
            DecodeResult::kTcp);
  EXPECT_EQ(s.options.accecn.kind, 174);
  EXPECT_EQ(s.options.accecn.field_count, 2);
  EXPECT_TRUE(s.options.accecn.has_ee1b());
  EXPECT_TRUE(s.options.accecn.has_eceb());
  EXPECT_FALSE(s.options.accecn.has_ee0b());
  EXPECT_EQ(s.options.accecn.ee1b, 9u);
  EXPECT_EQ(s.options.accecn.eceb, 256u);
  EXPECT_EQ(s.ace(), 0b010);
}

TEST(PacketDecoderTest, ExperimentalAccEcnOptionAsTcpdumpShowsIt) {
  // The SYN-ACK of tcp/l4s-tests_prague_dualpi2_wifi.pcap.gz, TCP options
  // from `tcpdump -x`: mss 1460, sackOK, TS, exp-acc0 (kind 254, length 13,
  // ExID 0xACC0, EE0B 1, ECEB 0, EE1B 0), nop, wscale 11.
  Bytes options = {0x02, 0x04, 0x05, 0xb4, 0x04, 0x02, 0x08, 0x0a,
                   0xfd, 0xb6, 0xdc, 0x41, 0x2d, 0x59, 0xb3, 0x71,
                   0xfe, 0x0d, 0xac, 0xc0, 0x00, 0x00, 0x01, 0x00,
                   0x00, 0x00, 0x00, 0x00, 0x00, 0x03, 0x03, 0x0b};
  TcpSegment s;
  ASSERT_EQ(
      Decode(kLinkRaw,
             Ipv4(Tcp(kTcpSyn | kTcpAck | kTcpCwr, options, 0), kNotEct), &s),
      DecodeResult::kTcp);
  EXPECT_EQ(s.options.mss_bytes, 1460);
  EXPECT_TRUE(s.options.sack_permitted);
  EXPECT_EQ(s.options.ts_val, 0xfdb6dc41u);
  EXPECT_EQ(s.options.ts_ecr, 0x2d59b371u);
  EXPECT_EQ(s.options.accecn.kind, 254);
  EXPECT_EQ(s.options.accecn.ee0b, 1u);
  EXPECT_EQ(s.options.accecn.field_count, 3);
  EXPECT_EQ(s.options.wscale_shift, 11);
}

TEST(PacketDecoderTest, SackBlocks) {
  // RFC 2018 §3: kind 5, length 2 + 8n.
  Bytes options = {1,    1, 5,    18,   0,    0,    0x10, 0, 0, 0,
                   0x20, 0, 0xff, 0xff, 0xff, 0xf0, 0,    0, 0, 0x10};
  TcpSegment s;
  ASSERT_EQ(Decode(kLinkRaw, Ipv4(Tcp(kTcpAck, options, 0), kNotEct), &s),
            DecodeResult::kTcp);
  ASSERT_EQ(s.options.sack_block_count, 2);
  EXPECT_EQ(s.options.sack_left[0], 0x1000u);
  EXPECT_EQ(s.options.sack_right[0], 0x2000u);
  // A block that straddles the 32-bit wrap is kept as on the wire.
  EXPECT_EQ(s.options.sack_left[1], 0xfffffff0u);
  EXPECT_EQ(s.options.sack_right[1], 0x10u);
}

TEST(PacketDecoderTest, TimestampsInAnyLayout) {
  // RFC 7323 §3: kind 8, length 10, TSval, TSecr. Linux sends NOP, NOP,
  // timestamps first (Appendix A), which the decoder reads before the
  // option walk; any other layout goes through the walk and must read the
  // same.
  const Bytes ts = {8, 10, 0x12, 0x34, 0x56, 0x78, 0x9a, 0xbc, 0xde, 0xf0};
  Bytes linux_layout = {1, 1};
  Append(&linux_layout, ts);
  Bytes trailing_nops = ts;
  Append(&trailing_nops, {1, 1});
  Bytes with_sack = {1, 1};
  Append(&with_sack, ts);
  Append(&with_sack, {1, 1, 5, 10, 0, 0, 0x10, 0, 0, 0, 0x20, 0});
  TcpSegment s;
  for (const Bytes& options : {with_sack, linux_layout, trailing_nops}) {
    // `s` is reused, as the reader does: nothing of the SACK segment stays.
    ASSERT_EQ(Decode(kLinkRaw, Ipv4(Tcp(kTcpAck, options, 0), kNotEct), &s),
              DecodeResult::kTcp);
    EXPECT_TRUE(s.options.has_timestamps);
    EXPECT_EQ(s.options.ts_val, 0x12345678u);
    EXPECT_EQ(s.options.ts_ecr, 0x9abcdef0u);
    EXPECT_FALSE(s.options.truncated);
    if (options == with_sack) {
      // The walk goes on after the timestamps (RFC 2018 §3: kind 5).
      ASSERT_EQ(s.options.sack_block_count, 1);
      EXPECT_EQ(s.options.sack_left[0], 0x1000u);
      EXPECT_EQ(s.options.sack_right[0], 0x2000u);
    } else {
      EXPECT_EQ(s.options.sack_block_count, 0);
    }
  }
  // NOP, NOP, timestamps and four NOPs, cut after the timestamps: read, and
  // the cut flagged.
  Bytes longer = linux_layout;
  Append(&longer, {1, 1, 1, 1});
  ASSERT_EQ(Decode(kLinkRaw, Ipv4(Tcp(kTcpAck, longer, 0), kNotEct), &s,
                   20 + 20 + 12),
            DecodeResult::kTcp);
  EXPECT_TRUE(s.options.has_timestamps);
  EXPECT_EQ(s.options.ts_ecr, 0x9abcdef0u);
  EXPECT_TRUE(s.options.truncated);
}

TEST(PacketDecoderTest, SnaplenCutPayloadAndOptions) {
  Bytes options = {1, 1, 8, 10, 0, 0, 0, 1, 0, 0, 0, 2};
  Bytes frame = Ethernet(0x0800, {}, Ipv4(Tcp(kTcpAck, options, 1448), kEct0));
  TcpSegment s;
  // Cut inside the payload: length still from the IP header.
  ASSERT_EQ(Decode(kLinkEthernet, frame, &s, 128), DecodeResult::kTcp);
  EXPECT_EQ(s.payload_bytes, 1448u);
  EXPECT_EQ(s.captured_payload_bytes, 128u - 14 - 20 - 32);
  EXPECT_TRUE(s.options.has_timestamps);
  // Cut inside the options: what fits is kept and the cut is flagged.
  ASSERT_EQ(Decode(kLinkEthernet, frame, &s, 14 + 20 + 20 + 6),
            DecodeResult::kTcp);
  EXPECT_TRUE(s.options.truncated);
  EXPECT_FALSE(s.options.has_timestamps);
  // Cut inside the TCP header.
  EXPECT_EQ(Decode(kLinkEthernet, frame, &s, 14 + 20 + 10),
            DecodeResult::kTruncated);
}

TEST(PacketDecoderTest, MalformedLengthsAreRefused) {
  TcpSegment s;
  Bytes frame = Ipv4(Tcp(kTcpAck, {}, 0), kNotEct);
  frame[32] = 0xf0;  // TCP data offset 15 words > segment length.
  EXPECT_EQ(Decode(kLinkRaw, frame, &s), DecodeResult::kMalformed);
  Bytes bad_version = Ipv4(Tcp(kTcpAck, {}, 0), kNotEct);
  bad_version[0] = 0x55;
  EXPECT_EQ(Decode(kLinkIpv4, bad_version, &s), DecodeResult::kMalformed);
}

TEST(PacketDecoderTest, LoopbackFamiliesInEitherByteOrder) {
  TcpSegment s;
  Bytes ip = Ipv4(Tcp(kTcpAck, {}, 5), kNotEct);
  Bytes little = {2, 0, 0, 0};
  Append(&little, ip);
  EXPECT_EQ(Decode(kLinkNull, little, &s), DecodeResult::kTcp);
  Bytes big = {0, 0, 0, 2};
  Append(&big, ip);
  EXPECT_EQ(Decode(kLinkNull, big, &s), DecodeResult::kTcp);
  EXPECT_EQ(Decode(kLinkLoop, big, &s), DecodeResult::kTcp);
}

TEST(PacketDecoderTest, LinkTypeNames) {
  EXPECT_EQ(LinkTypeName(kLinkEthernet), "EN10MB");
  EXPECT_EQ(LinkTypeName(kLinkLinuxSll2), "LINUX_SLL2");
  EXPECT_EQ(LinkTypeName(kLinkRaw), "RAW");
  EXPECT_TRUE(IsSupportedLinkType(kLinkLinuxSll));
  EXPECT_FALSE(IsSupportedLinkType(105));
}

// ---- Tunnels -------------------------------------------------------------

// An outer IPv4 header (203.0.113.1 -> 203.0.113.2) carrying `protocol`,
// so that a test tells the inner addresses (192.0.2.1 -> 198.51.100.7) from
// the outer ones.
Bytes OuterIpv4(uint8_t protocol, const Bytes& payload) {
  Bytes b = Ipv4(payload, kNotEct);
  b[9] = protocol;
  const Bytes outer = {203, 0, 113, 1, 203, 0, 113, 2};
  for (size_t i = 0; i < outer.size(); ++i) b[12 + i] = outer[i];
  return b;
}

// A UDP header (RFC 768) with its length; checksum 0 (none, RFC 768).
Bytes Udp(uint16_t src_port, uint16_t dst_port, const Bytes& payload) {
  const uint16_t length = static_cast<uint16_t>(8 + payload.size());
  Bytes b = {static_cast<uint8_t>(src_port >> 8),
             static_cast<uint8_t>(src_port),
             static_cast<uint8_t>(dst_port >> 8),
             static_cast<uint8_t>(dst_port),
             static_cast<uint8_t>(length >> 8),
             static_cast<uint8_t>(length),
             0,
             0};
  Append(&b, payload);
  return b;
}

// The inner packet every tunnel test carries: TCP with 50 payload bytes
// and ECT(1) in its own IPv4 header.
Bytes InnerIpv4() { return Ipv4(Tcp(kTcpAck, {}, 50), kEct1); }

void ExpectInnerSegment(const TcpSegment& s, Encapsulation encapsulation) {
  EXPECT_EQ(s.encapsulation, encapsulation);
  EXPECT_EQ(s.src.ToString(), "192.0.2.1");
  EXPECT_EQ(s.dst.ToString(), "198.51.100.7");
  EXPECT_EQ(s.dst_port, 40000);
  EXPECT_EQ(s.payload_bytes, 50u);
  EXPECT_EQ(s.ip_ecn, kEct1);
}

TEST(PacketDecoderTest, GreWithKeyAndSequenceCarryingIpv4) {
  TcpSegment s;
  // RFC 2890 §2: K (0x20) and S (0x10) add a key and a sequence number, 4
  // bytes each; protocol type 0x0800.
  Bytes gre = {0x30, 0x00, 0x08, 0x00, 0, 0, 0, 42, 0, 0, 0, 7};
  Append(&gre, InnerIpv4());
  ASSERT_EQ(Decode(kLinkEthernet, Ethernet(0x0800, {}, OuterIpv4(47, gre)), &s),
            DecodeResult::kTcp);
  ExpectInnerSegment(s, Encapsulation::kGre);
  // RFC 2784 §2.1: C (0x80) adds checksum + reserved; 0x6558 carries
  // Ethernet (transparent Ethernet bridging).
  Bytes teb = {0x80, 0x00, 0x65, 0x58, 0, 0, 0, 0};
  Append(&teb, Ethernet(0x0800, {}, InnerIpv4()));
  ASSERT_EQ(Decode(kLinkEthernet, Ethernet(0x0800, {}, OuterIpv4(47, teb)), &s),
            DecodeResult::kTcp);
  ExpectInnerSegment(s, Encapsulation::kGre);
  // The next frame, untunnelled, is not marked.
  ASSERT_EQ(Decode(kLinkEthernet, Ethernet(0x0800, {}, InnerIpv4()), &s),
            DecodeResult::kTcp);
  EXPECT_EQ(s.encapsulation, Encapsulation::kNone);
}

TEST(PacketDecoderTest, ErspanTypeTwoAndThree) {
  TcpSegment s;
  // Type II: GRE with S set, protocol 0x88BE, then 8 bytes with version 1
  // (draft-foschiano-erspan-03 §4.2).
  Bytes two = {0x10, 0x00, 0x88, 0xBE, 0, 0, 0, 1,
               0x10, 0x64, 0x00, 0x01, 0, 0, 0, 0};
  Append(&two, Ethernet(0x0800, {}, InnerIpv4()));
  ASSERT_EQ(Decode(kLinkEthernet, Ethernet(0x0800, {}, OuterIpv4(47, two)), &s),
            DecodeResult::kTcp);
  ExpectInnerSegment(s, Encapsulation::kErspan);
  // Type III (§4.3): 0x22EB, 12 bytes with version 2, O bit set: 8 more.
  Bytes three = {0x10, 0x00, 0x22, 0xEB, 0, 0, 0, 1, 0x20, 0,
                 0,    1,    0,    0,    0, 0, 0, 0, 0,    1};
  three.resize(three.size() + 8, 0);
  Append(&three, Ethernet(0x0800, {}, InnerIpv4()));
  ASSERT_EQ(
      Decode(kLinkEthernet, Ethernet(0x0800, {}, OuterIpv4(47, three)), &s),
      DecodeResult::kTcp);
  ExpectInnerSegment(s, Encapsulation::kErspan);
}

TEST(PacketDecoderTest, UndecodedGreIsNamed) {
  TcpSegment s;
  // Aruba's WLAN-in-GRE protocol type 0x8200: not decoded, named.
  Bytes aruba = {0x00, 0x00, 0x82, 0x00, 0x88, 0x41, 0, 0};
  ASSERT_EQ(
      Decode(kLinkEthernet, Ethernet(0x0800, {}, OuterIpv4(47, aruba)), &s),
      DecodeResult::kTunnelNotDecoded);
  EXPECT_EQ(s.undecoded_tunnel.Describe(), "GRE protocol 0x8200");
  // PPTP's enhanced GRE (version 1, RFC 2637 §4.1).
  Bytes pptp = {0x30, 0x01, 0x88, 0x0B, 0, 0, 0, 0, 0, 0, 0, 0};
  ASSERT_EQ(
      Decode(kLinkEthernet, Ethernet(0x0800, {}, OuterIpv4(47, pptp)), &s),
      DecodeResult::kTunnelNotDecoded);
  EXPECT_EQ(s.undecoded_tunnel.Describe(), "GRE version 1");
  // A tunnel in a tunnel: GRE inside GRE.
  Bytes inner_gre = {0x00, 0x00, 0x08, 0x00};
  Append(&inner_gre, InnerIpv4());
  Bytes outer_gre = {0x00, 0x00, 0x08, 0x00};
  Append(&outer_gre, OuterIpv4(47, inner_gre));
  ASSERT_EQ(
      Decode(kLinkEthernet, Ethernet(0x0800, {}, OuterIpv4(47, outer_gre)), &s),
      DecodeResult::kTunnelNotDecoded);
  EXPECT_EQ(s.undecoded_tunnel.Describe(), "GRE inside another tunnel");
  // The key round-trips what Describe() names.
  EXPECT_EQ(UndecodedTunnel::FromKey(s.undecoded_tunnel.Key()).Describe(),
            "GRE inside another tunnel");
}

TEST(PacketDecoderTest, VxlanAndGeneveCarryEthernet) {
  TcpSegment s;
  // VXLAN (RFC 7348 §5): I flag, VNI 100.
  Bytes vxlan = {0x08, 0, 0, 0, 0, 0, 100, 0};
  Append(&vxlan, Ethernet(0x0800, {}, InnerIpv4()));
  ASSERT_EQ(
      Decode(kLinkEthernet,
             Ethernet(0x0800, {}, OuterIpv4(17, Udp(51000, 4789, vxlan))), &s),
      DecodeResult::kTcp);
  ExpectInnerSegment(s, Encapsulation::kVxlan);
  // Without the I flag the header is not valid: named, not guessed.
  vxlan[0] = 0x00;
  ASSERT_EQ(
      Decode(kLinkEthernet,
             Ethernet(0x0800, {}, OuterIpv4(17, Udp(51000, 4789, vxlan))), &s),
      DecodeResult::kTunnelNotDecoded);
  EXPECT_EQ(s.undecoded_tunnel.Describe(), "VXLAN with invalid flags 0x00");
  // GENEVE (RFC 8926 §3.4): one 4-byte-word option (Opt Len 1), protocol
  // 0x6558.
  Bytes geneve = {0x01, 0x00, 0x65, 0x58, 0, 0, 7, 0, 0x01, 0x02, 0x80, 0x00};
  Append(&geneve, Ethernet(0x0800, {}, InnerIpv4()));
  ASSERT_EQ(
      Decode(kLinkEthernet,
             Ethernet(0x0800, {}, OuterIpv4(17, Udp(51000, 6081, geneve))), &s),
      DecodeResult::kTcp);
  ExpectInnerSegment(s, Encapsulation::kGeneve);
  // Any other UDP port is plain UDP.
  EXPECT_EQ(
      Decode(kLinkEthernet,
             Ethernet(0x0800, {}, OuterIpv4(17, Udp(51000, 53, geneve))), &s),
      DecodeResult::kNotTcp);
}

TEST(PacketDecoderTest, GtpUWithExtensionHeaders) {
  TcpSegment s;
  // 3GPP TS 29.281 §5.1: version 1, PT, E set; G-PDU (255); length; TEID;
  // sequence, N-PDU, next extension type 0x85 (PDU session container,
  // §5.2.2.7); that header: length 1 (4 bytes), 2 bytes of content, next 0.
  Bytes gtp = {0x34, 0xFF, 0, 0, 0, 0, 0, 9, 0, 0, 0, 0x85, 1, 0x10, 0x09, 0};
  Append(&gtp, InnerIpv4());
  ASSERT_EQ(
      Decode(kLinkEthernet,
             Ethernet(0x0800, {}, OuterIpv4(17, Udp(2152, 2152, gtp))), &s),
      DecodeResult::kTcp);
  ExpectInnerSegment(s, Encapsulation::kGtpU);
  // An echo request (message type 1) carries no user data.
  Bytes echo = {0x32, 0x01, 0, 4, 0, 0, 0, 0, 0, 1, 0, 0};
  EXPECT_EQ(
      Decode(kLinkEthernet,
             Ethernet(0x0800, {}, OuterIpv4(17, Udp(2152, 2152, echo))), &s),
      DecodeResult::kNotTcp);
  // An extension header of length 0 never ends the chain: cut, not looped.
  gtp[12] = 0;
  EXPECT_EQ(
      Decode(kLinkEthernet,
             Ethernet(0x0800, {}, OuterIpv4(17, Udp(2152, 2152, gtp))), &s),
      DecodeResult::kTruncated);
}

TEST(PacketDecoderTest, TunnelCutBySnaplenIsTruncated) {
  TcpSegment s;
  Bytes vxlan = {0x08, 0, 0, 0, 0, 0, 100, 0};
  Append(&vxlan, Ethernet(0x0800, {}, InnerIpv4()));
  const Bytes frame =
      Ethernet(0x0800, {}, OuterIpv4(17, Udp(51000, 4789, vxlan)));
  // Every cut before the inner TCP header ends is truncated, never TCP.
  const uint32_t inner_tcp_end = 14 + 20 + 8 + 8 + 14 + 20 + 20;
  for (uint32_t cut = 14 + 20 + 8; cut < inner_tcp_end; ++cut) {
    EXPECT_EQ(Decode(kLinkEthernet, frame, &s, cut), DecodeResult::kTruncated)
        << cut;
  }
}

}  // namespace
}  // namespace ccreplay
