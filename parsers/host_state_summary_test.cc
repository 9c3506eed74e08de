#include "parsers/host_state_summary.h"

#include <string>

#include "gtest/gtest.h"
#include "parsers/host_state_reader.h"
#include "proto/testing/test_data.h"

namespace ccreplay {
namespace {

// Cross-checks as in ss_log_test.cc / tcp_probe_test.cc / qlog_test.cc
// (python3 over the same files).
TEST(HostStateSummaryTest, SsDataFlow) {
  absl::StatusOr<HostStateLog> log =
      ReadHostState(TestDataPath("lab/reno_ecn1_stepK60k_50mbit/ss.log"));
  ASSERT_TRUE(log.ok()) << log.status();
  ASSERT_EQ(log->traces.size(), 2u);
  HostTraceSummary s = SummarizeHostTrace(log->traces[1]);
  EXPECT_EQ(s.protocol, "tcp");
  EXPECT_EQ(s.source, "ss");
  EXPECT_EQ(s.sender, "10.99.1.1:42408");
  EXPECT_EQ(s.receiver, "10.99.2.1:5201");
  EXPECT_EQ(s.samples, 230u);
  EXPECT_EQ(s.cwnd_min_segments, 9);
  EXPECT_EQ(s.cwnd_max_segments, 70);
  EXPECT_EQ(s.cwnd_last_segments, 32);
}

TEST(HostStateSummaryTest, TcpProbeReceiverSocketNamesTheRemoteAsSender) {
  absl::StatusOr<HostStateLog> log = ReadHostState(
      TestDataPath("lab/cubic_ecn_K60k_40mbit_ackdelay10ms/tcp_probe.txt.gz"));
  ASSERT_TRUE(log.ok()) << log.status();
  bool found = false;
  for (const HostTrace& trace : log->traces) {
    if (trace.local_endpoint != "10.98.2.1:5201" ||
        trace.remote_endpoint != "10.98.1.1:51026") {
      continue;
    }
    found = true;
    HostTraceSummary s = SummarizeHostTrace(trace);
    EXPECT_EQ(s.source, "tcp_probe");
    EXPECT_EQ(s.sender, "10.98.1.1:51026");
    EXPECT_EQ(s.receiver, "10.98.2.1:5201");
    EXPECT_EQ(s.samples, 13163u);
  }
  EXPECT_TRUE(found);
}

TEST(HostStateSummaryTest, QlogServerTrace) {
  absl::StatusOr<HostStateLog> log = ReadHostState(
      TestDataPath("quic/ngtcp2_reno_30mbit_pfifo100_40ms/server-0.sqlog.gz"));
  ASSERT_TRUE(log.ok()) << log.status();
  HostTraceSummary s = SummarizeHostTrace(log->traces[0]);
  EXPECT_EQ(s.protocol, "quic");
  EXPECT_EQ(s.source, "qlog");
  EXPECT_EQ(s.vantage, "server");
  EXPECT_EQ(s.packets_sent, 15010u);
  EXPECT_EQ(s.packets_received, 7347u);
  EXPECT_EQ(s.packets_lost, 135u);
  EXPECT_EQ(s.cwnd_updates, 22357u);
  EXPECT_EQ(s.cwnd_max_bytes, 481218u);
  // No CE in this transfer (pfifo, no marking): every ACK's ce is 0.
  EXPECT_EQ(s.ce_fed_back_packets, 0u);

  CCREPLAY_PATH_OR_SKIP(
      qvis,
      SharedTestData("qlog/qvis_aioquic_parallel_10_50KB_f5.draft-01.qlog"));
  log = ReadHostState(qvis);
  ASSERT_TRUE(log.ok()) << log.status();
  s = SummarizeHostTrace(log->traces[0]);
  EXPECT_EQ(s.vantage, "client");
  EXPECT_EQ(s.cwnd_max_bytes, 15333u);
  EXPECT_FALSE(s.ce_fed_back_packets.has_value());
}

TEST(HostStateSummaryTest, DetectsEachFormat) {
  EXPECT_EQ(*DetectHostStateFormat(
                TestDataPath("lab/reno_ecn1_stepK60k_50mbit/ss.log")),
            HostStateSource::kSs);
  EXPECT_EQ(*DetectHostStateFormat(TestDataPath(
                "lab/reno_ecn1_stepK60k_50mbit/ss-receiver.log.gz")),
            HostStateSource::kSs);
  EXPECT_EQ(*DetectHostStateFormat(TestDataPath(
                "lab/cubic_ecn_K60k_40mbit_ackdelay10ms/tcp_probe.txt.gz")),
            HostStateSource::kTcpProbe);
  EXPECT_EQ(*DetectHostStateFormat(TestDataPath(
                "quic/ngtcp2_reno_30mbit_pfifo100_40ms/client-0.sqlog.gz")),
            HostStateSource::kQlog);
  EXPECT_EQ(DetectHostStateFormat(TestDataPath("missing")).status().code(),
            absl::StatusCode::kNotFound);
  CCREPLAY_PATH_OR_SKIP(
      picoquic,
      SharedTestData("qlog/picoquic_multipath_qlog_ref.draft-00.qlog"));
  EXPECT_EQ(*DetectHostStateFormat(picoquic), HostStateSource::kQlog);
}

}  // namespace
}  // namespace ccreplay
