#include "replay/ack_timeline.h"

#include <zlib.h>

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <fstream>
#include <map>
#include <sstream>
#include <string>
#include <utility>
#include <vector>

#include "absl/strings/ascii.h"
#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_split.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "parsers/parser_testing.h"
#include "parsers/pcap_reader.h"
#include "proto/testing/test_data.h"
#include "replay/flow_selection.h"

namespace ccreplay {
namespace {

struct Timeline {
  std::vector<TimelineEvent> events;
  TimelineStats stats;
};

// The default flow's timeline, as `ccreplay timeline` builds it.
Timeline Build(const std::string& path) {
  FlowTable table;
  absl::StatusOr<CaptureInfo> info = ReadCapture(path, table);
  EXPECT_TRUE(info.ok()) << info.status();
  absl::StatusOr<SelectedFlow> flow = SelectFlow(table, "");
  EXPECT_TRUE(flow.ok()) << flow.status();
  Timeline t;
  AckTimelineBuilder builder(
      flow->index, flow->sender_side,
      [&t](const TimelineEvent& e) { t.events.push_back(e); });
  EXPECT_TRUE(ReadCapture(path, builder).ok());
  builder.Finish();
  t.stats = builder.Stats(flow->index);
  return t;
}

// The ACK events of a timeline.
std::vector<TimelineEvent> Acks(const Timeline& t) {
  std::vector<TimelineEvent> out;
  for (const TimelineEvent& e : t.events) {
    if (e.type == TimelineEvent::Type::kAck) out.push_back(e);
  }
  return out;
}

// ---- Retransmission classes against Zeek's TCP retransmission analyzer --

// Zeek tcprs `rtype` (TCPRS_Support.h RETRANSMISSION_TYPE_CODE) to ours:
// RTO 1, BRUTE_FORCE_RTO 14, RTO_NO_DUPACK 15 are timeouts; FAST_TRIPDUP 2,
// FAST_SPECULATIVE 3, EARLY_REXMIT 4, the early/SACK variants 9-13 and
// FACK_BASED 16 are fast; REXMIT 5 continues the episode of the last
// classified one; UNKNOWN 0 is other.
std::string ZeekClass(int rtype, const std::string& episode) {
  if (rtype == 1 || rtype == 14 || rtype == 15) return "rto";
  if (rtype == 2 || rtype == 3 || rtype == 4 || (rtype >= 9 && rtype <= 13) ||
      rtype == 16) {
    return "fast";
  }
  if (rtype == 5) return episode;
  return "other";
}

struct ZeekRetransmission {
  int64_t relative_seq;
  std::string kind;
};

// The baseline's retransmissions by the data sender (`orig` = "F": the
// responder, "T": the originator), sequence numbers made relative to `isn`.
std::vector<ZeekRetransmission> ReadZeek(const std::string& log, uint32_t isn,
                                         const std::string& orig = "F") {
  // The baselines lie beside the traces in ../shared/testdata: the tests
  // skip without the trace, so a missing baseline here is a failure.
  absl::StatusOr<std::string> path = SharedTestData(
      "tcp/zeek-tcprs-baselines/" + log + "/tcpretransmissions.log");
  EXPECT_TRUE(path.ok()) << path.status();
  std::ifstream in(path.value_or(""));
  std::vector<ZeekRetransmission> out;
  std::string line, episode = "other";
  while (std::getline(in, line)) {
    if (line.empty() || line[0] == '#') continue;
    std::vector<std::string> f = absl::StrSplit(line, '\t');
    if (f.size() < 13 || f[10] != orig) continue;
    int rtype = 0;
    uint32_t seq = 0;
    EXPECT_TRUE(absl::SimpleAtoi(f[12], &rtype) &&
                absl::SimpleAtoi(f[7], &seq));
    const std::string kind = ZeekClass(rtype, episode);
    if (rtype != 5) episode = kind;
    out.push_back(
        {static_cast<int64_t>(static_cast<uint32_t>(seq - isn)), kind});
  }
  return out;
}

// Matches each Zeek retransmission with ours (in order, by sequence
// number) and returns those whose class differs, as "TIME SEQ ours/zeek".
std::vector<std::string> Disagreeing(
    const Timeline& t, const std::vector<ZeekRetransmission>& zeek) {
  std::vector<const TimelineEvent*> ours;
  for (const TimelineEvent& e : t.events) {
    if (e.type == TimelineEvent::Type::kRetransmission) ours.push_back(&e);
  }
  std::vector<std::string> out;
  size_t next = 0;
  for (const ZeekRetransmission& z : zeek) {
    bool matched = false;
    for (size_t i = next; i < ours.size(); ++i) {
      const TimelineEvent& e = *ours[i];
      if (e.seq_start <= z.relative_seq && z.relative_seq < e.seq_end) {
        if (RetransmissionKindName(e.kind) != z.kind) {
          out.push_back(absl::StrFormat(
              "%.6f %d %s/%s", static_cast<double>(e.time_ns) / 1e9,
              e.seq_start, RetransmissionKindName(e.kind), z.kind));
        }
        next = i + 1;
        matched = true;
        break;
      }
    }
    if (!matched)
      out.push_back(absl::StrFormat("unmatched %d", z.relative_seq));
  }
  return out;
}

int Agreeing(const Timeline& t, const std::vector<ZeekRetransmission>& zeek) {
  return static_cast<int>(zeek.size() - Disagreeing(t, zeek).size());
}

// The HTTP server's raw ISN in each trace: `tshark -r F -Y
// "tcp.flags.syn==1 && tcp.flags.ack==1" -T fields -e tcp.seq_raw`.
TEST(AckTimelineTest, ZeekRetransmissionClassesOnSenderSideTraces) {
  // Every retransmission the server made agrees with Zeek's class:
  // comp008 21 fast + 32 rto, fast019 15 fast. (Zeek also logs three
  // retransmissions by the client in comp008, reason 3 "previously
  // acknowledged": keep-alive probes, not data of the flow's sender.)
  CCREPLAY_PATH_OR_SKIP(comp008, SharedTestData("tcp/zeek-tcprs_comp008.pcap"));
  CCREPLAY_PATH_OR_SKIP(fast019, SharedTestData("tcp/zeek-tcprs_fast019.pcap"));
  CCREPLAY_PATH_OR_SKIP(
      rto_trace, SharedTestData("tcp/zeek-tcprs_rto-approximation.pcap"));
  Timeline comp = Build(comp008);
  std::vector<ZeekRetransmission> z = ReadZeek("composite.comp008", 459510821);
  ASSERT_EQ(z.size(), 53u);
  EXPECT_EQ(Agreeing(comp, z), 53);
  EXPECT_EQ(comp.stats.retransmissions[0], 21u);
  EXPECT_EQ(comp.stats.retransmissions[1], 32u);

  Timeline fast = Build(fast019);
  z = ReadZeek("fastretransmit.fast019", 2782151437);
  ASSERT_EQ(z.size(), 15u);
  EXPECT_EQ(Agreeing(fast, z), 15);

  // rto-approximation: Zeek's first retransmission is the SYN-ACK's (we
  // count it as a timeout, not in the data timeline), then 3 fast and one
  // RTO, as ours.
  Timeline rto = Build(rto_trace);
  z = ReadZeek("heuristics.rto-approximation", 819614542);
  ASSERT_EQ(z.size(), 5u);
  EXPECT_EQ(Agreeing(rto, z), 4);
  EXPECT_EQ(rto.stats.retransmissions[0], 3u);
  EXPECT_EQ(rto.stats.retransmissions[1], 2u);  // The SYN-ACK and one data RTO.
}

// scripts/make-syn-rto-capture.sh: the client's first SYN and its whole
// first flight (10 segments) were dropped past the capture point. Its only
// handshake RTT sample comes from the SYN-ACK's echo of the resent SYN
// (Karn's rule forbids the sequence sample), so its first data RTO was
// Linux's 200 ms floor, and the flight went again 211.7 ms after it left:
// a timeout, then go-back-N. The client's own counters (nstat, printed by
// the script): TcpExtTCPSynRetrans 1, TcpExtTCPTimeouts 2 (the SYN's and
// the flight's), TcpRetransSegs 11, TLP off.
TEST(AckTimelineTest, TimeoutAfterAResentSynTimedByTheEcho) {
  Timeline t = Build(TestDataPath("lossy/syn_resent_rto.pcap"));
  std::vector<TimelineEvent> resent;
  for (const TimelineEvent& e : t.events) {
    if (e.type == TimelineEvent::Type::kRetransmission) resent.push_back(e);
  }
  // tshark -r F -Y 'tcp.len > 0' -T fields -e frame.time_relative -e
  // tcp.seq: 10 segments resent (seq 1 .. 13033) from 1.222352 s; the
  // first flight left at 1.010621 s. tshark flags 6 of them
  // (tcp.analysis.retransmission) and calls 4 "out-of-order".
  ASSERT_EQ(resent.size(), 10u);
  EXPECT_EQ(resent[0].seq_start, 1);
  // tshark -T fields -e frame.time_epoch: frame 15, 1796189330.715941.
  EXPECT_EQ(resent[0].time_ns, 1796189330715941000);
  for (const TimelineEvent& e : resent) {
    EXPECT_EQ(e.kind, RetransmissionKind::kRto) << e.seq_start;
  }
  EXPECT_TRUE(resent[0].starts_episode);
  // The estimate the timer was judged by: the handshake's 100 us (tshark
  // -T fields -e frame.time_relative on frames 2-4, TSecr of the SYN-ACK =
  // TSval of the resent SYN: 1.010285 -> 1.010366 -> 1.010385), so RTO
  // clamped to 200 ms, not the 1 s of RFC 6298 (2.1).
  EXPECT_EQ(resent[0].srtt_us, 100);
  EXPECT_EQ(resent[0].rto_us, RttEstimator::kLinuxMinRtoUs);
  // The resent SYN is the other timeout.
  EXPECT_EQ(t.stats.retransmissions[1], 11u);
  EXPECT_EQ(t.stats.retransmissions[3], 0u);
}

// testdata/tunnels/geneve_vni7.pcap: snaplen 128 less 72 bytes of outer
// headers and GENEVE (with an option) cuts the SYN and SYN-ACK inside their
// TCP options, before the window scale (`tshark -Y tcp.flags.syn==1`: "TCP
// truncated", no tcp.options.wscale.shift). The receiver's windows read
// 64-74 unscaled (`-e tcp.window_size_value`); taken as bytes, every ACK
// looked receive-window-limited. The window is unknown instead.
TEST(AckTimelineTest, SynCutBeforeItsWindowScaleLeavesTheWindowUnknown) {
  Timeline t = Build(TestDataPath("tunnels/geneve_vni7.pcap"));
  const std::vector<TimelineEvent> acks = Acks(t);
  ASSERT_GT(acks.size(), 100u);
  for (const TimelineEvent& e : acks) {
    EXPECT_NE(e.limit, SendLimit::kRwnd) << e.time_ns;
    EXPECT_EQ(e.rwnd_bytes, 0u) << e.time_ns;
  }
}

// The loss-window trace was captured next to the receiver (an upload from
// 10.0.204.227, whose TCP timestamp clock ticks every 10 ms: TSval grows
// by 30520 in 307.3 s). Zeek classifies at the capture point; we take the
// sender's view: events shifted by the one-way delay estimate, and the
// loss signals as of the ACK the retransmission's TSecr names (TS.Recent,
// RFC 7323 section 4.3), the sender's silence since it being at most the
// gap to the next ACK the capture saw (which the sender had not processed
// yet). Zeek's 69 retransmissions by the sender, ours agree on 38. The 31
// others, checked frame by frame with `tshark -r F -T fields -e
// frame.time_epoch -e tcp.seq -e tcp.ack -e tcp.options.sack_le -e
// tcp.options.sack_re -e tcp.options.timestamp.tsval -e
// tcp.options.timestamp.tsecr` (times below are capture times):
// - Zeek rto, ours fast (13): 102.914 (4: 109094 .. 116184), 164.969 (2:
//   228009, 229427), 304.564 (7: 482167 .. 491301). Each first
//   retransmission echoes the third duplicate ACK (frames at 102.5895,
//   164.8457, 304.3513), and a second segment leaves in the same sender
//   clock tick echoing the same ACK. A timeout resends one segment with a
//   window of one (RFC 5681 section 3.1; Linux tcp_retransmit_timer()), so
//   these answer the duplicate ACKs, delayed by queues (~320 ms from the
//   ACK to the retransmission at the capture point, RTT ~100 ms).
// - Zeek fast, ours rto (5): 233.774 (343923) echoes an ACK older than the
//   duplicates the capture saw before it, 300 ms of sender clock
//   (TSval 8434032 -> 8434062) after its previous segment, with no ACK
//   processed between: a timer fired. 306.436 (508165) echoes the second
//   duplicate ACK, 150 ms of sender clock after a segment that echoed the
//   same ACK: again a timer; 306.985-306.993 (3) continue that timeout's
//   go-back-N (Zeek: continuation of a fast retransmit).
// - Zeek unknown (type 0 and its continuations), ours fast or rto (13):
//   160.765 and 161.029 (148582; ours fast: SACK above and a duplicate
//   echoed), 376.358-379.041 (11; ours rto: 675520 is resent 300 ms of
//   sender clock after its first transmission, TSval 8448295 -> 8448325,
//   with the echo unchanged, so a timer fired; it was D-SACKed, spurious;
//   the others continue that timeout's go-back-N or are later timeouts).
// Agreement over the four traces: 53 + 15 + 4 + 38 = 110 of 142 (77 %).
// The 95 % of the issue is out of reach with this trace without taking
// the capture point's view, which the sender's own clock contradicts.
TEST(AckTimelineTest, ReceiverSideZeekTrace) {
  CCREPLAY_PATH_OR_SKIP(
      path, SharedTestData("tcp/zeek-tcprs_loss-window-approximation.pcap"));
  Timeline t = Build(path);
  EXPECT_EQ(t.stats.vantage, Vantage::kReceiver);
  // The client's raw ISN: `tshark -r F -Y "tcp.flags.syn==1 &&
  // tcp.flags.ack==0" -T fields -e tcp.seq_raw`.
  std::vector<ZeekRetransmission> z =
      ReadZeek("heuristics.loss-window-approximation", 3450481747u, "T");
  ASSERT_EQ(z.size(), 69u);
  const std::vector<std::string> differ = Disagreeing(t, z);
  std::vector<int64_t> differ_seq;
  for (const std::string& d : differ) {
    std::vector<std::string> f = absl::StrSplit(d, ' ');
    int64_t seq = 0;
    ASSERT_TRUE(f.size() == 3 && absl::SimpleAtoi(f[1], &seq)) << d;
    differ_seq.push_back(seq);
  }
  const std::vector<int64_t> explained = {
      109094, 110512, 110805, 116184, 148582, 148582, 228009, 229427,
      343923, 482167, 483585, 484843, 486261, 487679, 490675, 491301,
      508165, 509583, 511001, 512419, 675520, 680407, 681825, 683243,
      684661, 686079, 687497, 688915, 690333, 691751, 698209};
  EXPECT_EQ(differ_seq, explained) << absl::StrJoin(differ, "\n");
}

// ---- Lab captures: the kernel's own figures ----------------------------

TEST(AckTimelineTest, LabBytesAckedMatchTheSendersSsLog) {
  // The last ss sample of the data flow (testdata/lab/.../ss.log, port
  // 42408): bytes_acked:17942206 with unacked:32 segments of 1448 bytes
  // still in flight; the capture goes on after it.
  Timeline t =
      Build(TestDataPath("lab/reno_ecn1_stepK60k_50mbit/sender.pcap.gz"));
  EXPECT_GE(t.stats.bytes_acked, 17942206u);
  EXPECT_LE(t.stats.bytes_acked, 17942206u + 32u * 1448u);
  // Every byte the flow table saw sent is acknowledged at the end:
  // `ccreplay flows --json F | jq .flows[1].data_bytes` = 17953789.
  EXPECT_EQ(t.stats.bytes_acked, 17953789u);
  EXPECT_EQ(t.stats.vantage, Vantage::kSender);
}

// At 0 ms the receiver's first two ACKs (frames 5 and 7, acks 1449 and
// 2897) reach the sender while its first write still sends the initial
// window (frames 4-15); the kernel took them after frame 15 as one ACK
// (tcp_add_backlog() coalescing, release_sock()): the first tcp_probe line
// of the data sender has snd_nxt - snd_una = 0xdf5ce37e - 0xdf5caaee =
// 14480 (10 segments) and the next snd_una 2896 bytes higher
// (`zcat tcp_probe.txt.gz | grep 'src=10.98.90.1' | head -2`). Times:
// `tshark -r sender.pcap.gz -T fields -e frame.number -e frame.time_epoch`.
TEST(AckTimelineTest, LabAcksDuringTheInitialWindowAreTakenAtItsEnd) {
  Timeline t = Build(TestDataPath("lab/bbr_20mbit_0ms_pfifo50/sender.pcap.gz"));
  std::vector<TimelineEvent> acks = Acks(t);
  ASSERT_GE(acks.size(), 2u);
  EXPECT_EQ(acks[0].ack, 2897);
  EXPECT_EQ(acks[0].bytes_acked, 2896u);
  EXPECT_EQ(acks[0].packets_delivered, 2u);
  EXPECT_EQ(acks[0].pipe_before_bytes, 14480u);
  EXPECT_EQ(acks[0].outstanding_bytes, 14480u - 2896u);
  EXPECT_EQ(acks[0].time_ns, int64_t{1796181833165618000});  // Frame 15.
  EXPECT_EQ(acks[1].ack, 4345);                              // Frame 20.
  EXPECT_EQ(acks[1].time_ns, int64_t{1796181833166228000});
  // Both backlogged ACKs were received: the flow's 2588 packets from the
  // receiver (`ccreplay flows`) less its SYN-ACK.
  EXPECT_EQ(t.stats.acks, 2587u);
}

// Paced under an emulated CPU, the initial window leaves over 3.6 ms and
// the receiver's first ACKs (frames 5, 7, 9, 11, 13) are captured among
// its segments, not back to back with them; the segments up to frame 18
// echo TSval 169857467, the SYN-ACK's, so the sender had taken none of
// them (RFC 7323 TS.Recent). The kernel's first tcp_probe lines show it
// took them after frame 18, with ten segments out, 2897 merged into 4345:
// snd_una 0xe326b420, snd_nxt 0xe326ecb0 (14480 out), then snd_una +1448,
// +4344, +5792, +7240 (`zcat tcp_probe.txt.gz | grep tcp_probe: | head
// -5`). Frames: `tshark -r sender.pcap.gz -T fields -e frame.number -e
// frame.time_epoch -e tcp.ack -e tcp.options.timestamp.tsval -e
// tcp.options.timestamp.tsecr`.
TEST(AckTimelineTest, LabAcksTheEchoesShowUntakenWaitForTheInitialWindow) {
  Timeline t = Build(
      TestDataPath("lab/k61vm_dctcp_0ms_paced_20mbit_pfifo20/sender.pcap.gz"));
  std::vector<TimelineEvent> acks = Acks(t);
  ASSERT_GE(acks.size(), 5u);
  const int64_t frame18_ns = 1796248499838373000;
  const int64_t expected_acks[4] = {1449, 4345, 5793, 7241};
  for (int i = 0; i < 4; ++i) {
    SCOPED_TRACE(i);
    EXPECT_EQ(acks[i].ack, expected_acks[i]);
    EXPECT_EQ(acks[i].time_ns, frame18_ns);
  }
  EXPECT_EQ(acks[0].outstanding_bytes, 14480u - 1448u);
  // Frame 19 (TSval 169857473) is followed by segments echoing 469, 470,
  // 472: taken after frame 22, the last of them. (The kernel took it one
  // segment later, after frame 23: tcp_probe's fifth line has snd_nxt
  // 0xe3270350, 14 segments out; frame 23 echoes 473, the tick of frame 19
  // and of frame 13's ACK before it, which cannot tell the two apart.)
  EXPECT_EQ(acks[4].ack, 8689);
  EXPECT_EQ(acks[4].time_ns, 1796248499838749000);
}

TEST(AckTimelineTest, LabCeAndEceEpisodes) {
  // Receiver side, after the marking bottleneck: `tshark -r receiver.pcap.gz
  // -Y ip.dsfield.ecn==3 | wc -l` = 420.
  Timeline rcv =
      Build(TestDataPath("lab/reno_ecn1_stepK60k_50mbit/receiver.pcap.gz"));
  EXPECT_EQ(rcv.stats.ip_ce_data_packets, 420u);
  EXPECT_EQ(rcv.stats.vantage, Vantage::kReceiver);
  // ECE episodes = CWR packets: `tshark -r F -Y "tcp.flags.cwr==1 &&
  // tcp.flags.syn==0" | wc -l` = 30 (reno), 8 (cubic, ACK delay); the same
  // count from the receiver-side capture.
  Timeline snd =
      Build(TestDataPath("lab/reno_ecn1_stepK60k_50mbit/sender.pcap.gz"));
  EXPECT_EQ(snd.stats.ip_ce_data_packets, 0u);
  EXPECT_EQ(snd.stats.ece_episodes, 30u);
  EXPECT_EQ(rcv.stats.ece_episodes, 30u);
  Timeline cubic = Build(
      TestDataPath("lab/cubic_ecn_K60k_40mbit_ackdelay10ms/sender.pcap.gz"));
  EXPECT_EQ(cubic.stats.ece_episodes, 8u);
  EXPECT_FALSE(cubic.stats.ce_fed_back_packets.has_value());  // RFC 3168: null.
}

// tshark's tcp.analysis.ack_rtt for the same capture:
//   tshark -r sender.pcap.gz -Y tcp.analysis.ack_rtt -T fields
//     -e frame.time_epoch -e tcp.ack -e tcp.analysis.ack_rtt | gzip
// Every ACK where both give a sample agrees within 1 us (tshark measures
// from the first transmission; on this sender-side capture no ACK of
// retransmitted data has a sample of ours, Karn's rule).
TEST(AckTimelineTest, RttSamplesAgreeWithTshark) {
  Timeline t =
      Build(TestDataPath("lab/cubic_noecn_droptail100_50mbit/sender.pcap.gz"));
  gzFile in = gzopen(
      TestDataPath("lab/cubic_noecn_droptail100_50mbit/tshark_ack_rtt.tsv.gz")
          .c_str(),
      "rb");
  ASSERT_NE(in, nullptr);
  std::map<std::pair<int64_t, int64_t>, double> tshark;  // (time_ns, ack) -> s.
  char line[256];
  while (gzgets(in, line, sizeof(line)) != nullptr) {
    std::vector<std::string> f =
        absl::StrSplit(absl::StripTrailingAsciiWhitespace(line), '\t');
    ASSERT_EQ(f.size(), 3u);
    std::vector<std::string> secs = absl::StrSplit(f[0], '.');
    int64_t s = 0, ns = 0, ack = 0;
    double rtt = 0;
    ASSERT_TRUE(absl::SimpleAtoi(secs[0], &s) &&
                absl::SimpleAtoi(secs[1], &ns) &&
                absl::SimpleAtoi(f[1], &ack) && absl::SimpleAtod(f[2], &rtt));
    tshark[{s * 1000000000 + ns, ack}] = rtt;
  }
  gzclose(in);
  int both = 0;
  for (const TimelineEvent& e : t.events) {
    if (e.type != TimelineEvent::Type::kAck || e.rtt_sample_us == 0) continue;
    auto it = tshark.find({e.time_ns, e.ack});
    if (it == tshark.end()) continue;
    ++both;
    EXPECT_NEAR(static_cast<double>(e.rtt_sample_us), it->second * 1e6, 1.0)
        << e.time_ns;
  }
  // All our samples but one; tshark's other 23 are on the control
  // connection, on ACKs covering retransmitted data (no sample by Karn's
  // rule), and the data connection's first two ACKs (frames 21 and 23,
  // each 7 us after the segment it acknowledges): the initial window's
  // segments after them echo TSval 2187384662, from before them, so the
  // sender took them together after its write (as the kernel coalesces a
  // socket backlog), its one sample there 54 us.
  EXPECT_EQ(both, 6086);
  EXPECT_EQ(t.stats.rtt_samples, 6087u);
}

// ---- Corrupt sequence numbers (issue 16) ---------------------------------

// The decompressed bytes of a capture (zlib's gz* API, independent of the
// reader under test).
std::string Decompressed(const std::string& path) {
  gzFile in = gzopen(path.c_str(), "rb");
  EXPECT_NE(in, nullptr);
  std::string bytes;
  char chunk[65536];
  int n;
  while ((n = gzread(in, chunk, sizeof(chunk))) > 0) bytes.append(chunk, n);
  gzclose(in);
  return bytes;
}

// Flips bit 31 of the sequence number of the first data segment after
// record `data_after` and of the ACK number of the first pure ACK after
// record `ack_after`, in a little-endian classic pcap of Ethernet/IPv4
// frames. Returns the two record numbers (1-based, as tshark's
// frame.number).
std::pair<uint64_t, uint64_t> FlipBit31(std::string* pcap, uint64_t data_after,
                                        uint64_t ack_after) {
  std::pair<uint64_t, uint64_t> flipped = {0, 0};
  size_t offset = 24;  // The pcap file header.
  for (uint64_t record = 1; offset + 16 <= pcap->size(); ++record) {
    uint32_t captured;
    std::memcpy(&captured, pcap->data() + offset + 8, 4);
    const size_t ip = offset + 16 + 14;
    const size_t tcp = ip + (((*pcap)[ip] & 0x0f) * 4);
    const unsigned total = static_cast<uint8_t>((*pcap)[ip + 2]) << 8 |
                           static_cast<uint8_t>((*pcap)[ip + 3]);
    const unsigned payload =
        total - (tcp - ip) -
        ((static_cast<uint8_t>((*pcap)[tcp + 12]) >> 4) * 4);
    if (flipped.first == 0 && record > data_after && payload > 0) {
      (*pcap)[tcp + 4] ^= static_cast<char>(0x80);
      flipped.first = record;
    } else if (flipped.second == 0 && record > ack_after && payload == 0) {
      (*pcap)[tcp + 8] ^= static_cast<char>(0x80);
      flipped.second = record;
    }
    offset += 16 + captured;
  }
  return flipped;
}

// Issue 16: one bit flipped in a sequence or ACK number made Unwrap jump
// by 2^31 and every later segment of the flow follow: `ccreplay flows` on
// this capture with bits flipped in packets 2001 and 3001 said 1931669
// data bytes, 11186 retransmissions and 689 RTT samples instead of
// 18114517, 8 and 6088. Now the two packets are dropped as corrupt and the
// flow's facts stay those of the intact capture, within one packet.
TEST(AckTimelineTest, FlippedBit31InASequenceAndAnAckNumberIsDropped) {
  const std::string path =
      TestDataPath("lab/cubic_noecn_droptail100_50mbit/sender.pcap.gz");
  std::string pcap = Decompressed(path);
  ASSERT_EQ(pcap.substr(0, 4), std::string("\xd4\xc3\xb2\xa1", 4));
  AckTimelineBuilder intact;
  absl::StatusOr<CaptureInfo> intact_info = ReadCaptureFromMemory(
      "intact", reinterpret_cast<const uint8_t*>(pcap.data()), pcap.size(),
      intact);
  ASSERT_TRUE(intact_info.ok());
  EXPECT_EQ(intact_info->corrupt_packets, 0u);

  const std::pair<uint64_t, uint64_t> flipped = FlipBit31(&pcap, 2000, 3000);
  ASSERT_EQ(flipped, (std::pair<uint64_t, uint64_t>{2001, 3001}));
  AckTimelineBuilder damaged;
  absl::StatusOr<CaptureInfo> info = ReadCaptureFromMemory(
      "damaged", reinterpret_cast<const uint8_t*>(pcap.data()), pcap.size(),
      damaged);
  ASSERT_TRUE(info.ok());
  EXPECT_EQ(info->corrupt_packets, 2u);
  ASSERT_FALSE(info->warnings.empty());
  EXPECT_THAT(info->warnings[0],
              ::testing::HasSubstr("packet 2001 (10.99.1.1:53138 -> "
                                   "10.99.2.1:5201): sequence number"));
  EXPECT_THAT(info->warnings[0], ::testing::HasSubstr("dropped as corrupt"));

  // The data flow is flow 1 (flow 0 is iperf3's control connection).
  ASSERT_EQ(damaged.flow_table().flows().size(), 2u);
  const FlowSummary want = SummarizeFlow(intact.flow_table().flows()[1], 0);
  const FlowSummary got = SummarizeFlow(damaged.flow_table().flows()[1], 0);
  EXPECT_EQ(want.data_bytes,
            18114517u);  // As RttSamplesAgreeWithTshark's flow.
  EXPECT_NEAR(static_cast<double>(got.data_bytes),
              static_cast<double>(want.data_bytes), want.max_payload_bytes);
  EXPECT_EQ(got.retransmitted_segments, want.retransmitted_segments);
  const TimelineStats want_stats = intact.Stats(1);
  const TimelineStats got_stats = damaged.Stats(1);
  EXPECT_EQ(want_stats.rtt_samples, 6087u);  // As RttSamplesAgreeWithTshark.
  EXPECT_NEAR(static_cast<double>(got_stats.rtt_samples),
              static_cast<double>(want_stats.rtt_samples), 1.0);
  for (int kind = 0; kind < 4; ++kind) {
    EXPECT_EQ(got_stats.retransmissions[kind], want_stats.retransmissions[kind])
        << kind;
  }
}

// ---- AccECN captures (l4s-tests, sender side) ---------------------------

void ExpectSaneCeCount(const Timeline& t) {
  uint64_t total = 0;
  for (const TimelineEvent& e : t.events) {
    if (e.type != TimelineEvent::Type::kAck) continue;
    EXPECT_LE(e.ce_packets, e.packets_delivered) << e.time_ns;
    EXPECT_EQ(e.ce_packets_total, total + e.ce_packets);  // Monotonic.
    total = e.ce_packets_total;
  }
  EXPECT_EQ(t.stats.ce_fed_back_packets, total);
}

TEST(AckTimelineTest, AccEcnCePacketsPragueAndCubic) {
  CCREPLAY_PATH_OR_SKIP(
      prague_path, SharedTestData("tcp/l4s-tests_prague_dualpi2_wifi.pcap.gz"));
  CCREPLAY_PATH_OR_SKIP(
      cubic_path, SharedTestData("tcp/l4s-tests_cubic_fq_codel_wifi.pcap.gz"));
  Timeline prague = Build(prague_path);
  ExpectSaneCeCount(prague);
  // Reported total (no independent decoder exists; the flow table's
  // ace_changes = 4856 bounds it from below: each change is >= 1 packet).
  EXPECT_EQ(prague.stats.ce_fed_back_packets, 5327u);
  EXPECT_GE(*prague.stats.ce_fed_back_packets, 4856u);
  Timeline cubic = Build(cubic_path);
  ExpectSaneCeCount(cubic);
  EXPECT_EQ(cubic.stats.ce_fed_back_packets, 97u);
}

// ---- The sender's MSS -----------------------------------------------------

// The TSO/GSO warning needs segments of two MSS or more. The zeek-tcprs
// servers send full segments above the client's MSS option (`tshark -r F
// -Y 'tcp.len>1380' -T fields -e tcp.len | sort | uniq -c`: fast011 105 of
// 1446 bytes against an MSS option of 1400, comp002 117 of 1446 against
// 1380): a sender whose full segments run over, not super-segments, so no
// warning (before, "105 segments larger than the MSS"). The lab's SLL2
// capture was taken with TSO on (`tshark -r F -Y 'tcp.stream==1 &&
// tcp.len>=2856'`: 7 segments of 2 x 1428 bytes or more, the largest
// 47124): warned about, with that count.
TEST(AckTimelineTest, SuperSegmentWarningNeedsTwoMss) {
  const auto warns_of_super_segments = [](const Timeline& t) {
    for (const std::string& w : t.stats.warnings) {
      if (absl::StrContains(w, "super-segments")) return w;
    }
    return std::string();
  };
  for (const char* file :
       {"wild/zeek-tcprs_fast011.pcap", "wild/zeek-tcprs_comp002.pcap"}) {
    CCREPLAY_PATH_OR_SKIP(path, SharedTestData(file));
    EXPECT_EQ(warns_of_super_segments(Build(path)), "") << file;
  }
  CCREPLAY_PATH_OR_SKIP(tso,
                        FindTestData("pcap-format/ccreplay_sll2_ipv6.pcap"));
  EXPECT_THAT(warns_of_super_segments(Build(tso)),
              ::testing::StartsWith("7 segments larger than the MSS (up to "
                                    "47124 bytes): TSO/GSO super-segments"));
}

TEST(AckTimelineTest, MssFromTheHandshakeAndPragueLowering) {
  // iperf3's control connection (flow 0) sends a 37-byte cookie first:
  // the MSS is the handshake's, `tshark -r F -Y tcp.flags.syn==1 -T fields
  // -e tcp.options.mss_val -e tcp.options.timestamp.tsval`: 1460 both
  // ways, timestamps on, so 1460 - 12 = 1448.
  const std::string lab =
      TestDataPath("lab/cubic_noecn_droptail100_50mbit/sender.pcap.gz");
  FlowTable table;
  ASSERT_TRUE(ReadCapture(lab, table).ok());
  std::vector<TimelineEvent> control;
  AckTimelineBuilder builder(
      0, table.flows()[0].sender_side(),
      [&control](const TimelineEvent& e) { control.push_back(e); });
  ASSERT_TRUE(ReadCapture(lab, builder).ok());
  builder.Finish();
  ASSERT_FALSE(control.empty());
  EXPECT_EQ(control[0].bytes_acked, 37u);
  EXPECT_EQ(control[0].mss_bytes, 1448u);
  // Prague sends 1432-byte segments below its handshake's 1448: `tshark -r
  // F -Y tcp.len>0 -T fields -e tcp.len | sort | uniq -c` gives 30809 of
  // 1432 and none larger. The MSS starts at 1448 and follows it down
  // within the first 128 full segments, never to go back.
  CCREPLAY_PATH_OR_SKIP(
      prague_path, SharedTestData("tcp/l4s-tests_prague_dualpi2_wifi.pcap.gz"));
  Timeline prague = Build(prague_path);
  std::vector<TimelineEvent> acks = Acks(prague);
  ASSERT_GT(acks.size(), 100u);
  EXPECT_EQ(acks.front().mss_bytes, 1448u);
  EXPECT_EQ(acks.back().mss_bytes, 1432u);
  size_t lowered_at = acks.size();
  for (size_t i = 0; i < acks.size(); ++i) {
    if (lowered_at == acks.size() && acks[i].mss_bytes == 1432) lowered_at = i;
    if (lowered_at < i) {
      EXPECT_EQ(acks[i].mss_bytes, 1432u) << i;
    }
  }
  EXPECT_LE(acks[lowered_at].ack, 1 + 128 * 1432);
}

// ---- Synthetic cases: a small packet builder -----------------------------

// Builds the segments of one connection: the client 10.0.0.1:40000 sends
// data to 10.0.0.2:80, which acknowledges. Sequence numbers are given
// relative (data starts at 1) and written on the wire from `isn`.
class Connection {
 public:
  static constexpr uint32_t kMss = 1000;
  explicit Connection(uint32_t client_isn, bool accecn = false,
                      bool timestamps = false)
      : isn_(client_isn), accecn_(accecn), timestamps_(timestamps) {}

