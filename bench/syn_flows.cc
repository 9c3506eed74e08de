// Writes a pcap of N SYN-only TCP flows (one SYN each, distinct source
// ports and addresses, 10 us apart) for the many-flows memory measurement
// in docs/performance.md. Usage: syn_flows N OUT.pcap
// Packets: Ethernet II, IPv4 (RFC 791) without options, TCP (RFC 9293
// section 3.1) SYN with an MSS option; checksums left 0 (ccreplay does not
// check them).
#include <pcap/pcap.h>

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>

namespace {

constexpr int kFrameBytes = 14 + 20 + 24;

void Put16(uint8_t* p, uint32_t v) {
  p[0] = static_cast<uint8_t>(v >> 8);
  p[1] = static_cast<uint8_t>(v);
}

void Put32(uint8_t* p, uint32_t v) {
  Put16(p, v >> 16);
  Put16(p + 2, v & 0xffff);
}

// The SYN of flow `i`: 10.(i>>16).(i>>8).(i) port 10000+(i%50000) to
// 192.0.2.1:5201.
void BuildSyn(uint32_t i, uint8_t* frame) {
  std::memset(frame, 0, kFrameBytes);
  frame[12] = 0x08;  // EtherType IPv4.
  uint8_t* ip = frame + 14;
  ip[0] = 0x45;
  Put16(ip + 2, 20 + 24);
  ip[8] = 64;  // TTL.
  ip[9] = 6;   // TCP.
  Put32(ip + 12, (10u << 24) | (i & 0xffffff));
  Put32(ip + 16, (192u << 24) | (2u << 8) | 1u);
  uint8_t* tcp = ip + 20;
  Put16(tcp, 10000 + i % 50000);
  Put16(tcp + 2, 5201);
  Put32(tcp + 4, 1000u * i);
  tcp[12] = 6 << 4;  // Data offset: 24 bytes.
  tcp[13] = 0x02;    // SYN.
  Put16(tcp + 14, 64240);
  tcp[20] = 2;  // MSS option, RFC 9293 3.2.
  tcp[21] = 4;
  Put16(tcp + 22, 1460);
}

}  // namespace

int main(int argc, char** argv) {
  if (argc != 3) {
    std::fprintf(stderr, "usage: syn_flows N OUT.pcap\n");
    return 2;
  }
  const uint32_t n = static_cast<uint32_t>(std::strtoul(argv[1], nullptr, 10));
  pcap_t* dead = pcap_open_dead(DLT_EN10MB, 262144);
  pcap_dumper_t* out = pcap_dump_open(dead, argv[2]);
  if (out == nullptr) {
    std::fprintf(stderr, "syn_flows: %s\n", pcap_geterr(dead));
    return 1;
  }
  uint8_t frame[kFrameBytes];
  for (uint32_t i = 0; i < n; ++i) {
    BuildSyn(i, frame);
    pcap_pkthdr header = {};
    const uint64_t us = 1700000000ull * 1000000 + 10ull * i;
    header.ts.tv_sec = static_cast<time_t>(us / 1000000);
    header.ts.tv_usec = static_cast<suseconds_t>(us % 1000000);
    header.caplen = header.len = kFrameBytes;
    pcap_dump(reinterpret_cast<u_char*>(out), &header, frame);
  }
  pcap_dump_close(out);
  pcap_close(dead);
  return 0;
}
