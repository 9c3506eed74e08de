// `ccreplay diagnose INPUT [--ss LOG|--probe LOG|--qlog FILE] [--flow N]
// [--cc LIST] [-o report.html] [--json report.json]`: the main job. A
// terminal summary always; the HTML report with -o; the JSON diagnosis
// (proto/report.proto) with --json PATH. reports/diagnose_session.h does
// the work. `--flows all [--sort KEY]`: the index of every flow instead
// (reports/flow_index_report.h), as a table, -o HTML and --json.
#include <cstdio>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "absl/flags/declare.h"
#include "absl/flags/flag.h"
#include "absl/functional/function_ref.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "cc/registry.h"
#include "cli/capture_flags.h"
#include "cli/commands.h"
#include "cli/common_flags.h"
#include "cli/exit_codes.h"
#include "parsers/input_kind.h"
#include "proto/json_printer.h"
#include "proto/report.pb.h"
#include "reports/competition_html.h"
#include "reports/competition_session.h"
#include "reports/diagnose_session.h"
#include "reports/flow_index_report.h"
#include "reports/html_report.h"

ABSL_FLAG(
    bool, simulate, true,
    "diagnose: run closed-loop simulations of the fitted path as evidence "
    "(--nosimulate to skip them).");

ABSL_FLAG(std::string, sort, "throughput",
          "diagnose --flows all: the index's order: throughput, utilization, "
          "duration, retransmissions (descending), start or index "
          "(ascending).");