  // `syn_copies`: the client's SYN is sent that many times (its
  // retransmission timer fired) before the SYN-ACK.
  // `syn_ack_us`: when the SYN-ACK comes (the client's ACK 1 us later).
  void Handshake(int syn_copies = 1, int64_t syn_ack_us = 1) {
    TcpSegment syn = Segment(true, 0);
    syn.seq = isn_;
    syn.flags = kTcpSyn | (accecn_ ? (kTcpAe | kTcpCwr | kTcpEce) : 0);
    syn.options.has_mss = true;
    syn.options.mss_bytes = kMss;
    syn.options.sack_permitted = true;
    for (int i = 0; i < syn_copies; ++i) segments_.push_back(syn);
    TcpSegment syn_ack = Segment(false, syn_ack_us);
    syn_ack.seq = kServerIsn;
    syn_ack.ack = isn_ + 1;
    // RFC 9768 Table 2: (AE,CWR,ECE) = 010 accepts AccECN.
    syn_ack.flags = kTcpSyn | kTcpAck | (accecn_ ? kTcpCwr : 0);
    syn_ack.options = syn.options;
    segments_.push_back(syn_ack);
    TcpSegment ack = Segment(true, syn_ack_us + 1);
    ack.seq = isn_ + 1;
    ack.ack = kServerIsn + 1;
    ack.flags = kTcpAck;
    segments_.push_back(ack);
  }
  // Data [start, start + bytes) at `time_us`.
  TcpSegment& Data(int64_t time_us, int64_t start, uint32_t bytes) {
    TcpSegment d = Segment(true, time_us);
    d.seq = isn_ + static_cast<uint32_t>(start);
    d.ack = kServerIsn + 1;
    d.flags = kTcpAck;
    d.payload_bytes = d.captured_payload_bytes = bytes;
    segments_.push_back(d);
    return segments_.back();
  }
  // An ACK of `ack` with SACK blocks (relative) and, for AccECN, ACE.
  TcpSegment& Ack(int64_t time_us, int64_t ack,
                  std::vector<std::pair<int64_t, int64_t>> sack = {},
                  uint8_t ace = 5) {
    TcpSegment a = Segment(false, time_us);
    a.seq = kServerIsn + 1;
    a.ack = isn_ + static_cast<uint32_t>(ack);
    a.flags = kTcpAck | (accecn_ ? AceFlags(ace) : 0);
    a.window_raw = 65535;
    a.options.sack_block_count = static_cast<uint8_t>(sack.size());
    for (size_t k = 0; k < sack.size(); ++k) {
      a.options.sack_left[k] = isn_ + static_cast<uint32_t>(sack[k].first);
      a.options.sack_right[k] = isn_ + static_cast<uint32_t>(sack[k].second);
    }
    segments_.push_back(a);
    return segments_.back();
  }

