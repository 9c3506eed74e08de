#include "replay/replay_session.h"

#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "proto/testing/test_data.h"

namespace ccreplay {
namespace {

const DivergenceSummary& Of(const ReplayResult& r, const std::string& spec) {
  for (const ReplayedController& c : r.controllers) {
    if (c.spec == spec) return c.divergence;
  }
  ADD_FAILURE() << "no " << spec;
  static const DivergenceSummary kNone;
  return kNone;
}

ReplayResult ReplayTcp(const std::string& capture,
                       const std::string& host_state,
                       std::vector<std::string> specs) {
  ReplayOptions options;
  options.specs = std::move(specs);
  options.host_state_path = host_state;
  absl::StatusOr<ReplayResult> result = ReplayTcpCapture(capture, options);
  EXPECT_TRUE(result.ok()) << result.status();
  return result.ok() ? *std::move(result) : ReplayResult{};
}

// Linux 6.18 Reno, RFC 3168 ECN, step marking at 60 kB, ss every ~13 ms.
// 230 samples: `grep -c "10.99.1.1:42408 10.99.2.1:5201" ss.log`, all
// cwnd-limited. Each sample is placed after the ACKs it had seen (its
// bytes_acked, OrderByBytesAcked in captured_cwnd.cc). Measured:
// reno:linux as given (limited=capture) median 4.2 %, p95 16.7 %; with
// limited=flight, as replay's fit chooses (README), 0.025 % / 0.025 %
// (placed by the `# t=` stamp instead, which ss follows by
// milliseconds: 0.025 % / 9.4 %; kernel_fidelity_test.cc AgainstSs...).
// The RFC profile `reno`
// has the same CA median but 43 % in CWR: RFC 3168 section 6.1.2 halves
// cwnd at once, while Linux enters CA_CWR and lets PRR (RFC 6937) bring
// cwnd down to ssthresh over one round (tcp_cwnd_reduction(),
// net/ipv4/tcp_input.c), so ss samples inside CWR sit between the two.
// The slow-start error of both is the first ~50 ms where one ss sample
// spans several doublings at a 20 us base RTT.
TEST(ReplaySessionTest, RenoLinuxTracksTheKernelCwndFromSs) {
  const std::string dir = TestDataPath("lab/reno_ecn1_stepK60k_50mbit/");
  const ReplayResult r =
      ReplayTcp(dir + "sender.pcap.gz", dir + "ss.log", {"reno:linux", "reno"});
  EXPECT_EQ(r.source, CapturedSource::kSs);
  EXPECT_EQ(r.sender, "10.99.1.1:42408");
  // 230 ss samples carry the data socket; the first, right after iperf3's
  // 37-byte cookie, is not cwnd-limited (ss: app_limited); placed by
  // bytes_acked, 226 fall at ACKs the timeline calls cwnd-limited (229
  // when placed by the stamp).
  EXPECT_EQ(Of(r, "reno:linux").samples, 226u);
  EXPECT_LE(*Of(r, "reno:linux").median_abs_err_pct, 5.0);
  // The RFC variant diverges in CWR (see above).
  EXPECT_GT(*Of(r, "reno").median_by_phase_pct[2],
            2 * *Of(r, "reno:linux").median_by_phase_pct[2]);
}

// Linux CUBIC without ECN, pfifo 100 packets (losses). Measured:
// cubic:linux median 0.03 %, p95 1.6 %. The RFC 9438 profile `cubic` is
// at 62 %: Linux leaves slow start by HyStart (ACK train / delay
// increase, tcp_cubic.c) at ~56 segments, while RFC 9438 section 4.10
// leaves it only at the first loss, by then with a cwnd of ~2.3 MB in this
// open-loop replay (the model's larger window does not speed up the real
// ACK clock). W_max then starts from that inflated cwnd, so the model's
// concave growth heads for a window 20x the kernel's.
// An ss sample in Recovery. Paced Reno at 0 ms through pfifo 10 (Linux
// 6.18, ss every 10 ms): its Recoveries run over many duplicate ACKs of
// one cumulative ACK, each moving cwnd (PRR), and a sample placed after
// the last ACK of its bytes_acked met a cwnd the kernel reached later:
// 298 samples compared, median 0.03 %, p95 33.3 %, Recovery's median
// 25 %. Each sample's delivered (tcpi_delivered) places it among those
// ACKs: on all 302 of the socket's samples it is 1 (the SYN) + (bytes_acked
// - 1) / 1448 + sacked (`zcat ss.log.gz | grep 10.65.52.1:23090 -A1`,
// those three fields of each second line), the segments acked or SACKed
// as the timeline counts them. Measured: 272 compared (26 fall at ACKs
// the timeline does not call cwnd-limited), median 0.03 %, p95 0.03 %.
TEST(ReplaySessionTest, SsSamplesInRecoveryAreOrderedByDelivered) {
  const std::string dir =
      TestDataPath("lab/k618_reno_0ms_paced_20mbit_pfifo10_ss/");
  const ReplayResult r = ReplayTcp(dir + "sender.pcap.gz", dir + "ss.log.gz",
                                   {"reno:linux,limited=flight"});
  EXPECT_EQ(r.source, CapturedSource::kSs);
  const DivergenceSummary& d = Of(r, "reno:linux,limited=flight");
  EXPECT_EQ(d.samples, 272u);
  ASSERT_TRUE(d.p95_abs_err_pct.has_value());
  EXPECT_LE(*d.median_abs_err_pct, 0.1);
  EXPECT_LE(*d.p95_abs_err_pct, 0.1);
  const auto recovery = static_cast<size_t>(DivergencePhase::kRecovery);
  ASSERT_TRUE(d.median_by_phase_pct[recovery].has_value());
  EXPECT_LE(*d.median_by_phase_pct[recovery], 0.1);
}

TEST(ReplaySessionTest, CubicLinuxTracksTheKernelCwndThroughLosses) {
  const std::string dir = TestDataPath("lab/cubic_noecn_droptail100_50mbit/");
  const ReplayResult r = ReplayTcp(dir + "sender.pcap.gz", dir + "ss.log",
                                   {"cubic:linux", "cubic"});
  EXPECT_GT(Of(r, "cubic:linux").samples, 200u);
  EXPECT_LE(*Of(r, "cubic:linux").median_abs_err_pct, 10.0);
  EXPECT_GT(*Of(r, "cubic").median_abs_err_pct, 30.0);
  EXPECT_TRUE(Of(r, "cubic").first_divergence_us.has_value());
}

// Per-ACK ground truth: tcp_probe of the sender socket (6700 lines:
// `zcat tcp_probe.txt.gz | grep tcp_probe: | grep -c src=10.98.1.1:51026`),
// each paired with the cwnd before the ACK that triggered it. Measured:
// cubic:linux median 2.0 %, p95 12 %; the same bundle's ss log gives
// 2.0 % over 293 samples. RFC `cubic`: 6.6 %, mostly in congestion
// avoidance (RFC 9438's W_est uses alpha = 0.53 until W_max, Linux
// tcp_cubic.c's per-ACK friendliness check uses beta-scaled delta).
TEST(ReplaySessionTest, CubicLinuxTracksTcpProbePerAck) {
  const std::string dir =
      TestDataPath("lab/cubic_ecn_K60k_40mbit_ackdelay10ms/");
  const ReplayResult probe =
      ReplayTcp(dir + "sender.pcap.gz", dir + "tcp_probe.txt.gz",
                {"cubic:linux", "cubic"});
  EXPECT_EQ(probe.source, CapturedSource::kTcpProbe);
  EXPECT_GT(Of(probe, "cubic:linux").samples, 6000u);
  EXPECT_LE(Of(probe, "cubic:linux").samples, 6700u);
  EXPECT_LE(*Of(probe, "cubic:linux").median_abs_err_pct, 10.0);
  const ReplayResult ss =
      ReplayTcp(dir + "sender.pcap.gz", dir + "ss.log", {"cubic:linux"});
  EXPECT_LE(*Of(ss, "cubic:linux").median_abs_err_pct, 10.0);
}

// The l4s-tests Prague capture (AccECN, sender side, no ss): the models
// against the flight size while cwnd-limited. Measured medians: v05 6.7 %,
// v06 3.9 %, v07 7.1 %, dctcp 19 %: v0.6 tracks best.
TEST(ReplaySessionTest, PragueProfilesAgainstFlightSize) {
  CCREPLAY_PATH_OR_SKIP(
      path, SharedTestData("tcp/l4s-tests_prague_dualpi2_wifi.pcap.gz"));
  const ReplayResult r =
      ReplayTcp(path, "", {"prague:v05", "prague:v06", "prague:v07", "dctcp"});
  EXPECT_EQ(r.source, CapturedSource::kFlightSize);
  const double v06 = *Of(r, "prague:v06").median_abs_err_pct;
  EXPECT_GT(Of(r, "prague:v06").samples, 10000u);
  for (const char* other : {"prague:v05", "prague:v07", "dctcp"}) {
    EXPECT_LT(v06, *Of(r, other).median_abs_err_pct) << other;
  }
}

// ngtcp2 over 30 Mbit/s, 40 ms, pfifo 100, Reno. 22357 congestion_window
// updates (python3 json count of recovery:metrics_updated). RFC 9002's
// Reno (byte counting, cwnd*0.5 on a congestion event) is what `reno`
// does when a loss event carries no flight size: median 0.825 % (1.1 %
// before each ACK was matched with the cwnd logged after it and the
// Handshake ACKs were replayed).
TEST(ReplaySessionTest, RenoTracksNgtcp2RenoFromItsQlog) {
  ReplayOptions options;
  options.specs = {"reno:mss=1452", "cubic:mss=1452"};
  absl::StatusOr<ReplayResult> r = ReplayQuicLog(
      TestDataPath("quic/ngtcp2_reno_30mbit_pfifo100_40ms/server-0.sqlog.gz"),
      options);
  ASSERT_TRUE(r.ok()) << r.status();
  EXPECT_EQ(r->source, CapturedSource::kQlog);
  EXPECT_EQ(Of(*r, "reno:mss=1452").samples, 22357u);
  EXPECT_LE(*Of(*r, "reno:mss=1452").median_abs_err_pct, 0.9);
  EXPECT_GT(*Of(*r, "cubic:mss=1452").median_abs_err_pct, 20.0);
}

// ngtcp2's CUBIC (lib/ngtcp2_cc.c @ 6409313) differs from RFC 9438: its
// Reno-friendly W_est grows with alpha = 1 from the start (RFC 9438
// section 4.3: 3(1-beta)/(1+beta) = 0.53 until W_max); slow start ends by
// HyStart++ (RFC 9406) without the conservative phase; and cwnd only grows
// while below 2.89 x max(IW, max delivery rate x srtt). Measured: `cubic`
// median 8.9 %, p95 24.6 % on this short 20 Mbit/s, 12-packet-buffer run
// (14.5 %, 52 % before ACKs were matched with their cwnd by log order).
TEST(ReplaySessionTest, CubicAgainstNgtcp2Cubic) {
  ReplayOptions options;
  options.specs = {"cubic:mss=1452"};
  absl::StatusOr<ReplayResult> r = ReplayQuicLog(
      TestDataPath("quic/ngtcp2_cubic_20mbit_pfifo12/server.sqlog.gz"),
      options);
  ASSERT_TRUE(r.ok()) << r.status();
  EXPECT_GT(Of(*r, "cubic:mss=1452").samples, 3000u);
  EXPECT_LE(*Of(*r, "cubic:mss=1452").median_abs_err_pct, 9.0);
}

// Issue 17: every ngtcp2 qlog in testdata replayed without --cc goes
// through the stack's own profile (replay/stack_profile.h picks it from
// the trace name and the first logged reduction), against the server's own
// congestion_window. Sample counts: `zcat FILE | grep -c
// recovery:metrics_updated`. Bounds are the figures reached (median, p95),
// a little above; the issue asks for 1 % and 5 %. Each ACK is compared
// with the cwnd ngtcp2 logged right after it (log order: the qlogs have
// whole-millisecond times), the Initial and Handshake ACKs grow cwnd, each
// acked packet is judged by its own send order, and an ACK's losses come
// before the next ACK of the same millisecond. Before that: 0.275 % /
// 0.425 %, 1.125 % / 5.625 %, 1.275 % / 4.825 %. RFC profiles before
// issue 17: reno 1.1 % / 1.8 %, reno 8.1 % / 40.3 %, cubic 14.6 % / 51.7 %.
struct Ngtcp2Case {
  const char* path;
  const char* profile;
  uint32_t samples;
  double max_median_pct;
  double max_p95_pct;
};

TEST(ReplaySessionTest, Ngtcp2QlogsReplayThroughTheirOwnProfile) {
  const Ngtcp2Case kCases[] = {
      {"quic/ngtcp2_reno_30mbit_pfifo100_40ms/server-0.sqlog.gz", "ngtcp2:reno",
       22357, 0.2, 0.3},  // measured 0.175 %, 0.275 %
      {"quic/ngtcp2_reno_20mbit_pfifo12/server.sqlog.gz", "ngtcp2:reno", 3311,
       0.05, 0.1},  // measured 0.025 %, 0.075 %
      {"quic/ngtcp2_cubic_20mbit_pfifo12/server.sqlog.gz", "ngtcp2:cubic", 3307,
       0.025, 0.025},  // measured 0 %, 0 %
  };
  for (const Ngtcp2Case& c : kCases) {
    SCOPED_TRACE(c.path);
    absl::StatusOr<ReplayResult> r =
        ReplayQuicLog(TestDataPath(c.path), ReplayOptions{});
    ASSERT_TRUE(r.ok()) << r.status();
    EXPECT_EQ(r->source, CapturedSource::kQlog);
    EXPECT_THAT(r->controller_profile,
                ::testing::StartsWith(absl::StrCat(
                    "controller profile: ", c.profile, ", from qlog")));
    const DivergenceSummary& d = Of(*r, c.profile);
    EXPECT_EQ(d.samples, c.samples);
    EXPECT_LE(*d.median_abs_err_pct, c.max_median_pct);
    EXPECT_LE(*d.p95_abs_err_pct, c.max_p95_pct);
  }
}

// ngtcp2 grows cwnd on the ACKs of the Initial and Handshake spaces too:
// the first congestion_window it logs after an ACK (zcat FILE | head -20)
// is 14520 + 1034 + 320 = 15874 (Handshake ACK of 0-1) on the Reno run,
// 14520 + 166 = 14686 (Initial ACK) then + 732 = 15418 (Handshake ACK) on
// the 40 ms run. The model's first ACKs must land on the same values.
TEST(ReplaySessionTest, Ngtcp2HandshakeAcksGrowTheFirstWindow) {
  const struct {
    const char* path;
    std::vector<uint64_t> first_cwnd_bytes;
  } kCases[] = {
      {"quic/ngtcp2_reno_20mbit_pfifo12/server.sqlog.gz", {15874}},
      {"quic/ngtcp2_reno_30mbit_pfifo100_40ms/server-0.sqlog.gz",
       {14686, 15418}},
  };
  for (const auto& c : kCases) {
    SCOPED_TRACE(c.path);
    ReplayOptions options;
    options.specs = {"ngtcp2:reno"};
    options.full_series = true;
    absl::StatusOr<ReplayResult> r =
        ReplayQuicLog(TestDataPath(c.path), options);
    ASSERT_TRUE(r.ok()) << r.status();
    const std::vector<SeriesSample>& samples = r->controllers[0].series.samples;
    ASSERT_GE(samples.size(), c.first_cwnd_bytes.size());
    for (size_t i = 0; i < c.first_cwnd_bytes.size(); ++i) {
      EXPECT_EQ(samples[i].cwnd_bytes, c.first_cwnd_bytes[i]) << i;
    }
  }
}

// The other profile of the same stack is far off each run: the family
// matters, not only the shared rules (measured: ngtcp2:cubic on the Reno
// runs 103 % and 21 %, ngtcp2:reno on the CUBIC run 17 %).
TEST(ReplaySessionTest, Ngtcp2ProfilesTellRenoFromCubic) {
  ReplayOptions options;
  options.specs = {"ngtcp2:reno", "ngtcp2:cubic"};
  absl::StatusOr<ReplayResult> reno = ReplayQuicLog(
      TestDataPath("quic/ngtcp2_reno_20mbit_pfifo12/server.sqlog.gz"), options);
  ASSERT_TRUE(reno.ok()) << reno.status();
  EXPECT_TRUE(reno->controller_profile.empty());
  EXPECT_GT(*Of(*reno, "ngtcp2:cubic").median_abs_err_pct, 15.0);
  absl::StatusOr<ReplayResult> cubic = ReplayQuicLog(
      TestDataPath("quic/ngtcp2_cubic_20mbit_pfifo12/server.sqlog.gz"),
      options);
  ASSERT_TRUE(cubic.ok()) << cubic.status();
  EXPECT_GT(*Of(*cubic, "ngtcp2:reno").median_abs_err_pct, 10.0);
}

TEST(ReplaySessionTest, SeriesAreDecimatedUnlessFull) {
  const std::string dir = TestDataPath("lab/reno_ecn1_stepK60k_50mbit/");
  ReplayOptions options;
  options.specs = {"reno:linux"};
  options.host_state_path = dir + "ss.log";
  options.max_points = 100;
  absl::StatusOr<ReplayResult> r =
      ReplayTcpCapture(dir + "sender.pcap.gz", options);
  ASSERT_TRUE(r.ok());
  EXPECT_LE(r->controllers[0].series.samples.size(), 101u);
  EXPECT_EQ(r->captured_cwnd_bytes.size(),
            r->controllers[0].series.samples.size());
  options.full_series = true;
  r = ReplayTcpCapture(dir + "sender.pcap.gz", options);
  ASSERT_TRUE(r.ok());
  EXPECT_EQ(r->controllers[0].series.samples.size(), r->acks);
  EXPECT_EQ(r->acks, 6008u);  // `ccreplay timeline ... --csv | grep -c ^ack`
}

// A row's captured cwnd is after the same ACK as the models' (a tcp_probe
// line shows the state before its own ACK: it belongs two ACKs back from
// where it falls due). On a bundle whose replay is exact per ACK, every
// row agrees: `ccreplay replay DIR/sender.pcap.gz --probe
// DIR/tcp_probe.txt.gz --cc cubic:linux,limited=flight,paced=1,hz=250,
// gso=1500 --full --csv`, 6700 rows, captured = replayed in all (558
// differed, and the first row had no captured value, while each line was
// put in the row it fell due in).
TEST(ReplaySessionTest, CapturedColumnIsAfterTheSameAckAsTheModels) {
  const std::string dir =
      TestDataPath("lab/cubic_ecn_K60k_40mbit_ackdelay10ms/");
  ReplayOptions options;
  options.specs = {"cubic:linux,limited=flight,paced=1,hz=250,gso=1500"};
  options.host_state_path = dir + "tcp_probe.txt.gz";
  options.full_series = true;
  absl::StatusOr<ReplayResult> r =
      ReplayTcpCapture(dir + "sender.pcap.gz", options);
  ASSERT_TRUE(r.ok()) << r.status();
  const std::vector<SeriesSample>& model = r->controllers[0].series.samples;
  ASSERT_EQ(model.size(), 6700u);
  ASSERT_EQ(r->captured_cwnd_bytes.size(), model.size());
  size_t differ = 0;
  for (size_t i = 0; i < model.size(); ++i) {
    ASSERT_TRUE(r->captured_cwnd_bytes[i].has_value()) << i;
    differ += *r->captured_cwnd_bytes[i] != model[i].cwnd_bytes;
  }
  EXPECT_EQ(differ, 0u);
}

// A gzip capture is decompressed once: the scan keeps its bytes and the
// replay's pass and the configuration fit read them from memory. The
// replay equals that of the same capture decompressed by zcat and read
// from a plain file, ACK by ACK, and the scan kept all 2,457,482 bytes
// (`zcat DIR/sender.pcap.gz | wc -c`).
TEST(ReplaySessionTest, GzipCaptureReplaysAsItsDecompressedCopy) {
  const std::string dir =
      TestDataPath("lab/cubic_ecn_K60k_40mbit_ackdelay10ms/");
  const std::string plain = ::testing::TempDir() + "/kept-sender.pcap";
  ASSERT_EQ(std::system(
                absl::StrCat("zcat ", dir, "sender.pcap.gz > ", plain).c_str()),
            0);
  ReplayOptions options;
  options.specs = {"cubic:linux", "reno"};
  options.host_state_path = dir + "tcp_probe.txt.gz";
  options.full_series = true;
  absl::StatusOr<TcpCaptureScan> scan =
      ScanTcpCapture(dir + "sender.pcap.gz", options.flow);
  ASSERT_TRUE(scan.ok()) << scan.status();
  ASSERT_NE(scan->read_options.reuse, nullptr);
  EXPECT_TRUE(scan->read_options.reuse->whole);
  EXPECT_EQ(scan->read_options.reuse->bytes.size(), 2457482u);
  absl::StatusOr<ReplayResult> from_gzip = ReplayTcpFlow(*scan, options);
  absl::StatusOr<ReplayResult> from_plain = ReplayTcpCapture(plain, options);
  ASSERT_TRUE(from_gzip.ok()) << from_gzip.status();
  ASSERT_TRUE(from_plain.ok()) << from_plain.status();
  EXPECT_EQ(from_gzip->acks, from_plain->acks);
  EXPECT_GT(from_gzip->acks, 1000u);
  ASSERT_EQ(from_gzip->controllers.size(), 2u);
  for (size_t c = 0; c < 2; ++c) {
    const std::vector<SeriesSample>& a =
        from_gzip->controllers[c].series.samples;
    const std::vector<SeriesSample>& b =
        from_plain->controllers[c].series.samples;
    ASSERT_EQ(a.size(), b.size());
    for (size_t i = 0; i < a.size(); ++i) {
      ASSERT_EQ(a[i].cwnd_bytes, b[i].cwnd_bytes) << c << " " << i;
    }
  }
  std::remove(plain.c_str());
}

// One pass serves a caller that reduces the timeline too: the tap sees
// every event the controllers see, and the means are time-weighted per
// ACK (python3 over `ccreplay replay DIR/sender.pcap.gz --probe
// DIR/tcp_probe.txt.gz --cc cubic:linux --full --csv`: sum(cwnd[i] *
// (t[i+1] - t[i])) / (t[-1] - t[0]) = 74508.484 bytes, with PRR on
// packets in flight (issue 14; 74304.387 before), 74509.357 with prr_out
// counted from the capture's sends (issue 14 matrix), 74514.441 with the
// jiffies on the trace's CLOCK_MONOTONIC (the --cc spec written out with
// its defaults, `cubic:linux,limited=capture,paced=0,hz=1000,gso=65536`,
// so that nothing is fitted; 74509.357 again with `,mono_offset_us=0`);
// the captured column as the series steps, each row's value until the
// next row's time, over `... --csv` without --full: 76577.500; 76775.183
// while each tcp_probe line sat two rows late, PlaceInSeries).
TEST(ReplaySessionTest, TapSharesThePassAndMeansAreTimeWeighted) {
  const std::string dir =
      TestDataPath("lab/cubic_ecn_K60k_40mbit_ackdelay10ms/");
  absl::StatusOr<TcpCaptureScan> scan =
      ScanTcpCapture(dir + "sender.pcap.gz", "");
  ASSERT_TRUE(scan.ok()) << scan.status();
  EXPECT_EQ(scan->summary.sender, "10.98.1.1:51026");
  ReplayOptions options;
  options.specs = {"cubic:linux"};
  options.host_state_path = dir + "tcp_probe.txt.gz";
  uint64_t acks = 0, retransmissions = 0;
  options.tap = [&](const TimelineEvent& e) {
    (e.type == TimelineEvent::Type::kAck ? acks : retransmissions)++;
  };
  absl::StatusOr<ReplayResult> r = ReplayTcpFlow(*scan, options);
  ASSERT_TRUE(r.ok()) << r.status();
  EXPECT_EQ(acks, r->acks);
  EXPECT_EQ(acks, 6700u);
  EXPECT_EQ(retransmissions, r->timeline.retransmissions[0] +
                                 r->timeline.retransmissions[1] +
                                 r->timeline.retransmissions[2] +
                                 r->timeline.retransmissions[3]);
  EXPECT_EQ(r->timeline.acks, 6700u);
  EXPECT_NEAR(*r->controllers[0].mean_cwnd_bytes, 74514.441, 0.01);
  EXPECT_NEAR(*r->captured_mean_cwnd_bytes, 76577.500, 0.01);
  // A log without the flow is FailedPrecondition (nothing to diagnose,
  // exit 7) before the capture is read again.
  options.host_state_path =
      TestDataPath("lab/reno_ecn1_stepK60k_50mbit/ss.log");
  acks = 0;
  EXPECT_EQ(ReplayTcpFlow(*scan, options).status().code(),
            absl::StatusCode::kFailedPrecondition);
  EXPECT_EQ(acks, 0u);
}

TEST(ReplaySessionTest, BundleDirectoryPrefersTcpProbe) {
  absl::StatusOr<TcpInput> in = ResolveTcpInput(
      TestDataPath("lab/cubic_ecn_K60k_40mbit_ackdelay10ms"), "");
  ASSERT_TRUE(in.ok());
  EXPECT_NE(in->capture.find("sender.pcap.gz"), std::string::npos);
  EXPECT_NE(in->host_state.find("tcp_probe.txt.gz"), std::string::npos);
  EXPECT_EQ(in->controller, "cubic");
  EXPECT_EQ(ResolveTcpInput(TestDataPath("quic"), "").status().code(),
            absl::StatusCode::kNotFound);
  // A capture file passes through; an explicit host state wins.
  in = ResolveTcpInput(TestDataPath("x.pcap"), "y.log");
  ASSERT_TRUE(in.ok());
  EXPECT_EQ(in->capture, TestDataPath("x.pcap"));
  EXPECT_EQ(in->host_state, "y.log");
  EXPECT_EQ(in->controller, "");
  EXPECT_TRUE(in->warnings.empty());
}

// A bundle whose meta.json says complete=false resolves with a warning
// (which replay and diagnose print); a complete one has none.
TEST(ReplaySessionTest, IncompleteBundleWarns) {
  const std::filesystem::path dir =
      std::filesystem::temp_directory_path() /
      ("ccreplay-incomplete-" + std::to_string(::getpid()));
  std::filesystem::create_directories(dir);
  std::filesystem::copy_file(
      TestDataPath("lab/cubic_ecn_K60k_40mbit_ackdelay10ms/sender.pcap.gz"),
      dir / "sender.pcap.gz");
  std::ofstream(dir / "meta.json") << "{\"complete\": false}";
  absl::StatusOr<TcpInput> in = ResolveTcpInput(dir.string(), "");
  ASSERT_TRUE(in.ok()) << in.status();
  ASSERT_EQ(in->warnings.size(), 1u);
  EXPECT_NE(in->warnings[0].find(dir.string() + ": incomplete bundle"),
            std::string::npos)
      << in->warnings[0];
  std::ofstream(dir / "meta.json") << "{\"complete\": true}";
  in = ResolveTcpInput(dir.string(), "");
  ASSERT_TRUE(in.ok()) << in.status();
  EXPECT_TRUE(in->warnings.empty());
  std::filesystem::remove_all(dir);
}

TEST(ReplaySessionTest, BadInputsAreErrors) {
  ReplayOptions options;
  options.specs = {"reno"};
  EXPECT_FALSE(ReplayTcpCapture(TestDataPath("no/such.pcap"), options).ok());
  options.specs = {"nosuch"};
  EXPECT_EQ(
      ReplayTcpCapture(
          TestDataPath("lab/reno_ecn1_stepK60k_50mbit/sender.pcap.gz"), options)
          .status()
          .code(),
      absl::StatusCode::kInvalidArgument);
}

}  // namespace
}  // namespace ccreplay
