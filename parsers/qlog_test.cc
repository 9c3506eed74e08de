#include "parsers/qlog.h"

#include <fstream>
#include <string>

#include "absl/strings/str_cat.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "parsers/host_state_summary.h"
#include "parsers/input_file.h"
#include "parsers/parser_testing.h"
#include "proto/testing/test_data.h"

namespace ccreplay {
namespace {

using ::testing::HasSubstr;

uint64_t Count(const HostTrace& trace, const std::string& name) {
  auto it = trace.event_counts.find(name);
  return it == trace.event_counts.end() ? 0 : it->second;
}

uint64_t AckFrames(const HostTrace& trace) {
  return trace.quic_events.acks_received.size();
}

// Expected numbers in this file come from /tmp-free cross-checks with
// python3's json module: for each trace, count events per lower-cased
// "category:event" name, metrics events carrying congestion_window or
// cwnd, packet_sent / packet_received / packet_lost events, and frames
// with frame_type "ack" inside packet_received.
TEST(QlogTest, Ngtcp2ServerJsonSeq) {
  absl::StatusOr<HostStateLog> log = ParseQlog(
      TestDataPath("quic/ngtcp2_reno_30mbit_pfifo100_40ms/server-0.sqlog.gz"));
  ASSERT_TRUE(log.ok()) << log.status();
  EXPECT_TRUE(log->warnings.empty()) << log->warnings[0];
  ASSERT_EQ(log->traces.size(), 1u);
  const HostTrace& trace = log->traces[0];
  EXPECT_EQ(trace.vantage, TraceVantage::kServer);
  EXPECT_EQ(trace.samples, 44851u);
  EXPECT_EQ(Count(trace, "recovery:metrics_updated"), 22357u);
  EXPECT_EQ(Count(trace, "transport:packet_sent"), 15010u);
  EXPECT_EQ(Count(trace, "recovery:packet_lost"), 135u);
  EXPECT_EQ(trace.cwnd_updates, 22357u);
  EXPECT_EQ(trace.quic_events.packets_sent.size(), 15010u);
  EXPECT_EQ(trace.quic_events.packets_received, 7347u);
  EXPECT_EQ(trace.quic_events.packets_lost.size(), 135u);
  EXPECT_EQ(AckFrames(trace), 7337u);
  double max_cwnd = 0;
  for (const SeriesPoint& p : trace.series.cwnd_bytes)
    max_cwnd = std::max(max_cwnd, p.value);
  EXPECT_EQ(max_cwnd, 481218);
  // First records (zcat | tr '\036' '\n' | head): packet 0 is an Initial of
  // raw.length 166 carrying ACK + CRYPTO; the first ACK received, at 41 ms,
  // acknowledges Initial packet 0 with ECT(0) count 1.
  const QuicPacketSent& first = trace.quic_events.packets_sent[0];
  EXPECT_EQ(first.space, PacketNumberSpace::kInitial);
  EXPECT_EQ(first.size_bytes, 166u);
  EXPECT_TRUE(first.ack_eliciting);
  const QuicAckReceived& ack = trace.quic_events.acks_received[0];
  EXPECT_EQ(ack.time_us, 41000);
  EXPECT_EQ(ack.space, PacketNumberSpace::kInitial);
  ASSERT_EQ(ack.acked_ranges.size(), 1u);
  EXPECT_EQ(ack.acked_ranges[0].first, 0u);
  EXPECT_EQ(ack.acked_ranges[0].last, 0u);
  EXPECT_EQ(ack.ect0_packets, 1u);
  EXPECT_EQ(ack.ce_packets, 0u);
  // "min_rtt":40 (ms) in the metrics at 41 ms.
  ASSERT_FALSE(trace.series.min_rtt_us.empty());
  EXPECT_EQ(trace.series.min_rtt_us[0].value, 40000);
}

TEST(QlogTest, QuictraceDraft00WithUpperCaseNamesAndEmptyLastEvent) {
  CCREPLAY_PATH_OR_SKIP(
      path, SharedTestData("qlog/qvis_quictrace_example_github.draft-00.qlog"));
  absl::StatusOr<HostStateLog> log = ParseQlog(path);
  ASSERT_TRUE(log.ok()) << log.status();
  EXPECT_TRUE(log->warnings.empty()) << log->warnings[0];
  ASSERT_EQ(log->traces.size(), 1u);
  const HostTrace& trace = log->traces[0];
  EXPECT_EQ(trace.vantage, TraceVantage::kServer);
  // 18,557 array elements, the last one "[]".
  EXPECT_EQ(trace.samples, 18556u);
  EXPECT_EQ(Count(trace, "transport:packet_sent"), 9769u);
  EXPECT_EQ(Count(trace, "recovery:metric_update"), 3679u);
  EXPECT_EQ(trace.cwnd_updates, 161u);
  EXPECT_EQ(trace.quic_events.packets_lost.size(), 238u);
  EXPECT_EQ(AckFrames(trace), 4869u);
  // time_units "us": the first METRIC_UPDATE at 126536 µs has
  // smoothed_rtt 126536 (µs, not ms).
  ASSERT_FALSE(trace.series.srtt_us.empty());
  EXPECT_EQ(trace.series.srtt_us[0].time_us, 126536);
  EXPECT_EQ(trace.series.srtt_us[0].value, 126536);
}

TEST(QlogTest, DoubleVantageFileYieldsTwoTraces) {
  CCREPLAY_PATH_OR_SKIP(
      path,
      SharedTestData("qlog/qvis_aioquic_doublevantage_100ms.draft-01.qlog"));
  absl::StatusOr<HostStateLog> log = ParseQlog(path);
  ASSERT_TRUE(log.ok()) << log.status();
  ASSERT_EQ(log->traces.size(), 2u);
  EXPECT_EQ(log->traces[0].vantage, TraceVantage::kClient);
  EXPECT_EQ(log->traces[1].vantage, TraceVantage::kServer);
  EXPECT_EQ(log->traces[0].samples, 2797u);
  EXPECT_EQ(log->traces[1].samples, 3940u);
  EXPECT_EQ(log->traces[1].cwnd_updates, 1641u);
  EXPECT_EQ(Count(log->traces[1], "recovery:metric_update"), 1803u);
  EXPECT_EQ(log->traces[1].quic_events.packets_sent.size(), 825u);
  EXPECT_EQ(AckFrames(log->traces[1]), 162u);
  // Times in ms (no time_units), reference_time "1566844755688" ms.
  EXPECT_EQ(log->traces[1].clock_epoch_us, 1566844755688000);
  // "latest_rtt": 213 at "213" ms in the client trace.
  ASSERT_FALSE(log->traces[0].series.latest_rtt_us.empty());
  EXPECT_EQ(log->traces[0].series.latest_rtt_us[0].value, 213000);
}

TEST(QlogTest, OtherRealFiles) {
  struct Expected {
    const char* file;  // As FindTestData takes it.
    uint64_t events, cwnd_updates, sent, received, lost, acks;
  };
  std::string missing;  // Third-party files that are absent: skip at the end.
  for (const Expected& e : {
           Expected{"shared:qlog/picoquic_multipath_qlog_ref.draft-00.qlog",
                    200, 9, 34, 34, 1, 2},
           Expected{"shared:qlog/picoquic_qlog_trace_ecn_ref.draft-00.qlog",
                    104, 2, 20, 15, 2, 10},
           Expected{
               "shared:qlog/qvis_aioquic_parallel_10_50KB_f5.draft-01.qlog",
               1549, 45, 110, 403, 0, 19},
           Expected{"quic/ngtcp2_reno_30mbit_pfifo100_40ms/client-0.sqlog.gz",
                    44130, 22064, 7347, 14717, 0, 1818},
           // Made on the testbed (testdata/quic/ngtcp2_*_20mbit_pfifo12).
           Expected{"quic/ngtcp2_reno_20mbit_pfifo12/server.sqlog.gz", 6695,
                    3311, 2268, 1043, 71, 1038},
           Expected{"quic/ngtcp2_reno_20mbit_pfifo12/client.sqlog.gz", 6482,
                    3240, 1043, 2197, 0, 262},
           Expected{"quic/ngtcp2_cubic_20mbit_pfifo12/server.sqlog.gz", 6705,
                    3307, 2279, 1028, 89, 1022},
           Expected{"quic/ngtcp2_cubic_20mbit_pfifo12/client.sqlog.gz", 6438,
                    3218, 1028, 2190, 0, 258},
       }) {
    SCOPED_TRACE(e.file);
    absl::StatusOr<std::string> path = FindTestData(e.file);
    if (!path.ok()) {
      absl::StrAppend(&missing, path.status().message(), "; ");
      continue;
    }
    absl::StatusOr<HostStateLog> log = ParseQlog(*path);
    ASSERT_TRUE(log.ok()) << log.status();
    ASSERT_EQ(log->traces.size(), 1u);
    const HostTrace& trace = log->traces[0];
    EXPECT_EQ(trace.samples, e.events);
    EXPECT_EQ(trace.cwnd_updates, e.cwnd_updates);
    EXPECT_EQ(trace.quic_events.packets_sent.size(), e.sent);
    EXPECT_EQ(trace.quic_events.packets_received, e.received);
    EXPECT_EQ(trace.quic_events.packets_lost.size(), e.lost);
    EXPECT_EQ(AckFrames(trace), e.acks);
  }
  if (!missing.empty()) GTEST_SKIP() << missing;
}

TEST(QlogTest, PicoquicCongestionStateAndEcnCounts) {
  CCREPLAY_PATH_OR_SKIP(
      path, SharedTestData("qlog/picoquic_qlog_trace_ecn_ref.draft-00.qlog"));
  absl::StatusOr<HostStateLog> log = ParseQlog(path);
  ASSERT_TRUE(log.ok()) << log.status();
  const HostTrace& trace = log->traces[0];
  // [51190, "recovery", "congestion_state_updated", {"old":"0","new":"1",...}]
  ASSERT_EQ(trace.series.congestion_states.size(), 1u);
  EXPECT_EQ(trace.series.congestion_states[0].state, "1");
  EXPECT_EQ(trace.series.congestion_states[0].time_us, 51190);
  bool any_ecn = false;
  for (const QuicAckReceived& ack : trace.quic_events.acks_received) {
    any_ecn = any_ecn || ack.ect0_packets.has_value();
  }
  EXPECT_TRUE(any_ecn);
}

// The current draft's forms, from draft-ietf-quic-qlog-main-schema
// (examples in input-formats.md §2.5).
TEST(QlogTest, CurrentDraftSequentialWithRecordSeparators) {
  std::string path = WriteTemp(
      "current.sqlog",
      "\x1e{\"file_schema\":\"urn:ietf:params:qlog:file:sequential\","
      "\"serialization_format\":"
      "\"application/"
      "qlog+json-seq\",\"trace\":{\"vantage_point\":{\"type\":\"server\"},"
      "\"common_fields\":{\"time_format\":\"relative_to_previous_event\","
      "\"reference_time\":"
      "{\"clock_type\":\"system\",\"epoch\":\"2024-01-01T00:00:00.000Z\"}}}}\n"
      "\x1e{\"time\":12.031,\"name\":\"quic:packet_sent\",\"data\":{\"header\":"
      "{\"packet_type\":"
      "\"1RTT\",\"packet_number\":41},\"raw\":{\"length\":1252}}}\n"
      "\x1e{\"time\":0.01,\"name\":\"quic:packet_received\",\"data\":{"
      "\"header\":{\"packet_type\":"
      "\"1RTT\",\"packet_number\":17},\"frames\":[{\"frame_type\":\"ack\","
      "\"ack_delay\":0.2,"
      "\"acked_ranges\":[[30,41]],\"ect1\":812,\"ect0\":0,\"ce\":9}]}}\n"
      "\x1e{\"time\":0,\"name\":\"quic:recovery_metrics_updated\",\"data\":{"
      "\"congestion_window\":"
      "61440,\"smoothed_rtt\":0.61}}\n"
      "\x1e{\"time\":0,\"name\":\"quic:congestion_state_updated\",\"data\":{"
      "\"old\":"
      "\"congestion_avoidance\",\"new\":\"recovery\",\"trigger\":\"ecn\"}}\n");
  absl::StatusOr<HostStateLog> log = ParseQlog(path);
  ASSERT_TRUE(log.ok()) << log.status();
  ASSERT_EQ(log->traces.size(), 1u);
  const HostTrace& trace = log->traces[0];
  EXPECT_EQ(trace.vantage, TraceVantage::kServer);
  EXPECT_EQ(trace.clock_epoch_us, 1704067200000000);  // date -d 2024-01-01Z +%s
  ASSERT_EQ(trace.quic_events.packets_sent.size(), 1u);
  EXPECT_EQ(trace.quic_events.packets_sent[0].time_us, 12031);
  EXPECT_EQ(trace.quic_events.packets_sent[0].size_bytes, 1252u);
  ASSERT_EQ(trace.quic_events.acks_received.size(), 1u);
  const QuicAckReceived& ack = trace.quic_events.acks_received[0];
  EXPECT_EQ(ack.time_us, 12041);  // delta-encoded
  EXPECT_EQ(ack.acked_ranges[0].first, 30u);
  EXPECT_EQ(ack.acked_ranges[0].last, 41u);
  EXPECT_DOUBLE_EQ(*ack.ack_delay_us, 200);
  EXPECT_EQ(ack.ect1_packets, 812u);
  EXPECT_EQ(ack.ce_packets, 9u);
  EXPECT_EQ(trace.cwnd_updates, 1u);
  EXPECT_DOUBLE_EQ(trace.series.srtt_us[0].value, 610);
  ASSERT_EQ(trace.series.congestion_states.size(), 1u);
  EXPECT_EQ(trace.series.congestion_states[0].trigger, "ecn");
}

// An NDJSON qlog (the h2o/quicly adapter's form) of `version` with one
// server trace and one lost 1-RTT packet, number 7, at 1600000000123 ms.
std::string NdjsonWithOneLoss(const std::string& version) {
  return "{\"qlog_format\":\"NDJSON\",\"qlog_version\":\"" + version +
         "\",\"title\":\"h2o/quicly qlog\","
         "\"trace\":{\"vantage_point\":{\"type\":\"server\"},"
         "\"common_fields\":{\"protocol_type\":\"QUIC_HTTP3\","
         "\"time_format\":\"absolute\"}}}\n"
         "{\"time\":1600000000123,\"name\":\"recovery:packet_lost\","
         "\"data\":{\"header\":{\"packet_type\":\"1rtt\","
         "\"packet_number\":7}}}\n";
}

// Issue 16: a congestion_window of 1e308 reached the summary, whose cast to
// uint64_t is undefined (UBSan "is outside the range of representable
// values"). A window that is not a byte count is skipped with a warning.
TEST(QlogTest, OutOfRangeCongestionWindowIsRejectedNotCast) {
  absl::StatusOr<HostStateLog> log = ParseQlog(WriteTemp(
      "huge_cwnd.qlog",
      "{\"file_schema\":\"urn:ietf:params:qlog:file:contained\","
      "\"traces\":[{\"vantage_point\":{\"type\":\"client\"},"
      "\"events\":[{\"time\":1,\"name\":\"quic:recovery_metrics_updated\","
      "\"data\":{\"congestion_window\":1e308}},"
      "{\"time\":2,\"name\":\"quic:recovery_metrics_updated\","
      "\"data\":{\"congestion_window\":-1}},"
      "{\"time\":3,\"name\":\"quic:recovery_metrics_updated\","
      "\"data\":{\"congestion_window\":14720}}]}]}"));
  ASSERT_TRUE(log.ok()) << log.status();
  ASSERT_EQ(log->traces.size(), 1u);
  const HostTrace& trace = log->traces[0];
  ASSERT_EQ(trace.series.cwnd_bytes.size(), 1u);
  EXPECT_EQ(trace.series.cwnd_bytes[0].value, 14720);
  ASSERT_EQ(log->warnings.size(), 2u);
  EXPECT_THAT(log->warnings[0],
              HasSubstr("congestion_window=1e+308 is not a byte count"));
  EXPECT_THAT(log->warnings[1],
              HasSubstr("congestion_window=-1 is not a byte count"));
  EXPECT_EQ(SummarizeHostTrace(trace).cwnd_max_bytes, 14720u);
}

// Issue 16, replay_fuzzer (run 15a): an event at "time":8.9e41 ms read
// as INT64_MIN µs, and the replay's span (24000 - INT64_MIN) overflowed
// (UBSan, replay_session.cc). An event whose time is beyond
// kMaxQuicEventTimeUs (2^53 µs) either way is counted and its data
// skipped with a warning; the others are read as before.
TEST(QlogTest, EventTimeOutOfRangeIsSkippedNotCast) {
  absl::StatusOr<HostStateLog> log = ParseQlog(WriteTemp(
      "far_time.qlog",
      "{\"file_schema\":\"urn:ietf:params:qlog:file:contained\","
      "\"traces\":[{\"vantage_point\":{\"type\":\"client\"},"
      "\"events\":[{\"time\":1,\"name\":\"quic:recovery_metrics_updated\","
      "\"data\":{\"congestion_window\":12000}},"
      "{\"time\":-888888888888888888888888888888888888888889,"
      "\"name\":\"quic:recovery_metrics_updated\","
      "\"data\":{\"congestion_window\":13000}},"
      "{\"time\":9007199254741,\"name\":\"quic:recovery_metrics_updated\","
      "\"data\":{\"congestion_window\":14000}},"
      "{\"time\":9007199254740,\"name\":\"quic:recovery_metrics_updated\","
      "\"data\":{\"congestion_window\":15000}}]}]}"));
  ASSERT_TRUE(log.ok()) << log.status();
  ASSERT_EQ(log->traces.size(), 1u);
  const HostTrace& trace = log->traces[0];
  // 1 ms and 9,007,199,254,740 ms (within 2^53 µs) are kept.
  ASSERT_EQ(trace.series.cwnd_bytes.size(), 2u);
  EXPECT_EQ(trace.series.cwnd_bytes[0].value, 12000);
  EXPECT_EQ(trace.series.cwnd_bytes[1].value, 15000);
  EXPECT_EQ(trace.series.cwnd_bytes[1].time_us, 9007199254740000);
  ASSERT_EQ(log->warnings.size(), 2u);
  EXPECT_THAT(log->warnings[0], HasSubstr("is out of range, its data skipped"));
  EXPECT_THAT(log->warnings[1],
              HasSubstr("event time 9.0072e+12 is out of range"));
}

TEST(QlogTest, CurrentDraftContainedAndNdjsonLegacy) {
  absl::StatusOr<HostStateLog> contained = ParseQlog(WriteTemp(
      "contained.qlog",
      "{\"file_schema\":\"urn:ietf:params:qlog:file:contained\","
      "\"serialization_format\":"
      "\"application/"
      "qlog+json\",\"traces\":[{\"vantage_point\":{\"type\":\"client\"},"
      "\"events\":[{\"time\":1553986553572.0,\"name\":\"quic:recovery_metrics_"
      "updated\","
      "\"data\":{\"min_rtt\":0.5,\"congestion_window\":14720}}]}]}"));
  ASSERT_TRUE(contained.ok()) << contained.status();
  ASSERT_EQ(contained->traces.size(), 1u);
  EXPECT_EQ(contained->traces[0].vantage, TraceVantage::kClient);
  EXPECT_EQ(contained->traces[0].series.cwnd_bytes[0].value, 14720);
  EXPECT_EQ(contained->traces[0].series.min_rtt_us[0].value, 500);

  // quicly's qlog-adapter.py header (NDJSON, draft-02, absolute times).
  absl::StatusOr<HostStateLog> ndjson =
      ParseQlog(WriteTemp("adapter.qlog", NdjsonWithOneLoss("draft-02")));
  ASSERT_TRUE(ndjson.ok()) << ndjson.status();
  ASSERT_EQ(ndjson->traces.size(), 1u);
  ASSERT_EQ(ndjson->traces[0].quic_events.packets_lost.size(), 1u);
  EXPECT_EQ(ndjson->traces[0].quic_events.packets_lost[0].packet_number, 7u);
  EXPECT_EQ(ndjson->traces[0].quic_events.packets_lost[0].time_us,
            1600000000123000);
  EXPECT_EQ(ndjson->traces[0].clock_epoch_us, 0);
}

// qvis's and pcap2qlog's "draft-02-wip" (draft-02 while it was written) is
// read as draft-02 is; "7.0" below stays refused.
TEST(QlogTest, Draft02WipIsReadAsDraft02) {
  absl::StatusOr<HostStateLog> wip =
      ParseQlog(WriteTemp("wip.qlog", NdjsonWithOneLoss("draft-02-wip")));
  ASSERT_TRUE(wip.ok()) << wip.status();
  ASSERT_EQ(wip->traces.size(), 1u);
  ASSERT_EQ(wip->traces[0].quic_events.packets_lost.size(), 1u);
  EXPECT_EQ(wip->traces[0].quic_events.packets_lost[0].packet_number, 7u);
}

TEST(QlogTest, UnsupportedDialectAndNonQlogJsonAreNamed) {
  absl::StatusOr<HostStateLog> future = ParseQlog(
      WriteTemp("future.qlog",
                "{\"qlog_version\":\"7.0\",\"traces\":[{\"events\":[]}]}"));
  ASSERT_FALSE(future.ok());
  EXPECT_EQ(future.status().code(), absl::StatusCode::kUnimplemented);
  EXPECT_THAT(future.status().message(), HasSubstr("qlog_version \"7.0\""));

  absl::StatusOr<HostStateLog> schema = ParseQlog(WriteTemp(
      "schema.qlog", "{\"file_schema\":\"urn:example:other\",\"traces\":[]}"));
  ASSERT_FALSE(schema.ok());
  EXPECT_EQ(schema.status().code(), absl::StatusCode::kUnimplemented);
  EXPECT_THAT(schema.status().message(), HasSubstr("urn:example:other"));

  absl::StatusOr<HostStateLog> other =
      ParseQlog(WriteTemp("package.json", "{\"name\":\"x\"}"));
  ASSERT_FALSE(other.ok());
  EXPECT_EQ(other.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(other.status().message(), HasSubstr("JSON but not qlog"));
  EXPECT_THAT(other.status().message(), HasSubstr("keys: name"));

  absl::StatusOr<HostStateLog> text =
      ParseQlog(TestDataPath("lab/reno_ecn1_stepK60k_50mbit/ss.log"));
  ASSERT_FALSE(text.ok());
  EXPECT_EQ(text.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(text.status().message(), HasSubstr("byte offset 0"));
}

TEST(QlogTest, WrongTypesAndUnknownEventsAreWarningsOrIgnored) {
  absl::StatusOr<HostStateLog> log =
      ParseQlog(WriteTemp("types.sqlog",
                          "\x1e{\"qlog_version\":\"0.3\",\"qlog_format\":"
                          "\"JSON-SEQ\",\"trace\":{}}\n"
                          "\x1e{\"time\":\"x\",\"name\":\"transport:packet_"
                          "sent\",\"data\":{\"header\":"
                          "{\"packet_number\":\"abc\"}}}\n"
                          "\x1e{\"time\":1,\"name\":\"vendor:something_new\","
                          "\"data\":{\"a\":[1,2]}}\n"
                          "\x1e[1,2\n"
                          "\x1e"
                          "42\n"
                          "\x1e{\"time\":2,\"name\":\"recovery:metrics_"
                          "updated\",\"data\":{\"cwnd\":\"12000\"}}\n"));
  ASSERT_TRUE(log.ok()) << log.status();
  ASSERT_EQ(log->traces.size(), 1u);
  EXPECT_EQ(log->traces[0].event_counts.at("vendor:something_new"), 1u);
  EXPECT_EQ(log->traces[0].series.cwnd_bytes[0].value, 12000);
  ASSERT_EQ(log->warnings.size(), 3u) << testing::PrintToString(log->warnings);
  EXPECT_THAT(log->warnings[0], HasSubstr("without a packet_number"));
  EXPECT_THAT(log->warnings[1], HasSubstr("cut short"));
  EXPECT_THAT(log->warnings[2], HasSubstr("not a qlog event"));
}

TEST(QlogTest, FileCutMidEventKeepsWhatCameBefore) {
  // The first 100,000 bytes of a real contained qlog.
  CCREPLAY_PATH_OR_SKIP(
      path, SharedTestData("qlog/qvis_quictrace_example_github.draft-00.qlog"));
  absl::StatusOr<std::unique_ptr<InputFile>> file = InputFile::Open(path);
  ASSERT_TRUE(file.ok());
  std::string head(100000, '\0');
  ASSERT_EQ(*(*file)->Read(head.data(), head.size()), head.size());
  absl::StatusOr<HostStateLog> log = ParseQlog(WriteTemp("cut.qlog", head));
  ASSERT_TRUE(log.ok()) << log.status();
  ASSERT_EQ(log->traces.size(), 1u);
  EXPECT_GT(log->traces[0].samples, 100u);
  ASSERT_FALSE(log->warnings.empty());
  EXPECT_THAT(log->warnings.back(), HasSubstr("cut short"));
}

}  // namespace
}  // namespace ccreplay
