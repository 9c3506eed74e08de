// `ccreplay diagnose INPUT [--flow N] [-o report.html] [--json report.json]`:
// the main job. A terminal summary always; the HTML report with -o; the
// JSON diagnosis (proto/report.proto) with --json PATH.
#include <sys/stat.h>

#include <cstdio>
#include <fstream>
#include <string>

#include "absl/flags/flag.h"
#include "absl/strings/str_cat.h"
#include "cli/commands.h"
#include "cli/common_flags.h"
#include "cli/exit_codes.h"
#include "google/protobuf/util/json_util.h"
#include "parsers/pcap_reader.h"
#include "replay/ack_timeline.h"
#include "replay/flow_selection.h"
#include "reports/diagnosis.h"
#include "reports/flow_observation.h"
#include "reports/html_report.h"

namespace ccreplay {
namespace {

bool IsDirectory(const std::string& path) {
  struct stat st;
  return stat(path.c_str(), &st) == 0 && S_ISDIR(st.st_mode);
}

// A lab bundle's capture at the sender: sender.pcap or sender.pcap.gz.
std::string CaptureOf(const std::string& input) {
  if (!IsDirectory(input)) return input;
  for (const char* name : {"sender.pcap", "sender.pcap.gz"}) {
    const std::string path = absl::StrCat(input, "/", name);
    struct stat st;
    if (stat(path.c_str(), &st) == 0) return path;
  }
  return absl::StrCat(input, "/sender.pcap");
}

bool WriteFile(const std::string& path, const std::string& content) {
  std::ofstream out(path, std::ios::binary);
  out.write(content.data(), static_cast<std::streamsize>(content.size()));
  return static_cast<bool>(out);
}

}  // namespace

int RunDiagnose(const Args& args) {
  // `--json report.json`: the flag is the shared boolean, its path the
  // second positional argument.
  const bool json = absl::GetFlag(FLAGS_json);
  if (args.empty() || args.size() > 2 || (args.size() == 2 && !json)) {
    std::fprintf(stderr,
                 "usage: ccreplay diagnose INPUT [--flow N] [-o report.html] [--json "
                 "report.json]  (see --help)\n");
    return kExitUsage;
  }
  const std::string capture = CaptureOf(args[0]);
  // Pass 1: every flow, to choose one and learn its sender.
  AckTimelineBuilder all;
  absl::StatusOr<CaptureInfo> info = ReadCapture(capture, all);
  if (!info.ok()) {
    std::fprintf(stderr, "ccreplay diagnose: %s\n", std::string(info.status().message()).c_str());
    return ExitCodeForStatus(info.status());
  }
  absl::StatusOr<SelectedFlow> selected = SelectFlow(all.flow_table(), absl::GetFlag(FLAGS_flow));
  if (!selected.ok()) {
    std::fprintf(stderr, "ccreplay diagnose: %s: %s\n", capture.c_str(),
                 std::string(selected.status().message()).c_str());
    return kExitUsage;
  }
  const Flow& flow = all.flow_table().flows()[selected->index];
  // Pass 2: that flow's timeline, reduced as it streams.
  FlowObserver observer(flow.first_ns);
  AckTimelineBuilder one(selected->index, selected->sender_side,
                         [&observer](const TimelineEvent& e) { observer.Add(e); });
  absl::StatusOr<CaptureInfo> again = ReadCapture(capture, one);
  if (!again.ok()) {
    std::fprintf(stderr, "ccreplay diagnose: %s\n", std::string(again.status().message()).c_str());
    return ExitCodeForStatus(again.status());
  }
  for (const std::string& warning : info->warnings) {
    std::fprintf(stderr, "ccreplay diagnose: warning: %s: %s\n", capture.c_str(), warning.c_str());
  }
  DiagnosisInput input;
  input.input_path = args[0];
  input.flow = &flow;
  input.summary = SummarizeFlow(flow, info->first_packet_time_ns);
  input.stats = all.Stats(selected->index);
  input.observed = &observer;
  const Diagnosis diagnosis = Diagnose(input);

  // Terminal summary.
  std::printf("%s\n\n%s\n", diagnosis.page.title.c_str(), diagnosis.page.verdict.c_str());
  for (const Finding& f : diagnosis.page.findings) {
    std::printf("\n  [%s] %s  %.3f-%.3f s\n    %s\n", SeverityName(f.severity), f.kind.c_str(),
                f.start_s, f.end_s, f.message.c_str());
  }
  const std::string html_path = absl::GetFlag(FLAGS_o);
  if (!html_path.empty()) {
    if (!WriteFile(html_path, RenderHtmlReport(diagnosis.page))) {
      std::fprintf(stderr, "ccreplay diagnose: cannot write %s\n", html_path.c_str());
      return kExitFailure;
    }
    std::printf("\nreport: %s\n", html_path.c_str());
  }
  if (json) {
    std::string out;
    google::protobuf::util::JsonPrintOptions options;
    options.preserve_proto_field_names = true;
    options.always_print_primitive_fields = true;
    if (!google::protobuf::util::MessageToJsonString(diagnosis.result, &out, options).ok()) {
      std::fprintf(stderr, "ccreplay diagnose: cannot render JSON\n");
      return kExitFailure;
    }
    out += "\n";
    if (args.size() == 2) {
      if (!WriteFile(args[1], out)) {
        std::fprintf(stderr, "ccreplay diagnose: cannot write %s\n", args[1].c_str());
        return kExitFailure;
      }
    } else {
      std::fwrite(out.data(), 1, out.size(), stdout);
    }
  }
  return info->truncated ? kExitPartial : kExitOk;
}

}  // namespace ccreplay
