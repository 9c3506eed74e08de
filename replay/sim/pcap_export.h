// Writes what the data senders of a simulation see as a real pcap capture,
// so `ccreplay flows`, `diagnose` and other capture tools read a simulated
// flow exactly like a captured one.
//
// One TCP connection per flow over IPv4 (link type raw IP, nanosecond
// timestamps): sender 10.1.0.1:(40000 + flow) to receiver 10.2.0.1:5201.
// Each flow starts with a three-way handshake negotiating its ECN mode
// (RFC 3168 section 6.1.1: SYN ECE+CWR, SYN-ACK ECE; RFC 9768 section
// 3.1.1: SYN AE+CWR+ECE, SYN-ACK ACE = 0b010 for a Not-ECT SYN), then every
// data packet at its send time and every ACK at its arrival: IP ECN
// codepoint as sent (a sender never sees CE), sequence and acknowledgment
// numbers, timestamps option (1 ms clock), SACK blocks, CWR and ECE
// (RFC 3168), or the ACE field and the AccECN option (kind 172, order
// EE0B, ECEB, EE1B) with the counters' initial offsets (RFC 9768 section
// 3.2.2.1 and 3.2.3: ACE from 5, EE0B and EE1B from 1; Linux
// TCP_ACCECN_*_INIT_OFFSET). Only headers are written (caplen = headers,
// len = the full packet), like a capture with a small snaplen; TCP
// checksums are left 0 as with checksum offload.
#ifndef CCREPLAY_REPLAY_SIM_PCAP_EXPORT_H_
#define CCREPLAY_REPLAY_SIM_PCAP_EXPORT_H_

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "replay/sim/simulation.h"

struct pcap;
struct pcap_dumper;

namespace ccreplay {

class PcapExporter : public PacketObserver {
 public:
  // Opens `path` for writing; the config gives each flow's base RTT (the
  // handshake's timing) and packet size (the MSS option: the packet size
  // plus the 12 bytes of timestamps every segment carries).
  static absl::StatusOr<std::unique_ptr<PcapExporter>> Create(
      const std::string& path, const SimulationConfig& config);
  ~PcapExporter() override;

  // Flushes and closes the file; errors name the path.
  absl::Status Finish();

  // PacketObserver:
  void OnFlowStart(uint32_t flow, int64_t now_ns, const FlowConfig& config,
                   EcnFeedback feedback) override;
  void OnDataSent(const SimPacket& packet) override;
  void OnAckReceived(const SimAck& ack) override;

 private:
  struct FlowState {
    EcnFeedback feedback = EcnFeedback::kNone;
    uint32_t sender_isn = 0;
    uint32_t receiver_isn = 0;
    uint16_t sender_ip_id = 0;
    uint16_t receiver_ip_id = 0;
    uint32_t last_receiver_tsval = 0;
    // The window field of the receiver's ACKs: the flow's receive window
    // shifted right by the scale its SYN-ACK advertised.
    uint16_t receiver_window_raw = 0xffff;
  };
  // One packet: TCP header fields beyond the ports and addresses.
  struct Segment {
    int64_t time_ns = 0;
    bool from_sender = true;
    uint8_t ip_ecn = 0;
    uint32_t seq = 0;
    uint32_t ack = 0;
    uint16_t flags = 0;  // parsers/tcp_segment.h TcpFlag bits
    uint16_t window = 0xffff;
    uint32_t payload_bytes = 0;
    uint8_t options[40] = {};
    uint8_t options_bytes = 0;
  };

  PcapExporter(const std::string& path, const SimulationConfig& config,
               pcap* handle, pcap_dumper* dumper);
  void Write(uint32_t flow, const Segment& segment);

  std::string path_;
  SimulationConfig config_;
  pcap* handle_;
  pcap_dumper* dumper_;
  std::vector<FlowState> flows_;
};

// Runs `config` for `duration_ns` of simulated time with every packet
// written to a new pcap at `path`; returns the finished simulation.
absl::StatusOr<std::unique_ptr<Simulation>> SimulateToPcap(
    const SimulationConfig& config, int64_t duration_ns,
    const std::string& path);

}  // namespace ccreplay

#endif  // CCREPLAY_REPLAY_SIM_PCAP_EXPORT_H_
