#include "reports/watch_session.h"

#include <string>

#include "absl/strings/str_cat.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "proto/json_printer.h"

namespace ccreplay {
namespace {

using ::testing::HasSubstr;

LiveFlowInterval Row() {
  LiveFlowInterval row;
  row.flow_index = 3;
  row.sender = "10.0.0.1:40000";
  row.receiver = "10.0.0.2:5201";
  row.send_rate_bps = 19'500'000;
  row.packets = 1200;
  row.data_bytes = 1'000'000;
  row.retransmissions = 2;
  row.limit = "rwnd";
  return row;
}

TEST(WatchSessionTest, JsonLineHasNullsForWhatIsNotKnownYet) {
  const proto::WatchFlowInterval message =
      WatchFlowIntervalProto(Row(), 2.0, 1.0, 5'000'000'000);
  const std::string line = PrintJson(message, JsonPrintOptions{0});
  // One line (JSON Lines), every field present, unknowns null.
  EXPECT_EQ(line.find('\n'), line.size() - 1) << line;
  EXPECT_THAT(line, HasSubstr("\"srtt_ms\":null"));
  EXPECT_THAT(line, HasSubstr("\"rate_bps\":null"));
  EXPECT_THAT(line, HasSubstr("\"newest_event_age_s\":null"));
  EXPECT_THAT(line, HasSubstr("\"limit\":\"rwnd\""));
  proto::WatchFlowInterval back;
  ASSERT_TRUE(ParseJson(line, &back).ok());
  EXPECT_EQ(back.flow_index(), 3u);
  EXPECT_DOUBLE_EQ(back.send_rate_bps(), 19'500'000);
  EXPECT_FALSE(back.has_rate_bps());
  EXPECT_FALSE(back.has_srtt_ms());
  // Not a local sender: every host field null.
  for (const char* field :
       {"host_cwnd_segments", "host_cwnd_bytes", "host_ssthresh",
        "host_srtt_ms", "host_pacing_rate_bps", "host_delivery_rate_bps",
        "host_cc"}) {
    EXPECT_THAT(line, HasSubstr(absl::StrCat("\"", field, "\":null")));
  }
}

TEST(WatchSessionTest, HostStateOfALocalSenderFillsItsFieldsAndColumn) {
  LiveFlowInterval row = Row();
  HostTcpSocket host;
  host.cwnd_segments = 42;
  host.mss_bytes = 1448;
  host.srtt_us = 20345;
  host.delivery_rate_bps = 20e6;
  host.cc = "cubic";  // ssthresh infinite, unpaced: both absent.
  row.host = host;
  const proto::WatchFlowInterval message =
      WatchFlowIntervalProto(row, 2.0, 1.0, 0);
  EXPECT_EQ(message.host_cwnd_segments(), 42u);
  EXPECT_EQ(message.host_cwnd_bytes(), 42u * 1448u);
  EXPECT_DOUBLE_EQ(message.host_srtt_ms(), 20.345);
  EXPECT_DOUBLE_EQ(message.host_delivery_rate_bps(), 20e6);
  EXPECT_EQ(message.host_cc(), "cubic");
  EXPECT_FALSE(message.has_host_ssthresh());
  EXPECT_FALSE(message.has_host_pacing_rate_bps());
  const std::string table = WatchTable({row}, 2.0, 0);
  EXPECT_THAT(table, HasSubstr("host cwnd"));
  EXPECT_THAT(table, HasSubstr("rwnd        42  -"));
  EXPECT_THAT(WatchTable({Row()}, 2.0, 0), HasSubstr("rwnd       n/a  -"));
}

TEST(WatchSessionTest, EventAgeIsTakenAtTheGivenTime) {
  LiveFlowInterval row = Row();
  row.srtt_ms = 12.5;
  row.rate_bps = 18'250'000;
  row.newest_event = "retransmission: fast";
  row.newest_event_time_ns = 3'500'000'000;
  const proto::WatchFlowInterval message =
      WatchFlowIntervalProto(row, 2.0, 1.0, 5'000'000'000);
  EXPECT_DOUBLE_EQ(message.srtt_ms(), 12.5);
  EXPECT_DOUBLE_EQ(message.newest_event_age_s(), 1.5);
  const std::string table = WatchTable({row}, 2.0, 5'000'000'000);
  EXPECT_THAT(table, HasSubstr("2.0 s, active flows: 1"));
  EXPECT_THAT(table, HasSubstr("10.0.0.1:40000 > 10.0.0.2:5201"));
  EXPECT_THAT(table, HasSubstr("18.25 Mb/s  19.50 Mb/s"));
  EXPECT_THAT(table, HasSubstr("12.50 ms"));
  EXPECT_THAT(table, HasSubstr("retransmission: fast (1.5 s ago)"));
}

TEST(WatchSessionTest, TableSaysNaWithoutAnRttSample) {
  const std::string table = WatchTable({Row()}, 1.0, 0);
  EXPECT_THAT(table, HasSubstr(" n/a "));
  EXPECT_THAT(table, ::testing::Not(HasSubstr("nan")));
  EXPECT_THAT(table, ::testing::Not(HasSubstr("inf")));
}

TEST(WatchSessionTest, KeptCaptureWarningNamesTheTimeRangeTheReportCovers) {
  const absl::Time started = absl::FromUnixSeconds(1'700'000'000);
  const int64_t start_ns = absl::ToUnixNanos(started);
  EXPECT_EQ(KeptCaptureWarning(0, 0, start_ns, started, 200'000'000), "");
  const std::string warning =
      KeptCaptureWarning(8610, start_ns + 12'345'000'000,
                         start_ns + 20'051'000'000, started, 200'000'000);
  EXPECT_THAT(warning, HasSubstr("(12.3 s to 20.1 s into the watch)"));
  EXPECT_THAT(warning, HasSubstr("--keep 200 MB dropped the 8610 packets"));
}

// A flow of the live table (index 1 of 2) becomes its endpoints; what is
// not an index of it stays as given.
TEST(WatchSessionTest, FlowIndexBecomesTheFlowsEndpointsForTheKeptCapture) {
  FlowTable table;
  for (uint16_t port : {40000, 40001}) {
    TcpSegment s;
    s.src.family = s.dst.family = 4;
    s.src.bytes[0] = s.dst.bytes[0] = 10;
    s.src.bytes[3] = 1;
    s.dst.bytes[3] = 2;
    s.src_port = port;
    s.dst_port = 5201;
    s.flags = kTcpSyn;
    table.OnSegment(s);
  }
  EXPECT_EQ(FlowSpecForKeptCapture(table, "1"), "10.0.0.1:40001-10.0.0.2:5201");
  EXPECT_EQ(FlowSpecForKeptCapture(table, "2"), "2");
  EXPECT_EQ(FlowSpecForKeptCapture(table, ""), "");
  EXPECT_EQ(FlowSpecForKeptCapture(table, "10.0.0.1:1-10.0.0.2:2"),
            "10.0.0.1:1-10.0.0.2:2");
}

}  // namespace
}  // namespace ccreplay
