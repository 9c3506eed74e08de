// `ccreplay check INPUT [--probe LOG | --ss LOG] [--flow N] [--cc FAMILY]
// [--stack NAME] [--json]`: the captured cwnd checked ACK by ACK against
// the RFC rules of its controller family (replay/conformance/).
#include <cstdio>
#include <string>

#include "absl/flags/flag.h"
#include "cli/commands.h"
#include "cli/common_flags.h"
#include "cli/exit_codes.h"
#include "replay/conformance/conformance_input.h"
#include "reports/conformance_report.h"

ABSL_FLAG(std::string, stack, "",
          "The stack whose documented deviations apply (ngtcp2, linux); "
          "default: linux for a lab bundle, none otherwise.");

namespace ccreplay {

int RunCheck(const Args& args) {
  const std::string ss = absl::GetFlag(FLAGS_ss);
  const std::string probe = absl::GetFlag(FLAGS_probe);
  const std::string qlog = absl::GetFlag(FLAGS_qlog);
  const int sources = !ss.empty() + !probe.empty() + !qlog.empty();
  if (args.size() > 1 || (args.empty() && qlog.empty()) || sources > 1) {
    std::fprintf(stderr,
                 "usage: ccreplay check INPUT|BUNDLE_DIR [--ss LOG | --probe "
                 "LOG | --qlog FILE] [--flow N] [--cc reno|cubic|dctcp] "
                 "[--stack NAME] [--json]  (see --help)\n");
    return kExitUsage;
  }
  CheckOptions options;
  options.flow = absl::GetFlag(FLAGS_flow);
  options.host_state_path = !ss.empty() ? ss : probe;
  options.qlog = !qlog.empty();
  options.family = absl::GetFlag(FLAGS_cc);
  options.stack = absl::GetFlag(FLAGS_stack);
  const std::string input = qlog.empty() ? args[0] : qlog;
  absl::StatusOr<CheckRun> run = CheckInput(input, options);
  if (!run.ok()) return ReportFailure("check", run.status());
  const std::string text = absl::GetFlag(FLAGS_json)
                               ? ConformanceReportJson(input, *run)
                               : ConformanceReportText(input, *run);
  std::fwrite(text.data(), 1, text.size(), stdout);
  for (const std::string& warning : run->warnings) {
    std::fprintf(stderr, "ccreplay check: warning: %s\n", warning.c_str());
  }
  return run->truncated ? kExitPartial : kExitOk;
}

}  // namespace ccreplay
