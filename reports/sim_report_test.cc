#include "reports/sim_report.h"

#include <memory>
#include <string>

#include "absl/strings/match.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_split.h"
#include "gtest/gtest.h"
#include "proto/json_printer.h"
#include "proto/simulation.pb.h"

namespace ccreplay {
namespace {

constexpr int64_t kMs = 1'000'000;
constexpr int64_t kS = 1'000'000'000;

std::unique_ptr<Simulation> RunSimulation(const std::string& cc, bool pacing,
                                          int64_t duration_ns) {
  // 100 Mbit/s, 10 ms base RTT, a 125 kB (one BDP) buffer.
  SimulationConfig config;
  config.rate_bps = 100'000'000;
  config.base_rtt_ns = 10 * kMs;
  config.buffer_bytes = 125'000;
  config.sample_interval_ns = 100 * kMs;
  FlowConfig flow;
  flow.cc_spec = cc;
  flow.pacing = pacing;
  config.flows.push_back(flow);
  std::unique_ptr<Simulation> sim = *Simulation::Create(config);
  sim->RunUntil(duration_ns);
  return sim;
}

// The table reports the path's utilization as bytes that left the
// bottleneck over rate x duration, and each flow's counters.
TEST(SimReport, TableCarriesThePathAndFlowFigures) {
  const std::unique_ptr<Simulation> sim = RunSimulation("reno", false, kS);
  const std::string table = SimulationTable(*sim, kS);
  const std::vector<std::string> lines = absl::StrSplit(table, '\n');
  ASSERT_GE(lines.size(), 5u);
  EXPECT_EQ(lines[0],
            "path: 100.000 Mbit/s, base RTT 10.000 ms, buffer 125000 bytes "
            "(packet-size-neutral), 1.0 s");
  const double utilization =
      8.0 * static_cast<double>(sim->bottleneck().transmitted_bytes()) / 1e8;
  EXPECT_TRUE(absl::StartsWith(
      lines[1], absl::StrFormat("utilization %.4f, drops %d, CE marks 0",
                                utilization, sim->bottleneck().drops())));
  EXPECT_TRUE(absl::StartsWith(lines[4], "0    reno "));
  EXPECT_TRUE(absl::StrContains(
      lines[4],
      absl::StrFormat(
          "%.3f",
          8.0 * static_cast<double>(sim->flow_stats(0).egress_bytes) / 1e6)));
}

// One sample per 100 ms over 1 s: ten rows under the header, one flow.
TEST(SimReport, CsvHasOneRowPerSample) {
  const std::unique_ptr<Simulation> sim = RunSimulation("cubic", false, kS);
  const std::string csv = SimulationCsv(*sim);
  const std::vector<std::string> lines =
      absl::StrSplit(csv, '\n', absl::SkipEmpty());
  ASSERT_EQ(lines.size(), 11u);
  EXPECT_TRUE(absl::StartsWith(lines[0], "flow,time_us,cwnd_bytes,"));
  EXPECT_TRUE(absl::StartsWith(lines[1], "0,100000,"));
  EXPECT_TRUE(absl::StartsWith(lines[10], "0,1000000,"));
}

// `json` parsed into its message (unknown fields fail) and printed on one
// line.
template <typename Message>
std::string Compact(const std::string& json) {
  Message message;
  const absl::Status parsed = ParseJson(json, &message);
  EXPECT_TRUE(parsed.ok()) << parsed;
  EXPECT_EQ(PrintJson(message), json);
  return PrintJson(message, JsonPrintOptions{0});
}

TEST(SimReport, JsonCarriesTheContractKeys) {
  const std::unique_ptr<Simulation> sim = RunSimulation("reno", false, kS);
  const std::string json =
      Compact<proto::SimulationReport>(SimulationJson(*sim, kS));
  for (const char* key :
       {"\"path\":", "\"rate_bps\":100000000", "\"base_rtt_us\":10000",
        "\"buffer_bytes\":125000", "\"admission\":\"packet_size_neutral\"",
        "\"flows\":", "\"cc\":\"reno\"", "\"packet_bytes\":1448",
        "\"ecn_feedback\":\"none\"", "\"ssthresh_bytes\":"}) {
    EXPECT_TRUE(absl::StrContains(json, key)) << key;
  }
}

// Prague v0.5 on drop-tail without CE marks never leaves slow start (see
// replay/sim/simulation_test.cc); Reno on the same path does.
TEST(SimReport, WarnsAboutAFlowThatNeverLeftSlowStart) {
  const std::unique_ptr<Simulation> prague =
      RunSimulation("prague:v05", true, kS);
  const std::vector<std::string> warnings = SimulationWarnings(*prague);
  ASSERT_EQ(warnings.size(), 1u);
  EXPECT_TRUE(absl::StartsWith(warnings[0], "flow 0 (prague:v05) had "));
  EXPECT_TRUE(absl::StrContains(warnings[0], "never left slow start"));
  EXPECT_TRUE(SimulationWarnings(*RunSimulation("reno", false, kS)).empty());
}

// The issue-8 JSON contract on a hand-built result; the expected text was
// checked with python3 -c "import json,sys; json.loads(sys.stdin.read())".
TEST(SimReport, MtuExperimentJsonContract) {
  MtuExperimentResult result;
  MtuControllerResult row;
  row.controller = "reno";
  row.ratio_without = 0.5;
  row.gsd_without = 1.25;
  row.ratio_with = 1;
  row.gsd_with = 2;
  row.bytes_ratio_without = 0.25;
  row.bytes_gsd_without = 1.5;
  MtuProfileResult profile;
  profile.name = "DSL";
  profile.ratio_without = 0.75;
  profile.ratio_with = 0.875;
  profile.stderr_without = 0.0625;
  profile.bytes_ratio_without = 0.5;
  row.profiles.push_back(profile);
  result.rows.push_back(row);
  EXPECT_EQ(Compact<proto::MtuExperimentReport>(MtuExperimentJson(result)),
            "{\"rows\":[{\"controller\":\"reno\",\"ratio_without\":0.5,"
            "\"gsd_without\":1.25,\"ratio_with\":1,\"gsd_with\":2,"
            "\"profiles\":[{\"name\":\"DSL\",\"ratio_without\":0.75,"
            "\"ratio_with\":0.875,\"stderr_without\":0.0625,"
            "\"stderr_with\":0,\"bytes_ratio_without\":0.5,"
            "\"bytes_ratio_with\":0}],\"bytes_ratio_without\":0.25,"
            "\"bytes_gsd_without\":1.5,\"bytes_ratio_with\":0,"
            "\"bytes_gsd_with\":0}]}\n");
}

TEST(SimReport, PragueExperimentJsonContract) {
  PragueExperimentResult result;
  PragueRow row;
  row.profile = "prague:v05";
  row.rtt_scaling = true;
  row.ack_every = 16;
  row.utilization = 0.5;
  row.utilization_second_half = 0.25;
  row.min_cwnd_after_ss_segments = 2;
  result.rows.push_back(row);
  EXPECT_EQ(
      Compact<proto::PragueExperimentReport>(PragueExperimentJson(result)),
      "{\"rows\":[{\"profile\":\"prague:v05\",\"rtt_scaling\":true,"
      "\"ack_every\":16,\"utilization\":0.5,"
      "\"utilization_second_half\":0.25,"
      "\"min_cwnd_after_ss_segments\":2}]}\n");
}

}  // namespace
}  // namespace ccreplay
