#include "reports/flow_index_report.h"

#include <algorithm>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "gtest/gtest.h"
#include "proto/json_printer.h"
#include "proto/testing/test_data.h"
#include "reports/diagnose_session.h"

namespace ccreplay {
namespace {

// The limiter with the largest share in a full diagnosis.
std::string MainLimiter(const proto::Diagnosis& d) {
  std::string main = "none";
  double best = 0;
  for (const proto::LimiterShare& l : d.limiters()) {
    if (l.time_fraction() > best) {
      best = l.time_fraction();
      main = l.limiter();
    }
  }
  return main;
}

bool HasFinding(const proto::Diagnosis& d, const std::string& kind) {
  for (const proto::Finding& f : d.findings())
    if (f.kind() == kind) return true;
  return false;
}

// The index's row of the input's largest flow against what `ccreplay
// diagnose INPUT --flow N --nosimulate` says of that flow: the same main
// limiter, the worst finding among the diagnosis's (or none where it has
// none of the limiter rules), and a utilization bound not below the
// diagnosis's measured utilization.
void ExpectIndexAgreesWithDiagnosis(const std::string& input,
                                    const std::string& finding) {
  absl::StatusOr<FlowIndexRun> run =
      BuildFlowIndex(input, CaptureReadOptions(), "throughput");
  ASSERT_TRUE(run.ok()) << run.status();
  const proto::FlowIndexRow* largest = nullptr;
  const proto::FlowIndex index = FlowIndexProto(&*run);
  for (const proto::FlowIndexRow& r : index.rows())
    if (largest == nullptr || r.data_bytes() > largest->data_bytes())
      largest = &r;
  ASSERT_NE(largest, nullptr);
  DiagnoseOptions options;
  options.input = input;
  options.flow = absl::StrCat(largest->flow_index());
  options.simulate = false;
  absl::StatusOr<DiagnoseRun> diagnosed = DiagnoseInput(options);
  ASSERT_TRUE(diagnosed.ok()) << diagnosed.status();
  const proto::Diagnosis& d = diagnosed->diagnosis.result;
  EXPECT_EQ(largest->main_limiter(), MainLimiter(d)) << input;
  EXPECT_EQ(largest->worst_finding(), finding) << input;
  if (!finding.empty()) EXPECT_TRUE(HasFinding(d, finding)) << input;
  for (const char* kind : {"receive_window_limited", "loss_recovery_dominant",
                           "application_limited"}) {
    if (finding.empty()) EXPECT_FALSE(HasFinding(d, kind)) << input << kind;
  }
  if (d.has_utilization()) {
    ASSERT_TRUE(largest->has_utilization_at_most()) << input;
    EXPECT_GE(largest->utilization_at_most(), d.utilization()) << input;
  }
}

// A lab bundle (sender-side, ECN, cwnd-limited throughout): no finding.
TEST(FlowIndexReportTest, LabBundleFlowAgreesWithDiagnose) {
  ExpectIndexAgreesWithDiagnosis(TestDataPath("lab/reno_ecn1_stepK60k_50mbit"),
                                 "");
}

// Third-party captures where the diagnosis raises a limiter finding.
TEST(FlowIndexReportTest, LimiterFindingsAgreeWithDiagnose) {
  struct Case {
    const char* file;
    const char* finding;
  };
  for (const Case& c : {
           Case{"tcp/zeek-tcprs_fast019.pcap", "loss_recovery_dominant"},
           Case{"tcp/zeek-tcprs_comp008.pcap", "application_limited"},
           Case{"wild/zeek_http_bro.org.pcap.gz", "application_limited"},
       }) {
    absl::StatusOr<std::string> path = SharedTestData(c.file);
    if (!path.ok()) {
      std::printf("skipped: %s\n",
                  std::string(path.status().message()).c_str());
      continue;
    }
    ExpectIndexAgreesWithDiagnosis(*path, c.finding);
  }
}

proto::FlowIndex ThreeRows() {
  proto::FlowIndex index;
  proto::FlowIndexRow* a = index.add_rows();
  a->set_flow_index(0);
  a->set_start_s(0);
  a->set_goodput_bps(1e6);
  a->set_retransmissions(5);
  a->set_data_duration_s(1);
  proto::FlowIndexRow* b = index.add_rows();
  b->set_flow_index(1);
  b->set_start_s(2);  // No goodput: last by throughput.
  b->set_data_duration_s(3);
  proto::FlowIndexRow* c = index.add_rows();
  c->set_flow_index(2);
  c->set_start_s(1);
  c->set_goodput_bps(5e6);
  c->set_utilization_at_most(0.5);
  c->set_data_duration_s(2);
  return index;
}

std::string Order(const proto::FlowIndex& index) {
  std::string out;
  for (const proto::FlowIndexRow& r : index.rows())
    absl::StrAppend(&out, r.flow_index());
  return out;
}

TEST(FlowIndexReportTest, SortsByEveryKey) {
  const std::pair<const char*, const char*> expected[] = {
      {"throughput", "201"},      {"utilization", "201"}, {"duration", "120"},
      {"retransmissions", "012"}, {"start", "021"},       {"index", "012"}};
  for (const auto& [key, order] : expected) {
    proto::FlowIndex index = ThreeRows();
    ASSERT_TRUE(SortFlowIndex(key, &index).ok()) << key;
    EXPECT_EQ(Order(index), order) << key;
    EXPECT_EQ(index.sort_key(), key);
  }
  proto::FlowIndex index = ThreeRows();
  const absl::Status bad = SortFlowIndex("bytes", &index);
  EXPECT_TRUE(absl::IsInvalidArgument(bad));
  EXPECT_NE(bad.message().find("throughput, utilization"), std::string::npos);
}

TEST(FlowIndexReportTest, TableAndPageShowEveryRowWithoutInfOrNan) {
  proto::FlowIndex index = ThreeRows();
  index.set_input("x.pcap");
  ASSERT_TRUE(SortFlowIndex("throughput", &index).ok());
  const std::string table = FlowIndexTable(index);
  EXPECT_NE(table.find("x.pcap: 3 flows, sorted by throughput"),
            std::string::npos);
  EXPECT_NE(table.find("5.00 Mb/s"), std::string::npos);
  EXPECT_NE(table.find("<=50%"), std::string::npos);
  EXPECT_NE(table.find("n/a"), std::string::npos);  // Row 1's goodput.
  const std::string html = RenderFlowIndexHtml(index);
  EXPECT_NE(html.find("<table id=\"flows\">"), std::string::npos);
  EXPECT_NE(html.find("data-v=\"5000000\""), std::string::npos);
  for (const std::string& text : {table, html}) {
    EXPECT_EQ(text.find("inf"), std::string::npos);
    EXPECT_EQ(text.find("nan"), std::string::npos);
  }
}

// The run's table, written from its entries a row at a time, against the
// table of its rows as protos sorted by SortFlowIndex: the same order and
// the same text for every key.
TEST(FlowIndexReportTest, RunTableIsTheSortedProtoTable) {
  // 334 flows: `tshark -r FILE -q -z conv,tcp | grep -c '<->'` counts 334.
  CCREPLAY_PATH_OR_SKIP(path, SharedTestData("wild/pcapplusplus_tls2.pcap.gz"));
  for (absl::string_view key : kFlowIndexSortKeys) {
    absl::StatusOr<FlowIndexRun> run =
        BuildFlowIndex(path, CaptureReadOptions(), key);
    ASSERT_TRUE(run.ok()) << run.status();
    std::string table;  // Before the rows: they consume the run.
    WriteFlowIndexTable(*run, [&](absl::string_view text) {
      table.append(text.data(), text.size());
    });
    const proto::FlowIndex index = FlowIndexProto(&*run);
    ASSERT_EQ(index.rows_size(), 334);
    // The same rows in reverse, sorted again.
    proto::FlowIndex resorted = index;
    std::reverse(resorted.mutable_rows()->begin(),
                 resorted.mutable_rows()->end());
    ASSERT_TRUE(SortFlowIndex(key, &resorted).ok());
    std::vector<uint32_t> got, want;
    for (const proto::FlowIndexRow& r : index.rows())
      got.push_back(r.flow_index());
    for (const proto::FlowIndexRow& r : resorted.rows())
      want.push_back(r.flow_index());
    EXPECT_EQ(got, want) << key;
    EXPECT_EQ(table, FlowIndexTable(resorted)) << key;
  }
}

// The run's JSON, written a row at a time from its entries, against
// PrintJson of its rows as protos (FlowIndexProto): the same bytes, on
// every flow of two captures, for every key, and with no flow at all.
std::string RunJson(const FlowIndexRun& run) {
  std::string json;
  WriteFlowIndexJson(run, [&](absl::string_view text) {
    json.append(text.data(), text.size());
  });
  return json;
}

TEST(FlowIndexReportTest, RunJsonIsPrintJsonOfTheProto) {
  // loopback.pcap: 1 flow (`tshark -r FILE -q -z conv,tcp | grep -c '<->'`);
  // zeek_http_bro.org: 13 by the same command.
  const std::string loopback = TestDataPath("user/loopback.pcap");
  CCREPLAY_PATH_OR_SKIP(zeek, SharedTestData("wild/zeek_http_bro.org.pcap.gz"));
  // Every optional field of a row is set in some row and absent in another
  // (both printings must agree on `null`).
  int goodput = 0, min_rtt = 0, median_rtt = 0, utilization = 0, rows = 0;
  for (const std::string& path : {loopback, zeek}) {
    for (absl::string_view key : kFlowIndexSortKeys) {
      absl::StatusOr<FlowIndexRun> run =
          BuildFlowIndex(path, CaptureReadOptions(), key);
      ASSERT_TRUE(run.ok()) << run.status();
      const std::string streamed = RunJson(*run);  // Before: it consumes.
      const proto::FlowIndex index = FlowIndexProto(&*run);
      EXPECT_EQ(streamed, PrintJson(index)) << path << " " << key;
      if (key != "index") continue;
      for (const proto::FlowIndexRow& r : index.rows()) {
        ++rows;
        goodput += r.has_goodput_bps();
        min_rtt += r.has_min_rtt_ms();
        median_rtt += r.has_median_rtt_ms();
        utilization += r.has_utilization_at_most();
      }
    }
  }
  EXPECT_EQ(rows, 1 + 13);
  for (int set : {goodput, min_rtt, median_rtt, utilization}) {
    EXPECT_GT(set, 0);
    EXPECT_LT(set, rows);
  }
  FlowIndexRun empty;  // No flow: `"rows": []`, as PrintJson prints it.
  empty.index.set_input("a \"quoted\"\nname");
  empty.index.set_sort_key("index");
  empty.index.set_max_open_flows(3);
  empty.index.set_idle_timeout_s(0.25);
  EXPECT_EQ(RunJson(empty), PrintJson(empty.index));
  EXPECT_NE(RunJson(empty).find("\"rows\": []"), std::string::npos);
}

}  // namespace
}  // namespace ccreplay
