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
#include "replay/sim/units.h"
#include "reports/html_report.h"
#include "reports/watch_session.h"

ABSL_FLAG(std::string, i, "",
          "watch: the interface to capture on (as `ip link` names it; "
          "\"any\" for all).");

ABSL_FLAG(bool, host, true,
          "watch: show the local stack's own cwnd, ssthresh, srtt, pacing and "
          "delivery rate and CC (NETLINK_SOCK_DIAG) beside each flow whose "
          "sender is a socket of this host.");

ABSL_FLAG(absl::Duration, idle, absl::Seconds(60),
          "watch: a flow with no packet for this long leaves the table.");
ABSL_FLAG(ccreplay::BufferSize, keep,
          (ccreplay::BufferSize{ccreplay::BufferSize::Unit::kBytes, 200'000'000,
                                absl::ZeroDuration()}),
          "watch -o: at most this much of the capture is kept for the report "
          "(the newest part).");

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
                 "[--duration TIME] [--idle TIME] [--host=false] [-o "
                 "report.html [--flow N] [--keep SIZE]]  (see --help)\n");
    return kExitUsage;
  }
  options.filter = absl::GetFlag(FLAGS_filter);
  options.duration = absl::GetFlag(FLAGS_duration);
  options.json = absl::GetFlag(FLAGS_json);
  options.host = absl::GetFlag(FLAGS_host);
  options.idle = absl::GetFlag(FLAGS_idle);
  const BufferSize keep = absl::GetFlag(FLAGS_keep);
  if (keep.unit != BufferSize::Unit::kBytes ||
      options.idle <= absl::ZeroDuration()) {
    std::fprintf(stderr,
                 "ccreplay watch: --keep takes bytes (200MB, 1GB) and --idle "
                 "a positive time (60s)\n");
    return kExitUsage;
  }
  options.keep_bytes = static_cast<uint64_t>(keep.count);
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
