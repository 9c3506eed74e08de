// End-to-end lab runs (root only: they build namespaces). Each bundle is
// checked against what an independent reader sees in it: the pcaps are
// decoded here with libpcap alone, the trace is counted line by line, and
// the qdisc's own drop counter is compared with the packets that vanished
// between the two captures.
#include "lab/lab.h"

#include <arpa/inet.h>
#include <fcntl.h>
#include <pcap/pcap.h>
#include <signal.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cstdlib>
#include <fstream>
#include <map>
#include <regex>
#include <set>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "absl/time/clock.h"
#include "gtest/gtest.h"
#include "lab/kernel_trace.h"
#include "lab/lab_owner.h"
#include "lab/ngtcp2_transfer.h"
#include "lab/subprocess.h"
#include "parsers/bundle.h"
#include "parsers/tcp_probe.h"
#include "proto/json_printer.h"
#include "proto/watch.pb.h"
#include "replay/conformance/conformance_input.h"

namespace ccreplay::lab {
namespace {

// Per direction of a connection ("A:p>B:q").
struct DirectionCounts {
  int64_t packets = 0;
  int64_t data_packets = 0;
  int64_t ce = 0;
  int64_t ect = 0;  // ECT(0) or ECT(1)
  int64_t ece_flag = 0;
  int64_t max_payload_bytes = 0;
  int64_t payload_bytes = 0;  // retransmissions included
  // Packets of this direction seen before the other direction's first FIN:
  // for the ACK direction at the sender, the ACKs that reach a socket still
  // ESTABLISHED, which is where tcp_probe fires (tcp_rcv_established).
  int64_t packets_before_peer_fin = -1;
  // Capture times of the first and last packet with payload, in seconds.
  double first_data_s = 0;
  double last_data_s = 0;
};

std::string ReverseKey(const std::string& key) {
  std::pair<std::string, std::string> ends = absl::StrSplit(key, '>');
  return ends.second + ">" + ends.first;
}

// Decodes Ethernet / IPv4 / TCP with libpcap only.
std::map<std::string, DirectionCounts> CountTcp(const std::string& path) {
  std::map<std::string, DirectionCounts> counts;
  char errbuf[PCAP_ERRBUF_SIZE];
  pcap_t* handle = pcap_open_offline(path.c_str(), errbuf);
  EXPECT_NE(handle, nullptr) << errbuf;
  if (handle == nullptr) return counts;
  EXPECT_EQ(pcap_datalink(handle), DLT_EN10MB);
  pcap_pkthdr* header;
  const u_char* bytes;
  while (pcap_next_ex(handle, &header, &bytes) == 1) {
    if (header->caplen < 54 || bytes[12] != 0x08 || bytes[13] != 0x00) continue;
    const u_char* ip = bytes + 14;
    int ihl_bytes = (ip[0] & 0x0f) * 4;
    if (ip[9] != 6 || header->caplen < 14u + ihl_bytes + 20) continue;
    const u_char* tcp = ip + ihl_bytes;
    char src[INET_ADDRSTRLEN], dst[INET_ADDRSTRLEN];
    inet_ntop(AF_INET, ip + 12, src, sizeof(src));
    inet_ntop(AF_INET, ip + 16, dst, sizeof(dst));
    std::string key = absl::StrCat(src, ":", (tcp[0] << 8) | tcp[1], ">", dst,
                                   ":", (tcp[2] << 8) | tcp[3]);
    DirectionCounts& c = counts[key];
    int total_length = (ip[2] << 8) | ip[3];
    int payload = total_length - ihl_bytes - (tcp[12] >> 4) * 4;
    ++c.packets;
    if (payload > 0) {
      const double time_s = header->ts.tv_sec + header->ts.tv_usec / 1e6;
      if (c.data_packets++ == 0) c.first_data_s = time_s;
      c.last_data_s = time_s;
    }
    if (payload > c.max_payload_bytes) c.max_payload_bytes = payload;
    if (payload > 0) c.payload_bytes += payload;
    if ((ip[1] & 3) == 3) ++c.ce;
    if ((ip[1] & 3) == 1 || (ip[1] & 3) == 2) ++c.ect;
    if (tcp[13] & 0x40) ++c.ece_flag;
    DirectionCounts& reverse = counts[ReverseKey(key)];
    if ((tcp[13] & 0x01) && reverse.packets_before_peer_fin < 0) {
      reverse.packets_before_peer_fin = reverse.packets;
    }
  }
  for (auto& [key, c] : counts) {
    if (c.packets_before_peer_fin < 0) c.packets_before_peer_fin = c.packets;
  }
  pcap_close(handle);
  return counts;
}

int64_t PacketsFrom(const std::map<std::string, DirectionCounts>& counts,
                    const std::string& address) {
  int64_t total = 0;
  for (const auto& [key, c] : counts) {
    if (absl::StartsWith(key, address + ":")) total += c.packets;
  }
  return total;
}

std::string ReadFile(const std::string& path) {
  std::ifstream file(path);
  std::stringstream text;
  text << file.rdbuf();
  return text.str();
}

// tcp_probe events of the socket whose incoming segments go from `from` to
// `to` ("src=" is the socket's local end: the sender socket's lines have
// src = sender and count the ACKs it received).
int64_t ProbeLines(const std::string& trace, const std::string& local,
                   const std::string& remote) {
  std::string needle = absl::StrCat(" src=", local, " dest=", remote, " ");
  int64_t lines = 0;
  for (absl::string_view line : absl::StrSplit(trace, '\n')) {
    if (absl::StrContains(line, "tcp_probe:") &&
        absl::StrContains(line, needle))
      ++lines;
  }
  return lines;
}

std::set<std::string> LabNamespaces() {
  std::set<std::string> names;
  absl::StatusOr<std::string> list = RunProgram({"ip", "netns", "list"});
  if (!list.ok()) return names;
  for (absl::string_view line :
       absl::StrSplit(*list, '\n', absl::SkipEmpty())) {
    std::string name(line.substr(0, line.find(' ')));
    if (ParseLabResourceOwner(name).has_value()) names.insert(name);
  }
  return names;
}

// The lab tracefs mount points in /proc/self/mounts (other labs may be
// running side by side, with mounts of their own).
std::set<std::string> LabTracefsMounts() {
  std::set<std::string> out;
  for (absl::string_view line :
       absl::StrSplit(ReadFile("/proc/self/mounts"), '\n')) {
    std::vector<absl::string_view> fields = absl::StrSplit(line, ' ');
    if (fields.size() > 2 && fields[2] == "tracefs" &&
        ParseLabResourceOwner(fields[1].substr(fields[1].rfind('/') + 1))) {
      out.emplace(fields[1]);
    }
  }
  return out;
}

// Whether run `run_id`'s tracefs mount is still there.
bool TracefsMountedByLab(const std::string& run_id) {
  for (const std::string& mount : LabTracefsMounts()) {
    if (absl::StartsWith(mount, TracefsMountPrefix(run_id))) return true;
  }
  return false;
}

struct LabBundle {
  std::string dir;
  LabRun run;
  // The bundle as `ccreplay diagnose` reads it (parsers/bundle.h).
  Bundle read;
  std::map<std::string, DirectionCounts> sender, receiver;
  std::string trace;
};

class LabTest : public ::testing::Test {
 protected:
  void SetUp() override {
    LabConfig probe;
    absl::Status ready = CheckLabPrerequisites(probe);
    if (!ready.ok()) GTEST_SKIP() << "lab unavailable: " << ready;
    absl::StatusOr<std::string> netns_ok = RunProgram({"ip", "netns", "list"});
    if (!netns_ok.ok())
      GTEST_SKIP() << "network namespaces unavailable: " << netns_ok.status();
  }