  // Feeds everything to a one-flow builder (the client sends); `before_finish`
  // (if given): the events emitted before AckTimelineBuilder::Finish().
  Timeline Run(size_t* before_finish = nullptr) const {
    Timeline t;
    AckTimelineBuilder builder(
        0, 0, [&t](const TimelineEvent& e) { t.events.push_back(e); });
    for (const TcpSegment& s : segments_) builder.OnSegment(s);
    if (before_finish != nullptr) *before_finish = t.events.size();
    builder.Finish();
    t.stats = builder.Stats(0);
    return t;
  }

 private:
  static constexpr uint32_t kServerIsn = 7000;
  static uint16_t AceFlags(uint8_t ace) {
    return static_cast<uint16_t>(((ace & 4) ? kTcpAe : 0) |
                                 ((ace & 2) ? kTcpCwr : 0) |
                                 ((ace & 1) ? kTcpEce : 0));
  }
  TcpSegment Segment(bool from_client, int64_t time_us) const {
    TcpSegment s;
    s.time_ns = 1000000000000 + time_us * 1000;
    s.src.family = s.dst.family = 4;
    const uint8_t client[4] = {10, 0, 0, 1}, server[4] = {10, 0, 0, 2};
    std::memcpy(s.src.bytes, from_client ? client : server, 4);
    std::memcpy(s.dst.bytes, from_client ? server : client, 4);
    s.src_port = from_client ? 40000 : 80;
    s.dst_port = from_client ? 80 : 40000;
    // Millisecond clocks; each side echoes the other's first TSval.
    s.options.has_timestamps = timestamps_;
    if (timestamps_) {
      s.options.ts_val =
          static_cast<uint32_t>((from_client ? 1000 : 5000) + time_us / 1000);
      s.options.ts_ecr = time_us == 0 ? 0 : (from_client ? 5000 : 1000);
    }
    return s;
  }

