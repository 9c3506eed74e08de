// Issue 15 items 3 and 8: captures made the way users make them
// (testdata/user/, scripts/make-user-captures.sh; a lab bundle) and real
// third-party senders whose segments vary in size, through the whole
// diagnose pipeline. Each test checks the capture's facts against tshark
// (the command beside the figure), that no false finding is raised, and
// for some the finding that is true.
#include <string>

#include "gtest/gtest.h"
#include "proto/testing/test_data.h"
#include "reports/diagnose_session.h"
#include "reports/diagnosis.h"

namespace ccreplay {
namespace {

Diagnosis DiagnoseFile(const std::string& path) {
  DiagnoseOptions options;
  options.input = path;
  absl::StatusOr<DiagnoseRun> run = DiagnoseInput(options);
  EXPECT_TRUE(run.ok()) << run.status();
  return run.ok() ? run->diagnosis : Diagnosis();
}

double ShareOf(const Diagnosis& d, const std::string& limiter) {
  for (const proto::LimiterShare& l : d.result.limiters()) {
    if (l.limiter() == limiter) return l.time_fraction();
  }
  return 0;
}

// The findings of warning or critical severity, "kind:severity" each.
std::string WarningsOf(const Diagnosis& d) {
  std::string out;
  for (const proto::Finding& f : d.result.findings()) {
    if (f.severity() != "info") out += f.kind() + ":" + f.severity() + " ";
  }
  return out;
}

bool HasFinding(const Diagnosis& d, const std::string& kind) {
  for (const proto::Finding& f : d.result.findings()) {
    if (f.kind() == kind) return true;
  }
  return false;
}

// (a) Loopback, captured at the client with tcpdump -i lo -s 128: one TCP
// flow, `tshark -r loopback.pcap -q -z conv,tcp`: 102 frames, 58 from the
// server, 55 of them with data (-Y 'tcp.srcport==8000 && tcp.len>0':
// evidence.data_packets counts those, as main's d105963 defines it), the
// largest 65,483 bytes (SYN MSS 65,495 less 12 of timestamps).
TEST(UserCaptureTest, LoopbackDownload) {
  const Diagnosis d = DiagnoseFile(TestDataPath("user/loopback.pcap"));
  EXPECT_EQ(d.result.sender(), "127.0.0.1:8000");
  EXPECT_EQ(d.result.evidence().data_packets(), 55u);
  EXPECT_TRUE(d.result.evidence().both_directions());
  // The finding that is true: 11 of the client's 44 ACKs advertise less
  // than two 65,483-byte segments (130,966 bytes: 62,464 to 100,352 while
  // the client's autotuning starts, `tshark -r loopback.pcap -Y
  // 'tcp.srcport!=8000' -T fields -e tcp.window_size`), so with one in
  // flight no second fits (Linux tcp_snd_wnd_test(), net/ipv4/tcp_output.c
  // at 6.18, tests a full MSS): receive-window-limited at the start.
  EXPECT_TRUE(HasFinding(d, "receive_window_limited"));
  EXPECT_EQ(WarningsOf(d), "receive_window_limited:warning ");
}

// (b) TSO/GSO at the server and GRO at the client left on: the client's
// capture holds super-segments up to 65,160 bytes (48 frames from the
// server, `tshark -r tso_gro.pcap -q -z conv,tcp`, 45 with data for
// 2,000,205 bytes: -Y 'tcp.srcport==8000 && tcp.len>0' | wc -l; -T fields
// -e tcp.len | sort -n | tail -1).
TEST(UserCaptureTest, TsoGroDownloadAtTheClient) {
  const Diagnosis d = DiagnoseFile(TestDataPath("user/tso_gro.pcap"));
  EXPECT_EQ(d.result.sender(), "10.77.0.1:8000");
  EXPECT_EQ(d.result.vantage(), "receiver");
  // Server segments with data.
  EXPECT_EQ(d.result.evidence().data_packets(), 45u);
  // 45 data packets: too few for any warning (issue 15: under 50).
  EXPECT_FALSE(d.result.evidence().long_enough());
  EXPECT_EQ(WarningsOf(d), "");
}

// (c) Through VLAN 100: every one of the 2,256 frames tagged (`tshark -r
// vlan.pcap.gz -Y vlan.id==100 | wc -l`), 1,386 from the server (-q -z
// conv,tcp), 1,383 carrying data of at most 1,448 bytes, at the client.
TEST(UserCaptureTest, VlanDownloadAtTheClient) {
  const Diagnosis d = DiagnoseFile(TestDataPath("user/vlan.pcap.gz"));
  EXPECT_EQ(d.result.sender(), "10.77.0.1:8000");
  EXPECT_EQ(d.result.vantage(), "receiver");
  EXPECT_EQ(d.result.evidence().data_packets(), 1383u);  // With data.
  EXPECT_TRUE(d.result.evidence().both_directions());
  // A bulk download: never application-limited for long.
  EXPECT_LT(ShareOf(d, "app"), 0.05);
  EXPECT_EQ(WarningsOf(d), "");
}

// Item 3: a truly application-limited sender stays so. The lab's sender
// writes 16 kB at 10 Mb/s over a 20 Mb/s path (meta.json); `tshark -r
// sender.pcap.gz -q -z conv,tcp`: 3,910 kB over 3.07 s, 10.2 Mb/s. A
// third of the data phase is application-limited (41.5 % before the rule:
// ACKs answered at once by new data are now "unknown", see
// AckTimelineTest.ApplicationLimitedLabSenderStaysSo); its stretches are
// shorter than the finding's 5 RTTs (a chunk every 13 ms, 20 ms RTT), so
// no finding, before or after. Nothing says it was window-limited.
TEST(UserCaptureTest, ApplicationLimitedLabSenderStaysSo) {
  const Diagnosis d = DiagnoseFile(
      TestDataPath("lab/cubic_app10mbit_20mbit_20ms_3s/sender.pcap.gz"));
  EXPECT_GT(ShareOf(d, "app"), 0.30);
  EXPECT_LT(ShareOf(d, "cwnd"), 0.05);
  EXPECT_FALSE(HasFinding(d, "cwnd_limited"));
}

}  // namespace
}  // namespace ccreplay
