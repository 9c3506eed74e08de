#include "parsers/tcp_probe.h"

#include <string>

#include "absl/strings/str_cat.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "parsers/parser_testing.h"
#include "proto/testing/test_data.h"

namespace ccreplay {
namespace {

using ::testing::HasSubstr;

// Cross-check: zcat tcp_probe.txt.gz | grep ' tcp_probe: ' |
//   grep -oP 'src=\S+ dest=\S+' | sort | uniq -c
// → 6700 lines for src=10.98.1.1:51026 (the sender socket: it receives
// ACKs), 13163 for src=10.98.2.1:5201 dest=…:51026 (the receiver socket).
TEST(TcpProbeTest, LabTraceSeparatesSocketsAndReadsCwnd) {
  absl::StatusOr<HostStateLog> log = ParseTcpProbe(
      TestDataPath("lab/cubic_ecn_K60k_40mbit_ackdelay10ms/tcp_probe.txt.gz"));
  ASSERT_TRUE(log.ok()) << log.status();
  EXPECT_TRUE(log->warnings.empty()) << log->warnings[0];
  ASSERT_EQ(log->traces.size(), 4u);
  const HostTrace* sender = FindTrace(*log, "10.98.1.1:51026");
  ASSERT_NE(sender, nullptr);
  EXPECT_EQ(sender->remote_endpoint, "10.98.2.1:5201");
  EXPECT_EQ(sender->samples, 6700u);
  ASSERT_EQ(sender->series.cwnd_segments.size(), 6700u);
  // grep 'tcp_probe: .*src=10.98.1.1:51026' | grep -oP 'snd_cwnd=\d+'
  // | sed -n '1p;$p' → 10, 52; sorted, the maximum is 78.
  EXPECT_EQ(sender->series.cwnd_segments.front().value, 10);
  EXPECT_EQ(sender->series.cwnd_segments.back().value, 52);
  double max_cwnd = 0;
  for (const SeriesPoint& p : sender->series.cwnd_segments)
    max_cwnd = std::max(max_cwnd, p.value);
  EXPECT_EQ(max_cwnd, 78);
  EXPECT_TRUE(sender->local_sends_data);
  EXPECT_EQ(sender->series.srtt_us.size(), 6700u);

  // grep tcp_cong_state_set: 16 lines for sport=51026, alternating
  // cong_state=2 (CWR) and 0 (Open), the first at 5403.752589.
  ASSERT_EQ(sender->series.congestion_states.size(), 16u);
  EXPECT_EQ(sender->series.congestion_states[0].state, "cwr");
  EXPECT_EQ(sender->series.congestion_states[0].time_us, 5403752589);
  EXPECT_EQ(sender->series.congestion_states[1].state, "open");

  const HostTrace* receiver = FindTrace(*log, "10.98.2.1:5201");
  ASSERT_NE(receiver, nullptr);
  EXPECT_FALSE(receiver->local_sends_data);

  // The lab's clockpair mark: offset_ns=1795980485536831306.
  ASSERT_TRUE(sender->clock_epoch_us.has_value());
  EXPECT_EQ(*sender->clock_epoch_us, 1795980485536831);
}

TEST(TcpProbeTest, ProbeTimesFollowTheClockDriftBetweenTheLabsPairs) {
  // meta.json of a matrix bundle (reno 20 ms, step marking, unpaced): the
  // offset realtime - mono grew by 21 ms between the pairs, 4.294 s apart.
  // Here: 20 ms over 4 s; a probe halfway gets 10 ms more than the first
  // pair's offset, one at the end 20 ms.
  TcpProbeParser parser("probe.txt");
  parser.AddLine(
      " ccreplay-1 [000] ...1. 100.000000: tracing_mark_write: clockpair "
      "start mono_ns=100000000000 realtime_ns=1100000000000 "
      "offset_ns=1000000000000 bracket_ns=30");
  for (const char* stamp : {"100.000000", "102.000000", "104.000000"}) {
    parser.AddLine(absl::StrCat(
        "  iperf3-1 [000] ..s2. ", stamp,
        ": tcp_probe: family=AF_INET src=10.0.0.1:5201 dest=10.0.0.2:40512 "
        "mark=0x0 data_len=0 snd_nxt=0x100 snd_una=0x10 snd_cwnd=10 "
        "ssthresh=20 snd_wnd=65536 srtt=45 rcv_wnd=65536"));
  }
  parser.AddLine(
      " ccreplay-1 [000] ...1. 104.000000: tracing_mark_write: clockpair end "
      "mono_ns=104000000000 realtime_ns=1104020000000 "
      "offset_ns=1000020000000 bracket_ns=30");
  absl::StatusOr<HostStateLog> log = parser.Finish();
  ASSERT_TRUE(log.ok()) << log.status();
  ASSERT_EQ(log->traces.size(), 1u);
  const HostTrace& t = log->traces[0];
  EXPECT_EQ(*t.clock_epoch_us, 1000000000);
  ASSERT_EQ(t.series.cwnd_segments.size(), 3u);
  EXPECT_EQ(t.series.cwnd_segments[0].time_us, 100000000);
  EXPECT_EQ(t.series.cwnd_segments[1].time_us, 102000000 + 10000);
  EXPECT_EQ(t.series.cwnd_segments[2].time_us, 104000000 + 20000);
}

TEST(TcpProbeTest, OldFieldSetsAndModuleFormat) {
  TcpProbeParser parser("probe.txt");
  // Linux 4.16-era tracepoint: no family=, length= instead of data_len=.
  parser.AddLine(
      "  iperf3-1 [000] 100.000001: tcp_probe: src=[::1]:5201 dest=[::1]:40512 "
      "mark=0x0 "
      "length=0 snd_nxt=0xfffffff0 snd_una=0xffffff00 snd_cwnd=24 "
      "ssthresh=2147483647 "
      "snd_wnd=3145728 srtt=41 rcv_wnd=65536");
  parser.AddLine(
      "  iperf3-1 [000] 100.000101: tcp_probe: src=[::1]:5201 dest=[::1]:40512 "
      "mark=0x0 "
      "length=0 snd_nxt=0x00000100 snd_una=0x00000010 snd_cwnd=25 ssthresh=20 "
      "snd_wnd=3145728 srtt=45 rcv_wnd=65536");
  parser.AddLine(
      "  <idle>-0 [001] d.s. 100.2: tcp_cong_state_set: family=AF_INET6 "
      "sport=5201 dport=40512 "
      "saddr=0.0.0.0 daddr=0.0.0.0 saddrv6=::1 daddrv6=::1 cong_state=3");
  // /proc/net/tcpprobe.
  parser.AddLine(
      "7.000000100 10.0.0.1:22 10.0.0.2:5000 32 0x10 0x5 10 7 65535 800 29200");
  absl::StatusOr<HostStateLog> log = parser.Finish();
  ASSERT_TRUE(log.ok()) << log.status();
  ASSERT_EQ(log->traces.size(), 2u);
  const HostTrace& v6 = log->traces[0];
  EXPECT_EQ(v6.local_endpoint, "[::1]:5201");
  // ssthresh 2147483647 is "not set yet" and is left out.
  ASSERT_EQ(v6.series.ssthresh_segments.size(), 1u);
  EXPECT_EQ(v6.series.ssthresh_segments[0].value, 20);
  // snd_una wraps from 0xffffff00 to 0x10: 0x110 bytes acked.
  EXPECT_EQ(v6.series.other.at("snd_una_bytes")[1].value, 0x110);
  EXPECT_EQ(v6.series.other.at("unacked_bytes")[0].value, 0xf0);
  ASSERT_EQ(v6.series.congestion_states.size(), 1u);
  EXPECT_EQ(v6.series.congestion_states[0].state, "recovery");
  const HostTrace& module = log->traces[1];
  EXPECT_EQ(module.series.cwnd_segments[0].time_us, 7000000);
  EXPECT_EQ(module.series.srtt_us[0].value, 800);
  EXPECT_EQ(module.series.other.at("rcv_wnd_bytes")[0].value, 29200);
}

// Issue 16: a /proc/net/tcpprobe line of 12 tokens indexed past the 8-name
// table (abort, exit 134), and the 10-token lines of kernels before
// rcv_wnd (e.g. 2.6.32's net/ipv4/tcp_probe.c: "%lu.%09lu %pI4:%u %pI4:%u
// %d %#x %#x %u %u %u %u") were refused. Both token counts the module
// printed are read; any other is skipped with a warning.
TEST(TcpProbeTest, ModuleLinesOfTenOrElevenTokensOnly) {
  TcpProbeParser parser("old.txt");
  parser.AddLine(
      "7.000000100 10.0.0.1:22 10.0.0.2:5000 32 0x10 0x5 10 7 65535 800");
  parser.AddLine(
      "7.000000200 10.0.0.1:22 10.0.0.2:5000 32 0x20 0x5 11 7 65535 810 "
      "29200 99");
  parser.AddLine("7.000000300 10.0.0.1:22 10.0.0.2:5000 32 0x30 0x5 12");
  absl::StatusOr<HostStateLog> log = parser.Finish();
  ASSERT_TRUE(log.ok()) << log.status();
  ASSERT_EQ(log->traces.size(), 1u);
  const HostTrace& trace = log->traces[0];
  ASSERT_EQ(trace.series.cwnd_segments.size(), 1u);
  EXPECT_EQ(trace.series.cwnd_segments[0].value, 10);
  EXPECT_EQ(trace.series.srtt_us[0].value, 800);
  EXPECT_EQ(trace.series.other.count("rcv_wnd_bytes"), 0u);
  ASSERT_EQ(log->warnings.size(), 2u);
  EXPECT_THAT(log->warnings[0],
              HasSubstr("old.txt:2: tcpprobe line with 12 fields (the module "
                        "printed 11, or 10 before rcv_wnd), skipped"));
  EXPECT_THAT(log->warnings[1], HasSubstr("old.txt:3: tcpprobe line with 7"));
}

TEST(TcpProbeTest, SsLogIsNotATcpProbeTrace) {
  absl::StatusOr<HostStateLog> log =
      ParseTcpProbe(TestDataPath("lab/reno_ecn1_stepK60k_50mbit/ss.log"));
  ASSERT_FALSE(log.ok());
  EXPECT_EQ(log.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(log.status().message(),
              HasSubstr("ss.log:2: first unrecognised line"));
}

TEST(TcpProbeTest, BadFieldIsAWarningNamingTheLine) {
  TcpProbeParser parser("p.txt");
  parser.AddLine(
      "x-1 [000] 1.0: tcp_probe: src=1.1.1.1:1 dest=2.2.2.2:2 snd_cwnd=ten");
  absl::StatusOr<HostStateLog> log = parser.Finish();
  ASSERT_TRUE(log.ok()) << log.status();
  ASSERT_FALSE(log->warnings.empty());
  EXPECT_THAT(log->warnings[0],
              HasSubstr("p.txt:1: unreadable snd_cwnd='ten'"));
}

// Testbed trace (testdata/lab/h5_cubic_20mbit_pfifo12/meta.json). Cross-check:
// zcat | grep -oP 'tcp_probe: .*src=\S+ dest=\S+' counts per socket, and
// grep tcp_cong_state_set | grep -o 'cong_state=[0-9]' per saddr:sport.
TEST(TcpProbeTest, TestbedTraceWithRecoveryEpisodes) {
  absl::StatusOr<HostStateLog> log = ParseTcpProbe(
      TestDataPath("lab/h5_cubic_20mbit_pfifo12/tcp_probe.txt.gz"));
  ASSERT_TRUE(log.ok()) << log.status();
  EXPECT_TRUE(log->warnings.empty()) << log->warnings[0];
  const HostTrace* sender = FindTrace(*log, "10.95.1.1:41402");
  ASSERT_NE(sender, nullptr);
  EXPECT_EQ(sender->samples, 2609u);
  EXPECT_EQ(sender->series.cwnd_segments.front().value, 10);
  EXPECT_EQ(sender->series.cwnd_segments.back().value, 12);
  EXPECT_TRUE(sender->local_sends_data);
  int recovery = 0, disorder = 0, open = 0;
  for (const CongestionStateChange& change : sender->series.congestion_states) {
    recovery += change.state == "recovery";
    disorder += change.state == "disorder";
    open += change.state == "open";
  }
  EXPECT_EQ(recovery, 35);
  EXPECT_EQ(disorder, 16);
  EXPECT_EQ(open, 35);
  // No clockpair mark in this trace: the epoch of the mono clock is unknown.
  EXPECT_FALSE(sender->clock_epoch_us.has_value());
}

}  // namespace
}  // namespace ccreplay