  uint32_t isn_;
  bool accecn_;
  bool timestamps_;
  std::vector<TcpSegment> segments_;
};

TEST(AckTimelineSyntheticTest, BackloggedAcksAreBounded) {
  // Captured at the sender with timestamps, every pure ACK waits for the
  // sender's next segment to show whether it was taken late. A sender that
  // never sends again (or a capture that lost its direction) must not make
  // the ACKs wait for ever: at most 64 wait, for at most 50 ms.
  // The SYN-ACK 10 ms after the SYN, the client's ACK 1 us after it: the
  // capture is at the client, the sender.
  Connection c(1000, /*accecn=*/false, /*timestamps=*/true);
  c.Handshake(1, 10000);
  c.Data(10100, 1, 1000);
  for (int i = 0; i < 100; ++i) c.Ack(20000 + i, 1001);
  size_t before_finish = 0;
  Timeline t = c.Run(&before_finish);
  EXPECT_EQ(t.stats.vantage, Vantage::kSender);
  EXPECT_EQ(Acks(t).size(), 100u);
  EXPECT_EQ(before_finish, 64u);  // The first 64, released by the 65th.
  // Spread over 60 ms, each ACK waits at most 50 ms.
  Connection slow(1000, /*accecn=*/false, /*timestamps=*/true);
  slow.Handshake(1, 10000);
  slow.Data(10100, 1, 1000);
  for (int i = 0; i < 4; ++i) slow.Ack(20000 + i * 20000, 1001);
  slow.Run(&before_finish);
  EXPECT_EQ(before_finish, 3u);  // At 60 ms, the three before it.
}

TEST(AckTimelineSyntheticTest, AceWrapByExactlyEight) {
  // One ACK delivers 8 segments and ACE is unchanged (5): 0 or 8 CE marks.
  Connection c(1000, /*accecn=*/true);
  c.Handshake();
  for (int i = 0; i < 16; ++i) c.Data(100 + i, 1 + i * 1000, 1000);
  c.Ack(20000, 8001, {}, 5);  // Without the option: the conservative 8.
  // With the option: ECEB first seen as a baseline, then +8000 CE bytes.
  TcpSegment& baseline = c.Ack(20010, 8001, {}, 5);
  baseline.options.accecn = {172, false, 3, 1, 0, 1};
  TcpSegment& wrapped = c.Ack(20020, 16001, {}, 5);
  wrapped.options.accecn = {172, false, 3, 1, 8000, 1};
  std::vector<TimelineEvent> acks = Acks(c.Run());
  ASSERT_EQ(acks.size(), 3u);
  EXPECT_EQ(acks[0].packets_delivered, 8u);
  EXPECT_EQ(acks[0].ce_packets, 8u);
  EXPECT_EQ(acks[1].ce_packets, 0u);
  EXPECT_EQ(acks[2].ce_bytes, 8000u);
  EXPECT_EQ(acks[2].ce_packets, 8u);
  EXPECT_EQ(acks[2].ce_packets_total, 16u);
}

TEST(AckTimelineSyntheticTest, SackRenegingIsDetectedAndForgotten) {
  Connection c(1000);
  c.Handshake();
  for (int i = 0; i < 5; ++i) c.Data(100 + i, 1 + i * 1000, 1000);
  c.Ack(20000, 1001, {{2001, 4001}});  // Segment 2 missing, 3-4 SACKed.
  c.Ack(20100, 2001);                  // Segment 2 arrives... but 3 is not
                                       // acknowledged: the receiver reneged.
  std::vector<TimelineEvent> acks = Acks(c.Run());
  ASSERT_EQ(acks.size(), 2u);
  EXPECT_EQ(acks[0].bytes_sacked, 2000u);
  EXPECT_EQ(acks[0].sacked_bytes, 2000u);
  EXPECT_FALSE(acks[0].reneged);
  EXPECT_TRUE(acks[1].reneged);
  EXPECT_EQ(acks[1].bytes_acked, 1000u);
  EXPECT_EQ(acks[1].sacked_bytes, 0u);
  EXPECT_EQ(acks[1].pipe_bytes, 3000u);  // 2001..5001 back in flight.
}

// A reordered segment: its successors arrive first and are SACKed, then
// it fills the hole. The ACK that reports it acks three segments
// cumulatively, but two of them had left the pipe with the SACK before:
// the flight the sender had when it took the ACK is one segment plus the
// two sent since (as frame 163 of testdata/lab/k618_cubic_20ms_unpaced_
// 20mbit_pfifo50_reorder2/sender.pcap.gz, ACK 76745 -> 81089 over
// 78193-81089 SACKed by frames 159 and 161: `tshark -r sender.pcap -Y
// 'tcp.srcport==26800' -T fields -e frame.number -e tcp.ack -e
// tcp.options.sack_le -e tcp.options.sack_re`).
TEST(AckTimelineSyntheticTest, PipeBeforeAHoleFillingAckLeavesSackedBytesOut) {
  Connection c(1000);
  c.Handshake();
  for (int i = 0; i < 4; ++i) c.Data(100 + i, 1 + i * 1000, 1000);
  c.Ack(20000, 1001, {{2001, 3001}});  // Segment 2 held, segment 3 SACKed.
  c.Data(20010, 4001, 1000);
  c.Ack(20100, 1001, {{2001, 4001}});  // Segment 4 SACKed too.
  c.Data(20110, 5001, 1000);
  c.Ack(20200, 4001, {});  // Segment 2 arrives: 3 segments acked.
  std::vector<TimelineEvent> acks = Acks(c.Run());
  ASSERT_EQ(acks.size(), 3u);
  EXPECT_EQ(acks[0].pipe_before_bytes, 4000u);
  EXPECT_EQ(acks[1].pipe_before_bytes, 3000u);  // 1001..2001, 3001..5001.
  EXPECT_EQ(acks[2].bytes_acked, 3000u);
  EXPECT_EQ(acks[2].pipe_bytes, 2000u);  // 4001..6001.
  // Segment 2 and the two in flight, not 2000 + 3000.
  EXPECT_EQ(acks[2].pipe_before_bytes, 3000u);
}

TEST(AckTimelineSyntheticTest, RetransmissionOfARetransmission) {
  Connection c(1000);
  c.Handshake();
  for (int i = 0; i < 6; ++i) c.Data(1000 + i, 1 + i * 1000, 1000);
  c.Ack(11000, 1);  // RTT samples need new data acknowledged: none yet.
  c.Ack(11001, 1, {{1001, 2001}});
  c.Ack(11002, 1, {{1001, 3001}});
  c.Ack(11003, 1, {{1001, 4001}});
  c.Data(11010, 1, 1000);    // Fast retransmit after three duplicates.
  c.Data(1300000, 1, 1000);  // Lost again: 1.29 s of silence, the RTO.
  c.Ack(1310000, 6001);
  Timeline t = c.Run();
  std::vector<TimelineEvent> rtx;
  for (const TimelineEvent& e : t.events) {
    if (e.type == TimelineEvent::Type::kRetransmission) rtx.push_back(e);
  }
  ASSERT_EQ(rtx.size(), 2u);
  EXPECT_EQ(rtx[0].kind, RetransmissionKind::kFast);
  EXPECT_TRUE(rtx[0].starts_episode);
  EXPECT_FALSE(rtx[0].retransmits_retransmission);
  EXPECT_EQ(rtx[1].kind, RetransmissionKind::kRto);
  EXPECT_TRUE(rtx[1].starts_episode);
  EXPECT_TRUE(rtx[1].retransmits_retransmission);
  // After the RTO every unSACKed byte is lost; the resent one is in flight.
  EXPECT_EQ(rtx[1].lost_bytes, 3000u);
  EXPECT_EQ(rtx[1].pipe_bytes, 1000u);
  std::vector<TimelineEvent> acks = Acks(t);
  // Karn: the ACK covers resent data and there are no timestamps.
  EXPECT_EQ(acks.back().rtt_sample_us, 0);
  EXPECT_EQ(acks.back().bytes_acked, 6000u);
  EXPECT_EQ(t.stats.retransmissions[0], 1u);
  EXPECT_EQ(t.stats.retransmissions[1], 1u);
}

// Linux counts in tp->lost, and so in the next ACK's rs->losses, what RACK
// marks (RFC 8985 section 6.2: by time, with one SACKed segment above)
// and a lost retransmission (net/ipv4/tcp_recovery.c
// tcp_rack_detect_loss(), Linux 6.18); RFC 6675's IsLost() needs three
// SACKed segments above, so the replay learns those losses from the
// retransmission, and counts them at the next ACK.
TEST(AckTimelineSyntheticTest, RetransmissionRevealsLossesToTheNextAck) {
  Connection c(1000);
  c.Handshake();
  for (int i = 0; i < 6; ++i) c.Data(1000 + i, 1 + i * 1000, 1000);
  c.Ack(11000, 1001);                  // RTT sample: 10 ms.
  c.Ack(11001, 1001, {{2001, 3001}});  // Segment 2 missing, one SACKed.
  c.Data(25000, 1001, 1000);           // RACK resends it: not IsLost().
  c.Ack(25010, 1001, {{2001, 4001}});
  c.Data(40000, 1001, 1000);  // Resent again: the retransmission was lost.
  c.Ack(40010, 1001, {{2001, 5001}});
  c.Ack(50000, 6001);
  const Timeline t = c.Run();
  std::vector<TimelineEvent> rtx;
  for (const TimelineEvent& e : t.events) {
    if (e.type == TimelineEvent::Type::kRetransmission) rtx.push_back(e);
  }
  ASSERT_EQ(rtx.size(), 2u);
  EXPECT_EQ(rtx[0].kind, RetransmissionKind::kFast);
  EXPECT_EQ(rtx[1].kind, RetransmissionKind::kFast);
  const std::vector<TimelineEvent> acks = Acks(t);
  ASSERT_EQ(acks.size(), 5u);
  EXPECT_EQ(acks[1].packets_newly_lost, 0u);  // one SACK: not lost yet
  EXPECT_EQ(acks[2].packets_newly_lost, 1u);  // the first retransmission
  EXPECT_EQ(acks[3].packets_newly_lost, 1u);  // its retransmission lost
  EXPECT_EQ(acks[4].packets_newly_lost, 0u);
}

// RACK's reordering window grows by min_rtt / 4 on a D-SACK once
// reordering has been seen (net/ipv4/tcp_input.c tcp_dsack_seen(),
// net/ipv4/tcp_recovery.c tcp_rack_update_reo_wnd(), Linux 6.18). Min RTT
// 10 ms, so one step is 2.5 ms. Segment 17 arrives after 18 (reordering
// seen), segment 19 is resent at once and the copy is D-SACKed
// (spurious). Then a hole: segment 21 left 4 ms before segment 22, which
// is SACKed. With one step (2.5 ms) RACK marks 21 lost; with the D-SACK's
// second step (5 ms) it waits, and 21 arrives.
TEST(AckTimelineSyntheticTest, DsackWidensRacksReorderingWindow) {
  Connection c(1000);
  c.Handshake();
  // 16 segments, each ACKed 10 ms later: min RTT 10 ms, srtt above 8 ms
  // (the handshake's microsecond sample ages out), so srtt does not cap
  // the window below.
  for (int i = 0; i < 16; ++i) {
    c.Data(1000 + i * 100, 1 + i * 1000, 1000);
    c.Ack(11000 + i * 100, 1001 + i * 1000);
  }
  // Segments 17-20 (bytes 16001-20001).
  for (int i = 16; i < 20; ++i) c.Data(20000 + i, 1 + i * 1000, 1000);
  c.Ack(30100, 16001, {{17001, 18001}});  // 18 before 17
  c.Ack(30200, 18001);                    // 17, never resent: reordering
  c.Data(30250, 18001, 1000);             // 19 resent
  c.Ack(30300, 20001);                    // the original 19, and 20
  c.Ack(40300, 20001, {{18001, 19001}});  // D-SACK of 19's copy
  c.Data(50000, 20001, 1000);             // 21
  c.Data(54000, 21001, 1000);             // 22, 4 ms later
  c.Ack(64100, 20001, {{21001, 22001}});  // 22 SACKed, 21 missing
  c.Ack(66000, 22001);                    // 21 arrives late
  const Timeline t = c.Run();
  const std::vector<TimelineEvent> acks = Acks(t);
  ASSERT_EQ(acks.size(), 22u);
  EXPECT_EQ(acks[15].min_rtt_us, 10001);
  EXPECT_GT(acks[20].srtt_us, 8000);
  EXPECT_GT(acks[19].bytes_dsacked, 0u);
  EXPECT_EQ(acks[20].packets_rack_lost, 0u);
  EXPECT_EQ(acks[21].packets_rack_lost, 0u);
}

TEST(AckTimelineSyntheticTest, SequenceWrapInsideASackBlock) {
  // ISN 2^32 - 2500: relative byte 2501 is raw 0, so the SACK block
  // [2001, 4001) runs from raw 0xFFFFFE0C... past 0 to 0x5DC.
  Connection c(0xFFFFF63C);
  c.Handshake();
  for (int i = 0; i < 5; ++i) c.Data(100 + i, 1 + i * 1000, 1000);
  c.Ack(20000, 1001, {{2001, 4001}});
  c.Ack(20100, 5001);
  std::vector<TimelineEvent> acks = Acks(c.Run());
  ASSERT_EQ(acks.size(), 2u);
  EXPECT_EQ(acks[0].bytes_acked, 1000u);
  EXPECT_EQ(acks[0].bytes_sacked, 2000u);
  EXPECT_EQ(acks[0].outstanding_bytes, 4000u);
  EXPECT_EQ(acks[0].pipe_bytes, 2000u);
  EXPECT_EQ(acks[1].bytes_acked, 4000u);
  EXPECT_EQ(acks[1].ack, 5001);
}

TEST(AckTimelineSyntheticTest, MssFromTheHandshakeThenLowered) {
  // Both SYNs say 1000 bytes, no timestamps: the MSS is 1000 from the
  // first (short) segment on, until 64 segments sent behind data in flight
  // are at most 900 bytes (more than half of them exactly 900).
  Connection c(1000);
  c.Handshake();
  c.Data(100, 1, 37);  // An application's first short write.
  c.Ack(200, 38);
  int64_t seq = 38;
  for (int i = 0; i < 64; ++i) {
    c.Data(300 + i, seq, i % 2 == 0 ? 900 : 700);
    seq += i % 2 == 0 ? 900 : 700;
  }
  c.Ack(400, seq);
  std::vector<TimelineEvent> acks = Acks(c.Run());
  ASSERT_EQ(acks.size(), 2u);
  EXPECT_EQ(acks[0].mss_bytes, Connection::kMss);
  EXPECT_EQ(acks[1].mss_bytes, Connection::kMss);  // Only 32 of 900: kept.
  Connection lowered(1000);
  lowered.Handshake();
  seq = 1;
  for (int i = 0; i < 65; ++i) {
    lowered.Data(300 + i, seq, i < 40 ? 900 : 800);
    seq += i < 40 ? 900 : 800;
  }
  lowered.Ack(400, seq);
  acks = Acks(lowered.Run());
  ASSERT_EQ(acks.size(), 1u);
  EXPECT_EQ(acks[0].mss_bytes, 900u);
}

TEST(AckTimelineSyntheticTest, RepeatedSynIsAnRtoRetransmission) {
  // The flow's state is made at its second segment, from the table's
  // record of the first SYN: the SYN sent again must still count.
  for (int copies : {1, 3}) {
    Connection c(1000);
    c.Handshake(copies);
    c.Data(100, 1, 1000);
    c.Ack(10100, 1001);
    Timeline t = c.Run();
    EXPECT_EQ(
        t.stats.retransmissions[static_cast<int>(RetransmissionKind::kRto)],
        static_cast<uint64_t>(copies - 1));
    EXPECT_EQ(t.stats.bytes_acked, 1000u);
    EXPECT_EQ(t.stats.rtt_samples, 1u);
  }
}

TEST(AckTimelineSyntheticTest, SynOnlyFlowStatsAsAfterItsSyn) {
  // No state is kept for a flow that only sent a SYN; its figures are
  // those of the state that SYN would have left: vantage unknown, and
  // why the sender's window cannot be seen.
  TcpSegment syn;
  syn.src.family = syn.dst.family = 4;
  syn.src.bytes[0] = 10;
  syn.dst.bytes[0] = 192;
  syn.src_port = 40000;
  syn.dst_port = 5201;
  syn.flags = kTcpSyn;
  AckTimelineBuilder builder;
  builder.OnSegment(syn);
  builder.Finish();
  TimelineStats stats = builder.Stats(0);
  EXPECT_EQ(stats.vantage, Vantage::kUnknown);
  EXPECT_EQ(stats.sender_window, SenderWindowFor(Vantage::kUnknown));
  EXPECT_EQ(stats.sender_window_reason,
            SenderWindowReason(Vantage::kUnknown, 0, false));
  EXPECT_FALSE(stats.sender_window_reason.empty());
  EXPECT_EQ(stats.acks, 0u);
}

TEST(AckTimelineSyntheticTest, ClosedFlowKeepsItsStatistics) {
  // Data, its ACK, FIN both ways and their ACKs: the scoreboard is freed at
  // the close, the figures stay, and a late duplicate is harmless.
  Connection c(1000);
  c.Handshake();
  c.Data(100, 1, 1000);
  c.Data(101, 1001, 1000);
  c.Ack(10100, 2001);
  c.Data(10200, 2001, 0).flags |= kTcpFin;
  c.Ack(20200, 2002).flags |= kTcpFin;
  c.Data(20300, 2002, 0);  // The client's ACK of the server's FIN.
  c.Ack(20400, 2002);      // A late duplicate, after the release.
  Timeline t = c.Run();
  EXPECT_EQ(t.stats.bytes_acked, 2000u);
  EXPECT_EQ(t.stats.rtt_samples, 1u);
  std::vector<TimelineEvent> acks = Acks(t);
  ASSERT_EQ(acks.size(), 3u);
  // 10100 - 101 us, plus the handshake's estimate of the way to the sender.
  EXPECT_NEAR(acks[0].rtt_sample_us, 9999, 2);
  EXPECT_DOUBLE_EQ(t.stats.rtt_max_ms, acks[0].rtt_sample_us / 1000.0);
  EXPECT_EQ(acks.back().outstanding_bytes, 0u);
  EXPECT_EQ(acks.back().ack, 2001);
}

}  // namespace
}  // namespace ccreplay