  // Runs the lab into a fresh directory and loads what it wrote.
  void Run(LabConfig config, LabBundle& bundle) {
    char dir[] = "/tmp/ccreplay-lab-test-XXXXXX";
    ASSERT_NE(mkdtemp(dir), nullptr);
    bundle.dir = dir;
    config.output_dir = bundle.dir;
    absl::StatusOr<LabRun> run = RunLab(config);
    ASSERT_TRUE(run.ok()) << run.status();
    bundle.run = *run;
    for (const char* file : {kBundleSenderPcap, kBundleReceiverPcap,
                             kBundleSsLog, kBundleTcpProbe, kBundleMetaJson}) {
      struct stat info;
      ASSERT_EQ(stat((bundle.dir + "/" + file).c_str(), &info), 0) << file;
      EXPECT_GT(info.st_size, 0) << file;
    }
    absl::StatusOr<Bundle> read = ReadBundle(bundle.dir);
    ASSERT_TRUE(read.ok()) << read.status();
    bundle.read = *std::move(read);
    EXPECT_EQ(bundle.read.sender_capture, bundle.dir + "/" + kBundleSenderPcap);
    EXPECT_EQ(bundle.read.receiver_capture,
              bundle.dir + "/" + kBundleReceiverPcap);
    EXPECT_EQ(bundle.read.host_state(), bundle.dir + "/" + kBundleTcpProbe);
    EXPECT_EQ(bundle.read.controller(), config.cc);
    bundle.sender = CountTcp(bundle.read.sender_capture);
    bundle.receiver = CountTcp(bundle.read.receiver_capture);
    bundle.trace = ReadFile(bundle.read.tcp_probe);
    // Torn down: none of this run's namespaces remain, no tracefs mount.
    const LabTopology& t = bundle.run.topology;
    std::set<std::string> left = LabNamespaces();
    for (const std::string& netns :
         {t.sender_netns, t.router_netns, t.receiver_netns}) {
      EXPECT_EQ(left.count(netns), 0u) << netns;
    }
    EXPECT_FALSE(TracefsMountedByLab(t.run_id));
  }

  void TearDown() override {
    // Bundles are small (a few MB) but not kept.
    for (const std::string& dir : dirs_) {
      RunProgram({"rm", "-rf", dir}).IgnoreError();
    }
  }

  // Flow i's data direction and ACK direction keys in the CountTcp maps,
  // taken from meta.json.
  static std::pair<std::string, std::string> FlowKeys(const LabBundle& bundle,
                                                      size_t i) {
    const proto::BundleFlow& flow = bundle.read.meta.flows(i);
    return {flow.sender() + ">" + flow.receiver(),
            flow.receiver() + ">" + flow.sender()};
  }

  // tcp_probe has one line per ACK the data sender received while
  // ESTABLISHED: the ACKs in the sender capture before the sender's FIN
  // (the SYN-ACK, taken in SYN_SENT, is the one known difference); allow 3 %.
  static void ExpectProbePerAck(const LabBundle& bundle, size_t i) {
    auto [data_key, ack_key] = FlowKeys(bundle, i);
    int64_t acks = bundle.sender.at(ack_key).packets_before_peer_fin;
    const proto::BundleFlow& flow = bundle.read.meta.flows(i);
    int64_t probes = ProbeLines(bundle.trace, flow.sender(), flow.receiver());
    EXPECT_GT(acks, 500);
    EXPECT_NEAR(probes, acks, acks * 0.03) << "flow " << i;
    EXPECT_EQ(bundle.read.meta.trace().overrun_events(), 0);
  }

