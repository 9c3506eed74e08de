#include "parsers/quicly_log.h"

#include <fstream>
#include <string>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "parsers/parser_testing.h"
#include "proto/testing/test_data.h"

namespace ccreplay {
namespace {

using ::testing::HasSubstr;

// quicly is not packaged in Debian, so there is no real `cli -e` log in
// testdata/. These lines follow the event layout of quicly's lib/quicly.c
// (QUICLY_LOG_CONN: module, type, tid, time, conn, then the fields in
// emission order; quicly-cc-and-simulator.md §5.1) and of h2olog's
// kebab-case rendering (§5.2).
constexpr char kCliLog[] =
    R"({"module":"quicly","type":"accept","tid":7,"time":1000,"conn":140001,"dcid":"ab"}
{"module":"quicly","type":"packet_sent","tid":7,"time":1001,"conn":140001,"pn":0,"len":1252,"packet_type":0,"ack_only":0}
{"module":"quicly","type":"packet_sent","tid":7,"time":1002,"conn":140001,"pn":1,"len":1252,"packet_type":3,"ack_only":0}
{"module":"quicly","type":"packet_sent","tid":7,"time":1002,"conn":140001,"pn":2,"len":40,"packet_type":3,"ack_only":1}
{"module":"quicly","type":"packet_sent","tid":7,"time":1003,"conn":140001,"pn":3,"len":1252,"packet_type":3,"ack_only":0}
{"module":"quicly","type":"packet_received","tid":7,"time":1040,"conn":140001,"pn":5,"decrypted_len":30,"packet_type":3}
{"module":"quicly","type":"ack_block_received","tid":7,"time":1040,"conn":140001,"ack_block_begin":0,"ack_block_end":1}
{"module":"quicly","type":"ack_block_received","tid":7,"time":1040,"conn":140001,"ack_block_begin":3,"ack_block_end":3}
{"module":"quicly","type":"packet_acked","tid":7,"time":1040,"conn":140001,"pn":0,"is_late_ack":0}
{"module":"quicly","type":"ack_delay_received","tid":7,"time":1040,"conn":140001,"ack_delay":25}
{"module":"quicly","type":"cc_ack_received","tid":7,"time":1040,"conn":140001,"largest_acked":3,"bytes_acked":2504,"cwnd":16464,"inflight":40}
{"module":"quicly","type":"ecn_congestion","tid":7,"time":1050,"conn":140001,"ce_count":2}
{"module":"quicly","type":"packet_lost","tid":7,"time":1050,"conn":140001,"pn":2,"packet_type":3}
{"module":"quicly","type":"cc_congestion","tid":7,"time":1050,"conn":140001,"max_lost_pn":3,"flight":0,"cwnd":11524}
{"module":"picotls","type":"new_secret","tid":7,"time":1050,"label":"x"}
this line is not JSON
)";

TEST(QuiclyLogTest, CliEventLogGivesSeriesAndAckTimeline) {
  absl::StatusOr<HostStateLog> log =
      ParseQuiclyLog(WriteTemp("cli.jsonl", kCliLog));
  ASSERT_TRUE(log.ok()) << log.status();
  ASSERT_EQ(log->traces.size(), 1u);
  const HostTrace& trace = log->traces[0];
  EXPECT_EQ(trace.vantage, TraceVantage::kServer);
  EXPECT_EQ(trace.name, "conn 140001");
  EXPECT_EQ(trace.samples, 14u);
  EXPECT_EQ(trace.event_counts.at("packet_sent"), 4u);
  const QuicSenderEvents& events = trace.quic_events;
  ASSERT_EQ(events.packets_sent.size(), 4u);
  EXPECT_EQ(events.packets_sent[0].space, PacketNumberSpace::kInitial);
  EXPECT_FALSE(events.packets_sent[2].ack_eliciting);
  EXPECT_EQ(events.packets_sent[3].time_us, 1003000);
  ASSERT_EQ(events.acks_received.size(), 1u);
  const QuicAckReceived& ack = events.acks_received[0];
  ASSERT_EQ(ack.acked_ranges.size(), 2u);
  EXPECT_EQ(ack.acked_ranges[0].first, 0u);
  EXPECT_EQ(ack.acked_ranges[0].last, 1u);
  EXPECT_EQ(ack.acked_ranges[1].first, 3u);
  EXPECT_FALSE(ack.ack_delay_us.has_value());
  EXPECT_FALSE(ack.ce_packets.has_value());
  ASSERT_EQ(events.packets_lost.size(), 1u);
  EXPECT_EQ(events.packets_lost[0].packet_number, 2u);
  EXPECT_EQ(trace.cwnd_updates, 2u);
  EXPECT_EQ(trace.series.cwnd_bytes[1].value, 11524);
  EXPECT_EQ(trace.series.other.at("ce_count")[0].value, 2);
  ASSERT_EQ(trace.series.congestion_states.size(), 1u);
  ASSERT_EQ(log->warnings.size(), 1u);
  EXPECT_THAT(log->warnings[0], HasSubstr("cli.jsonl:16: not a JSON object"));
}

TEST(QuiclyLogTest, H2ologKebabCaseAndPacketAckedRanges) {
  absl::StatusOr<HostStateLog> log =
      ParseQuiclyLog(WriteTemp("h2olog.jsonl",
                               R"({"type":"connect","seq":1,"conn":3,"time":5}
{"type":"packet-acked","seq":2,"conn":3,"time":9,"pn":4,"is-late-ack":false}
{"type":"packet-acked","seq":3,"conn":3,"time":9,"pn":5,"is-late-ack":false}
{"type":"packet-acked","seq":4,"conn":3,"time":9,"pn":7,"is-late-ack":false}
{"type":"ecn-congestion","seq":5,"conn":3,"time":9,"ce-count":1}
{"type":"cc-ack-received","seq":6,"conn":3,"time":9,"largest-acked":7,"bytes-acked":3000,"cwnd":20000,"inflight":0}
)"));
  ASSERT_TRUE(log.ok()) << log.status();
  ASSERT_EQ(log->traces.size(), 1u);
  const HostTrace& trace = log->traces[0];
  EXPECT_EQ(trace.vantage, TraceVantage::kClient);
  ASSERT_EQ(trace.quic_events.acks_received.size(), 1u);
  const QuicAckReceived& ack = trace.quic_events.acks_received[0];
  ASSERT_EQ(ack.acked_ranges.size(), 2u);
  EXPECT_EQ(ack.acked_ranges[0].last, 5u);
  EXPECT_EQ(ack.acked_ranges[1].first, 7u);
  EXPECT_EQ(ack.ce_packets, 1u);
  EXPECT_EQ(trace.series.bytes_in_flight[0].value, 0);
}

// Issue 16: a negative or huge pn/len was cast from double to an integer,
// which is undefined (UBSan: "is outside the range of representable
// values"). Such events are now skipped with a warning naming the field.
TEST(QuiclyLogTest, OutOfRangeNumbersAreRejectedNotCast) {
  std::string path = WriteTemp(
      "quicly_range.jsonl",
      R"({"module":"quicly","type":"packet_sent","time":1,"conn":1,"pn":-1,"len":1252,"packet_type":3,"ack_only":0}
{"module":"quicly","type":"packet_sent","time":2,"conn":1,"pn":1,"len":-5,"packet_type":3,"ack_only":0}
{"module":"quicly","type":"packet_sent","time":3,"conn":1,"pn":2,"len":1e300,"packet_type":3,"ack_only":0}
{"module":"quicly","type":"packet_sent","time":4,"conn":1,"pn":3,"len":1252,"packet_type":3,"ack_only":0}
{"module":"quicly","type":"packet_lost","time":5,"conn":1,"pn":1.5,"packet_type":3}
{"module":"quicly","type":"ack_block_received","time":6,"conn":1,"ack_block_begin":-3,"ack_block_end":3}
)");
  absl::StatusOr<HostStateLog> log = ParseQuiclyLog(path);
  ASSERT_TRUE(log.ok()) << log.status();
  ASSERT_EQ(log->traces.size(), 1u);
  const QuicSenderEvents& events = log->traces[0].quic_events;
  ASSERT_EQ(events.packets_sent.size(), 1u);
  EXPECT_EQ(events.packets_sent[0].packet_number, 3u);
  EXPECT_TRUE(events.packets_lost.empty());
  ASSERT_EQ(log->warnings.size(), 5u);
  EXPECT_THAT(log->warnings[0],
              HasSubstr("quicly_range.jsonl:1: packet_sent with pn=-1, not an "
                        "integer in [0, 4611686018427387903], skipped"));
  EXPECT_THAT(log->warnings[1], HasSubstr(":2: packet_sent with len=-5"));
  EXPECT_THAT(log->warnings[2], HasSubstr(":3: packet_sent with len=1e+300"));
  EXPECT_THAT(log->warnings[3], HasSubstr(":5: packet_lost with pn=1.5"));
  EXPECT_THAT(log->warnings[4],
              HasSubstr(":6: ack_block_received with ack_block_begin=-3"));
}

// Issue 16: a time beyond 2^53 µs either way (kMaxQuicEventTimeUs) was
// rounded to INT64_MIN or INT64_MAX, whose differences overflow in the
// replay. Such a line is skipped with a warning.
TEST(QuiclyLogTest, TimeOutOfRangeIsSkipped) {
  std::string path = WriteTemp(
      "quicly_time.jsonl",
      R"({"module":"quicly","type":"packet_sent","time":-1e300,"conn":1,"pn":1,"len":1252,"packet_type":3,"ack_only":0}
{"module":"quicly","type":"packet_sent","time":9007199254741,"conn":1,"pn":2,"len":1252,"packet_type":3,"ack_only":0}
{"module":"quicly","type":"packet_sent","time":9007199254740,"conn":1,"pn":3,"len":1252,"packet_type":3,"ack_only":0}
)");
  absl::StatusOr<HostStateLog> log = ParseQuiclyLog(path);
  ASSERT_TRUE(log.ok()) << log.status();
  ASSERT_EQ(log->traces.size(), 1u);
  const QuicSenderEvents& events = log->traces[0].quic_events;
  ASSERT_EQ(events.packets_sent.size(), 1u);
  EXPECT_EQ(events.packets_sent[0].packet_number, 3u);
  EXPECT_EQ(events.packets_sent[0].time_us, 9007199254740000);
  ASSERT_EQ(log->warnings.size(), 2u);
  EXPECT_THAT(
      log->warnings[0],
      HasSubstr("quicly_time.jsonl:1: time -1e+300 ms is out of range"));
  EXPECT_THAT(log->warnings[1],
              HasSubstr(":2: time 9.0072e+12 ms is out of range"));
}

TEST(QuiclyLogTest, OtherFilesAreRefused) {
  absl::StatusOr<HostStateLog> log =
      ParseQuiclyLog(TestDataPath("lab/reno_ecn1_stepK60k_50mbit/ss.log"));
  ASSERT_FALSE(log.ok());
  EXPECT_EQ(log.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(log.status().message(), HasSubstr("not a quicly event log"));
}

}  // namespace
}  // namespace ccreplay
