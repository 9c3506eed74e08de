#include "replay/captured_cwnd.h"

#include <string>
#include <vector>

#include "cc/congestion_controller.h"
#include "gtest/gtest.h"
#include "parsers/host_state_reader.h"
#include "proto/testing/test_data.h"

namespace ccreplay {
namespace {

const std::string kDir =
    TestDataPath("lab/cubic_ecn_K60k_40mbit_ackdelay10ms/");

TEST(CapturedCwndTest, ProbeTimesMoveToUnixTimeByTheClockPair) {
  absl::StatusOr<HostStateLog> log = ReadHostState(kDir + "tcp_probe.txt.gz");
  ASSERT_TRUE(log.ok()) << log.status();
  absl::StatusOr<CapturedCwnd> c =
      CapturedCwndForTcpFlow(*log, "10.98.1.1:51026", "10.98.2.1:5201");
  ASSERT_TRUE(c.ok()) << c.status();
  EXPECT_EQ(c->source, CapturedSource::kTcpProbe);
  EXPECT_TRUE(c->in_segments);
  // zcat tcp_probe.txt.gz | grep tcp_probe: | grep -c src=10.98.1.1:51026
  EXPECT_EQ(c->points.size(), 6700u);
  // First line 5403.6xx s mono + offset 1795980485536831306 ns (meta.json
  // clock pair) = 1795985889.1 s Unix: within the capture's first second
  // (tshark -r sender.pcap.gz -c1 -T fields -e frame.time_epoch).
  EXPECT_GT(c->points.front().time_us, 1795985888'000'000);
  EXPECT_LT(c->points.front().time_us, 1795985890'000'000);
  EXPECT_EQ(CapturedCwndForTcpFlow(*log, "10.98.1.1:1", "10.98.2.1:5201")
                .status()
                .code(),
            absl::StatusCode::kFailedPrecondition);
}

TEST(CapturedCwndTest, AlignerHandsOutPointsBeforeEachAck) {
  CapturedCwnd c;
  c.source = CapturedSource::kSs;
  c.points = {{10, 1}, {20, 2}, {30, 3}, {40, 4}};
  CwndAligner aligner(c);
  EXPECT_FALSE(aligner.shows_state_before_ack());
  EXPECT_EQ(aligner.DueBefore(10).size(), 0u);  // Strictly before.
  EXPECT_EQ(aligner.DueBefore(25).size(), 2u);
  EXPECT_EQ(aligner.DueBefore(25).size(), 0u);
  ASSERT_EQ(aligner.Rest().size(), 2u);
  c.source = CapturedSource::kTcpProbe;
  EXPECT_TRUE(CwndAligner(c).shows_state_before_ack());
}

// tcp_probe writes a line when an ACK arrives, before processing it: the
// line shows the snd_una the ACK before left. Keyed by (snd_una, how many
// lines before had it), each line is handed out at the first ACK with a
// higher (cumulative ACK, repeat), whatever their times say: here all at
// time 0, which by time would hand them all out at the first ACK. The ISN
// is 512 bytes below the wrap, so the keys cross it.
TEST(CapturedCwndTest, AlignerKeysProbeLinesBySndUna) {
  const uint32_t isn = 0xFFFFFE00u;
  CapturedCwnd c;
  c.source = CapturedSource::kTcpProbe;
  c.points = {{0, 10}, {0, 11}, {0, 12}, {0, 13}};
  // Written at ACKs 1001, 1001 (a duplicate), 2001, 3001.
  c.snd_una_wire = {isn + 1, isn + 1001, isn + 1001, isn + 2001};
  CwndAligner aligner(c);
  EXPECT_TRUE(aligner.shows_state_before_ack());
  // No line logged 5000, and none 1001 from another ISN: by time still.
  EXPECT_FALSE(aligner.KeyBySndUna(isn, 5000));
  EXPECT_FALSE(aligner.KeyBySndUna(isn + 7, 1001));
  EXPECT_FALSE(aligner.keyed_by_snd_una());
  ASSERT_TRUE(aligner.KeyBySndUna(isn, 1001));
  EXPECT_FALSE(aligner.shows_state_before_ack());  // After the last ACK.
  const auto values = [](absl::Span<const SeriesPoint> due) {
    std::vector<double> v;
    for (const SeriesPoint& p : due) v.push_back(p.value);
    return v;
  };
  EXPECT_EQ(values(aligner.DueBeforeAck(1001, 0)), std::vector<double>{10});
  EXPECT_EQ(values(aligner.DueBeforeAck(1001, 1)), std::vector<double>{11});
  EXPECT_EQ(values(aligner.DueBeforeAck(2001, 0)), std::vector<double>{12});
  EXPECT_EQ(values(aligner.DueBeforeAck(3001, 0)), std::vector<double>{13});
  EXPECT_TRUE(aligner.Rest().empty());
  // Without snd_una (an older trace): never keyed.
  c.snd_una_wire.clear();
  EXPECT_FALSE(CwndAligner(c).KeyBySndUna(isn, 1001));
}

// Three ACKs in one millisecond, each followed by the cwnd it left (the
// 336 ms of testdata/quic/ngtcp2_reno_20mbit_pfifo12/server.sqlog.gz:
// 10970 -> 11161 -> 12416 -> 12751): by log order each ACK gets the point
// logged before it, not all the points of the millisecond.
TEST(CapturedCwndTest, AlignerMatchesPointsToAcksByLogOrder) {
  CapturedCwnd c;
  c.source = CapturedSource::kQlog;
  c.points = {{335000, 10970, 1},
              {336000, 11161, 3},
              {336000, 12416, 5},
              {336000, 12751, 7}};
  CwndAligner aligner(c);
  // ACK frames at log orders 2, 4 and 6, all at 336 ms.
  EXPECT_EQ(aligner.DueBefore(336000, 2).size(), 1u);
  const absl::Span<const SeriesPoint> second = aligner.DueBefore(336000, 4);
  ASSERT_EQ(second.size(), 1u);
  EXPECT_EQ(second[0].value, 11161);
  EXPECT_EQ(aligner.DueBefore(336000, 6).size(), 1u);
  EXPECT_EQ(aligner.Rest().size(), 1u);
  // Without the ACK's log order, time decides: nothing at 336 ms is due.
  CwndAligner by_time(c);
  EXPECT_EQ(by_time.DueBefore(336000).size(), 1u);
  EXPECT_EQ(by_time.DueBefore(336000).size(), 0u);
}

// ngtcp2 writes ssthresh into recovery:metrics_updated only while it is
// set (lib/ngtcp2_qlog.c, 0.12.1); the undo at 278 ms of this run restores
// an unset one. python3 over the qlog: the events at 253-277 ms carry
// "congestion_window" with "ssthresh": 10201, the one at 278 ms
// "congestion_window": 17258 and no ssthresh.
TEST(CapturedCwndTest, Ngtcp2SsthreshIsUnsetWhereItsMetricsLeaveItOut) {
  absl::StatusOr<HostStateLog> log = ReadHostState(TestDataPath(
      "lab/ngtcp2_pair_20mbit_pfifo20_undo/server-qlog/flow1.sqlog.gz"));
  ASSERT_TRUE(log.ok()) << log.status();
  absl::StatusOr<CapturedCwnd> c = CapturedCwndForQuicTrace(log->traces[0]);
  ASSERT_TRUE(c.ok()) << c.status();
  EXPECT_TRUE(c->ssthresh_omitted_while_unset);
  int set = 0;
  int unset = 0;
  for (const SeriesPoint& p : c->points) {
    if (p.time_us == 277'000 && p.value == 14414) {
      EXPECT_EQ(SsthreshAtCwndPoint(*c, p), 10201u);
      ++set;
    }
    if (p.time_us == 278'000 && p.value == 17258) {
      EXPECT_EQ(SsthreshAtCwndPoint(*c, p), kNoSsthreshBytes);
      ++unset;
    }
  }
  // Four events each (the same python3 listing).
  EXPECT_EQ(set, 4);
  EXPECT_EQ(unset, 4);
}

}  // namespace
}  // namespace ccreplay
