// Every input in testdata/ and ../shared/testdata (wild/ included) through
// every output a user gets (flows --json, timeline --json and --csv, replay
// --json, diagnose's terminal summary, --json and -o html, the flow index
// of diagnose --flows all as a table and --json, convert --json),
// as issue 15's "done when" asks: no non-finite number, utilization at most
// 1, no warning or critical finding on weak evidence, and an exit code of
// the README's table. Diagnose runs with --nosimulate (the fitted
// closed-loop simulation adds seconds per lab capture and writes no output
// of its own that the checks read).
//
// With CCREPLAY_SWEEP_TABLE=PATH the test also writes, per input, the exit
// code, the verdict's first sentence and the findings (the closing note's
// list).
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <regex>
#include <set>
#include <string>
#include <thread>
#include <vector>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "gtest/gtest.h"
#include "proto/json_printer.h"
#include "proto/report.pb.h"
#include "proto/testing/test_data.h"

namespace ccreplay {
namespace {

namespace fs = std::filesystem;

struct CommandRun {
  int exit_code = -1;
  std::string out;
};

std::string Slurp(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  return std::string(std::istreambuf_iterator<char>(in),
                     std::istreambuf_iterator<char>());
}

CommandRun Ccreplay(const std::string& args) {
  const std::string command =
      absl::StrCat(CCREPLAY_BINARY_DIR, "/cli/ccreplay ", args, " 2>/dev/null");
  CommandRun run;
  FILE* pipe = popen(command.c_str(), "r");
  char chunk[65536];
  size_t n;
  while ((n = std::fread(chunk, 1, sizeof(chunk), pipe)) > 0)
    run.out.append(chunk, n);
  const int status = pclose(pipe);
  run.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  return run;
}

// The tokens a non-finite double prints as in C (printf), JavaScript and
// JSON-ish printers, as whole words.
bool HasNonFinite(const std::string& text) {
  static const std::regex kToken(
      R"((^|[^A-Za-z_])(-?nan|-?inf|Infinity|NaN)([^A-Za-z_]|$))",
      std::regex::icase);
  return std::regex_search(text, kToken);
}

// Every file a user might hand ccreplay: testdata/ and ../shared/testdata,
// without the expected outputs (golden/), provenance notes and scripts.
std::vector<std::string> Inputs() {
  std::vector<std::string> inputs;
  for (const std::string& root : {std::string(CCREPLAY_TESTDATA_DIR),
                                  std::string(CCREPLAY_SHARED_TESTDATA_DIR)}) {
    if (!fs::is_directory(root)) continue;
    for (const auto& entry : fs::recursive_directory_iterator(root)) {
      if (!entry.is_regular_file()) continue;
      const std::string path = entry.path().string();
      if (absl::StrContains(path, "/golden/") ||
          absl::StrContains(path, "/tools/") ||
          absl::EndsWith(path, ".facts.json") || absl::EndsWith(path, ".md") ||
          absl::EndsWith(path, ".py") || absl::EndsWith(path, ".sh")) {
        continue;
      }
      inputs.push_back(path);
    }
  }
  std::sort(inputs.begin(), inputs.end());
  return inputs;
}

// The README's exit codes that a readable input may give: 0 ok, 4 not a
// format ccreplay reads, 5 unsupported, 6 partial, 7 nothing to diagnose
// (1 is a failure, 2 a usage error, 3 an input that cannot be read).
bool DocumentedForReadableInput(int code) {
  return code == 0 || code == 4 || code == 5 || code == 6 || code == 7;
}

// The rules that compare the sender's congestion window
// (FindingRule::evidence_need() is kSenderWindow for the replay rules).
const std::set<std::string>& SenderWindowKinds() {
  static const std::set<std::string> kinds = {
      "model_divergence",        "slow_start_exit_early",
      "rtt_scaling_slow_growth", "mtu_normalization_gap",
      "ce_overreaction",         "below_bdp_unexplained"};
  return kinds;
}

// The diagnosis' claims against its own evidence.
void CheckDiagnosis(const std::string& input, const proto::Diagnosis& d) {
  SCOPED_TRACE(input);
  if (d.has_utilization()) EXPECT_LE(d.utilization(), 1.0);
  if (d.has_utilization_at_most()) EXPECT_LE(d.utilization_at_most(), 1.0);
  // The path carried the flow's own goodput: an estimate below it would be
  // a claim the capture itself contradicts (a capped utilization hides it).
  if (d.has_estimates() && d.estimates().bottleneck_rate_bps() > 0) {
    EXPECT_GE(d.estimates().bottleneck_rate_bps(), d.goodput_bps() * 0.999);
  }
  const proto::EvidenceQuality& e = d.evidence();
  const bool short_flow = e.data_packets() < 50 || !e.has_flow_rtts() ||
                          e.flow_rtts() < 4 || !e.both_directions();
  for (const proto::Finding& f : d.findings()) {
    if (f.severity() == "info") continue;
    EXPECT_FALSE(short_flow)
        << f.kind() << " on " << e.data_packets() << " data packets";
    EXPECT_FALSE(!e.sender_window_observable() &&
                 SenderWindowKinds().count(f.kind()))
        << f.kind() << " at a " << e.vantage() << "-side capture";
  }
}

std::string FirstSentence(const std::string& verdict) {
  const size_t end = verdict.find(". ");
  return end == std::string::npos ? verdict : verdict.substr(0, end + 1);
}

// One input through every output; returns its row of the closing note's
// table. `tag` names this worker's temporary files.
std::string SweepInput(const std::string& input, const std::string& tag) {
  SCOPED_TRACE(input);
  for (const char* command :
       {"flows --json", "timeline --json", "timeline --csv",
        "replay --cc reno --json", "convert --json",
        "diagnose --flows all --json", "diagnose --flows all"}) {
    const CommandRun run = Ccreplay(absl::StrCat(command, " '", input, "'"));
    EXPECT_TRUE(DocumentedForReadableInput(run.exit_code))
        << command << " exited " << run.exit_code;
    EXPECT_FALSE(HasNonFinite(run.out)) << command;
  }
  const std::string json_path = absl::StrCat(tag, ".json");
  const std::string html_path = absl::StrCat(tag, ".html");
  std::remove(json_path.c_str());
  std::remove(html_path.c_str());
  const CommandRun diagnose =
      Ccreplay(absl::StrCat("diagnose --nosimulate '", input, "' --json ",
                            json_path, " -o ", html_path));
  EXPECT_TRUE(DocumentedForReadableInput(diagnose.exit_code))
      << "diagnose exited " << diagnose.exit_code;
  EXPECT_FALSE(HasNonFinite(diagnose.out)) << "diagnose summary";
  EXPECT_FALSE(HasNonFinite(Slurp(html_path))) << "diagnose -o html";
  const std::string json = Slurp(json_path);
  EXPECT_FALSE(HasNonFinite(json)) << "diagnose --json";
  std::string verdict = "-", findings = "-";
  proto::Diagnosis d;
  if (!json.empty() && ParseJson(json, &d).ok()) {
    CheckDiagnosis(input, d);
    verdict = FirstSentence(d.verdict());
    std::vector<std::string> names;
    for (const proto::Finding& f : d.findings())
      names.push_back(absl::StrCat(f.kind(), " (", f.severity(), ")"));
    if (!names.empty()) findings = absl::StrJoin(names, ", ");
  }
  return absl::StrCat(input, "\t", diagnose.exit_code, "\t", verdict, "\t",
                      findings, "\n");
}

TEST(OutputSweepTest, EveryInputThroughEveryOutput) {
  const std::vector<std::string> inputs = Inputs();
  ASSERT_GT(inputs.size(), 20u);
  // A few workers: most of the time is process start-up and I/O.
  constexpr int kWorkers = 3;
  std::vector<std::string> rows(inputs.size());
  std::atomic<size_t> next{0};
  std::vector<std::thread> workers;
  for (int w = 0; w < kWorkers; ++w) {
    workers.emplace_back([&, w] {
      const std::string tag =
          absl::StrCat(::testing::TempDir(), "/sweep_", getpid(), "_", w);
      for (size_t i = next++; i < inputs.size(); i = next++)
        rows[i] = SweepInput(inputs[i], tag);
    });
  }
  for (std::thread& t : workers) t.join();
  if (const char* out = std::getenv("CCREPLAY_SWEEP_TABLE")) {
    std::ofstream(out) << absl::StrJoin(rows, "");
  }
}

}  // namespace
}  // namespace ccreplay
