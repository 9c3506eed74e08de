// `ccreplay watch -i IFACE [--filter EXPR] [--json] [--duration TIME]
// [-o report.html [--flow N]]`: a live capture's flows, refreshed every
// second (reports/watch_session.h).
#include <cstdio>
#include <string>

#include "absl/flags/flag.h"
#include "cli/capture_flags.h"
#include "cli/commands.h"
#include "cli/common_flags.h"
#include "cli/exit_codes.h"
#include "reports/html_report.h"
#include "reports/watch_session.h"

ABSL_FLAG(std::string, i, "",
          "watch: the interface to capture on (as `ip link` names it; "
          "\"any\" for all).");

ABSL_FLAG(bool, host, true,
          "watch: show the local stack's own cwnd, ssthresh, srtt, pacing and "
          "delivery rate and CC (NETLINK_SOCK_DIAG) beside each flow whose "
          "sender is a socket of this host.");

namespace ccreplay {
namespace {

// Writes the diagnosis of the chosen flow to `path`: an exit code.
int WriteReport(const WatchResult& result, const std::string& path) {
  if (!result.diagnosis.has_value()) {
    std::fprintf(stderr, "ccreplay watch: no report: %s\n",
                 std::string(result.diagnosis_status.message()).c_str());
    return ExitCodeForStatus(result.diagnosis_status);
  }
  if (!WriteFile(path, RenderHtmlReport(result.diagnosis->diagnosis.page))) {
    std::fprintf(stderr, "ccreplay watch: cannot write %s\n", path.c_str());
    return kExitFailure;
  }
  std::fprintf(stderr, "ccreplay watch: report: %s\n", path.c_str());
  return kExitOk;
}

}  // namespace

int RunWatch(const Args& args) {
  WatchOptions options;
  options.interface = absl::GetFlag(FLAGS_i);
  if (!args.empty() || options.interface.empty()) {
    std::fprintf(stderr,
                 "usage: ccreplay watch -i IFACE [--filter EXPR] [--json] "
                 "[--duration TIME] [-o report.html [--flow N]]  (see "
                 "--help)\n");
    return kExitUsage;
  }
  options.filter = absl::GetFlag(FLAGS_filter);
  options.duration = absl::GetFlag(FLAGS_duration);
  options.json = absl::GetFlag(FLAGS_json);
  options.host = absl::GetFlag(FLAGS_host);
  const std::string report_path = absl::GetFlag(FLAGS_o);
  options.diagnose = !report_path.empty();
  options.flow = absl::GetFlag(FLAGS_flow);
  absl::StatusOr<WatchResult> result = RunWatch(options, stdout);
  if (!result.ok()) return ReportFailure("watch", result.status());
  for (const std::string& warning : result->warnings) {
    std::fprintf(stderr, "ccreplay watch: warning: %s\n", warning.c_str());
  }
  std::fprintf(stderr,
               "ccreplay watch: %llu packets, %zu flows, %llu dropped by the "
               "kernel\n",
               static_cast<unsigned long long>(result->packets), result->flows,
               static_cast<unsigned long long>(result->kernel_drops));
  if (options.diagnose) return WriteReport(*result, report_path);
  return kExitOk;
}

}  // namespace ccreplay
