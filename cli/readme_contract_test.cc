// README.md's JSON contracts checked against the messages in proto/.
//
// Convention: a command's contract is a line containing "JSON:" and the
// message's full name in backticks (JSON: `ccreplay.proto.FlowsReport`),
// then, after at most blank lines and text lines, a Markdown table whose
// first column holds field paths in backticks, nested with dots
// (`flows.identity`; a repeated field's elements are named like the field).
// Every listed path must exist in the message, and every top-level field
// of the message must be listed: a field added without documentation, or
// documented and then renamed, fails here.
#include <fstream>
#include <map>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "absl/strings/match.h"
#include "absl/strings/str_split.h"
#include "absl/strings/strip.h"
#include "google/protobuf/descriptor.h"
#include "gtest/gtest.h"
#include "proto/competition.pb.h"
#include "proto/conformance.pb.h"
#include "proto/controllers.pb.h"
#include "proto/flow_index.pb.h"
#include "proto/flows.pb.h"
#include "proto/replay.pb.h"
#include "proto/report.pb.h"
#include "proto/simulation.pb.h"
#include "proto/testing/test_data.h"
#include "proto/timeline.pb.h"
#include "proto/trace.pb.h"
#include "proto/watch.pb.h"

namespace ccreplay {
namespace {

using google::protobuf::Descriptor;
using google::protobuf::DescriptorPool;
using google::protobuf::FieldDescriptor;

// Message full name -> the field paths its README table lists.
std::map<std::string, std::vector<std::string>> ReadmeContracts(
    const std::string& readme) {
  std::map<std::string, std::vector<std::string>> contracts;
  std::string current;
  bool in_table = false;
  for (absl::string_view line : absl::StrSplit(readme, '\n')) {
    const size_t json = line.find("JSON: `ccreplay.proto.");
    if (json != absl::string_view::npos) {
      absl::string_view name = line.substr(json + 7);
      current = std::string(name.substr(0, name.find('`')));
      contracts[current];
      in_table = false;
      continue;
    }
    if (current.empty()) continue;
    if (absl::StartsWith(line, "|")) {
      in_table = true;
      const std::vector<absl::string_view> cells = absl::StrSplit(line, '|');
      absl::string_view path = absl::StripAsciiWhitespace(cells[1]);
      if (absl::ConsumePrefix(&path, "`") && absl::ConsumeSuffix(&path, "`")) {
        contracts[current].push_back(std::string(path));
      }
    } else if (in_table) {
      current.clear();  // The table ended.
    }
  }
  return contracts;
}

// The field `path` names in `message`, or null.
const FieldDescriptor* FindPath(const Descriptor* message,
                                absl::string_view path) {
  const FieldDescriptor* field = nullptr;
  for (absl::string_view part : absl::StrSplit(path, '.')) {
    if (message == nullptr) return nullptr;
    field = message->FindFieldByName(std::string(part));
    if (field == nullptr) return nullptr;
    message = field->is_map() ? nullptr : field->message_type();
  }
  return field;
}

std::string Readme() {
  std::ifstream in(TestDataPath("../README.md"));
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

TEST(ReadmeContract, EveryJsonOutputIsDocumentedFieldForField) {
  const std::map<std::string, std::vector<std::string>> contracts =
      ReadmeContracts(Readme());
  // Every --json message (linked in through the includes above).
  const std::set<std::string> outputs = {
      proto::FlowsReport::descriptor()->full_name(),
      proto::HostFlowsReport::descriptor()->full_name(),
      proto::AckTimelineReport::descriptor()->full_name(),
      proto::ReplayReport::descriptor()->full_name(),
      proto::SimulationReport::descriptor()->full_name(),
      proto::MtuExperimentReport::descriptor()->full_name(),
      proto::PragueExperimentReport::descriptor()->full_name(),
      proto::ControllersReport::descriptor()->full_name(),
      proto::ConformanceReport::descriptor()->full_name(),
      proto::Diagnosis::descriptor()->full_name(),
      proto::Trace::descriptor()->full_name(),
      proto::WatchFlowInterval::descriptor()->full_name(),
      proto::MultiFlowDiagnosis::descriptor()->full_name(),
      proto::FlowIndex::descriptor()->full_name()};
  for (const std::string& name : outputs) {
    EXPECT_TRUE(contracts.count(name)) << "README.md documents no " << name;
  }
  for (const auto& [name, paths] : contracts) {
    const Descriptor* message =
        DescriptorPool::generated_pool()->FindMessageTypeByName(name);
    ASSERT_NE(message, nullptr) << "README.md names no such message " << name;
    EXPECT_FALSE(paths.empty()) << name << ": no table follows";
    std::set<std::string> listed;
    for (const std::string& path : paths) {
      EXPECT_NE(FindPath(message, path), nullptr)
          << name << " has no field " << path;
      listed.insert(path);
    }
    for (int i = 0; i < message->field_count(); ++i) {
      EXPECT_TRUE(listed.count(message->field(i)->name()))
          << name << "." << message->field(i)->name()
          << " is not documented in README.md";
    }
  }
}

// The checker itself: a table naming a missing field, or leaving one out,
// is caught.
TEST(ReadmeContract, TheCheckerSeesMissingAndUnknownFields) {
  const auto contracts = ReadmeContracts(
      "text\nJSON: `ccreplay.proto.ControllersReport`\n\n| field | meaning "
      "|\n|---|---|\n| `controllers` | x |\n| `controllers.nope` | y |\n\n"
      "| `outside` | z |\n");
  ASSERT_EQ(contracts.size(), 1u);
  const std::vector<std::string>& paths =
      contracts.at("ccreplay.proto.ControllersReport");
  ASSERT_EQ(paths.size(), 2u);
  const Descriptor* d = proto::ControllersReport::descriptor();
  EXPECT_NE(FindPath(d, paths[0]), nullptr);
  EXPECT_EQ(FindPath(d, paths[1]), nullptr);
  EXPECT_NE(FindPath(d, "controllers.options"), nullptr);
  EXPECT_EQ(FindPath(d, "controllers.options.x"), nullptr);
}

}  // namespace
}  // namespace ccreplay
