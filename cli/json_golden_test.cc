// One JSON golden per command, from project-made testdata (see
// testdata/SOURCES.md): the output must parse into its message and equal
// testdata/golden/NAME.json byte for byte. After a deliberate schema
// change, regenerate every golden with
//   CCREPLAY_UPDATE_GOLDENS=1 build/cli/json_golden_tests
// and review the diff.
#include <sys/wait.h>

#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <memory>
#include <sstream>
#include <string>

#include "gtest/gtest.h"
#include "proto/competition.pb.h"
#include "proto/conformance.pb.h"
#include "proto/controllers.pb.h"
#include "proto/flow_index.pb.h"
#include "proto/flows.pb.h"
#include "proto/json_printer.h"
#include "proto/replay.pb.h"
#include "proto/report.pb.h"
#include "proto/simulation.pb.h"
#include "proto/testing/test_data.h"
#include "proto/timeline.pb.h"
#include "proto/trace.pb.h"

namespace ccreplay {
namespace {

// Runs `ccreplay ARGS` in the source tree (so paths in the output are the
// relative ones below) and returns its stdout.
std::string RunCcreplay(const std::string& args) {
  const std::string command = "cd " + TestDataPath("..") + " && " +
                              CCREPLAY_BINARY_DIR + "/cli/ccreplay " + args +
                              " 2>/dev/null";
  std::string out;
  FILE* pipe = popen(command.c_str(), "r");
  char chunk[65536];
  size_t n;
  while ((n = std::fread(chunk, 1, sizeof(chunk), pipe)) > 0)
    out.append(chunk, n);
  pclose(pipe);
  return out;
}

struct Golden {
  const char* name;
  const char* args;
  std::unique_ptr<google::protobuf::Message> (*message)();
};

template <typename M>
std::unique_ptr<google::protobuf::Message> New() {
  return std::make_unique<M>();
}

constexpr char kSll2[] = "testdata/pcap-format/ccreplay_sll2_ipv6.pcap";

const Golden kGoldens[] = {
    {"flows", "flows --json testdata/pcap-format/ccreplay_sll2_ipv6.pcap",
     New<proto::FlowsReport>},
    {"flows_qlog",
     "flows --json testdata/quic/ngtcp2_reno_20mbit_pfifo12/server.sqlog.gz",
     New<proto::HostFlowsReport>},
    {"timeline",
     "timeline --json --flow 0 testdata/pcap-format/ccreplay_sll2_ipv6.pcap",
     New<proto::AckTimelineReport>},
    {"replay",
     "replay --json --cc reno,cubic "
     "testdata/pcap-format/ccreplay_sll2_ipv6.pcap",
     New<proto::ReplayReport>},
    {"simulate",
     "simulate --json --cc reno --rate 10mbit --delay 10ms --duration 500ms "
     "--sample_interval 50ms",
     New<proto::SimulationReport>},
    {"experiment_prague",
     "experiment prague-rtt-scaling --duration 200ms --json",
     New<proto::PragueExperimentReport>},
    {"experiment_mtu",
     "experiment mtu-normalization --controllers reno --profile DSL --json",
     New<proto::MtuExperimentReport>},
    {"controllers", "controllers --json", New<proto::ControllersReport>},
    {"diagnose", "diagnose --json testdata/lab/reno_ecn1_stepK60k_50mbit",
     New<proto::Diagnosis>},
    {"diagnose_flows",
     "diagnose --json --flows 0,1 testdata/pcap-format/ccreplay_sll2_ipv6.pcap",
     New<proto::MultiFlowDiagnosis>},
    {"diagnose_flows_all",
     "diagnose --flows all --json testdata/lab/reno_ecn1_stepK60k_50mbit",
     New<proto::FlowIndex>},
    {"convert", "convert --json testdata/pcap-format/ccreplay_sll2_ipv6.pcap",
     New<proto::Trace>},
    {"check", "check --json testdata/lab/k618_reno_40ms_unpaced_20mbit_pfifo50",
     New<proto::ConformanceReport>},
};

class JsonGoldenTest : public ::testing::TestWithParam<Golden> {};

TEST_P(JsonGoldenTest, OutputParsesAndEqualsTheGolden) {
  const Golden& golden = GetParam();
  const std::string out = RunCcreplay(golden.args);
  ASSERT_FALSE(out.empty()) << golden.args;
  std::unique_ptr<google::protobuf::Message> message = golden.message();
  const absl::Status parsed = ParseJson(out, message.get());
  ASSERT_TRUE(parsed.ok()) << parsed;
  const std::string path =
      TestDataPath(std::string("golden/") + golden.name + ".json");
  if (std::getenv("CCREPLAY_UPDATE_GOLDENS") != nullptr) {
    std::ofstream(path, std::ios::binary) << out;
    GTEST_SKIP() << "wrote " << path;
  }
  std::ifstream in(path, std::ios::binary);
  ASSERT_TRUE(in) << "no golden " << path;
  std::stringstream expected;
  expected << in.rdbuf();
  EXPECT_EQ(out, expected.str()) << golden.args;
}

INSTANTIATE_TEST_SUITE_P(Commands, JsonGoldenTest,
                         ::testing::ValuesIn(kGoldens),
                         [](const ::testing::TestParamInfo<Golden>& info) {
                           return std::string(info.param.name);
                         });

}  // namespace
}  // namespace ccreplay
