#include "replay/sim/pcap_export.h"

#include <pcap/pcap.h>

#include <algorithm>
#include <cstring>

#include "absl/strings/str_cat.h"
#include "parsers/tcp_segment.h"

namespace ccreplay {
namespace {

// Capture timestamps: simulation time 0 is this Unix time.
constexpr int64_t kEpochNs = int64_t{1'700'000'000} * 1'000'000'000;
constexpr uint8_t kSenderAddress[4] = {10, 1, 0, 1};
constexpr uint8_t kReceiverAddress[4] = {10, 2, 0, 1};
constexpr uint16_t kSenderBasePort = 40000;
constexpr uint16_t kReceiverPort = 5201;
constexpr uint8_t kWindowScale = 7;
// RFC 9768 section 3.2.2.1 / 3.2.3 initial values (Linux include/net/tcp.h
// TCP_ACCECN_CEP_INIT_OFFSET 5, TCP_ACCECN_E0B/E1B_INIT_OFFSET 1).
constexpr uint64_t kAceInit = 5;
constexpr uint64_t kEctByteCounterInit = 1;
constexpr uint8_t kAccEcn0OptionKind = 172;
// Every segment carries the timestamps option: 10 bytes padded to 12 by two
// NOPs (RFC 7323 section 3, Appendix A's layout).
constexpr uint32_t kTimestampOptionBytes = 12;

void Put16(uint8_t* p, uint32_t v) {
  p[0] = static_cast<uint8_t>(v >> 8);
  p[1] = static_cast<uint8_t>(v);
}
void Put24(uint8_t* p, uint64_t v) {
  p[0] = static_cast<uint8_t>(v >> 16);
  p[1] = static_cast<uint8_t>(v >> 8);
  p[2] = static_cast<uint8_t>(v);
}
void Put32(uint8_t* p, uint32_t v) {
  Put16(p, v >> 16);
  Put16(p + 2, v & 0xffff);
}

// The 1 ms TCP timestamp clock (RFC 7323 section 5.4 allows 1 ms..1 s).
uint32_t TsVal(int64_t time_ns) {
  return static_cast<uint32_t>((time_ns + kEpochNs) / 1'000'000);
}

// ACE flags for a 3-bit value (AE, CWR, ECE).
uint16_t AceFlags(uint64_t ace) {
  return ((ace & 4) ? kTcpAe : 0) | ((ace & 2) ? kTcpCwr : 0) |
         ((ace & 1) ? kTcpEce : 0);
}

class OptionWriter {
 public:
  explicit OptionWriter(uint8_t* out) : out_(out) {}
  void Nop() { out_[size_++] = 1; }
  // The timestamps option (RFC 7323 section 3), after two NOPs unless it
  // follows SACK-permitted in a SYN (Linux's 20-byte SYN layout).
  void Timestamps(uint32_t tsval, uint32_t tsecr, bool pad = true) {
    if (pad) {
      Nop();
      Nop();
    }
    out_[size_++] = 8;
    out_[size_++] = 10;
    Put32(out_ + size_, tsval);
    Put32(out_ + size_ + 4, tsecr);
    size_ += 8;
  }
  uint8_t size() const { return size_; }
  uint8_t* cursor() { return out_ + size_; }
  void Advance(uint8_t n) { size_ += n; }

 private:
  uint8_t* out_;
  uint8_t size_ = 0;
};

// The ECN flags of the SYN and SYN-ACK that negotiate `feedback`.
struct EcnNegotiation {
  uint16_t syn = 0;
  uint16_t syn_ack = 0;
};
EcnNegotiation NegotiationFlags(EcnFeedback feedback) {
  switch (feedback) {
    case EcnFeedback::kNone:
      break;
    case EcnFeedback::kRfc3168:
    case EcnFeedback::kDctcp:
      return {kTcpEce | kTcpCwr, kTcpEce};
    case EcnFeedback::kAccEcn:
      // SYN-ACK ACE 0b010: the SYN arrived Not-ECT.
      return {kTcpAe | kTcpCwr | kTcpEce, kTcpCwr};
  }
  return {};
}

// A SYN's options in Linux's layout: MSS, SACK permitted, timestamps, NOP,
// window scale. Returns their length.
uint8_t WriteSynOptions(uint32_t mss_bytes, uint32_t tsval, uint32_t tsecr,
                        uint8_t window_scale, uint8_t* out) {
  OptionWriter options(out);
  uint8_t* p = options.cursor();
  // The MSS option counts no TCP options (RFC 9293 section 3.7.1), so a
  // sender whose segments carry `packet_bytes` of payload beside the
  // timestamps advertises 12 bytes more, as Linux does (MSS 1460 from a
  // 1500-byte MTU, 1448-byte segments: tcp_current_mss() subtracts the
  // option; tshark on testdata/lab/*/sender.pcap.gz shows both).
  p[0] = 2;  // MSS
  p[1] = 4;
  Put16(p + 2, mss_bytes);
  p[4] = 4;  // SACK permitted
  p[5] = 2;
  options.Advance(6);
  options.Timestamps(tsval, tsecr, /*pad=*/false);
  options.Nop();
  p = options.cursor();
  p[0] = 3;  // window scale
  p[1] = 3;
  p[2] = window_scale;
  options.Advance(3);
  return options.size();
}

// The window scale a receiver advertising `window_bytes` chooses, as Linux's
// tcp_select_initial_window(): the smallest shift (at most 14, RFC 7323
// section 2.3) under which the window fits the 16-bit field.
uint8_t WindowScaleFor(uint64_t window_bytes) {
  uint8_t shift = 0;
  while (shift < 14 && (window_bytes >> shift) > 0xffff) ++shift;
  return shift;
}

}  // namespace

absl::StatusOr<std::unique_ptr<PcapExporter>> PcapExporter::Create(
    const std::string& path, const SimulationConfig& config) {
  pcap_t* handle = pcap_open_dead_with_tstamp_precision(
      DLT_RAW, 65535, PCAP_TSTAMP_PRECISION_NANO);
  if (handle == nullptr) {
    return absl::InternalError("libpcap could not open a raw-IP handle");
  }
  pcap_dumper_t* dumper = pcap_dump_open(handle, path.c_str());
  if (dumper == nullptr) {
    const std::string error = pcap_geterr(handle);
    pcap_close(handle);
    return absl::PermissionDeniedError(
        absl::StrCat("cannot write ", path, ": ", error));
  }
  return std::unique_ptr<PcapExporter>(
      new PcapExporter(path, config, handle, dumper));
}

PcapExporter::PcapExporter(const std::string& path,
                           const SimulationConfig& config, pcap* handle,
                           pcap_dumper* dumper)
    : path_(path),
      config_(config),
      handle_(handle),
      dumper_(dumper),
      flows_(config.flows.size()) {}

PcapExporter::~PcapExporter() {
  if (dumper_ != nullptr) pcap_dump_close(dumper_);
  if (handle_ != nullptr) pcap_close(handle_);
}

absl::Status PcapExporter::Finish() {
  if (dumper_ == nullptr) return absl::OkStatus();
  const bool flushed = pcap_dump_flush(dumper_) == 0;
  pcap_dump_close(dumper_);
  dumper_ = nullptr;
  if (!flushed) {
    return absl::UnavailableError(absl::StrCat("cannot write ", path_));
  }
  return absl::OkStatus();
}

void PcapExporter::Write(uint32_t flow, const Segment& s) {
  uint8_t buffer[20 + 20 + 40];
  const uint32_t tcp_bytes = 20 + s.options_bytes;
  const uint32_t header_bytes = 20 + tcp_bytes;
  FlowState& state = flows_[flow];
  const uint16_t sender_port = static_cast<uint16_t>(kSenderBasePort + flow);

  // IPv4 (RFC 791), DF set, TTL 64.
  uint8_t* ip = buffer;
  std::memset(ip, 0, 20);
  ip[0] = 0x45;
  ip[1] = s.ip_ecn & 3;
  Put16(ip + 2, header_bytes + s.payload_bytes);
  Put16(ip + 4, s.from_sender ? state.sender_ip_id++ : state.receiver_ip_id++);
  Put16(ip + 6, 0x4000);
  ip[8] = 64;
  ip[9] = 6;
  std::memcpy(ip + 12, s.from_sender ? kSenderAddress : kReceiverAddress, 4);
  std::memcpy(ip + 16, s.from_sender ? kReceiverAddress : kSenderAddress, 4);
  uint32_t sum = 0;
  for (int i = 0; i < 20; i += 2) sum += (ip[i] << 8) | ip[i + 1];
  while (sum >> 16) sum = (sum & 0xffff) + (sum >> 16);
  Put16(ip + 10, ~sum & 0xffff);

  // TCP (RFC 9293); the AE bit is the lowest reserved bit (RFC 9768).
  uint8_t* tcp = buffer + 20;
  std::memset(tcp, 0, 20);
  Put16(tcp, s.from_sender ? sender_port : kReceiverPort);
  Put16(tcp + 2, s.from_sender ? kReceiverPort : sender_port);
  Put32(tcp + 4, s.seq);
  Put32(tcp + 8, s.ack);
  tcp[12] =
      static_cast<uint8_t>((tcp_bytes / 4) << 4) | ((s.flags & kTcpAe) ? 1 : 0);
  tcp[13] = static_cast<uint8_t>(s.flags & 0xff);
  Put16(tcp + 14, s.window);
  std::memcpy(tcp + 20, s.options, s.options_bytes);

  pcap_pkthdr header;
  const int64_t t = s.time_ns + kEpochNs;
  header.ts.tv_sec = t / 1'000'000'000;
  header.ts.tv_usec = t % 1'000'000'000;  // nanoseconds in a nano file
  header.caplen = header_bytes;
  header.len = header_bytes + s.payload_bytes;
  pcap_dump(reinterpret_cast<u_char*>(dumper_), &header, buffer);
}

void PcapExporter::OnFlowStart(uint32_t flow, int64_t now_ns,
                               const FlowConfig& config, EcnFeedback feedback) {
  FlowState& state = flows_[flow];
  state.feedback = feedback;
  state.sender_isn = 1'000'000u * (flow + 1);
  state.receiver_isn = 5000u + flow;
  const int64_t rtt_ns =
      config.base_rtt_ns >= 0 ? config.base_rtt_ns : config_.base_rtt_ns;

  // Without a receive window the receiver advertises the largest window
  // (0xffff at scale 7); with one, that window at the scale that fits it.
  const uint64_t rwnd = config.receive_window_bytes;
  const uint8_t receiver_scale = rwnd > 0 ? WindowScaleFor(rwnd) : kWindowScale;
  if (rwnd > 0) {
    state.receiver_window_raw = static_cast<uint16_t>(
        std::min<uint64_t>(rwnd >> receiver_scale, 0xffff));
  }

  const EcnNegotiation ecn = NegotiationFlags(feedback);
  for (int i = 0; i < 2; ++i) {
    const bool from_sender = i == 0;
    Segment syn;
    syn.time_ns = from_sender ? now_ns - rtt_ns : now_ns;
    syn.from_sender = from_sender;
    syn.seq = from_sender ? state.sender_isn : state.receiver_isn;
    syn.ack = from_sender ? 0 : state.sender_isn + 1;
    syn.flags =
        from_sender ? (kTcpSyn | ecn.syn) : (kTcpSyn | kTcpAck | ecn.syn_ack);
    syn.options_bytes = WriteSynOptions(
        config.packet_bytes + kTimestampOptionBytes, TsVal(syn.time_ns),
        from_sender ? 0 : TsVal(now_ns - rtt_ns),
        from_sender ? kWindowScale : receiver_scale, syn.options);
    // A SYN's window is never scaled (RFC 7323 section 2.2).
    if (!from_sender && rwnd > 0) {
      syn.window = static_cast<uint16_t>(std::min<uint64_t>(rwnd, 0xffff));
    }
    Write(flow, syn);
  }
  state.last_receiver_tsval = TsVal(now_ns);
  // The handshake's final ACK (RFC 9768 Table 3: ACE 0b010 for a Not-ECT
  // SYN-ACK).
  Segment ack;
  ack.time_ns = now_ns;
  ack.seq = state.sender_isn + 1;
  ack.ack = state.receiver_isn + 1;
  ack.flags = kTcpAck | (feedback == EcnFeedback::kAccEcn ? kTcpCwr : 0);
  OptionWriter options(ack.options);
  options.Timestamps(TsVal(now_ns), state.last_receiver_tsval);
  ack.options_bytes = options.size();
  Write(flow, ack);
}

void PcapExporter::OnDataSent(const SimPacket& packet) {
  FlowState& state = flows_[packet.flow];
  Segment s;
  s.time_ns = packet.sent_ns;
  s.ip_ecn = packet.ecn;
  s.seq = state.sender_isn + 1 + static_cast<uint32_t>(packet.seq);
  s.ack = state.receiver_isn + 1;
  s.flags = kTcpAck;
  if (state.feedback == EcnFeedback::kAccEcn) {
    // The sender received no CE-marked data: its ACE stays at the initial 5.
    s.flags |= AceFlags(kAceInit);
  } else if (packet.cwr) {
    s.flags |= kTcpCwr;
  }
  s.payload_bytes = packet.bytes;
  OptionWriter options(s.options);
  options.Timestamps(TsVal(packet.sent_ns), state.last_receiver_tsval);
  s.options_bytes = options.size();
  Write(packet.flow, s);
}

void PcapExporter::OnAckReceived(const SimAck& ack) {
  FlowState& state = flows_[ack.flow];
  Segment s;
  s.time_ns = ack.arrival_ns;
  s.from_sender = false;
  s.seq = state.receiver_isn + 1;
  s.ack = state.sender_isn + 1 + static_cast<uint32_t>(ack.cumulative_ack);
  s.flags = kTcpAck;
  s.window = state.receiver_window_raw;
  state.last_receiver_tsval = TsVal(ack.sent_ns);
  OptionWriter options(s.options);
  options.Timestamps(state.last_receiver_tsval, TsVal(ack.echo_sent_ns));
  if (state.feedback == EcnFeedback::kAccEcn) {
    s.flags |= AceFlags(kAceInit + ack.ce_packets);
    options.Nop();
    uint8_t* p = options.cursor();
    p[0] = kAccEcn0OptionKind;
    p[1] = 11;
    Put24(p + 2, kEctByteCounterInit + ack.ect0_bytes);
    Put24(p + 5, ack.ce_bytes);
    Put24(p + 8, kEctByteCounterInit + ack.ect1_bytes);
    options.Advance(11);
  } else if (ack.ece) {
    s.flags |= kTcpEce;
  }
  // SACK blocks (RFC 2018 section 3) in the space that is left.
  const int room_blocks = (40 - options.size() - 4) / 8;
  const int blocks = std::min<int>(ack.sack_blocks, room_blocks);
  if (blocks > 0) {
    options.Nop();
    options.Nop();
    uint8_t* p = options.cursor();
    p[0] = 5;
    p[1] = static_cast<uint8_t>(2 + 8 * blocks);
    for (int i = 0; i < blocks; ++i) {
      Put32(p + 2 + 8 * i,
            state.sender_isn + 1 + static_cast<uint32_t>(ack.sack_start[i]));
      Put32(p + 6 + 8 * i,
            state.sender_isn + 1 + static_cast<uint32_t>(ack.sack_end[i]));
    }
    options.Advance(static_cast<uint8_t>(2 + 8 * blocks));
  }
  s.options_bytes = options.size();
  Write(ack.flow, s);
}

absl::StatusOr<std::unique_ptr<Simulation>> SimulateToPcap(
    const SimulationConfig& config, int64_t duration_ns,
    const std::string& path) {
  absl::StatusOr<std::unique_ptr<PcapExporter>> exporter =
      PcapExporter::Create(path, config);
  if (!exporter.ok()) return exporter.status();
  absl::StatusOr<std::unique_ptr<Simulation>> sim =
      Simulation::Create(config, exporter->get());
  if (!sim.ok()) return sim.status();
  (*sim)->RunUntil(duration_ns);
  absl::Status finished = (*exporter)->Finish();
  if (!finished.ok()) return finished;
  return sim;
}

}  // namespace ccreplay