namespace ccreplay {
namespace {

// The median of (outstanding + newly acked) over the ACKs: the flight the
// sender had when each ACK arrived.
uint64_t MedianFlightBeforeAck(const Timeline& t) {
  std::vector<uint64_t> flight;
  for (const TimelineEvent& e : t.events) {
    if (e.type == TimelineEvent::Type::kAck)
      flight.push_back(e.outstanding_bytes + e.bytes_acked);
  }
  if (flight.empty()) return 0;
  std::nth_element(flight.begin(), flight.begin() + flight.size() / 2,
                   flight.end());
  return flight[flight.size() / 2];
}

TEST(AckTimelineTest, ReceiverSideFlightIsTheSendersEstimated) {
  // The same bulk flow captured at both ends. At the sender, tshark's
  // flight: `tshark -r sender.pcap.gz -Y "tcp.analysis.bytes_in_flight &&
  // tcp.srcport!=5201" -T fields -e tcp.analysis.bytes_in_flight`, median
  // 121632 bytes. Before the ACKs were held, the receiver's view showed
  // 0-1 segment in flight.
  const std::string dir = "lab/cubic_noecn_droptail100_50mbit/";
  Timeline rcv = Build(TestDataPath(dir + "receiver.pcap.gz"));
  EXPECT_EQ(rcv.stats.vantage, Vantage::kReceiver);
  EXPECT_EQ(rcv.stats.sender_window, SenderWindow::kEstimated);
  EXPECT_STREQ(SenderWindowName(rcv.stats.sender_window), "estimated");
  const double flight = static_cast<double>(MedianFlightBeforeAck(rcv));
  EXPECT_NEAR(flight, 121632.0, 0.05 * 121632.0);
  Timeline snd = Build(TestDataPath(dir + "sender.pcap.gz"));
  EXPECT_EQ(snd.stats.sender_window, SenderWindow::kObserved);
  EXPECT_NEAR(static_cast<double>(MedianFlightBeforeAck(snd)), 121632.0,
              0.05 * 121632.0);
}

TEST(AckTimelineTest, UnknownVantageAttributesNoLimit) {
  // No handshake in the capture: the sender's window cannot be told.
  CCREPLAY_PATH_OR_SKIP(path, SharedTestData("wild/pcapplusplus_tls2.pcap.gz"));
  Timeline t = Build(path);
  EXPECT_EQ(t.stats.vantage, Vantage::kUnknown);
  EXPECT_EQ(t.stats.sender_window, SenderWindow::kUnobservable);
  size_t acks = 0;
  for (const TimelineEvent& e : t.events) {
    if (e.type != TimelineEvent::Type::kAck) continue;
    ++acks;
    EXPECT_EQ(e.limit, SendLimit::kUnknown);
  }
  EXPECT_GT(acks, 0u);
}

TEST(AckTimelineTest, ReceiverSideWithoutTimestampsKeepsCaptureOrder) {
  // Captured at the TLS client; the server's SYN-ACK has no timestamps.
  // `tshark -r FILE -T fields -e frame.number -e frame.time_relative -e
  // tcp.srcport -e tcp.seq -e tcp.ack -e tcp.len`: frame 7 (0.049050 s)
  // acks the server's 4356 B, frame 8 (0.050151) brings 913 B more,
  // frame 14 (0.064941) 51 B. The handshake round trip is 15.957 ms, yet
  // frame 13 acks the client's frame 10 (0.051397) 13.544 ms after it:
  // held for the handshake's, ACK 7 would count frame 14, sent after the
  // server had it, as in flight. So without timestamps ACK 7 stays as
  // captured: nothing in flight, and cwnd-limited (frame 6 was 4356 B).
  CCREPLAY_PATH_OR_SKIP(path,
                        GopacketTestData("pcapgo/tests/le/test301.pcapng"));
  Timeline t = Build(path);
  EXPECT_EQ(t.stats.vantage, Vantage::kReceiver);
  EXPECT_EQ(t.stats.sender_window, SenderWindow::kEstimated);
  EXPECT_NE(t.stats.sender_window_reason.find("in capture order"),
            std::string::npos)
      << t.stats.sender_window_reason;
  const std::vector<TimelineEvent> acks = Acks(t);
  auto ack7 = std::find_if(
      acks.begin(), acks.end(),
      [](const TimelineEvent& e) { return e.bytes_acked == 4356; });
  ASSERT_NE(ack7, acks.end());
  EXPECT_EQ(ack7->outstanding_bytes, 0u);
  EXPECT_EQ(ack7->limit, SendLimit::kCwnd);
}

TEST(AckTimelineTest, FramesCapturedTwiceLeaveTheTimelineAsItWas) {
  // Every frame of the lab capture twice (`mergecap -w dup.pcap F F`):
  // tshark counts 12534 retransmissions in dup.pcap and 9 after `editcap
  // -d`, as in F. The timeline of the doubled file is F's but for the one
  // RST+ACK (`tshark -r F -Y tcp.flags.reset==1`: 58 bare RSTs, one with
  // ACK), whose copy is kept since an RST is never taken for one: one ACK
  // event more.
  const std::string original =
      TestDataPath("lab/cubic_noecn_droptail100_50mbit/sender.pcap.gz");
  const Timeline want = Build(original);
  const Timeline got =
      Build(WriteTemp("doubled_timeline.pcap", DoubledPcap(original)));
  ASSERT_GT(want.events.size(), 6000u);  // One per ACK of the 6521.
  EXPECT_EQ(got.events.size(), want.events.size() + 1);
  for (int kind = 0; kind < 4; ++kind) {
    EXPECT_EQ(got.stats.retransmissions[kind], want.stats.retransmissions[kind])
        << RetransmissionKindName(static_cast<RetransmissionKind>(kind));
  }
  EXPECT_EQ(got.stats.acks, want.stats.acks + 1);
  EXPECT_EQ(got.stats.rtt_samples, want.stats.rtt_samples);
  EXPECT_EQ(got.stats.bytes_acked, want.stats.bytes_acked);
}

// ---- Application-limited by what the sender had (issue 15 item 3) -------

// ACK events by their limit, counting only those with data in flight
// before the ACK (outstanding after it, or newly acknowledged).
std::map<SendLimit, int> LimitsWithDataInFlight(const Timeline& t) {
  std::map<SendLimit, int> out;
  for (const TimelineEvent& e : Acks(t)) {
    if (e.outstanding_bytes + e.bytes_acked > 0) ++out[e.limit];
  }
  return out;
}

// zeek-tcprs_fast019.pcap's server sends bursts of 1,434-byte segments
// ending in one of 1,338 to 1,418 bytes, and answers each ACK with the
// next burst within half a millisecond (`tshark -r zeek-tcprs_fast019.pcap
// -T fields -e frame.time_relative -e tcp.srcport -e tcp.len`, frames
// 100-170: ACK at 1.222755, data at 1.222826). It had data queued: the
// ACKs before those answers are window-limited, not application-limited.
// Before this rule, 209 of its 267 ACK events were "app" with data in
// flight (every burst's short last segment); now 21 are.
TEST(AckTimelineTest, BurstsEndingShortAreNotApplicationLimited) {
  CCREPLAY_PATH_OR_SKIP(path, SharedTestData("tcp/zeek-tcprs_fast019.pcap"));
  const std::map<SendLimit, int> limits = LimitsWithDataInFlight(Build(path));
  EXPECT_LE(limits.count(SendLimit::kApp) ? limits.at(SendLimit::kApp) : 0, 25);
  // Held by its window or Nagle's rule, which the capture cannot tell
  // apart: 177 now.
  EXPECT_GE(
      limits.count(SendLimit::kUnknown) ? limits.at(SendLimit::kUnknown) : 0,
      150);
}

// The lab's built-in sender writing 16 kB every 13 ms (10 Mb/s) on a
// 20 Mb/s path: the ACKs after a chunk's short last segment are not
// answered at once (the next chunk comes when the application writes),
// so they stay "app": 314 of the 1,306 ACK events (437 before this rule;
// those answered at once by new data, Nagle or the window holding the
// chunk's remainder, are now "unknown").
TEST(AckTimelineTest, ApplicationLimitedLabSenderStaysSo) {
  const std::map<SendLimit, int> limits = LimitsWithDataInFlight(
      Build(TestDataPath("lab/cubic_app10mbit_20mbit_20ms_3s/sender.pcap.gz")));
  EXPECT_GE(limits.count(SendLimit::kApp) ? limits.at(SendLimit::kApp) : 0,
            280);
}

}  // namespace
}  // namespace ccreplay
