#include "replay/flow_selection.h"

#include <string>

#include "gtest/gtest.h"
#include "parsers/pcap_reader.h"
#include "proto/testing/test_data.h"

namespace ccreplay {
namespace {

// The Prague capture: flow 0 is iperf3's control connection, flow 1 the
// upload (`ccreplay flows` on it; tshark -z conv,tcp agrees).
FlowTable Prague(const std::string& path) {
  FlowTable table;
  EXPECT_TRUE(ReadCapture(path, table).ok());
  return table;
}

TEST(FlowSelectionTest, DefaultIndexAndEndpoints) {
  CCREPLAY_PATH_OR_SKIP(
      path, SharedTestData("tcp/l4s-tests_prague_dualpi2_wifi.pcap.gz"));
  FlowTable table = Prague(path);
  absl::StatusOr<SelectedFlow> d = SelectFlow(table, "");
  ASSERT_TRUE(d.ok());
  EXPECT_EQ(d->index, 1u);
  EXPECT_EQ(SelectFlow(table, "0")->index, 0u);
  const Flow& f = table.flows()[1];
  const std::string a = EndpointString(f.address[0], f.port[0]);
  const std::string b = EndpointString(f.address[1], f.port[1]);
  EXPECT_EQ(a, "192.168.122.79:38754");
  EXPECT_EQ(SelectFlow(table, b + "-" + a)->index, 1u);
  // A --flow that names no flow is a usage error (OutOfRange, exit 2).
  EXPECT_EQ(SelectFlow(table, "7").status().code(),
            absl::StatusCode::kOutOfRange);
  EXPECT_EQ(SelectFlow(table, "x").status().code(),
            absl::StatusCode::kInvalidArgument);
}

TEST(FlowSelectionTest, NoFlowNamesTheTunnelNotDecoded) {
  CCREPLAY_PATH_OR_SKIP(path,
                        SharedTestData("wild/zeek_tunnels_gre-aruba.pcap.gz"));
  FlowTable table;
  absl::StatusOr<CaptureInfo> info = ReadCapture(path, table);
  ASSERT_TRUE(info.ok()) << info.status();
  // Every packet is GRE protocol 0x8200 (`tshark -r F -T fields -e
  // gre.proto | sort | uniq -c`: 2407 0x8200): nothing to diagnose, and why.
  absl::StatusOr<SelectedFlow> selected = SelectCaptureFlow(table, *info, "");
  EXPECT_EQ(selected.status().code(), absl::StatusCode::kFailedPrecondition);
  EXPECT_EQ(selected.status().message(),
            "the capture holds no TCP flow (2407 packets of GRE protocol "
            "0x8200 not decoded)");
}

}  // namespace
}  // namespace ccreplay
