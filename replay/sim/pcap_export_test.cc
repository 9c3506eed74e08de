#include "replay/sim/pcap_export.h"

#include <unistd.h>

#include <memory>
#include <string>

#include "gtest/gtest.h"
#include "parsers/flow_table.h"
#include "parsers/pcap_reader.h"

namespace ccreplay {
namespace {

constexpr int64_t kMs = 1'000'000;

// Remembers the AccECN feedback of the last receiver-to-sender segment.
class LastAckFeedback : public SegmentConsumer {
 public:
  void OnSegment(const TcpSegment& segment) override {
    table.OnSegment(segment);
    if (segment.src_port == 5201 && !(segment.flags & kTcpSyn)) {
      ace = segment.ace();
      eceb = segment.options.accecn.eceb;
      has_eceb = segment.options.accecn.has_eceb();
    }
  }
  void Restart() override { table.Restart(); }

  FlowTable table;
  uint8_t ace = 0;
  uint32_t eceb = 0;
  bool has_eceb = false;
};

struct Exported {
  std::unique_ptr<Simulation> sim;
  LastAckFeedback read;
  CaptureInfo info;
};

// Runs `config` for `duration_ns` with the export on, reads the file back.
void ExportAndRead(const SimulationConfig& config, int64_t duration_ns,
                   const std::string& name, Exported& out) {
  const std::string path = ::testing::TempDir() + "/ccreplay_sim_" +
                           std::to_string(getpid()) + "_" + name;
  absl::StatusOr<std::unique_ptr<Simulation>> sim =
      SimulateToPcap(config, duration_ns, path);
  ASSERT_TRUE(sim.ok()) << sim.status();
  out.sim = std::move(*sim);
  absl::StatusOr<CaptureInfo> info = ReadCapture(path, out.read);
  ASSERT_TRUE(info.ok()) << info.status();
  out.info = *info;
}

// The capture holds exactly what the simulated sender sent and received:
// the handshake (SYN and final ACK from the sender, SYN-ACK from the
// receiver), then one record per data packet and per ACK that arrived.
void ExpectFlowFacts(const Exported& e, uint32_t packet_bytes,
                     FlowSummary& summary) {
  ASSERT_EQ(e.read.table.flows().size(), 1u);
  summary = SummarizeFlow(e.read.table.flows()[0], e.info.first_packet_time_ns);
  const SenderStats s = e.sim->flow_stats(0).sender;
  EXPECT_EQ(e.info.undecodable_packets, 0u);
  EXPECT_EQ(summary.packets_data_dir, s.packets_sent + 2);
  EXPECT_EQ(summary.packets_ack_dir, s.acks_received + 1);
  EXPECT_EQ(summary.retransmitted_segments, s.retransmissions);
  EXPECT_EQ(summary.data_bytes,
            s.bytes_sent - s.retransmissions * uint64_t{packet_bytes});
  EXPECT_EQ(summary.max_payload_bytes, packet_bytes);
  ASSERT_TRUE(summary.mss_option_sender.has_value());
  // Linux's layout: the option says the MSS without TCP options, segments
  // carry 12 bytes fewer beside the timestamps (tshark -Y tcp.flags.syn==1
  // -e tcp.options.mss_val on testdata/lab/reno_ecn1_stepK60k_50mbit/
  // sender.pcap.gz: 1460; its data segments: tcp.len 1448).
  EXPECT_EQ(*summary.mss_option_sender, packet_bytes + 12);
  EXPECT_TRUE(summary.timestamps);
  EXPECT_TRUE(summary.sack_permitted);
}

TEST(PcapExport, PragueAccEcnFlowReadsBackWithItsCounters) {
  // 100 Mbit/s, 2 ms, CE above 1 ms sojourn: plenty of marks, no drops.
  SimulationConfig config;
  config.rate_bps = 100'000'000;
  config.base_rtt_ns = 2 * kMs;
  config.buffer_bytes = 1'000'000;
  config.ce_sojourn_threshold_ns = 1 * kMs;
  FlowConfig flow;
  flow.cc_spec = "prague:v07";
  flow.pacing = true;
  config.flows.push_back(flow);
  Exported e;
  ExportAndRead(config, 1000 * kMs, "prague.pcap", e);
  FlowSummary summary;
  ExpectFlowFacts(e, 1448, summary);
  const SenderStats s = e.sim->flow_stats(0).sender;
  EXPECT_EQ(summary.ecn_mode, EcnMode::kAccEcn);
  EXPECT_EQ(summary.ect1_packets, s.packets_sent);
  EXPECT_EQ(summary.ce_packets, 0u);  // the sender never sees CE
  ASSERT_GT(s.ce_packets_reported, 100u);
  // The last ACK's ACE and ECEB encode the CE count the sender acted on.
  EXPECT_EQ(e.read.ace, (5 + s.ce_packets_reported) % 8);
  ASSERT_TRUE(e.read.has_eceb);
  EXPECT_EQ(e.read.eceb, (s.ce_packets_reported * 1448) % (1 << 24));
  EXPECT_GT(summary.ace_changes, 0u);
}

TEST(PcapExport, RenoRfc3168FlowWithDropsReadsBack) {
  // 20 Mbit/s, 20 ms, a 30-packet buffer and a CE step at 10 packets.
  SimulationConfig config;
  config.rate_bps = 20'000'000;
  config.base_rtt_ns = 20 * kMs;
  config.buffer_bytes = 30 * 1200;
  config.ce_backlog_threshold_bytes = 10 * 1200;
  FlowConfig flow;
  flow.cc_spec = "reno";
  flow.packet_bytes = 1200;
  config.flows.push_back(flow);
  // 1 % random loss after the bottleneck gives retransmissions.
  config.random_loss = 0.01;
  Exported e;
  ExportAndRead(config, 3000 * kMs, "reno.pcap", e);
  FlowSummary summary;
  ExpectFlowFacts(e, 1200, summary);
  const SenderStats s = e.sim->flow_stats(0).sender;
  EXPECT_GT(s.retransmissions, 0u);
  EXPECT_EQ(summary.ecn_mode, EcnMode::kRfc3168);
  EXPECT_EQ(summary.ect0_packets, s.packets_sent);
  EXPECT_GT(s.ece_acks, 0u);
  EXPECT_EQ(summary.ece_acks, s.ece_acks);
  EXPECT_GT(s.cwr_packets, 0u);
  EXPECT_EQ(summary.cwr_packets, s.cwr_packets);
}

}  // namespace
}  // namespace ccreplay