namespace ccreplay {
namespace {

// The diagnosis options from the flags and INPUT. Returns an exit code.
int OptionsFromFlags(const Args& args, size_t inputs,
                     DiagnoseOptions* options) {
  const std::string ss = absl::GetFlag(FLAGS_ss);
  options->input = inputs == 1 ? args[0] : "";
  options->host_state_path = !ss.empty() ? ss : absl::GetFlag(FLAGS_probe);
  options->qlog_path = absl::GetFlag(FLAGS_qlog);
  options->flow = absl::GetFlag(FLAGS_flow);
  options->simulate = absl::GetFlag(FLAGS_simulate);
  if (absl::GetFlag(FLAGS_cc).empty()) return kExitOk;
  absl::StatusOr<std::vector<std::string>> specs =
      ParseControllerList(absl::GetFlag(FLAGS_cc));
  if (!specs.ok()) {
    std::fprintf(stderr, "ccreplay diagnose: --cc: %s\n",
                 std::string(specs.status().message()).c_str());
    return kExitUsage;
  }
  options->specs = *specs;
  return kExitOk;
}

// The verdict and findings on the terminal.
void PrintSummary(const Diagnosis& diagnosis) {
  std::printf("%s\n\n%s\n\n", diagnosis.page.title.c_str(),
              diagnosis.page.verdict.c_str());
  for (const auto& [name, value] : diagnosis.evidence_rows)
    std::printf("  %-14s %s\n", name.c_str(), value.c_str());
  for (const Finding& f : diagnosis.page.findings) {
    std::printf("\n  [%s] %s  %.3f-%.3f s\n    %s\n", SeverityName(f.severity),
                f.kind.c_str(), f.start_s, f.end_s, f.message.c_str());
  }
}

// Writes `content` to `path`, or to stdout when `path` is empty. Returns an
// exit code.
int WriteOutput(const std::string& path, const std::string& content) {
  if (path.empty()) {
    std::fwrite(content.data(), 1, content.size(), stdout);
    return kExitOk;
  }
  if (!WriteFile(path, content)) {
    std::fprintf(stderr, "ccreplay diagnose: cannot write %s\n", path.c_str());
    return kExitFailure;
  }
  return kExitOk;
}

// Hands `produce` a sink that writes to `path`, or to stdout when `path` is
// empty, a piece at a time (WriteOutput's, for an output too large to
// hold). Returns an exit code.
int WriteOutputStreamed(const std::string& path,
                        absl::FunctionRef<void(TextSink)> produce) {
  std::FILE* out = path.empty() ? stdout : std::fopen(path.c_str(), "wb");
  bool ok = out != nullptr;
  if (ok) {
    produce([&](absl::string_view text) {
      std::fwrite(text.data(), 1, text.size(), out);
    });
    // As WriteOutput: stdout's errors are not checked.
    if (out != stdout) ok = !std::ferror(out) & (std::fclose(out) == 0);
  }
  if (!ok) {
    std::fprintf(stderr, "ccreplay diagnose: cannot write %s\n", path.c_str());
    return kExitFailure;
  }
  return kExitOk;
}

// Whether `path` is an input ccreplay reads, and not the JSON diagnosis
// an earlier `diagnose INPUT PATH --json` wrote (which reads as JSON, so as
// a qlog, too).
bool IsInputNotOutput(const std::string& path) {
  absl::StatusOr<InputClass> kind = ClassifyInput(path);
  if (!kind.ok() || kind->kind == InputKind::kUnknown) return false;
  if (!IsQlog(kind->kind) || kind->gzip) return true;
  std::ifstream in(path);
  std::stringstream text;
  text << in.rdbuf();
  proto::Diagnosis diagnosis;
  return !ParseJson(text.str(), &diagnosis).ok();
}

// Several inputs, or --flows: the arguments that are inputs. With --json
// and two arguments the second is the JSON's path (the single-input form)
// unless it is itself an input ccreplay reads.
std::vector<std::string> MultiFlowInputs(const Args& args) {
  std::vector<std::string> inputs(args.begin(), args.end());
  if (absl::GetFlag(FLAGS_json) && inputs.size() == 2 &&
      !IsInputNotOutput(inputs[1])) {
    inputs.pop_back();
  }
  return inputs;
}

bool IsMultiFlow(const Args& args) {
  return !absl::GetFlag(FLAGS_flows).empty() ||
         MultiFlowInputs(args).size() > 1;
}

// The options of each input and the --flows list. Returns an exit code.
int MultiFlowOptionsFromFlags(const Args& args, ProgressMeter& meter,
                              MultiFlowOptions* options) {
  const std::vector<std::string> inputs = MultiFlowInputs(args);
  const std::string flows = absl::StrJoin(absl::GetFlag(FLAGS_flows), ",");
  const bool host_state = !absl::GetFlag(FLAGS_ss).empty() ||
                          !absl::GetFlag(FLAGS_probe).empty() ||
                          !absl::GetFlag(FLAGS_qlog).empty();
  if (flows == "all" || (inputs.size() > 1 && (host_state || !flows.empty()))) {
    std::fprintf(stderr,
                 "usage: ccreplay diagnose INPUT --flows N,N... | ccreplay "
                 "diagnose INPUT INPUT... (--ss, --probe, --qlog and --flows "
                 "go with one input; --flows takes a list)\n");
    return kExitUsage;
  }
  if (!flows.empty()) {
    absl::StatusOr<std::vector<std::string>> list = ParseFlowList(flows);
    if (!list.ok()) {
      std::fprintf(stderr, "ccreplay diagnose: %s\n",
                   std::string(list.status().message()).c_str());
      return kExitUsage;
    }
    options->flows = *list;
  }
  std::vector<std::string> each = inputs;
  if (each.empty()) each.push_back("");  // `--qlog FILE --flows ...`.
  for (const std::string& input : each) {
    DiagnoseOptions o;
    const int parsed = OptionsFromFlags({input}, input.empty() ? 0 : 1, &o);
    if (parsed != kExitOk) return parsed;
    const int read =
        CaptureOptionsFromFlags("diagnose", o.input, meter, &o.capture);
    if (read != kExitOk) return read;
    options->inputs.push_back(o);
  }
  return kExitOk;
}

// `diagnose` on several flows: the terminal summary, -o's page, --json's
// MultiFlowDiagnosis (to stdout with several inputs).
int RunMultiFlowDiagnose(const Args& args) {
  MultiFlowOptions options;
  ProgressMeter meter = MeterFromFlags("diagnose");
  const int parsed = MultiFlowOptionsFromFlags(args, meter, &options);
  if (parsed != kExitOk) return parsed;
  absl::StatusOr<MultiFlowRun> run = DiagnoseFlows(options);
  meter.Finish();
  if (!run.ok()) return ReportFailure("diagnose", run.status());
  for (const std::string& warning : run->warnings)
    std::fprintf(stderr, "ccreplay diagnose: warning: %s\n", warning.c_str());
  const bool json = absl::GetFlag(FLAGS_json);
  const bool json_path = json && MultiFlowInputs(args).size() < args.size();
  if (!json || json_path) std::fputs(run->report.summary_text.c_str(), stdout);
  const std::string html_path = absl::GetFlag(FLAGS_o);
  if (!html_path.empty()) {
    const int written =
        WriteOutput(html_path, RenderMultiFlowHtml(run->report, run->flows));
    if (written != kExitOk) return written;
    if (!json || json_path) std::printf("\nreport: %s\n", html_path.c_str());
  }
  if (json) {
    const int written = WriteOutput(json_path ? args.back() : "",
                                    PrintJson(run->report.result));
    if (written != kExitOk) return written;
  }
  if (run->nothing_to_diagnose) return kExitNothingToDiagnose;
  return run->truncated || run->some_nothing_to_diagnose ? kExitPartial
                                                         : kExitOk;
}

// `--flows all`: the index of every flow. Returns an exit code.
int RunFlowIndex(const Args& args) {
  const bool json = absl::GetFlag(FLAGS_json);
  if (args.empty() || args.size() > 2 || (args.size() == 2 && !json) ||
      !absl::GetFlag(FLAGS_flow).empty() || !absl::GetFlag(FLAGS_ss).empty() ||
      !absl::GetFlag(FLAGS_probe).empty() ||
      !absl::GetFlag(FLAGS_qlog).empty()) {
    std::fprintf(stderr,
                 "usage: ccreplay diagnose CAPTURE|BUNDLE_DIR --flows all "
                 "[--sort KEY] [-o index.html] [--json [index.json]]\n");
    return kExitUsage;
  }
  const std::string sort = absl::GetFlag(FLAGS_sort);
  proto::FlowIndex empty;  // The key checked before the capture is read.
  const absl::Status sort_key = SortFlowIndex(sort, &empty);
  if (!sort_key.ok()) {
    std::fprintf(stderr, "ccreplay diagnose: --sort: %s\n",
                 std::string(sort_key.message()).c_str());
    return kExitUsage;
  }
  ProgressMeter meter = MeterFromFlags("diagnose");
  CaptureReadOptions read;
  const int flags = CaptureOptionsFromFlags("diagnose", args[0], meter, &read);
  if (flags != kExitOk) return flags;
  absl::StatusOr<FlowIndexRun> run = BuildFlowIndex(args[0], read, sort);
  meter.Finish();
  if (!run.ok()) return ReportFailure("diagnose", run.status());
  for (const std::string& warning : run->warnings)
    std::fprintf(stderr, "ccreplay diagnose: warning: %s\n", warning.c_str());
  const bool json_to_stdout = json && args.size() == 1;
  if (!json_to_stdout) {
    WriteFlowIndexTable(*run, [](absl::string_view text) {
      std::fwrite(text.data(), 1, text.size(), stdout);
    });
  }
  const std::string html_path = absl::GetFlag(FLAGS_o);
  const std::string json_path = json_to_stdout ? "" : args.back();
  if (html_path.empty()) {
    // The JSON a row at a time from the entries, no row held.
    const int written =
        json ? WriteOutputStreamed(
                   json_path,
                   [&](TextSink write) { WriteFlowIndexJson(*run, write); })
             : kExitOk;
    if (written != kExitOk) return written;
    return run->truncated ? kExitPartial : kExitOk;
  }
  // The page needs the rows as protos; the JSON, after it, prints them.
  const proto::FlowIndex index = FlowIndexProto(&*run);
  int written = WriteOutput(html_path, RenderFlowIndexHtml(index));
  if (written != kExitOk) return written;
  if (json) written = WriteOutput(json_path, PrintJson(index));
  if (written != kExitOk) return written;
  return run->truncated ? kExitPartial : kExitOk;
}

}  // namespace

int RunDiagnose(const Args& args) {
  const std::vector<std::string> flows = absl::GetFlag(FLAGS_flows);
  if (flows.size() == 1 && flows[0] == "all") return RunFlowIndex(args);
  if (IsMultiFlow(args)) return RunMultiFlowDiagnose(args);
  // `--json report.json`: the flag is the shared boolean, its path the
  // positional argument after INPUT.
  const bool json = absl::GetFlag(FLAGS_json);
  const std::string ss = absl::GetFlag(FLAGS_ss);
  const std::string probe = absl::GetFlag(FLAGS_probe);
  const std::string qlog = absl::GetFlag(FLAGS_qlog);
  const size_t inputs = qlog.empty() ? 1 : 0;
  if (args.size() < inputs || args.size() > inputs + 1 ||
      (args.size() == inputs + 1 && !json) || (!ss.empty() && !probe.empty()) ||
      (!qlog.empty() && !(ss.empty() && probe.empty()))) {
    std::fprintf(
        stderr,
        "usage: ccreplay diagnose CAPTURE|BUNDLE_DIR|QLOG [--ss LOG | --probe "
        "LOG] "
        "[--flow N] [--cc LIST] [-o report.html] [--json report.json]\n"
        "       ccreplay diagnose --qlog FILE [...]  (see --help)\n");
    return kExitUsage;
  }
  DiagnoseOptions options;
  const int parsed = OptionsFromFlags(args, inputs, &options);
  if (parsed != kExitOk) return parsed;
  ProgressMeter meter = MeterFromFlags("diagnose");
  const int flags = CaptureOptionsFromFlags("diagnose", options.input, meter,
                                            &options.capture);
  if (flags != kExitOk) return flags;
  absl::StatusOr<DiagnoseRun> run = DiagnoseInput(options);
  meter.Finish();
  if (!run.ok()) return ReportFailure("diagnose", run.status());
  for (const std::string& warning : run->warnings) {
    std::fprintf(stderr, "ccreplay diagnose: warning: %s\n", warning.c_str());
  }
  const Diagnosis& diagnosis = run->diagnosis;
  // Terminal summary, unless the JSON goes to stdout.
  const bool json_to_stdout = json && args.size() == inputs;
  if (!json_to_stdout) PrintSummary(diagnosis);
  const std::string html_path = absl::GetFlag(FLAGS_o);
  if (!html_path.empty()) {
    const int written =
        WriteOutput(html_path, RenderHtmlReport(diagnosis.page));
    if (written != kExitOk) return written;
    if (!json_to_stdout) std::printf("\nreport: %s\n", html_path.c_str());
  }
  if (json) {
    const int written = WriteOutput(json_to_stdout ? "" : args.back(),
                                    PrintJson(diagnosis.result));
    if (written != kExitOk) return written;
  }
  if (diagnosis.nothing_to_diagnose) return kExitNothingToDiagnose;
  return run->truncated ? kExitPartial : kExitOk;
}

}  // namespace ccreplay
