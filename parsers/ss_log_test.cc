#include "parsers/ss_log.h"

#include <algorithm>
#include <map>
#include <string>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "parsers/parser_testing.h"
#include "proto/testing/test_data.h"

namespace ccreplay {
namespace {

using ::testing::HasSubstr;

HostStateLog ParseLines(const std::vector<std::string>& lines) {
  SsLogParser parser("inline.log");
  for (const std::string& line : lines) parser.AddLine(line);
  absl::StatusOr<HostStateLog> log = parser.Finish();
  EXPECT_TRUE(log.ok()) << log.status();
  return log.ok() ? *std::move(log) : HostStateLog();
}

// Cross-check (python3): for each non-indented, non-comment line take
// fields 4 and 5 as the connection, count its continuation lines, and read
// \bcwnd:(\d+) from them; "# t=" lines give the times.
TEST(SsLogTest, LabRenoLogKeepsDataFlowApartFromControlConnection) {
  absl::StatusOr<HostStateLog> log =
      ParseSsLog(TestDataPath("lab/reno_ecn1_stepK60k_50mbit/ss.log"));
  ASSERT_TRUE(log.ok()) << log.status();
  ASSERT_EQ(log->traces.size(), 2u);
  const HostTrace* data = FindTrace(*log, "10.99.1.1:42408");
  const HostTrace* control = FindTrace(*log, "10.99.1.1:42394");
  ASSERT_NE(data, nullptr);
  ASSERT_NE(control, nullptr);
  EXPECT_EQ(data->remote_endpoint, "10.99.2.1:5201");
  EXPECT_EQ(data->samples, 230u);
  EXPECT_EQ(control->samples, 230u);
  EXPECT_EQ(data->congestion_control, "reno");
  EXPECT_EQ(control->congestion_control, "bbr");
  // bytes_acked grows to 17942206 on the data flow, 185 on the control one;
  // both sockets are on the sending host, so both send.
  EXPECT_TRUE(data->local_sends_data);
  ASSERT_EQ(data->series.cwnd_segments.size(), 230u);
  EXPECT_EQ(data->series.cwnd_segments.front().value, 11);
  EXPECT_EQ(data->series.cwnd_segments.back().value, 32);
  EXPECT_EQ(data->series.cwnd_bytes.back().value, 32 * 1448);
  EXPECT_EQ(control->series.cwnd_segments.back().value, 13);
  // Times: first and last "# t=" before the flow's lines.
  EXPECT_EQ(data->series.cwnd_segments.front().time_us, 1795981257999219);
  EXPECT_EQ(data->series.cwnd_segments.back().time_us, 1795981261014282);
  EXPECT_EQ(data->clock, "unix epoch");
  // grep -A1 42408 | grep -oP '(?<![_a-z])ssthresh:\d+': 228 values, first 20.
  ASSERT_EQ(data->series.ssthresh_segments.size(), 228u);
  EXPECT_EQ(data->series.ssthresh_segments.front().value, 20);
  // Last " rtt:7.241/0.156" and "pacing_rate 61431512".
  EXPECT_DOUBLE_EQ(data->series.srtt_us.back().value, 7241);
  EXPECT_DOUBLE_EQ(data->series.rttvar_us.back().value, 156);
  EXPECT_DOUBLE_EQ(data->series.pacing_rate_bps.back().value, 61431512);
  // 229 timer:(...) blocks on the data flow's lines.
  EXPECT_EQ(data->series.other.at("timer.expire_ms").size(), 229u);
  EXPECT_TRUE(data->flags.count("ecn"));
  EXPECT_FALSE(data->flags.count("ecnseen"));
  // The control connection's bbr:(...) block now lands in its own series.
  EXPECT_FALSE(control->series.bbr_bw_bps.empty());
  EXPECT_FALSE(control->series.bbr_min_rtt_us.empty());
}

// Cross-check (python3 on the gunzipped log): for the lines under
// "10.78.176.1:32410", re.search(r'bbr:\(([^)]*)\)') gives 287 blocks, the
// first "bw:0bps,mrtt:0", the last
// "bw:19314928bps,mrtt:20.056,pacing_gain:1,cwnd_gain:2"; 285 carry gains:
// pacing_gain 1 x194, 1.25 x32, 0.75 x32, 2.88672 x23, 0.34375 x4; max bw
// 19515160 bps.
TEST(SsLogTest, LabBbrLogFillsTheBbrModelSeries) {
  absl::StatusOr<HostStateLog> log =
      ParseSsLog(TestDataPath("lab/bbr_20mbit_20ms_pfifo50/ss.log.gz"));
  ASSERT_TRUE(log.ok()) << log.status();
  const HostTrace* data = FindTrace(*log, "10.78.176.1:32410");
  ASSERT_NE(data, nullptr);
  EXPECT_EQ(data->congestion_control, "bbr");
  const CapturedSeries& s = data->series;
  ASSERT_EQ(s.bbr_bw_bps.size(), 287u);
  ASSERT_EQ(s.bbr_min_rtt_us.size(), 287u);
  ASSERT_EQ(s.bbr_pacing_gain.size(), 285u);
  ASSERT_EQ(s.bbr_cwnd_gain.size(), 285u);
  EXPECT_EQ(s.bbr_bw_bps.front().value, 0);
  EXPECT_EQ(s.bbr_bw_bps.back().value, 19314928);
  EXPECT_DOUBLE_EQ(s.bbr_min_rtt_us.back().value, 20056);
  EXPECT_DOUBLE_EQ(s.bbr_pacing_gain.back().value, 1);
  EXPECT_DOUBLE_EQ(s.bbr_cwnd_gain.back().value, 2);
  std::map<double, int> pacing_gains;
  for (const SeriesPoint& p : s.bbr_pacing_gain) ++pacing_gains[p.value];
  // STARTUP 739/256, DRAIN 88/256, then the PROBE_BW cycle (tcp_bbr.c).
  EXPECT_EQ(
      pacing_gains,
      (std::map<double, int>{
          {0.34375, 4}, {0.75, 32}, {1, 194}, {1.25, 32}, {2.88672, 23}}));
  double max_bw = 0;
  for (const SeriesPoint& p : s.bbr_bw_bps) max_bw = std::max(max_bw, p.value);
  EXPECT_EQ(max_bw, 19515160);
  EXPECT_FALSE(s.other.count("bbr.bw_bps"));
}

TEST(SsLogTest, LabCubicLogsCountSamplesOfEveryState) {
  // The data socket's first line is SYN-SENT, one later FIN-WAIT-1.
  absl::StatusOr<HostStateLog> log =
      ParseSsLog(TestDataPath("lab/cubic_ecn_K60k_40mbit_ackdelay10ms/ss.log"));
  ASSERT_TRUE(log.ok()) << log.status();
  const HostTrace* data = FindTrace(*log, "10.98.1.1:51026");
  ASSERT_NE(data, nullptr);
  EXPECT_EQ(data->samples, 294u);
  EXPECT_EQ(data->series.cwnd_segments.front().value, 10);
  EXPECT_EQ(data->series.cwnd_segments.back().value, 52);
  // grep -o 'delivered_ce:[0-9]*' | tail -1 → 488, as nstat's
  // TcpExtTCPDeliveredCE in meta.json (sender_nstat).
  EXPECT_EQ(data->series.delivered_ce_segments.back().value, 488);

  // iperf3 switches the data socket from bbr to cubic after connecting.
  log = ParseSsLog(TestDataPath("lab/cubic_noecn_droptail100_50mbit/ss.log"));
  ASSERT_TRUE(log.ok()) << log.status();
  data = FindTrace(*log, "10.99.1.1:53138");
  ASSERT_NE(data, nullptr);
  EXPECT_EQ(data->samples, 230u);
  EXPECT_EQ(data->congestion_control, "cubic");
  EXPECT_EQ(data->series.cwnd_segments.back().value, 73);
}

TEST(SsLogTest, ReceiverLogSaysTheLocalSideDoesNotSendData) {
  absl::StatusOr<HostStateLog> log = ParseSsLog(
      TestDataPath("lab/reno_ecn1_stepK60k_50mbit/ss-receiver.log.gz"));
  ASSERT_TRUE(log.ok()) << log.status();
  const HostTrace* data = FindTrace(*log, "10.99.2.1:5201");
  ASSERT_NE(data, nullptr);
  bool any_receiver = false;
  for (const HostTrace& trace : log->traces) {
    if (trace.remote_endpoint == "10.99.1.1:42408") {
      EXPECT_FALSE(trace.local_sends_data);
      any_receiver = true;
    }
  }
  EXPECT_TRUE(any_receiver);
}

TEST(SsLogTest, OneLineFormWithLeadingEpochIpv6AndBlocks) {
  HostStateLog log = ParseLines({
      "1700000000.500000, ESTAB 0 126712 [2600:db8::2%eth0]:37541 "
      "[2600:db8::5cf6]:42305 "
      "users:((\"netperf\",pid=58014,fd=4)) timer:(on,1.200ms,0) ino:12 sk:1c "
      "<-> skmem:(r0,"
      "rb131072,t0,tb46080,f0,w0,o0,bl0,d0) cubic wscale:7,7 rto:2532 "
      "backoff:1 rtt:5/2.5 "
      "mss:1348 cwnd:5 ssthresh:5 bytes_acked:390921 send 92.4kbps pacing_rate "
      "244Kbps/1.5Mbps "
      "delivery_rate 1.07Mbps dctcp:(ce_state:1,alpha:512,ab_ecn:3,ab_tot:9) "
      "busy:26419ms rwnd_limited:4ms(25.0%) retrans:2/34 minrtt:21",
  });
  ASSERT_EQ(log.traces.size(), 1u);
  const HostTrace& trace = log.traces[0];
  EXPECT_EQ(trace.local_endpoint, "[2600:db8::2%eth0]:37541");
  EXPECT_EQ(trace.congestion_control, "cubic");
  EXPECT_EQ(trace.series.cwnd_segments[0].time_us, 1700000000500000);
  EXPECT_EQ(trace.series.cwnd_bytes[0].value, 5 * 1348);
  EXPECT_EQ(trace.series.ssthresh_bytes[0].value, 5 * 1348);
  EXPECT_EQ(trace.series.srtt_us[0].value, 5000);
  EXPECT_EQ(trace.series.rttvar_us[0].value, 2500);
  EXPECT_EQ(trace.series.min_rtt_us[0].value, 21000);
  EXPECT_DOUBLE_EQ(trace.series.pacing_rate_bps[0].value, 244e3);
  const auto& other = trace.series.other;
  EXPECT_DOUBLE_EQ(other.at("max_pacing_rate_bps")[0].value, 1.5e6);
  EXPECT_DOUBLE_EQ(other.at("send_bps")[0].value, 92.4e3);
  EXPECT_DOUBLE_EQ(other.at("delivery_rate_bps")[0].value, 1.07e6);
  EXPECT_EQ(other.at("send_q_bytes")[0].value, 126712);
  EXPECT_EQ(other.at("users.pid")[0].value, 58014);
  EXPECT_EQ(other.at("timer.expire_ms")[0].value, 1200);
  EXPECT_EQ(other.at("skmem.tb")[0].value, 46080);
  EXPECT_EQ(other.at("dctcp.alpha")[0].value, 512);
  EXPECT_EQ(other.at("busy_ms")[0].value, 26419);
  EXPECT_EQ(other.at("rwnd_limited_ms")[0].value, 4);
  EXPECT_EQ(other.at("rwnd_limited_pct")[0].value, 25);
  EXPECT_EQ(other.at("retrans_total_segments")[0].value, 34);
  EXPECT_EQ(other.at("wscale_rcv")[0].value, 7);
  EXPECT_EQ(other.at("rto_ms")[0].value, 2532);
  EXPECT_EQ(other.count("sk"), 0u);
  EXPECT_TRUE(log.warnings.empty()) << log.warnings[0];
}

TEST(SsLogTest, FlentAndBlockTimeConventions) {
  HostStateLog flent = ParseLines({
      "Time: 1600000000.25",
      "State Recv-Q Send-Q Local Address:Port Peer Address:Port",
      "ESTAB 0 0 10.0.0.1:1 10.0.0.2:2",
      "\t cubic cwnd:10 mss:1000",
      "---",
      "Time: 1600000000.35",
      "ESTAB 0 0 10.0.0.1:1 10.0.0.2:2",
      "\t cubic cwnd:12 mss:1000",
  });
  ASSERT_EQ(flent.traces.size(), 1u);
  ASSERT_EQ(flent.traces[0].series.cwnd_segments.size(), 2u);
  EXPECT_EQ(flent.traces[0].series.cwnd_segments[1].time_us, 1600000000350000);

  HostStateLog blocks = ParseLines({
      "==== Time 0.5 ====",
      "ESTAB 0 0 10.0.0.1:1 10.0.0.2:2",
      "\t cubic cwnd:10",
      "==== Time 1.5 ====",
      "ESTAB 0 0 10.0.0.1:1 10.0.0.2:2",
      "\t cubic cwnd:11",
  });
  ASSERT_EQ(blocks.traces.size(), 1u);
  EXPECT_EQ(blocks.traces[0].series.cwnd_segments[1].time_us, 1500000);
  EXPECT_EQ(blocks.traces[0].clock, "seconds as logged");
  // No mss: cwnd stays in segments only.
  EXPECT_TRUE(blocks.traces[0].series.cwnd_bytes.empty());
}

TEST(SsLogTest, NoTimesGivesSnapshotNumbersAndAWarning) {
  HostStateLog log = ParseLines({
      "ESTAB 0 0 10.0.0.1:1 10.0.0.2:2",
      "\t cubic cwnd:10",
      "ESTAB 0 0 10.0.0.1:1 10.0.0.2:2",
      "\t cubic cwnd:11",
  });
  ASSERT_EQ(log.traces.size(), 1u);
  ASSERT_EQ(log.traces[0].series.cwnd_segments.size(), 2u);
  EXPECT_EQ(log.traces[0].series.cwnd_segments[1].time_us -
                log.traces[0].series.cwnd_segments[0].time_us,
            1);
  ASSERT_FALSE(log.warnings.empty());
  EXPECT_THAT(log.warnings.back(), HasSubstr("no timestamps"));
}

TEST(SsLogTest, NotAnSsLogIsInvalidArgumentNamingTheLine) {
  SsLogParser parser("x.txt");
  parser.AddLine("");
  parser.AddLine("hello world");
  absl::StatusOr<HostStateLog> log = parser.Finish();
  ASSERT_FALSE(log.ok());
  EXPECT_EQ(log.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(log.status().message(), HasSubstr("x.txt:2"));
  EXPECT_THAT(log.status().message(), HasSubstr("hello world"));

  EXPECT_EQ(ParseSsLog(TestDataPath("no/such/file")).status().code(),
            absl::StatusCode::kNotFound);

  CCREPLAY_PATH_OR_SKIP(
      path, SharedTestData("qlog/picoquic_qlog_trace_ecn_ref.draft-00.qlog"));
  absl::StatusOr<HostStateLog> qlog = ParseSsLog(path);
  ASSERT_FALSE(qlog.ok());
  EXPECT_EQ(qlog.status().code(), absl::StatusCode::kInvalidArgument);
}

TEST(SsLogTest, BadValuesAreWarningsNamingTheLine) {
  HostStateLog log = ParseLines({
      "# t=5",
      "ESTAB 0 0 10.0.0.1:1 10.0.0.2:2",
      "\t cubic rtt:x/y cwnd:10 send 12Qbps",
  });
  ASSERT_EQ(log.traces.size(), 1u);
  ASSERT_GE(log.warnings.size(), 2u);
  EXPECT_THAT(log.warnings[0], HasSubstr("inline.log:3: unreadable rtt"));
  EXPECT_THAT(log.warnings[1], HasSubstr("unreadable rate"));
}

// Made on the namespace testbed (testdata/lab/h5_cubic_20mbit_pfifo12/,
// see its meta.json). Cross-check (python3): per line holding two
// ADDR:PORT tokens, the connection is that pair; cwnd from
// (?<![_a-z])cwnd:(\d+) on the line and its continuation.
TEST(SsLogTest, TestbedFormatsAgreeOnTheDataFlow) {
  struct Expected {
    const char* file;
    const char* data_local;
    uint64_t samples;
    double cwnd_first, cwnd_last, cwnd_max;
  };
  for (const Expected& e : {
           Expected{"ss-tinO-epochcol.log", "10.95.1.1:41402", 45, 11, 10, 16},
           Expected{"ss-tin-flent.log", "10.95.1.1:41402", 45, 11, 10, 15},
           Expected{"ss-tinm.log", "10.95.1.1:41402", 48, 23, 10, 23},
           Expected{"ss-tinoe-ipv6.log", "[fd95:1::1]:50964", 35, 7, 10, 13},
       }) {
    SCOPED_TRACE(e.file);
    absl::StatusOr<HostStateLog> log = ParseSsLog(
        TestDataPath(std::string("lab/h5_cubic_20mbit_pfifo12/") + e.file));
    ASSERT_TRUE(log.ok()) << log.status();
    EXPECT_TRUE(log->warnings.empty()) << log->warnings[0];
    ASSERT_EQ(log->traces.size(), 2u);
    const HostTrace* data = FindTrace(*log, e.data_local);
    ASSERT_NE(data, nullptr);
    EXPECT_EQ(data->samples, e.samples);
    EXPECT_TRUE(data->local_sends_data);
    EXPECT_EQ(data->clock, "unix epoch");
    const Series& cwnd = data->series.cwnd_segments;
    ASSERT_EQ(cwnd.size(), e.samples);
    EXPECT_EQ(cwnd.front().value, e.cwnd_first);
    EXPECT_EQ(cwnd.back().value, e.cwnd_last);
    double max = 0;
    for (const SeriesPoint& p : cwnd) max = std::max(max, p.value);
    EXPECT_EQ(max, e.cwnd_max);
  }
  absl::StatusOr<HostStateLog> one_line = ParseSsLog(
      TestDataPath("lab/h5_cubic_20mbit_pfifo12/ss-tinO-epochcol.log"));
  ASSERT_TRUE(one_line.ok());
  // head -1 | grep -o '^[0-9.]*' → 1795987390.986158.
  EXPECT_EQ(
      FindTrace(*one_line, "10.95.1.1:41402")->series.cwnd_segments[0].time_us,
      1795987390986158);
  absl::StatusOr<HostStateLog> skmem =
      ParseSsLog(TestDataPath("lab/h5_cubic_20mbit_pfifo12/ss-tinm.log"));
  ASSERT_TRUE(skmem.ok());
  EXPECT_EQ(
      FindTrace(*skmem, "10.95.1.1:41402")->series.other.at("skmem.tb").size(),
      48u);
  absl::StatusOr<HostStateLog> v6 =
      ParseSsLog(TestDataPath("lab/h5_cubic_20mbit_pfifo12/ss-tinoe-ipv6.log"));
  ASSERT_TRUE(v6.ok());
  EXPECT_EQ(FindTrace(*v6, "[fd95:1::1]:50964")->congestion_control, "reno");
  EXPECT_EQ(FindTrace(*v6, "[fd95:1::1]:50964")->remote_endpoint,
            "[fd95:2::1]:5300");
}

}  // namespace
}  // namespace ccreplay
