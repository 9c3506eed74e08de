#include "reports/diagnosis.h"

#include <string>

#include "gtest/gtest.h"
#include "parsers/pcap_reader.h"
#include "replay/flow_selection.h"

namespace ccreplay {
namespace {

std::string Data(const std::string& relative) {
  return std::string(CCREPLAY_TESTDATA_DIR) + "/" + relative;
}

// Runs the diagnose pipeline on a capture's largest flow.
struct DiagnosedFlow {
  FlowObserver observer{0};
  Diagnosis diagnosis;
};

std::unique_ptr<DiagnosedFlow> DiagnoseFile(const std::string& file) {
  auto run = std::make_unique<DiagnosedFlow>();
  AckTimelineBuilder all;
  absl::StatusOr<CaptureInfo> info = ReadCapture(Data(file), all);
  EXPECT_TRUE(info.ok()) << info.status();
  absl::StatusOr<SelectedFlow> selected = SelectFlow(all.flow_table(), "");
  EXPECT_TRUE(selected.ok());
  const Flow& flow = all.flow_table().flows()[selected->index];
  run->observer = FlowObserver(flow.first_ns);
  FlowObserver* observer = &run->observer;
  AckTimelineBuilder one(selected->index, selected->sender_side,
                         [observer](const TimelineEvent& e) { observer->Add(e); });
  EXPECT_TRUE(ReadCapture(Data(file), one).ok());
  DiagnosisInput input;
  input.input_path = file;
  input.flow = &flow;
  input.summary = SummarizeFlow(flow, info->first_packet_time_ns);
  input.stats = all.Stats(selected->index);
  input.observed = observer;
  run->diagnosis = Diagnose(input);
  return run;
}

bool HasFinding(const Diagnosis& d, const std::string& kind) {
  for (const proto::Finding& f : d.result.findings()) {
    if (f.kind() == kind) return true;
  }
  return false;
}

TEST(DiagnosisTest, BottleneckRateOfTheDropTailLab) {
  // meta.txt: HTB 50mbit. HTB counts whole Ethernet frames, so TCP payload
  // runs at most at 50 Mb/s x 1448 / 1514 = 47.8 Mb/s; the flow's goodput is
  // 48.04 Mb/s (tshark, scripts/tshark_flow_facts.py). Drops make the path
  // visibly busy: not a lower bound.
  std::unique_ptr<DiagnosedFlow> run = DiagnoseFile("lab/cubic_noecn_droptail100_50mbit/sender.pcap.gz");
  const proto::Estimates& e = run->diagnosis.result.estimates();
  EXPECT_GT(e.bottleneck_rate_bps(), 46e6);
  EXPECT_LT(e.bottleneck_rate_bps(), 52e6);
  EXPECT_FALSE(e.bottleneck_rate_is_lower_bound());
  EXPECT_GT(run->diagnosis.result.utilization(), 0.9);
  // No propagation delay on this testbed: the base RTT is the handshake's
  // few microseconds (tshark tcp.analysis.ack_rtt min: 7 us).
  EXPECT_LT(e.base_rtt_s(), 50e-6);
}

TEST(DiagnosisTest, BaseRttOfTheDelayLineLab) {
  // meta.txt: a 10 ms delay line on the ACK path, HTB 40mbit (38.3 Mb/s of
  // payload after Ethernet framing); 291 CE marks keep the queue short.
  std::unique_ptr<DiagnosedFlow> run = DiagnoseFile("lab/cubic_ecn_K60k_40mbit_ackdelay10ms/sender.pcap.gz");
  const proto::Estimates& e = run->diagnosis.result.estimates();
  EXPECT_NEAR(e.base_rtt_s(), 0.010, 0.0005);
  EXPECT_GT(e.bottleneck_rate_bps(), 36e6);
  EXPECT_LT(e.bottleneck_rate_bps(), 42e6);
  EXPECT_NEAR(e.bdp_bytes(), e.bottleneck_rate_bps() / 8 * e.base_rtt_s(), 1);
}

TEST(DiagnosisTest, IdleHttpServerIsApplicationLimited) {
  // zeek comp008: 2.19 MB over 993 s — an HTTP server that mostly waits
  // (tshark: 1879 packets from port 80 in 993 s, long idle gaps between
  // bursts), so the application, not the window, limits it.
  std::unique_ptr<DiagnosedFlow> run = DiagnoseFile("tcp/zeek-tcprs_comp008.pcap");
  EXPECT_TRUE(HasFinding(run->diagnosis, "application_limited"));
  EXPECT_FALSE(HasFinding(run->diagnosis, "receive_window_limited"));
  EXPECT_LT(run->diagnosis.result.utilization(), 0.2);
}

TEST(DiagnosisTest, LimiterRunsCoverTheDataPhase) {
  std::unique_ptr<DiagnosedFlow> run = DiagnoseFile("tcp/l4s-tests_prague_dualpi2_wifi.pcap.gz");
  double total = 0;
  for (const proto::LimiterShare& s : run->diagnosis.result.limiters()) total += s.time_fraction();
  EXPECT_NEAR(total, 1.0, 1e-9);
  // The page has the window, rate, RTT, ECN, limiter and time-sequence
  // plots; the ECN plot exists because AccECN fed back CE (5327 packets).
  EXPECT_EQ(run->diagnosis.page.plots.size(), 6u);
  EXPECT_EQ(run->diagnosis.result.vantage(), "sender");
}

}  // namespace
}  // namespace ccreplay
