#include "reports/flows_report.h"

#include <cmath>
#include <limits>
#include <string>

#include "gtest/gtest.h"
#include "parsers/flow_proto.h"
#include "proto/flows.pb.h"
#include "proto/json_printer.h"
#include "proto/testing/test_data.h"
#include "replay/timeline_writer.h"

namespace ccreplay {
namespace {

// The row as `flows --json` printed it before AppendFlowReportJson: its
// proto::FlowReport made and printed by reflection.
std::string ByReflection(const FlowRow& r) {
  proto::FlowReport flow;
  *flow.mutable_identity() = FlowIdentityProto(*r.source);
  *flow.mutable_handshake() = HandshakeProto(*r.source, r.flow);
  *flow.mutable_summary() = FlowSummaryProto(r.flow);
  *flow.mutable_timeline() = AckTimelineSummaryProto(r.timeline);
  std::string out;
  AppendJson(flow, JsonPrintOptions{}, 2, &out);
  return out;
}

std::string Direct(const FlowRow& r) {
  std::string out;
  AppendFlowReportJson(r, 2, &out);
  return out;
}

// Every flow of `path` written both ways: the same bytes. Returns the
// number of flows.
size_t ExpectSameRows(const std::string& path) {
  AckTimelineBuilder builder;
  absl::StatusOr<CaptureInfo> info = ReadCapture(path, builder);
  EXPECT_TRUE(info.ok()) << info.status();
  if (!info.ok()) return 0;
  builder.Finish();
  size_t rows = 0;
  for (const Flow& flow : builder.flow_table().flows()) {
    const FlowRow r{&flow, SummarizeFlow(flow, info->first_packet_time_ns),
                    builder.Stats(flow.index)};
    EXPECT_EQ(Direct(r), ByReflection(r)) << path << " flow " << flow.index;
    ++rows;
  }
  return rows;
}

TEST(FlowReportJson, SameBytesAsTheProtoOnLabCaptures) {
  // Receiver-side captures: the timeline carries its vantage warning.
  // tshark -r FILE -q -z conv,tcp counts 2 conversations (control and data).
  EXPECT_EQ(ExpectSameRows(
                TestDataPath("lab/reno_ecn1_stepK60k_50mbit/receiver.pcap.gz")),
            2u);
  // AccECN: ce_fed_back_packets is set (not null); 1 conversation by the
  // same tshark command.
  EXPECT_EQ(
      ExpectSameRows(TestDataPath("sim/prague_v05_rtt_scaling_1gbit.pcap.gz")),
      1u);
}

// The fields the captures above leave at one value: every optional set,
// a tunnel, figures that are not whole or not finite, text to escape.
TEST(FlowReportJson, SameBytesAsTheProtoWithEveryFieldSet) {
  Flow flow;
  flow.index = 7;
  flow.encapsulation = Encapsulation::kVxlan;
  flow.port[0] = 443;
  flow.port[1] = 50000;
  flow.side[0].syn_seen = true;
  FlowRow r{&flow, {}, {}};
  r.flow.handshake_seen = true;
  r.flow.mss_option_sender = 1460;
  r.flow.mss_option_receiver = 8960;
  r.flow.wscale_sender = 7;
  r.flow.wscale_receiver = 14;
  r.flow.sack_permitted = true;
  r.flow.ecn_mode = EcnMode::kAccEcn;
  r.flow.packets_data_dir = std::numeric_limits<uint64_t>::max();
  r.flow.start_s = 1.0 / 3;
  r.flow.duration_s = 1e300;
  r.flow.goodput_bps = std::numeric_limits<double>::quiet_NaN();
  r.timeline.rtt_min_ms = -0.0;
  r.timeline.rtt_max_ms = std::numeric_limits<double>::infinity();
  r.timeline.ce_fed_back_packets = 0;
  r.timeline.retransmissions[2] = 3;
  r.timeline.warnings = {"a \"quoted\"\nline\t\x01", ""};
  const std::string direct = Direct(r);
  EXPECT_EQ(direct, ByReflection(r));
  // Not finite: null, never inf or nan.
  EXPECT_NE(direct.find("\"goodput_bps\": null"), std::string::npos);
  EXPECT_NE(direct.find("\"rtt_max_ms\": null"), std::string::npos);
}

}  // namespace
}  // namespace ccreplay
