// Writes a pcap of N TCP flows (distinct source ports and addresses) for
// the many-flows measurements in docs/performance.md.
// Usage: syn_flows N OUT.pcap [--data]
// Without --data: one SYN per flow, 10 us apart. With --data: a short
// download per flow, one starting every 100 us, each 9 packets over 3.6
// ms (handshake, two 1000-byte segments, an ACK, a FIN each way, the last
// ACK; RTT 1 ms), so about 40 are open at once.
// Packets: Ethernet II, IPv4 (RFC 791) without options, TCP (RFC 9293
// section 3.1), SYNs with an MSS option; checksums left 0 (ccreplay does
// not check them).
#include <pcap/pcap.h>

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <map>

namespace {

constexpr int kFrameBytes = 14 + 20 + 24;
constexpr int kMaxFrameBytes = 14 + 20 + 24 + 1000;

void Put16(uint8_t* p, uint32_t v) {
  p[0] = static_cast<uint8_t>(v >> 8);
  p[1] = static_cast<uint8_t>(v);
}

void Put32(uint8_t* p, uint32_t v) {
  Put16(p, v >> 16);
  Put16(p + 2, v & 0xffff);
}

// A segment of flow `i`, 10.(i>>16).(i>>8).(i) port 10000+(i%50000) (the
// client) to or from 192.0.2.1:5201; a SYN carries the MSS option.
// Returns the frame's length.
int BuildSegment(uint32_t i, bool from_client, uint8_t flags, uint32_t seq,
                 uint32_t ack, int payload_bytes, uint8_t* frame) {
  const bool syn = flags & 0x02;
  const int tcp_bytes = syn ? 24 : 20;
  const int frame_bytes = 14 + 20 + tcp_bytes + payload_bytes;
  std::memset(frame, 0, frame_bytes);
  frame[12] = 0x08;  // EtherType IPv4.
  uint8_t* ip = frame + 14;
  ip[0] = 0x45;
  Put16(ip + 2, 20 + tcp_bytes + payload_bytes);
  ip[8] = 64;  // TTL.
  ip[9] = 6;   // TCP.
  const uint32_t client = (10u << 24) | (i & 0xffffff);
  const uint32_t server = (192u << 24) | (2u << 8) | 1u;
  Put32(ip + 12, from_client ? client : server);
  Put32(ip + 16, from_client ? server : client);
  uint8_t* tcp = ip + 20;
  const uint16_t client_port = 10000 + i % 50000;
  Put16(tcp, from_client ? client_port : 5201);
  Put16(tcp + 2, from_client ? 5201 : client_port);
  Put32(tcp + 4, seq);
  Put32(tcp + 8, ack);
  tcp[12] = (tcp_bytes / 4) << 4;  // Data offset.
  tcp[13] = flags;
  Put16(tcp + 14, 64240);
  if (syn) {
    tcp[20] = 2;  // MSS option, RFC 9293 3.2.
    tcp[21] = 4;
    Put16(tcp + 22, 1460);
  }
  return frame_bytes;
}

void Write(pcap_dumper_t* out, uint64_t us, const uint8_t* frame, int bytes) {
  pcap_pkthdr header = {};
  header.ts.tv_sec = static_cast<time_t>(us / 1000000);
  header.ts.tv_usec = static_cast<suseconds_t>(us % 1000000);
  header.caplen = header.len = static_cast<bpf_u_int32>(bytes);
  pcap_dump(reinterpret_cast<u_char*>(out), &header, frame);
}

constexpr uint64_t kStartUs = 1700000000ull * 1000000;

// Flow `i`'s short download (see the top), starting at `t0_us`. Its
// packets interleave with the next flows' in time, so they are written
// in time order by the caller: `step` (0..8) picks one.
struct Step {
  uint32_t at_us;  // After the flow's start.
  bool from_client;
  uint8_t flags;
  uint32_t seq, ack;  // Relative: ISNs 1000 (client) and 5000 (server).
  int payload_bytes;
};
constexpr uint8_t kSyn = 0x02, kAck = 0x10, kFin = 0x01;
constexpr Step kDownload[] = {
    {0, true, kSyn, 1000, 0, 0},
    {500, false, kSyn | kAck, 5000, 1001, 0},
    {1000, true, kAck, 1001, 5001, 0},
    {1500, false, kAck, 5001, 1001, 1000},
    {1600, false, kAck, 6001, 1001, 1000},
    {2600, true, kAck, 1001, 7001, 0},
    {2700, false, kFin | kAck, 7001, 1001, 0},
    {3200, true, kFin | kAck, 1001, 7002, 0},
    {3600, false, kAck, 7002, 1002, 0},
};
constexpr uint32_t kDownloadSpacingUs = 100;

void WriteDownloads(uint32_t n, pcap_dumper_t* out) {
  // (time, flow * 9 + step), in time order; a packet is written once no
  // flow still to start can come before it.
  std::multimap<uint64_t, uint64_t> pending;
  uint8_t frame[kMaxFrameBytes];
  const auto write_before = [&](uint64_t t_us) {
    while (!pending.empty() && pending.begin()->first < t_us) {
      const uint64_t id = pending.begin()->second;
      const Step& s = kDownload[id % 9];
      const int bytes =
          BuildSegment(static_cast<uint32_t>(id / 9), s.from_client, s.flags,
                       s.seq, s.ack, s.payload_bytes, frame);
      Write(out, kStartUs + pending.begin()->first, frame, bytes);
      pending.erase(pending.begin());
    }
  };
  for (uint32_t i = 0; i < n; ++i) {
    const uint64_t start_us = uint64_t{i} * kDownloadSpacingUs;
    write_before(start_us);
    for (uint64_t k = 0; k < 9; ++k)
      pending.emplace(start_us + kDownload[k].at_us, i * 9ull + k);
  }
  write_before(UINT64_MAX);
}

}  // namespace

int main(int argc, char** argv) {
  const bool data = argc == 4 && std::strcmp(argv[3], "--data") == 0;
  if (argc != 3 && !data) {
    std::fprintf(stderr, "usage: syn_flows N OUT.pcap [--data]\n");
    return 2;
  }
  const uint32_t n = static_cast<uint32_t>(std::strtoul(argv[1], nullptr, 10));
  pcap_t* dead = pcap_open_dead(DLT_EN10MB, 262144);
  pcap_dumper_t* out = pcap_dump_open(dead, argv[2]);
  if (out == nullptr) {
    std::fprintf(stderr, "syn_flows: %s\n", pcap_geterr(dead));
    return 1;
  }
  if (data) {
    WriteDownloads(n, out);
  } else {
    uint8_t frame[kMaxFrameBytes];
    for (uint32_t i = 0; i < n; ++i) {
      const int bytes = BuildSegment(i, true, kSyn, 1000u * i, 0, 0, frame);
      Write(out, kStartUs + 10ull * i, frame, bytes);
    }
  }
  pcap_dump_close(out);
  pcap_close(dead);
  return 0;
}
