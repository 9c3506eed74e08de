// Per-ACK fidelity of reno:linux and cubic:linux against the Linux 6.18
// kernel's own cwnd (tcp_probe, before each ACK), at every ACK, on lab
// bundles at 20 and 40 ms base RTT, paced (iperf3: bbr namespace default,
// TCP_CONGESTION after connect()) and unpaced (the built-in sender sets
// the controller before connect()). Bundles and commands: testdata/
// SOURCES.md. The goal of issue 14 is median <= 1 %, p95 <= 5 %; the
// bounds below are tighter: what the models reach, plus a little.
#include <zlib.h>

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "absl/strings/strip.h"
#include "gtest/gtest.h"
#include "replay/divergence.h"
#include "replay/replay_session.h"

namespace ccreplay {
namespace {

const std::string kLab = std::string(CCREPLAY_TESTDATA_DIR) + "/lab/";

// The lab's sender veth has gso_max_size 1500; this kernel runs HZ=250.
// The model is the sender's own controller, so cwnd-limitation comes from
// its own window and the captured flight (limited=flight).
constexpr char kReno[] = "reno:linux,limited=flight";
constexpr char kCubicPaced[] =
    "cubic:linux,hz=250,paced=1,gso=1500,limited=flight";
constexpr char kCubicUnpaced[] =
    "cubic:linux,hz=250,paced=0,gso=1500,limited=flight";

std::vector<ReplayedController> Replay(const std::string& bundle,
                                       std::vector<std::string> specs) {
  ReplayOptions options;
  options.specs = std::move(specs);
  options.host_state_path = kLab + bundle + "/tcp_probe.txt.gz";
  absl::StatusOr<ReplayResult> r =
      ReplayTcpCapture(kLab + bundle + "/sender.pcap.gz", options);
  EXPECT_TRUE(r.ok()) << r.status();
  if (!r.ok()) return {};
  EXPECT_EQ(r->source, CapturedSource::kTcpProbe);
  return r->controllers;
}

// Samples are the sender socket's tcp_probe lines, one per ACK:
// `zcat tcp_probe.txt.gz | grep -c 'tcp_probe:.*src=SENDER '` (SENDER from
// meta.json flows[0].sender).
void ExpectFidelity(const ReplayedController& c, uint64_t probe_lines,
                    double median_pct, double p95_pct) {
  SCOPED_TRACE(c.spec);
  EXPECT_EQ(c.divergence.samples, probe_lines);
  ASSERT_TRUE(c.divergence.median_abs_err_pct.has_value());
  EXPECT_LE(*c.divergence.median_abs_err_pct, median_pct);
  EXPECT_LE(*c.divergence.p95_abs_err_pct, p95_pct);
}

// One controller `spec` on `bundle`, as ExpectFidelity().
void ExpectBundleFidelity(const std::string& bundle, const std::string& spec,
                          uint64_t probe_lines, double median_pct,
                          double p95_pct) {
  const auto c = Replay(bundle, {spec});
  ASSERT_EQ(c.size(), 1u);
  ExpectFidelity(c[0], probe_lines, median_pct, p95_pct);
}

TEST(KernelFidelityTest, RenoPaced20ms) {
  // Measured: median 0.03 %, p95 0.03 % (cubic:linux 8.5 % / 17 %). Paced,
  // the sender often has less than cwnd in flight: cwnd grows only in the
  // windows tcp_cwnd_validate() calls cwnd-limited; trusting the capture's
  // send-limit instead (limited=capture) gives p95 6.6 %.
  const auto c = Replay("k618_reno_20ms_paced_20mbit_pfifo50",
                        {kReno, "cubic:linux", "reno:linux,limited=capture"});
  ASSERT_EQ(c.size(), 3u);
  ExpectFidelity(c[0], 2523, 0.5, 0.5);
  EXPECT_GT(*c[1].divergence.median_abs_err_pct, 5.0);
  EXPECT_GT(*c[2].divergence.p95_abs_err_pct, 5.0);
}

TEST(KernelFidelityTest, RenoUnpaced40ms) {
  // Measured: median 0.03 %, p95 0.03 % (cubic:linux 28 % / 50 %); PRR on
  // packets in flight keeps the reductions exact (tcp_cwnd_reduction()).
  const auto c =
      Replay("k618_reno_40ms_unpaced_20mbit_pfifo50", {kReno, "cubic:linux"});
  ASSERT_EQ(c.size(), 2u);
  ExpectFidelity(c[0], 2694, 0.5, 0.5);
  EXPECT_GT(*c[1].divergence.median_abs_err_pct, 20.0);
}

TEST(KernelFidelityTest, CubicPaced20msNeedsThePacedHystart) {
  // Measured: paced=1 median 0.03 %, p95 1.58 %; paced=0 exits slow start
  // by the halved ACK-train threshold well below the kernel's window:
  // 31 % / 45 %.
  const auto c = Replay("k618_cubic_20ms_paced_20mbit_pfifo50",
                        {kCubicPaced, kCubicUnpaced});
  ASSERT_EQ(c.size(), 2u);
  ExpectFidelity(c[0], 1780, 0.5, 2.0);
  EXPECT_GT(*c[1].divergence.median_abs_err_pct, 25.0);
}

TEST(KernelFidelityTest, CubicUnpaced40msNeedsTheUnpacedHystart) {
  // Measured: paced=0 median 0.03 %, p95 1.12 %; paced=1 leaves slow start
  // too late: 8.8 % / 26 %.
  const auto c = Replay("k618_cubic_40ms_unpaced_20mbit_pfifo50",
                        {kCubicUnpaced, kCubicPaced});
  ASSERT_EQ(c.size(), 2u);
  ExpectFidelity(c[0], 2756, 0.5, 1.5);
  EXPECT_GT(*c[1].divergence.median_abs_err_pct, 5.0);
}

// The issue-14 matrix (bench/fidelity.sh; docs/controllers.md) adds what
// the bundles above do not cover: RFC 3168 step marking, 80 ms, and an
// application-limited phase before bulk, with the built-in sender (--paced
// on: SO_MAX_PACING_RATE; off: controller set before connect()).

TEST(KernelFidelityTest, RenoPaced20msStepMarking) {
  // Measured: median 0 %, p95 0 % (cubic:linux 17 % / 24 %). Every
  // reduction is a CWR on ECE (tcp_enter_cwr()), its PRR counted on the
  // sends the capture shows.
  const auto c = Replay("k618_reno_20ms_paced_20mbit_pfifo116_ecn_step30k",
                        {kReno, "cubic:linux"});
  ASSERT_EQ(c.size(), 2u);
  ExpectFidelity(c[0], 1688, 0.5, 0.5);
  EXPECT_GT(*c[1].divergence.median_abs_err_pct, 5.0);
}

TEST(KernelFidelityTest, CubicPaced80msStepMarking) {
  // Measured: median 0.03 %, p95 0.03 % (reno:linux 26 % / 55 %).
  const auto c = Replay("k618_cubic_80ms_paced_20mbit_pfifo316_ecn_step30k",
                        {kCubicPaced, "reno:linux,limited=flight"});
  ASSERT_EQ(c.size(), 2u);
  ExpectFidelity(c[0], 1402, 0.5, 0.5);
  EXPECT_GT(*c[1].divergence.median_abs_err_pct, 5.0);
}

TEST(KernelFidelityTest, CubicUnpaced10msStepMarkingTicksOnTheKernelClock) {
  // Measured: median 0 %, p95 0 %. At 10 ms, bictcp_update() recomputes cnt
  // at most once per jiffy, and with cwnd unchanged only after HZ / 32 = 7
  // jiffies (28 ms); which ACK does it depends on where the kernel's ticks
  // fall. They fall at whole 4 ms of CLOCK_MONOTONIC
  // (tick_init_jiffy_update()), which the trace's clockpair relates to the
  // capture's clock: replay sets mono_offset_us from it. On the capture
  // clock's whole ticks instead (mono_offset_us=0, as before), cwnd grows an
  // ACK early or late after some CWR episodes: median 0.03 %, p95 5.03 %.
  const auto c =
      Replay("k618_cubic_10ms_unpaced_20mbit_pfifo100_ecn_step30k",
             {kCubicUnpaced, std::string(kCubicUnpaced) + ",mono_offset_us=0"});
  ASSERT_EQ(c.size(), 2u);
  ExpectFidelity(c[0], 2097, 0.5, 0.5);
  EXPECT_GT(*c[1].divergence.p95_abs_err_pct, 5.0);
}

TEST(KernelFidelityTest, CubicUnpaced20msApplicationLimitedThenBulk) {
  // 5 Mbit/s for 1.5 s, then bulk. Measured: median 0.03 %, p95 1.33 %;
  // cwnd holds while the sender is not cwnd-limited (tcp_is_cwnd_limited()):
  // trusting the capture's send limit instead (limited=capture), cwnd grows
  // through the application-limited phase, 228 % / 506 %.
  const auto c =
      Replay("k618_cubic_20ms_unpaced_20mbit_pfifo68_applimited1500ms",
             {kCubicUnpaced,
              "cubic:linux,hz=250,paced=0,gso=1500,"
              "limited=capture"});
  ASSERT_EQ(c.size(), 2u);
  ExpectFidelity(c[0], 1519, 0.5, 2.0);
  EXPECT_GT(*c[1].divergence.median_abs_err_pct, 50.0);
}

// Receive-window-limited: the built-in receiver's SO_RCVBUF of 32768
// bytes (`--flows CC:rcvbuf=32768`, doubled and locked by the kernel)
// advertises 39096 bytes, 27 segments (`tshark -r sender.pcap -Y
// 'tcp.srcport==26180 && tcp.flags.syn==0' -T fields -e tcp.window_size |
// sort | uniq -c`: 1036 of 1039 ACKs), under the 40 ms path's 69-segment
// BDP. The kernel counts the flow rwnd-limited 94.8 % of its busy time
// (`zcat ss.log.gz | grep -o 'rwnd_limited:[^ ]*' | tail -1`). cwnd grows
// in slow start to 55 while under twice the packets out, then holds
// (tcp_is_cwnd_limited(), 6.18): 1009 of the 1038 tcp_probe lines say 55
// (`zcat tcp_probe.txt.gz | grep -o 'snd_cwnd=[0-9]*' | sort | uniq -c`,
// sender lines only). Measured: median 0 %, p95 0 %; the RFC profile,
// which grows on, is 51 % / 51 % off.
TEST(KernelFidelityTest, RenoUnpaced40msReceiveWindowLimited) {
  const auto c = Replay("k618_reno_40ms_unpaced_20mbit_pfifo50_rcvbuf32k",
                        {kReno, "reno"});
  ASSERT_EQ(c.size(), 2u);
  ExpectFidelity(c[0], 1038, 0.5, 0.5);
  EXPECT_GT(*c[1].divergence.median_abs_err_pct, 30.0);
}

// As above with cubic:linux (1030 tcp_probe lines; HyStart never left slow
// start before the window held the flight): median 0 %, p95 0 %; RFC 9438
// cubic 50 % / 50 %.
TEST(KernelFidelityTest, CubicUnpaced40msReceiveWindowLimited) {
  const auto c = Replay("k618_cubic_40ms_unpaced_20mbit_pfifo50_rcvbuf32k",
                        {kCubicUnpaced, "cubic"});
  ASSERT_EQ(c.size(), 2u);
  ExpectFidelity(c[0], 1030, 0.5, 0.5);
  EXPECT_GT(*c[1].divergence.median_abs_err_pct, 30.0);
}

// ssthresh after each ACK, with the ACK's cumulative acknowledgement
// (relative: data starts at 1).
struct SsthreshAfterAck {
  int64_t ack = 0;
  uint64_t ssthresh = 0;
  // The value is tcp_current_ssthresh()'s 3/4-cwnd floor, raised by an
  // ordinary cwnd increase: not an undo (KernelSsthresh()).
  bool three_quarters_cwnd = false;
};

// The ACKs that undid a reduction: ssthresh rises back to at least what it
// was before its last decrease (tcp_undo_cwnd_reduction() restores
// prior_ssthresh = max(ssthresh, 3/4 cwnd) from before the cut).
std::vector<int64_t> UndoAcks(const std::vector<SsthreshAfterAck>& points) {
  std::vector<int64_t> undo_acks;
  std::optional<uint64_t> before_cut;
  for (size_t k = 1; k < points.size(); ++k) {
    const uint64_t previous = points[k - 1].ssthresh;
    const uint64_t now = points[k].ssthresh;
    if (now < previous) before_cut = previous;
    if (now > previous && before_cut.has_value() && now >= *before_cut &&
        !points[k].three_quarters_cwnd) {
      undo_acks.push_back(points[k].ack);
      before_cut.reset();
    }
  }
  return undo_acks;
}

// The kernel's ssthresh after each ACK of `sender`: tcp_probe logs the
// state before each ACK, so line j shows what ACK j-1 left, whose
// cumulative ACK is line j's snd_una (less the first line's, plus 1). By
// hand: `zcat tcp_probe.txt.gz | grep 'src=SENDER ' | grep -o
// 'snd_una=[^ ]* .*ssthresh=[0-9]*'`. The field is tcp_current_ssthresh()
// (include/trace/events/tcp.h; include/net/tcp.h, 6.1 and 6.18): outside
// CWR and Recovery at least (cwnd >> 1) + (cwnd >> 2), so it climbs with
// cwnd and can pass a cut's old value with no undo. A line whose value is
// that floor and whose cwnd grew by at most 2 (one ACK's increase, not an
// undo's restored window) is marked so.
std::vector<SsthreshAfterAck> KernelSsthresh(const std::string& probe_gz,
                                             const std::string& sender) {
  std::vector<SsthreshAfterAck> points;
  gzFile in = gzopen(probe_gz.c_str(), "rb");
  EXPECT_NE(in, nullptr) << probe_gz;
  if (in == nullptr) return points;
  char line[4096];
  uint32_t first_una = 0;
  uint64_t previous_cwnd = 0;
  const std::string source = absl::StrCat("src=", sender, " ");
  while (gzgets(in, line, sizeof(line)) != nullptr) {
    if (!absl::StrContains(line, source)) continue;
    uint32_t una = 0;
    uint64_t ssthresh = 0;
    uint64_t cwnd = 0;
    for (absl::string_view field : absl::StrSplit(line, ' ')) {
      if (absl::ConsumePrefix(&field, "snd_una=0x")) {
        EXPECT_TRUE(absl::SimpleHexAtoi(field, &una)) << field;
      } else if (absl::ConsumePrefix(&field, "ssthresh=")) {
        EXPECT_TRUE(absl::SimpleAtoi(field, &ssthresh)) << field;
      } else if (absl::ConsumePrefix(&field, "snd_cwnd=")) {
        EXPECT_TRUE(absl::SimpleAtoi(field, &cwnd)) << field;
      }
    }
    if (points.empty()) first_una = una;
    const bool floor =
        ssthresh == (cwnd >> 1) + (cwnd >> 2) && cwnd <= previous_cwnd + 2;
    points.push_back(
        {static_cast<int64_t>(una - first_una) + 1, ssthresh, floor});
    previous_cwnd = cwnd;
  }
  gzclose(in);
  return points;
}

// A reordering flow (`lab --reorder 2`): 2 % of the data segments held 1 ms
// longer on the data path. The first reordering the kernel meets, in slow
// start, triggers a fast retransmit; the next ACK, echoing a TSval older
// than the retransmission's, shows it spurious and the kernel undoes the
// reduction (tcp_try_undo_partial(); meta.json sender_nstat:
// TcpExtTCPPartialUndo 1, no Full, DSACK or Loss undo). Without the undo
// the replay stays at ssthresh for the rest of the run: measured before the
// undo was modelled, median 25.7 %, p95 64.2 %.
// The replay of `bundle` with `spec`, one sample per ACK, and the ACKs at
// which the model and the kernel (`sender`, meta.json flows[0]) undid a
// reduction (UndoAcks()); `mss_bytes` turns the model's ssthresh into the
// kernel's segments.
struct UndoReplay {
  std::optional<ReplayedController> controller;
  std::vector<int64_t> model_undo_acks;
  std::vector<int64_t> kernel_undo_acks;
};
UndoReplay ReplayWithUndos(const std::string& bundle, const std::string& spec,
                           const std::string& sender, uint32_t mss_bytes) {
  UndoReplay out;
  ReplayOptions options;
  options.specs = {spec};
  options.host_state_path = kLab + bundle + "/tcp_probe.txt.gz";
  options.full_series = true;  // one sample per ACK
  std::vector<int64_t> acks;
  options.tap = [&acks](const TimelineEvent& e) {
    if (e.type == TimelineEvent::Type::kAck) acks.push_back(e.ack);
  };
  absl::StatusOr<ReplayResult> r =
      ReplayTcpCapture(kLab + bundle + "/sender.pcap.gz", options);
  EXPECT_TRUE(r.ok()) << r.status();
  if (!r.ok() || r->controllers.size() != 1) return out;
  out.controller = r->controllers[0];
  const std::vector<SeriesSample>& samples = out.controller->series.samples;
  EXPECT_EQ(samples.size(), acks.size());
  std::vector<SsthreshAfterAck> model;
  for (size_t k = 0; k < samples.size() && k < acks.size(); ++k) {
    model.push_back({acks[k], samples[k].ssthresh_bytes == kNoSsthreshBytes
                                  ? kInfiniteSsthreshSegments
                                  : samples[k].ssthresh_bytes / mss_bytes});
  }
  out.model_undo_acks = UndoAcks(model);
  out.kernel_undo_acks =
      UndoAcks(KernelSsthresh(options.host_state_path, sender));
  return out;
}

TEST(KernelFidelityTest, CubicReorderedUndoesTheSpuriousRecovery) {
  const UndoReplay r =
      ReplayWithUndos("k618_cubic_20ms_unpaced_20mbit_pfifo50_reorder2",
                      kCubicUnpaced, "10.76.128.1:26810", 1448);
  ASSERT_TRUE(r.controller.has_value());
  // Measured: median 0.00 %, p95 1.9 %.
  ExpectFidelity(*r.controller, 2801, 0.5, 2.5);
  EXPECT_EQ(r.kernel_undo_acks.size(), 1u);
  EXPECT_EQ(r.model_undo_acks, r.kernel_undo_acks);
}

// Reno through the same reordering line, and Reno on a small unpaced
// buffer (bundles: testdata/SOURCES.md). Both fail with Recovery ended by
// delivered bytes and without the partial undo's reordering (main at
// a3713ed: 1.53 % / 4.58 % and 0.03 % / 7.68 %); with only the partial
// undo's reordering left out the first gives 0.03 % / 2.63 %, with only
// Recovery's end by delivered bytes 1.23 % / 2.38 % and 0.03 % / 7.68 %.

TEST(KernelFidelityTest, RenoReorderedGrowsOnSacksAfterThePartialUndo) {
  // The first reordering, in slow start, is a spurious fast retransmit
  // undone by the timestamp test (meta.json sender_nstat:
  // TcpExtTCPPartialUndo 1, TcpExtTCPTSReorder 1). tcp_try_undo_partial()
  // calls tcp_check_sack_reordering(): tp->reordering rises from 3 to 5
  // (the cumulative ACK jumped 5 segments), and from then on SACK-only
  // ACKs grow cwnd too (tcp_may_raise_cwnd()); at 95 ms the kernel goes
  // 59 -> 63 on four SACK-only ACKs. Measured: median 0.03 %, p95 0.03 %.
  ExpectBundleFidelity("k618_reno_20ms_unpaced_20mbit_pfifo50_reorder2", kReno,
                       2662, 0.5, 1.0);
}

TEST(KernelFidelityTest, RenoUnpacedSmallBufferEndsRecoveryAtHighSeq) {
  // Recovery ends when snd_una reaches high_seq, the snd_nxt of the ACK
  // that entered it (tcp_fastretrans_alert(): "!before(tp->snd_una,
  // tp->high_seq)"); counted in delivered bytes with the retransmission in
  // flight, the model left one ACK late and missed that ACK's growth in
  // congestion avoidance (one segment of 6-12 here: 8-17 %). Measured:
  // median 0.03 %, p95 0.03 %.
  ExpectBundleFidelity("k618_reno_10ms_unpaced_20mbit_pfifo10", kReno, 2321,
                       0.5, 1.0);
}

// Against ss (issue 14: median <= 2 % against ss samples), on the
// checked-in Linux 6.18 bundles with an ss log and a reno/cubic sender.
// Each sample is placed after the ACKs it had seen (its bytes_acked,
// captured_cwnd.cc), compared where the timeline calls the sender
// cwnd-limited. Measured (`ccreplay replay DIR/sender.pcap.gz --ss
// DIR/ss.log[.gz] --cc SPEC --json`): reno rcvbuf32k 10 samples, median 0 %,
// p95 0 %; cubic rcvbuf32k 11 samples, 0 % / 0 %; cubic_ecn_K60k 291 of
// its 294 sender samples (`grep -c 10.98.1.1:51026 ss.log`), 0.025 % /
// 2.025 %. Placed by the `# t=` stamp instead (main 73fa7ea), which ss
// follows by a few ms: 0.025 / 18.75 %, 0.025 / 25.93 % (12 samples),
// 0.025 / 2.525 %.
TEST(KernelFidelityTest, AgainstSsSamples) {
  const struct {
    const char* bundle;
    const char* ss_log;
    const char* spec;
    uint64_t samples;
    double p95_pct;
  } kCases[] = {
      {"k618_reno_40ms_unpaced_20mbit_pfifo50_rcvbuf32k", "ss.log.gz", kReno,
       10, 0.5},
      {"k618_cubic_40ms_unpaced_20mbit_pfifo50_rcvbuf32k", "ss.log.gz",
       kCubicUnpaced, 11, 0.5},
      {"cubic_ecn_K60k_40mbit_ackdelay10ms", "ss.log", kCubicPaced, 291, 2.1}};
  for (const auto& c : kCases) {
    SCOPED_TRACE(c.bundle);
    ReplayOptions options;
    options.specs = {c.spec};
    options.host_state_path = kLab + c.bundle + "/" + c.ss_log;
    absl::StatusOr<ReplayResult> r =
        ReplayTcpCapture(kLab + c.bundle + "/sender.pcap.gz", options);
    ASSERT_TRUE(r.ok()) << r.status();
    EXPECT_EQ(r->source, CapturedSource::kSs);
    const DivergenceSummary& d = r->controllers[0].divergence;
    EXPECT_EQ(d.samples, c.samples);
    ASSERT_TRUE(d.median_abs_err_pct.has_value());
    EXPECT_LE(*d.median_abs_err_pct, 2.0);
    EXPECT_LE(*d.p95_abs_err_pct, c.p95_pct);
  }
}

// DCTCP against Debian 12's Linux 6.1.192 (tcp_dctcp.ko), in a VM: this
// host's 6.18 has no tcp_dctcp. scripts/vm-lab.sh boots it under qemu
// (TCG: the host's /dev/kvm runs only PVM guests) with the host's files,
// and `ccreplay lab --cc dctcp --rate 5mbit --delay D --queue 200p --ecn
// rfc3168 --mark step:30000 --paced P` runs there (testdata/SOURCES.md);
// both ends run DCTCP. 5 Mbit/s, not 20: under TCG the sender reached
// about 9 Mbit/s, so at 20 the bottleneck never queued. Issue 14's bound:
// median <= 1 %, p95 <= 5 %. reno:linux on the same ACKs shows that the
// bound needs DCTCP's own cut (cwnd * (1 - alpha / 2), dctcp_ssthresh()).
constexpr char kDctcp[] = "dctcp,limited=flight";

TEST(KernelFidelityTest, DctcpUnpaced0msVm61) {
  // 3 CE-marked deliveries (meta.json sender_nstat TcpExtTCPDeliveredCE),
  // alpha still near 1 from dctcp_alpha_on_init. Measured: median 0.00 %,
  // p95 0.00 %; reno:linux 19.83 % / 22.53 %. With the first ACKs taken
  // as captured, not after the initial window the segments' echoes show
  // still leaving (AckTimelineBuilder::BacklogTakes()): 0.98 % / 3.28 %.
  const auto c = Replay("k61vm_dctcp_0ms_unpaced_5mbit_pfifo200_ecn_step30k",
                        {kDctcp, kReno});
  ASSERT_EQ(c.size(), 2u);
  ExpectFidelity(c[0], 621, 0.1, 0.1);
  EXPECT_GT(*c[1].divergence.median_abs_err_pct, 5.0);
}

TEST(KernelFidelityTest, DctcpUnpaced10msVm61) {
  // 46 CE-marked deliveries, alpha updated once per window of snd_nxt
  // (dctcp_update_alpha()). Measured: median 0.00 %, p95 0.00 %;
  // reno:linux 8.33 % / 23.83 %.
  const auto c = Replay("k61vm_dctcp_10ms_unpaced_5mbit_pfifo200_ecn_step30k",
                        {kDctcp, kReno});
  ASSERT_EQ(c.size(), 2u);
  ExpectFidelity(c[0], 410, 0.1, 0.1);
  EXPECT_GT(*c[1].divergence.median_abs_err_pct, 5.0);
}

TEST(KernelFidelityTest, DctcpUnpaced10msVm61SlowHandshakeAnswerIsTheSender) {
  // Under the emulated CPU the sender answers the SYN-ACK 2.4 ms late, so
  // by the handshake's timing alone the capture sits a round trip from
  // both hosts (`middle`). The sender's later segments echo the
  // receiver's TSvals within 25 us, which only a host next to the capture
  // point can (VantageDetector::SetEchoTimes()): tshark's fields, the
  // echo timed from the first sight of each of the last four distinct
  // TSvals the other side sent (SYNs left out),
  //   tshark -r sender.pcap -T fields -e frame.time_epoch -e tcp.srcport
  //     -e tcp.flags.syn -e tcp.options.timestamp.tsval
  //     -e tcp.options.timestamp.tsecr
  // give for port 27270 min 25 us, 4203 echoes timed, 3973 under 1 ms.
  // Taken as `middle`, the ACK times were moved by an estimate (+1.2 ms
  // at the first ACK) where slow-start ACKs come 11-214 us apart, and the
  // tcp_probe lines met the wrong ACKs: by time (CwndAligner::DueBefore())
  // median 1.12 %, p95 4.67 %; keyed by their snd_una
  // (CwndAligner::KeyBySndUna()) 0.03 % / 2.02 %. At the sender: 0.00 % /
  // 0.00 %.
  const std::string bundle =
      "k61vm_dctcp_10ms_unpaced_20mbit_pfifo100_ecn_step30k";
  ReplayOptions options;
  options.specs = {kDctcp};
  options.host_state_path = kLab + bundle + "/tcp_probe.txt.gz";
  absl::StatusOr<ReplayResult> r =
      ReplayTcpCapture(kLab + bundle + "/sender.pcap.gz", options);
  ASSERT_TRUE(r.ok()) << r.status();
  EXPECT_EQ(r->timeline.vantage, Vantage::kSender);
  EXPECT_EQ(r->timeline.vantage_note,
            "the sender answered the handshake 2.443 ms after the packet "
            "before, as if a round trip away, but echoed the receiver's "
            "timestamps within 0.025 ms (3973 of 4203 echoes under 1 ms): it "
            "is next to the capture point, and answered the handshake slowly");
  ASSERT_EQ(r->controllers.size(), 1u);
  ExpectFidelity(r->controllers[0], 1913, 0.1, 0.1);
}

TEST(KernelFidelityTest, DctcpPaced40msVm61ReorderingRunsToTheSackAfterTheAck) {
  // Under the emulated CPU the path reorders (meta.json sender_nstat
  // TcpExtTCPSACKReorder 56; ss `reordering:5` at its first sample): a late
  // segment is acked together with data above the old highest SACK, and
  // tcp_check_sack_reordering() measures from tcp_highest_sack_seq() at the
  // call, the start of the segment after the highest SACKed one, or snd_una
  // once none is SACKed (include/net/tcp.h, tcp_input.c, 6.18). Measured
  // from the highest SACKed segment's start before the ACK, the replay kept
  // tp->reordering at 3, so cwnd stopped growing on SACK-only ACKs
  // (tcp_may_raise_cwnd()) 16 segments before the kernel's (496 vs 512 at
  // the first loss), the halved ssthresh was 248 vs 256, and the Recovery
  // re-entered at 0.83 s ended 3-4 segments low for the rest of the flow:
  // median 1.48 %, p95 3.12 %. Now 0.03 % / 0.03 %.
  ExpectBundleFidelity("k61vm_dctcp_40ms_paced_20mbit_pfifo132", kDctcp, 2561,
                       0.1, 0.1);
}

TEST(KernelFidelityTest, DctcpPaced10msVm61EntersRecoveryOnRackMarks) {
  // At 2.54 s the kernel, in CWR (cwnd 37, ssthresh 82 = 101 - (101 *
  // alpha >> 11)), enters Recovery on SACKed reordering (ssthresh 18) and
  // is undone by timestamps before it retransmits anything
  // (TcpExtTCPSackRecovery 3, TcpExtTCPPartialUndo 3, TcpRetransSegs 0);
  // from CWR prior_ssthresh is 0, so cwnd stays 19. A replay that entered
  // Recovery only on a captured retransmission (ToLossEvent()) ended CWR
  // with cwnd = ssthresh 82 and stayed 4x above the kernel: p95 331.6 %.
  // Entered on the ACK whose SACKs let RACK mark a segment lost
  // (LinuxTcpSender::EnterRecoveryOnLostMarks()), as the kernel does:
  // median 0.0 %, p95 15.8 %. What was left: at 1.45 s the same happens
  // from Open (cwnd 90, 28 out, an application-limited sender), undone
  // 0.3 ms later before anything was sent; the model took the window of
  // 27 that 28 filled as a window it could not fill (tcp_cwnd_validate()),
  // grew in slow start to 117 where the kernel held 90 until 48 were out
  // (tcp_write_xmit() tests the window only with data queued). With the
  // send queue's state from the last sends: p95 0.025 %.
  const UndoReplay r =
      ReplayWithUndos("k61vm_dctcp_10ms_paced_5mbit_pfifo200_ecn_step30k",
                      kDctcp, "10.99.44.1:21850", 1448);
  ASSERT_TRUE(r.controller.has_value());
  const ReplayedController& c = *r.controller;
  EXPECT_EQ(c.divergence.samples, 381u);
  ASSERT_TRUE(c.divergence.median_abs_err_pct.has_value());
  EXPECT_LE(*c.divergence.median_abs_err_pct, 0.1);
  ASSERT_TRUE(c.divergence.p95_abs_err_pct.has_value());
  EXPECT_LE(*c.divergence.p95_abs_err_pct, 0.1);
  // Two of the three undos show as ssthresh rising back over its cut (the
  // one entered from CWR has prior_ssthresh 0); the model's at the same
  // cumulative ACKs.
  EXPECT_EQ(r.kernel_undo_acks.size(), 2u);
  EXPECT_EQ(r.model_undo_acks, r.kernel_undo_acks);
}

TEST(KernelFidelityTest,
     DctcpRetransmissionIntoAFullWindowCountsAsCwndLimited) {
  // 40 ms, 100 Mbit/s, paced; the emulated sender keeps 130-280 segments
  // out of a cwnd of 565 (the first 1.5 s of bench/fidelity.sh's
  // dctcp_rwnd_pon). At 1.197 s the kernel enters Recovery (cwnd 126 with
  // 130 out), retransmits one segment and undoes it on the next ACK
  // (TcpExtTCPPartialUndo 1): cwnd 571, then 692 one round trip later
  // (`zcat tcp_probe.txt.gz | grep -o 'snd_cwnd=[0-9]*' | uniq`), because
  // tcp_write_xmit() had found the window full while data was queued and
  // is_cwnd_limited holds until cwnd_usage_seq is acked. A model that did
  // not count the retransmission as a send held 561 to the end: median
  // 0.7 %, p95 18.9 %. Measured now: median 0.7 %, p95 0.9 %.
  ExpectBundleFidelity("k61vm_dctcp_40ms_paced_100mbit_pfifo700_rwnd", kDctcp,
                       1944, 1.0, 1.5);
}

TEST(KernelFidelityTest, DctcpPaced20msVm61AcksTakenAfterTheSendsTheyShow) {
  // 20 ms, paced, application-limited at 5 Mbit/s for 1.5 s, then bulk
  // (bench/fidelity.sh's dctcp_applimited_pon). tcp_probe's line at the
  // ACK captured at 0.338560 s (frame 209, TSval 1986174853) already counts
  // snd_nxt 183,121, and frame 210, byte 180,225 leaving at 0.338666 s,
  // echoes TSval 1986174830: the sender had not taken that ACK when it
  // sent it (the writer held the socket), so it is taken after
  // (AckTimelineBuilder::BacklogTakes(), MarkUntaken()). Taken as captured
  // (main at 0f63f98), the model saw 12 segments out where the kernel's
  // max_packets_out was 14, grew 2 less and stayed below through the
  // halvings: median 1.28 %, p95 4.78 %. Measured: 0.03 % / 0.03 %.
  ExpectBundleFidelity("k61vm_dctcp_20ms_paced_20mbit_pfifo68_applimited1500ms",
                       kDctcp, 2159, 0.1, 0.1);
}

TEST(KernelFidelityTest, DctcpPaced0msVm61SpuriousRetransmissionLeavesRack) {
  // 0 ms, 20 Mbit/s, pfifo 20, paced, under the emulated CPU. The kernel
  // enters Recovery 24 times and undoes 10 by timestamps (meta.json
  // sender_nstat: TcpExtTCPSackRecovery 24, TcpExtTCPPartialUndo 9,
  // TcpExtTCPFullUndo 1); the model undoes at the same 10 ACKs.
  // - On the ACK that undoes the first (0.0416 s) the retransmission is
  //   cumulatively acked with an echo from before it was resent:
  //   tcp_clean_rtx_queue() leaves such a segment out of RACK's state
  //   (tcp_skb_spurious_retrans()), so none of the 15 segments still out
  //   is lost. Taking it in marked the 15 and re-entered Recovery at 4
  //   segments where the kernel stayed Open at 37: p95 123.08 % (main at
  //   f70b0cd).
  // - At 0.0598 s three SACKed segments make the hole lost by RFC 6675's
  //   count and by RACK on the same ACK; counted as RACK's (what a Linux
  //   6.x sender runs), the model enters Recovery on that ACK as the kernel
  //   does (cwnd 20), not at the retransmission after it. It needs the
  //   reordering the first partial undo found (tcp_try_undo_partial()
  //   calls tcp_check_sack_reordering()): without it RACK's window is 0
  //   where the kernel's is min_rtt / 4 (the reordering bundles above).
  // - The kernel takes the first ACK (0.0026 s) only after the initial
  //   window's ten segments (its first tcp_probe line counts ten out):
  //   the sender's segments until 0.0062 s echo the SYN-ACK's TSval, not
  //   the ACK's (AckTimelineBuilder::BacklogTakes()). Taken as captured,
  //   with one segment out, the model found slow start not cwnd-limited
  //   and halved 43 where the kernel halved 49 at 0.0645 s: p95 12.53 %.
  // Measured: median 0.03 %, p95 0.03 %.
  const UndoReplay r = ReplayWithUndos("k61vm_dctcp_0ms_paced_20mbit_pfifo20",
                                       kDctcp, "10.99.138.1:22790", 1448);
  ASSERT_TRUE(r.controller.has_value());
  ExpectFidelity(*r.controller, 1956, 0.1, 0.1);
  EXPECT_EQ(r.kernel_undo_acks.size(), 10u);
  EXPECT_EQ(r.model_undo_acks, r.kernel_undo_acks);
}

TEST(KernelFidelityTest, CubicPaced0msSmallBufferLeavesTheRackLostHoleOut) {
  // 0 ms, pfifo 10 (bench/fidelity.sh's cubic_0ms_small_pon; meta.json
  // sender_nstat: TcpExtTCPSackRecovery 40, TcpRetransSegs 83). The kernel
  // marks a hole lost by RACK (tcp_rack_detect_loss(), reo_wnd min_rtt / 4
  // of some 16 us before Recovery, 0 in it) on the first or second SACK,
  // and PRR sets cwnd = in flight + sndcnt with it out of flight
  // (tcp_packets_in_flight()); with RFC 6675's three SACKed segments the
  // model held it in flight there, one segment above the kernel at cwnd
  // 8-12 for an ACK or two per episode: median 0.03 %, p95 10.03 %,
  // Recovery's p95 20.03 % (main at 73fa7ea). Measured: median 0.03 %,
  // p95 0.03 %, Recovery's p95 0.03 %.
  const auto c = Replay("k618_cubic_0ms_paced_20mbit_pfifo10", {kCubicPaced});
  ASSERT_EQ(c.size(), 1u);
  ExpectFidelity(c[0], 1825, 0.5, 0.5);
  const auto recovery = static_cast<size_t>(DivergencePhase::kRecovery);
  ASSERT_TRUE(c[0].divergence.p95_by_phase_pct[recovery].has_value());
  EXPECT_LE(*c[0].divergence.p95_by_phase_pct[recovery], 0.5);
}

// HyStart in Recovery. A paced CUBIC flow at 20 ms through pfifo 10
// (bench/fidelity.sh's cubic_20ms_small_pon): its second Recovery (the
// tcp_cong_state_set lines: 3 at 25061.557902, 0 at 25061.579260) cut cwnd
// to 25 below ssthresh 32, and at 25061.564366, still in Recovery,
// tcp_probe shows ssthresh 25: hystart_update() found the delay rise on
// the SACKs' RTT samples (meta.json sender_nstat TcpExtTCPHystartDelayDetect
// 1, TcpExtTCPHystartDelayCwnd 25), and the flow left Recovery at 25, not
// 32. tcp_clean_rtx_queue() takes ca_rtt_us from the last newly SACKed
// original segment (sack->last_sackt), and cubictcp_acked() runs in every
// state. The model gave CUBIC no sample in Recovery: median 0.03 %, p95
// 18.53 %, 32 against 25 for 0.4 s; and with SACK samples but its HyStart
// round ended by delivered bytes, SACKs ended rounds snd_una never passed
// (k618_cubic_80ms_paced_20mbit_pfifo33 left Recovery by HyStart at 159
// where the kernel went on to 167: 9.5 % / 10.1 %). Measured: median
// 0.03 %, p95 3.30 % (the rest: CUBIC's growth after it, one RTT early or
// late at cwnd 26-31); the 80 ms flow 0.03 % / 0.73 %, as before.
TEST(KernelFidelityTest, CubicHystartFindsTheDelayInRecovery) {
  const auto c = Replay("k618_cubic_20ms_paced_20mbit_pfifo10", {kCubicPaced});
  ASSERT_EQ(c.size(), 1u);
  ExpectFidelity(c[0], 2658, 0.1, 3.5);
  const auto c80 =
      Replay("k618_cubic_80ms_paced_20mbit_pfifo33", {kCubicPaced});
  ASSERT_EQ(c80.size(), 1u);
  ExpectFidelity(c80[0], 2915, 0.1, 1.0);
}

}  // namespace
}  // namespace ccreplay