  std::vector<std::string> dirs_;
};

LabConfig BaseConfig() {
  LabConfig config;
  config.rate_bits_per_s = 50'000'000;
  config.duration_s = 2;
  return config;
}

// "Sent 123 bytes 45 pkt (dropped 8, overlimits 0 requeues 0)" of the fifo
// with handle `handle` (10: under HTB class 1:10, 20: under 1:20); -1 when
// absent.
struct FifoCounters {
  int64_t sent_packets = -1;
  int64_t dropped = -1;
};
FifoCounters FifoStats(const std::string& stats, int handle) {
  std::smatch match;
  std::regex fifo(
      absl::StrCat("qdisc [pb]fifo ", handle,
                   R"(:[^\n]*\n\s*Sent \d+ bytes (\d+) pkt \(dropped (\d+))"));
  if (!std::regex_search(stats, match, fifo)) return {};
  return {std::stoll(match[1]), std::stoll(match[2])};
}

int64_t QdiscDropped(const std::string& stats) {
  return FifoStats(stats, 10).dropped;
}

TEST_F(LabTest, RenoRfc3168EcnWithStepMarker) {
  LabConfig config = BaseConfig();
  config.cc = "reno";
  config.ecn = EcnMode::kRfc3168;
  config.mark_step_bytes = 30'000;
  config.delay_ms = 5;
  config.flows = {FlowSpec{"reno", 0, 0}};
  LabBundle bundle;
  Run(config, bundle);
  dirs_.push_back(bundle.dir);
  if (HasFatalFailure()) return;
  auto [data_key, ack_key] = FlowKeys(bundle, 0);
  ASSERT_TRUE(bundle.sender.count(data_key)) << data_key;
  ASSERT_TRUE(bundle.receiver.count(data_key)) << data_key;
  const DirectionCounts& sent = bundle.sender.at(data_key);
  const DirectionCounts& received = bundle.receiver.at(data_key);
  EXPECT_GT(sent.data_packets, 1000);
  EXPECT_EQ(sent.max_payload_bytes, 1448);  // GSO off: one MSS per packet
  // CE is set at the bottleneck: seen after it, never before it.
  EXPECT_EQ(sent.ce, 0);
  EXPECT_GT(sent.ect, 1000);
  EXPECT_GT(received.ce, 0);
  // The receiver echoes CE as ECE (RFC 3168 section 6.1.3).
  EXPECT_GT(bundle.sender.at(ack_key).ece_flag, 0);
  ExpectProbePerAck(bundle, 0);
  // Every packet the receiver sent went through the delay line.
  const proto::BundleDelay& delay = bundle.read.meta.delay();
  EXPECT_EQ(delay.method(), "tun");
  EXPECT_EQ(delay.delay_line().packets(),
            PacketsFrom(bundle.receiver, bundle.run.topology.receiver_address));
  EXPECT_EQ(bundle.read.meta.bottleneck().marker(), "step");
  EXPECT_EQ(bundle.read.meta.sender().ecn_mode(), proto::BUNDLE_ECN_RFC3168);
  // The lab sets the sender veth to gso_max_size 1500, gso_max_segs 1
  // (topology.cc) and reads them back.
  EXPECT_EQ(bundle.read.meta.sender().gso_max_size_bytes(), 1500);
  EXPECT_EQ(bundle.read.meta.sender().gso_max_segs(), 1);
}

TEST_F(LabTest, CubicDropTailLoss) {
  LabConfig config = BaseConfig();
  config.cc = "cubic";
  config.queue = QueueSpec{true, 20};
  config.transfer = TransferTool::kBuiltin;
  config.flows = {FlowSpec{"cubic", 0, 0}};
  LabBundle bundle;
  Run(config, bundle);
  dirs_.push_back(bundle.dir);
  if (HasFatalFailure()) return;
  auto [data_key, ack_key] = FlowKeys(bundle, 0);
  const DirectionCounts& sent = bundle.sender.at(data_key);
  const DirectionCounts& received = bundle.receiver.at(data_key);
  EXPECT_EQ(sent.ect + received.ect + received.ce, 0);  // ECN off: Not-ECT only
  // The only loss point is the 20-packet pfifo: what vanished between the
  // captures is what the qdisc says it dropped (tc -s qdisc show).
  int64_t dropped = QdiscDropped(bundle.run.bottleneck_qdisc_stats);
  EXPECT_GT(dropped, 0) << bundle.run.bottleneck_qdisc_stats;
  // Up to a couple of packets may still sit in the queue or the veth when
  // the captures stop (seen once in 20 runs on a loaded 2-core machine).
  EXPECT_NEAR(static_cast<double>(sent.packets - received.packets),
              static_cast<double>(dropped), 2.0);
  const proto::BundleFlow& flow = bundle.read.meta.flows(0);
  EXPECT_GT(flow.bytes_received(), 1'000'000);
  EXPECT_EQ(flow.bytes_received(), flow.bytes_sent());
  EXPECT_TRUE(bundle.read.meta.sender().controller_set_before_connect());
  ExpectProbePerAck(bundle, 0);
}

TEST_F(LabTest, TwoConcurrentFlowsWithDifferentControllersAndMss) {
  LabConfig config = BaseConfig();
  config.queue = QueueSpec{true, 100};
  config.transfer = TransferTool::kBuiltin;
  config.flows = {FlowSpec{"reno", 0, 0}, FlowSpec{"cubic", 1200, 0}};
  LabBundle bundle;
  Run(config, bundle);
  dirs_.push_back(bundle.dir);
  if (HasFatalFailure()) return;
  std::string ss_log = ReadFile(bundle.read.ss_log);
  for (size_t i = 0; i < 2; ++i) {
    auto [data_key, ack_key] = FlowKeys(bundle, i);
    ASSERT_TRUE(bundle.sender.count(data_key)) << data_key;
    ASSERT_TRUE(bundle.receiver.count(data_key)) << data_key;
    EXPECT_GT(bundle.receiver.at(data_key).data_packets, 500) << data_key;
    ExpectProbePerAck(bundle, i);
    // ss shows each connection with its own controller.
    const std::string& sender = bundle.read.meta.flows(i).sender();
    std::regex sample(sender + R"([^\n]*\n\s+[^\n]*\b)" +
                      (i == 0 ? "reno" : "cubic") + R"(\b)");
    EXPECT_TRUE(std::regex_search(ss_log, sample)) << sender;
  }
  // TCP_MAXSEG 1200 caps the segment at 1200 - 12 bytes of timestamps
  // option; the other flow uses the full 1448.
  EXPECT_EQ(bundle.sender.at(FlowKeys(bundle, 0).first).max_payload_bytes,
            1448);
  EXPECT_EQ(bundle.sender.at(FlowKeys(bundle, 1).first).max_payload_bytes,
            1188);
  EXPECT_GT(std::count(ss_log.begin(), ss_log.end(), '#'), 100);
}

// Distinct times of the qlog events (one JSON-SEQ record a line) in which
// the server received a packet carrying an ACK frame.
size_t AckStepsReceived(const std::string& qlog) {
  std::set<std::string> times;
  for (absl::string_view line : absl::StrSplit(qlog, '\n')) {
    if (!absl::StrContains(line, "\"name\":\"transport:packet_received\"") ||
        !absl::StrContains(line, "\"frame_type\":\"ack\"")) {
      continue;
    }
    const size_t at = line.find("\"time\":");
    if (at == absl::string_view::npos) continue;
    const absl::string_view rest = line.substr(at + 7);
    times.emplace(rest.substr(0, rest.find_first_of(",}")));
  }
  return times.size();
}

// Issue 17 item 3: a 1280-byte Reno and a 1452-byte CUBIC QUIC flow share
// the bottleneck; each server's qlog lands in the bundle, named in
// meta.json, with datagrams of exactly its payload size, and nothing is
// left behind.
TEST_F(LabTest, Ngtcp2FlowsOfTwoPacketSizesCompete) {
  if (FindProgram(kNgtcp2Server).empty() ||
      FindProgram(kNgtcp2Client).empty()) {
    GTEST_SKIP() << "Debian ngtcp2-server/ngtcp2-client not installed "
                    "(scripts/bootstrap.sh installs them)";
  }
  const std::set<std::string> before = LabNamespaces();
  LabConfig config = BaseConfig();
  config.rate_bits_per_s = 20'000'000;
  config.queue = QueueSpec{true, 20};
  config.transfer = TransferTool::kNgtcp2;
  config.flows = {FlowSpec{"reno", 0, 0, 1280}, FlowSpec{"cubic", 0, 0, 1452}};
  char dir[] = "/tmp/ccreplay-lab-test-XXXXXX";
  ASSERT_NE(mkdtemp(dir), nullptr);
  dirs_.push_back(dir);
  config.output_dir = dir;
  absl::StatusOr<LabRun> run = RunLab(config);
  ASSERT_TRUE(run.ok()) << run.status();
  EXPECT_EQ(LabNamespaces(), before);
  absl::StatusOr<Bundle> bundle = ReadBundle(dir);
  ASSERT_TRUE(bundle.ok()) << bundle.status();
  EXPECT_EQ(bundle->meta.transfer_tool(), "ngtcp2");
  ASSERT_EQ(bundle->meta.flows_size(), 2);
  for (int i = 0; i < 2; ++i) {
    const proto::BundleFlow& flow = bundle->meta.flows(i);
    EXPECT_EQ(flow.server_qlog(),
              absl::StrCat("server-qlog/flow", i, ".sqlog"));
    // 20 Mbit/s for 2 s, shared by two flows.
    EXPECT_EQ(flow.download_bytes(), 2'500'000);
    absl::StatusOr<std::string> qlog =
        BundleServerQlog(*bundle, absl::StrCat(i));
    ASSERT_TRUE(qlog.ok()) << qlog.status();
    std::ifstream in(*qlog);
    std::stringstream text;
    text << in.rdbuf();
    const std::string full =
        absl::StrCat("\"length\":", flow.max_udp_payload_bytes(), "}");
    std::vector<absl::string_view> pieces = absl::StrSplit(text.str(), full);
    EXPECT_GT(pieces.size(), 1000u) << full;
    EXPECT_TRUE(absl::StrContains(text.str(), "\"congestion_window\""));
    // The qlog's cwnd against its own sends: no datagram sent while the
    // logged bytes in flight were above the logged cwnd (check's
    // flight_above_cwnd, RFC 9002 section 7), and nothing else beyond the
    // deviations ngtcp2 documents. `ccreplay check DIR --flow I --cc CC
    // --stack ngtcp2` prints the same.
    CheckOptions options;
    options.family = i == 0 ? "reno" : "cubic";
    options.stack = "ngtcp2";
    absl::StatusOr<CheckRun> check = CheckInput(*qlog, options);
    ASSERT_TRUE(check.ok()) << check.status();
    // Every ACK step is checked: the qlog's times are whole milliseconds,
    // so a step is a millisecond in which the server received a packet
    // carrying an ACK frame, and all but the first (the handshake's,
    // before any cwnd is logged) have a cwnd before and after. Counted
    // from the qlog's text here (python3 over the same events agreed on
    // 24 flows of 12 runs: 864-1074 steps, always one more than checked).
    EXPECT_EQ(check->result.acks_checked + 1, AckStepsReceived(text.str()));
    for (const ConformanceViolation& v : check->result.violations) {
      EXPECT_NE(v.rule, kRuleFlightAboveCwnd) << v.description;
      EXPECT_FALSE(v.documented_deviation.empty()) << v.description;
    }
  }
}

// Payload bits per second of `c` between its first and last data packet.
double PayloadRate(const DirectionCounts& c) {
  return c.payload_bytes * 8.0 / (c.last_data_s - c.first_data_s);
}

// Two flows routed apart (--flows cubic,cubic:mss=1200:path=2): each
// crosses its own HTB class and fifo, its ACKs take its own delay line,
// and ss and tcp_probe see both.
TEST_F(LabTest, TwoFlowsThroughSeparateBottlenecks) {
  LabConfig config = BaseConfig();
  config.rate_bits_per_s = 20'000'000;
  config.queue = QueueSpec{true, 50};
  config.delay_ms = 10;
  config.second_path = PathSpec{8'000'000, QueueSpec{true, 30}, 30};
  config.duration_s = 3;
  config.transfer = TransferTool::kBuiltin;
  config.flows = {FlowSpec{"cubic", 0, 0}, FlowSpec{"cubic", 1200, 0, 0, 2}};
  LabBundle bundle;
  Run(config, bundle);
  dirs_.push_back(bundle.dir);
  if (HasFatalFailure()) return;
  const proto::BundleMeta& m = bundle.read.meta;
  ASSERT_EQ(m.paths_size(), 2);
  EXPECT_EQ(m.flows(0).path(), 1);
  EXPECT_EQ(m.flows(1).path(), 2);
  const std::string ss_log = ReadFile(bundle.read.ss_log);
  for (int i = 0; i < 2; ++i) {
    const proto::BundlePath& path = m.paths(i);
    const proto::BundleFlow& flow = m.flows(i);
    EXPECT_EQ(path.path(), i + 1);
    EXPECT_TRUE(
        absl::StartsWith(flow.receiver(), path.receiver_address() + ":"));
    auto [data_key, ack_key] = FlowKeys(bundle, i);
    ASSERT_TRUE(bundle.receiver.count(data_key)) << data_key;
    const DirectionCounts& received = bundle.receiver.at(data_key);
    // HTB counts the Ethernet frame (skb->len at the veth's egress): the
    // 1448-byte payload of a 1514-byte frame is 95.6 % of it, 1188 of 1254
    // is 94.7 %. A flow on its own path gets close to that, and never more
    // than its path's rate; two flows on one 20 Mbit/s path would each get
    // about half of it, and on the 8 Mbit/s one under a fifth. The lower
    // bound leaves room for slow start and for the delay line, a user-space
    // TUN reader, on a loaded host (one run beside a full build: below
    // 0.85); routed together, either flow falls below it.
    const double rate = PayloadRate(received);
    EXPECT_LT(rate, path.rate_bits_per_s() * 0.96) << "flow " << i;
    EXPECT_GT(rate, path.rate_bits_per_s() * 0.7) << "flow " << i;
    // Its packets, and only they, left through its path's fifo (handles
    // 10: and 20:). The u32 filter takes IPv4 to B.2 only; the default
    // class 1:10 also carries the router's ARP requests and IPv6
    // neighbour discovery and MLD on that veth (7 packets in a 3 s run).
    const int64_t fifo_sent =
        FifoStats(m.bottleneck().qdisc_stats(), i == 0 ? 10 : 20).sent_packets;
    EXPECT_GE(fifo_sent, received.packets) << "flow " << i;
    EXPECT_LE(fifo_sent, received.packets + (i == 0 ? 16 : 0)) << "flow " << i;
    // Its ACKs, and only they, crossed its path's delay line.
    EXPECT_EQ(path.delay_line().delay_us(), path.delay_ms() * 1000);
    EXPECT_EQ(path.delay_line().packets(), bundle.receiver.at(ack_key).packets)
        << "flow " << i;
    ExpectProbePerAck(bundle, i);
    EXPECT_TRUE(absl::StrContains(ss_log, flow.sender())) << flow.sender();
  }
  EXPECT_EQ(m.paths(1).rate_bits_per_s(), 8'000'000);
  EXPECT_EQ(m.paths(1).limit_packets(), 30);
  EXPECT_EQ(m.paths(1).delay_ms(), 30);
  EXPECT_EQ(m.delay().method(), "tun");
  // Together they carried more than either path alone could: on the
  // 20 Mbit/s path, two flows' payload is at most 95.6 % of its rate.
  EXPECT_GT(PayloadRate(bundle.receiver.at(FlowKeys(bundle, 0).first)) +
                PayloadRate(bundle.receiver.at(FlowKeys(bundle, 1).first)),
            config.rate_bits_per_s);
}

// Data segments of `data_key` ("A:p>B:q") in `pcap` that tshark flags
// out of order or retransmitted (a segment that arrives after three or
// more later ones follows the receiver's duplicate ACKs, and tshark calls
// it a fast retransmission); -1 when tshark cannot be run.
int64_t TsharkOutOfOrder(const std::string& pcap, const std::string& data_key) {
  auto [from, to] =
      std::pair<std::string, std::string>(absl::StrSplit(data_key, '>'));
  const std::string from_port = from.substr(from.rfind(':') + 1);
  absl::StatusOr<std::string> out =
      RunProgram({"tshark", "-r", pcap, "-Y",
                  absl::StrCat("tcp.analysis.out_of_order && tcp.len > 0 && "
                               "tcp.srcport == ",
                               from_port),
                  "-T", "fields", "-e", "frame.number"});
  if (!out.ok()) return -1;
  return static_cast<int64_t>(std::count(out->begin(), out->end(), '\n'));
}

// --reorder 2: the data-path line holds 2 % of the sender's packets 1 ms
// longer; the receiver sees about that share of segments out of order,
// and the kernel counts the reordering it detected.
TEST_F(LabTest, ReorderHoldsAShareOfTheDataPathBack) {
  LabConfig config = BaseConfig();
  config.delay_ms = 10;
  config.transfer = TransferTool::kBuiltin;
  config.flows = {FlowSpec{"cubic", 0, 0}};
  config.reorder_percent = 2;
  LabBundle bundle;
  Run(config, bundle);
  dirs_.push_back(bundle.dir);
  if (HasFatalFailure()) return;
  const proto::BundleMeta& m = bundle.read.meta;
  ASSERT_TRUE(m.has_reorder());
  EXPECT_EQ(m.reorder().percent(), 2);
  EXPECT_EQ(m.reorder().extra_delay_us(), 1000);
  auto [data_key, ack_key] = FlowKeys(bundle, 0);
  // Every packet the sender sent crossed the reordering line.
  const proto::BundleDelayLine& line = m.reorder().line();
  EXPECT_EQ(line.packets(),
            PacketsFrom(bundle.sender, bundle.run.topology.sender_address));
  // Held back: 2 % of about 8,000 packets, binomial sd 0.16 %; 3.7 sd.
  const double held = static_cast<double>(line.reordered_packets()) /
                      static_cast<double>(line.packets());
  EXPECT_GT(held, 0.014);
  EXPECT_LT(held, 0.026);
  EXPECT_GT(line.overtaking_packets(), 0);
  // `tshark -r receiver.pcap -Y '(tcp.analysis.out_of_order ||
  // tcp.analysis.retransmission) && tcp.len > 0 && tcp.srcport == PORT'`
  // less the sender's own retransmissions (TcpRetransSegs): the segments
  // that arrived late, each one the line held. By hand, a run of this
  // configuration gave 171 - 1 of 175 held (2.1 % of 8,105 segments); in
  // this test's runs tshark flags fewer (36 of 144 held): left open.
  const int64_t late_or_resent =
      TsharkOutOfOrder(bundle.read.receiver_capture, data_key);
  ASSERT_GE(late_or_resent, 0) << "tshark not runnable";
  const int64_t resent = m.sender_nstat().count("TcpRetransSegs")
                             ? m.sender_nstat().at("TcpRetransSegs")
                             : 0;
  const int64_t late = late_or_resent - resent;
  EXPECT_GT(late, 0) << late_or_resent << " flagged, " << resent << " resent";
  EXPECT_LE(late, line.reordered_packets());
  // The kernel saw it (TcpExtTCPSACKReorder, tcp_check_sack_reordering()).
  EXPECT_GT(m.sender_nstat().count("TcpExtTCPSACKReorder")
                ? m.sender_nstat().at("TcpExtTCPSACKReorder")
                : 0,
            0);
  ExpectProbePerAck(bundle, 0);
}

TEST_F(LabTest, UnknownControllerFailsAndLeavesNothingBehind) {
  std::set<std::string> before = LabNamespaces();
  const std::set<std::string> mounts_before = LabTracefsMounts();
  LabConfig config = BaseConfig();
  config.flows = {FlowSpec{"nosuchcc", 0, 0}};
  char dir[] = "/tmp/ccreplay-lab-test-XXXXXX";
  ASSERT_NE(mkdtemp(dir), nullptr);
  dirs_.push_back(dir);
  config.output_dir = dir;
  absl::StatusOr<LabRun> run = RunLab(config);
  ASSERT_FALSE(run.ok());
  EXPECT_EQ(run.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_TRUE(absl::StrContains(run.status().message(), "nosuchcc"))
      << run.status();
  std::set<std::string> after = LabNamespaces();
  for (const std::string& name : after)
    EXPECT_EQ(before.count(name), 1u) << name;
  for (const std::string& mount : LabTracefsMounts())
    EXPECT_EQ(mounts_before.count(mount), 1u) << mount;
}

const std::string kCcreplay =
    std::string(CCREPLAY_BINARY_DIR) + "/cli/ccreplay";

// The sender namespace of the lab this process started after `before` was
// listed, once it exists (up to 30 s): "" if none appears.
std::string WaitForOwnSenderNamespace(const std::set<std::string>& before) {
  const absl::Time deadline = absl::Now() + absl::Seconds(30);
  while (absl::Now() < deadline) {
    for (const std::string& name : LabNamespaces()) {
      if (before.count(name) == 0 && absl::EndsWith(name, "-snd") &&
          ParseLabResourceOwner(name) == SelfOwner()) {
        return name;
      }
    }
    absl::SleepFor(absl::Milliseconds(20));
  }
  return "";
}

// Waits (up to 30 s) until the namespace has an established TCP connection
// (`ss`, as the lab's own sampler reads it): the transfer runs.
bool WaitForConnection(const std::string& netns) {
  const absl::Time deadline = absl::Now() + absl::Seconds(30);
  while (absl::Now() < deadline) {
    absl::StatusOr<std::string> ss = RunProgram(
        {"ip", "netns", "exec", netns, "ss", "-Htn", "state", "established"});
    if (ss.ok() && !ss->empty()) return true;
    absl::SleepFor(absl::Milliseconds(20));
  }
  return false;
}

// `ccreplay watch ARGS` in `netns`, its temporary files in `tmpdir`, stdout
// to `out_path`.
pid_t SpawnWatch(const std::string& netns, const std::string& tmpdir,
                 const std::vector<std::string>& args,
                 const std::string& out_path) {
  std::vector<std::string> argv = {
      "ip",      "netns", "exec", netns, "env", absl::StrCat("TMPDIR=", tmpdir),
      kCcreplay, "watch"};
  argv.insert(argv.end(), args.begin(), args.end());
  const int out = open(out_path.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0600);
  absl::StatusOr<pid_t> pid = SpawnProgram(argv, out, out);
  close(out);
  EXPECT_TRUE(pid.ok()) << pid.status();
  return pid.value_or(-1);
}

// The cwnd `ss -tin` shows in `netns` for each established socket, by its
// local end ("ADDR:PORT"), and when it was read.
struct SsCwnds {
  std::map<std::string, int> cwnd_segments;
  absl::Time time;
};
SsCwnds ReadSsCwnds(const std::string& netns) {
  SsCwnds out;
  const absl::Time before = absl::Now();
  absl::StatusOr<std::string> ss = RunProgram(
      {"ip", "netns", "exec", netns, "ss", "-tinH", "state", "established"});
  out.time = before + (absl::Now() - before) / 2;
  if (!ss.ok()) return out;
  // Two lines a socket: "RECV-Q SEND-Q LOCAL PEER", then its tcp_info.
  const std::vector<std::string> lines = absl::StrSplit(*ss, '\n');
  static const std::regex kCwnd(" cwnd:([0-9]+)");
  for (size_t i = 0; i + 1 < lines.size(); ++i) {
    std::vector<std::string> fields =
        absl::StrSplit(lines[i], ' ', absl::SkipEmpty());
    std::smatch cwnd;
    if (fields.size() >= 4 && std::regex_search(lines[i + 1], cwnd, kCwnd))
      out.cwnd_segments[fields[2]] = std::stoi(cwnd[1]);
  }
  return out;
}

// The host_* fields of watch's rows for the lab's sender (a socket of the
// namespace watch ran in) against the kernel's other two views: the cwnd
// `ss -tin` showed at `ss.time`, and the tcp_probe lines of the bundle
// over each row's interval. Rows are placed in time from `started`, to
// within the 2 ms the test polls watch's output at.
void ExpectHostStateAsSsAndTcpProbeSawIt(
    const LabBundle& bundle, const std::string& sender,
    const std::vector<proto::WatchFlowInterval>& rows, absl::Time started,
    const SsCwnds& ss) {
  ASSERT_GE(rows.size(), 2u);
  absl::StatusOr<HostStateLog> probe = ParseTcpProbe(bundle.read.tcp_probe);
  ASSERT_TRUE(probe.ok()) << probe.status();
  const HostTrace* trace = nullptr;
  for (const HostTrace& t : probe->traces) {
    if (t.local_endpoint == sender) trace = &t;
  }
  ASSERT_NE(trace, nullptr) << "no tcp_probe lines of " << sender;
  ASSERT_TRUE(trace->clock_epoch_us.has_value());
  // The cwnd's largest change from one interval's end to the next: how far
  // two reads of it an interval apart can differ.
  int drift = 1;
  for (size_t i = 0; i < rows.size(); ++i) {
    const proto::WatchFlowInterval& row = rows[i];
    ASSERT_TRUE(row.has_host_cwnd_segments()) << PrintJson(row);
    EXPECT_EQ(row.host_cc(), "cubic");
    EXPECT_EQ(row.host_cwnd_bytes() % row.host_cwnd_segments(), 0u);
    EXPECT_GT(row.host_srtt_ms(), 0);
    if (i > 0) {
      drift = std::max<int>(
          drift, std::abs(static_cast<int>(row.host_cwnd_segments() -
                                           rows[i - 1].host_cwnd_segments())));
    }
    // tcp_probe's snd_cwnd over the interval, taken before each ACK is
    // processed (DESIGN.md), from the interval's start to 20 ms past its
    // end: watch reads the sockets after closing the interval, and the
    // placing is to within a few ms.
    const int64_t end_us = absl::ToUnixMicros(started) +
                           static_cast<int64_t>(row.interval_end_s() * 1e6);
    const int64_t begin_us =
        end_us - static_cast<int64_t>(row.interval_s() * 1e6);
    double low = 1e9, high = -1;
    for (const SeriesPoint& p : trace->series.cwnd_segments) {
      const int64_t t = p.time_us + *trace->clock_epoch_us;
      if (t < begin_us || t > end_us + 20'000) continue;
      low = std::min(low, p.value);
      high = std::max(high, p.value);
    }
    std::printf("watch at %.2f s: host cwnd %u; tcp_probe [%.0f, %.0f]\n",
                row.interval_end_s(), row.host_cwnd_segments(), low, high);
    ASSERT_GE(high, 0) << "no tcp_probe line in the interval";
    EXPECT_GE(row.host_cwnd_segments(), low);
    EXPECT_LE(row.host_cwnd_segments(), high);
  }
  // The row whose end is nearest to ss's read.
  auto found = ss.cwnd_segments.find(sender);
  ASSERT_NE(found, ss.cwnd_segments.end()) << "ss did not list " << sender;
  const proto::WatchFlowInterval* nearest = &rows[0];
  const double ss_s = absl::ToDoubleSeconds(ss.time - started);
  for (const proto::WatchFlowInterval& row : rows) {
    if (std::abs(row.interval_end_s() - ss_s) <
        std::abs(nearest->interval_end_s() - ss_s))
      nearest = &row;
  }
  std::printf("ss at %.2f s: cwnd %d; watch at %.2f s: %u; drift %d\n", ss_s,
              found->second, nearest->interval_end_s(),
              nearest->host_cwnd_segments(), drift);
  // For the record: watch's cwnd interpolated to ss's time.
  for (size_t i = 1; i < rows.size(); ++i) {
    const double t0 = rows[i - 1].interval_end_s(),
                 t1 = rows[i].interval_end_s();
    if (ss_s < t0 || ss_s > t1) continue;
    const double c0 = rows[i - 1].host_cwnd_segments();
    const double c1 = rows[i].host_cwnd_segments();
    std::printf("watch's cwnd interpolated to ss's time: %.1f\n",
                c0 + (c1 - c0) * (ss_s - t0) / (t1 - t0));
  }
  EXPECT_LE(
      std::abs(found->second - static_cast<int>(nearest->host_cwnd_segments())),
      drift);
}

// `ccreplay watch` on the sender's veth while a builtin transfer runs: the
// flow is reported in the first second, at the lab's goodput, and a report
// is written on SIGINT; no namespace, temporary directory or file remains.
TEST_F(LabTest, WatchReportsTheLiveFlowAndWritesAReportOnSigint) {
  LabConfig config = BaseConfig();
  config.rate_bits_per_s = 20'000'000;
  config.duration_s = 5;
  config.transfer = TransferTool::kBuiltin;
  config.flows = {FlowSpec{"cubic", 0, 0}};
  char dir[] = "/tmp/ccreplay-watch-test-XXXXXX";
  ASSERT_NE(mkdtemp(dir), nullptr);
  dirs_.push_back(dir);
  const std::string tmpdir = absl::StrCat(dir, "/tmp");
  ASSERT_EQ(mkdir(tmpdir.c_str(), 0700), 0);
  const std::set<std::string> before = LabNamespaces();
  LabBundle bundle;
  std::thread lab([&] { Run(config, bundle); });
  const std::string netns = WaitForOwnSenderNamespace(before);
  const bool running = !netns.empty() && WaitForConnection(netns);
  pid_t json_watch = -1, report_watch = -1;
  absl::Time json_spawned, first_row_seen;
  SsCwnds ss;
  const std::string json_path = absl::StrCat(dir, "/watch.jsonl");
  const std::string report_path = absl::StrCat(dir, "/report.html");
  if (running) {
    // lab_owner.h: ccrl-<pid>-<start>-<run id>-snd; topology.cc names the
    // sender's veth ccl<run id>s.
    const std::vector<std::string> parts = absl::StrSplit(netns, '-');
    const std::string device = absl::StrCat("ccl", parts[3], "s");
    json_spawned = absl::Now();
    json_watch = SpawnWatch(
        netns, tmpdir, {"-i", device, "--duration", "3s", "--json"}, json_path);
    // 1 MB holds about 2 s of this 20 Mbit/s transfer's headers (about
    // 4,000 packets, 256 bytes a data frame and 66 an ACK, plus 16 of
    // pcap header each): the cap drops the first part.
    report_watch = SpawnWatch(
        netns, tmpdir, {"-i", device, "-o", report_path, "--keep", "1MB"},
        absl::StrCat(dir, "/report_watch.txt"));
    // When watch's first row appears (polled every 2 ms): its clock's
    // origin is then that less the row's interval_end_s, without the
    // startup (ip netns exec, env, loading, pcap_activate) before it.
    while (absl::Now() < json_spawned + absl::Seconds(2) &&
           ReadFile(json_path).find('\n') == std::string::npos) {
      absl::SleepFor(absl::Milliseconds(2));
    }
    first_row_seen = absl::Now();
    // Half way through the watch's second interval: what ss says.
    absl::SleepFor(json_spawned + absl::Milliseconds(1500) - absl::Now());
    ss = ReadSsCwnds(netns);
    absl::SleepFor(json_spawned + absl::Seconds(3) - absl::Now());
    kill(report_watch, SIGINT);
  }
  const absl::StatusOr<int> json_exit =
      json_watch > 0 ? WaitProgram(json_watch, absl::Seconds(30)) : -1;
  const absl::StatusOr<int> report_exit =
      report_watch > 0 ? WaitProgram(report_watch, absl::Seconds(60)) : -1;
  lab.join();
  ASSERT_TRUE(running) << "no lab transfer seen in " << netns;
  if (HasFatalFailure()) return;
  ASSERT_TRUE(json_exit.ok() && WIFEXITED(*json_exit)) << json_exit.status();
  EXPECT_EQ(WEXITSTATUS(*json_exit), 0) << ReadFile(json_path);
  ASSERT_TRUE(report_exit.ok() && WIFEXITED(*report_exit));
  EXPECT_EQ(WEXITSTATUS(*report_exit), 0)
      << ReadFile(absl::StrCat(dir, "/report_watch.txt"));
  const std::string sender =
      absl::StrCat(bundle.run.topology.sender_address, ":",
                   bundle.run.plan.flows[0].sender_port);
  // The lab's goodput: bytes the builtin receiver read, over the time its
  // capture saw data arrive (the sender's buffer drains after duration_s).
  const DirectionCounts& received =
      bundle.receiver.at(FlowKeys(bundle, 0).first);
  ASSERT_GT(received.last_data_s, received.first_data_s + 3);
  const double goodput_bps = bundle.read.meta.flows(0).bytes_received() * 8.0 /
                             (received.last_data_s - received.first_data_s);
  std::vector<double> rates;
  std::vector<proto::WatchFlowInterval> full_rows;  // About 1 s long.
  double first_end_s = -1;
  const std::vector<std::string> lines =
      absl::StrSplit(ReadFile(json_path), '\n', absl::SkipEmpty());
  for (const std::string& line : lines) {
    if (!absl::StartsWith(line, "{")) continue;  // The summary on stderr.
    proto::WatchFlowInterval row;
    ASSERT_TRUE(ParseJson(line, &row).ok()) << line;
    if (row.sender() != sender) continue;
    if (first_end_s < 0) first_end_s = row.interval_end_s();
    if (row.interval_s() > 0.9 && row.has_rate_bps()) {
      rates.push_back(row.rate_bps());
      full_rows.push_back(row);
    }
  }
  EXPECT_GT(first_end_s, 0) << "flow " << sender << " never reported";
  EXPECT_LE(first_end_s, 2.0);
  ASSERT_GE(rates.size(), 2u);
  std::sort(rates.begin(), rates.end());
  std::printf(
      "watch: first report at %.2f s, median rate %.0f bit/s over "
      "%zu intervals; lab goodput %.0f bit/s\n",
      first_end_s, rates[rates.size() / 2], rates.size(), goodput_bps);
  EXPECT_NEAR(rates[rates.size() / 2], goodput_bps, 0.1 * goodput_bps);
  // Written at the end of the interval ending at first_end_s.
  const absl::Time watch_started = first_row_seen - absl::Seconds(first_end_s);
  std::printf("watch started %.3f s after it was spawned\n",
              absl::ToDoubleSeconds(watch_started - json_spawned));
  ExpectHostStateAsSsAndTcpProbeSawIt(bundle, sender, full_rows, watch_started,
                                      ss);
  const std::string report = ReadFile(report_path);
  EXPECT_GT(report.size(), 10'000u);
  EXPECT_TRUE(absl::StrContains(report, "<html")) << report.substr(0, 200);
  EXPECT_TRUE(absl::StrContains(report, bundle.run.topology.sender_address));
  // The cap dropped the start and the warning names the range kept.
  const std::string report_stderr =
      ReadFile(absl::StrCat(dir, "/report_watch.txt"));
  EXPECT_TRUE(absl::StrContains(report_stderr,
                                "the report covers only the capture from"))
      << report_stderr;
  for (absl::string_view line : absl::StrSplit(report_stderr, '\n')) {
    if (absl::StrContains(line, "warning:"))
      std::printf("%s\n", std::string(line).c_str());
  }
  // The watches' temporary pcap and directory are gone.
  EXPECT_EQ(rmdir(tmpdir.c_str()), 0) << "left in " << tmpdir;
}

}  // namespace
}  // namespace ccreplay::lab
