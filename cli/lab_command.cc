// ccreplay lab: flag handling for the namespace testbed (lab/).
#include <cstdio>
#include <optional>
#include <string>
#include <vector>

#include "absl/flags/flag.h"
#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/time/time.h"
#include "cli/commands.h"
#include "cli/common_flags.h"
#include "cli/exit_codes.h"
#include "lab/lab.h"
#include "lab/reaper.h"
#include "lab/run_summary.h"

ABSL_FLAG(std::string, ecn, "off",
          "ECN mode: off, rfc3168 or accecn (net.ipv4.tcp_ecn; default off).");
ABSL_FLAG(ccreplay::BufferSize, queue,
          (ccreplay::BufferSize{ccreplay::BufferSize::Unit::kPackets, 1000,
                                absl::ZeroDuration()}),
          "bottleneck queue: Np (pfifo, packets), NB/NkB/NMB (bfifo, bytes, "
          "SI) or a time at the rate (20ms, a bfifo). Default 1000p.");
ABSL_FLAG(std::string, mark, "none",
          "CE marking: none, or step:K_BYTES (eBPF step marker at the "
          "bottleneck; needs ECN). Default none.");
ABSL_FLAG(std::optional<ccreplay::BitRate>, rate2, std::nullopt,
          "rate of the second bottleneck (flows with path=2), tc units. "
          "Default: --rate.");
ABSL_FLAG(std::optional<ccreplay::BufferSize>, queue2, std::nullopt,
          "queue of the second bottleneck, as --queue (a time is at "
          "--rate2). Default: --queue.");
ABSL_FLAG(std::optional<absl::Duration>, delay2, std::nullopt,
          "delay on the second bottleneck's ACK path (its own TUN delay "
          "line). Default: --delay.");
ABSL_FLAG(double, reorder, 0,
          "percent of the data-path packets the router holds --reorder_delay "
          "longer than the rest, so later ones overtake them (0..50; default "
          "0: none).");
ABSL_FLAG(absl::Duration, reorder_delay, absl::Milliseconds(1),
          "how much longer a reordered packet is held (default 1ms).");
ABSL_FLAG(std::string, transfer, "auto",
          "traffic generator: auto (iperf3 if installed), iperf3, builtin, "
          "or ngtcp2 (QUIC: an HTTP/3 download from Debian's gtlsserver in "
          "the sender namespace, its qlog the bundle's ground truth).");
ABSL_FLAG(std::string, paced, "auto",
          "pacing of the TCP sockets: auto (as the transfer tool does it), "
          "on (built-in sender: SO_MAX_PACING_RATE; iperf3: a bbr namespace "
          "default, its controller set after connect()) or off (built-in "
          "sender: controller set before connect(); iperf3: a reno "
          "namespace default). Recorded in meta.json (sender.paced).");
ABSL_FLAG(bool, cleanup, false,
          "only remove what killed labs left behind (namespaces, tracefs "
          "instances and mounts, temporary directories) and list it.");

namespace ccreplay {

namespace {

void PrintReapReport(const lab::ReapReport& report, FILE* out,
                     const char* prefix) {
  for (const std::string& line : report.removed)
    std::fprintf(out, "%sremoved %s\n", prefix, line.c_str());
  for (const std::string& line : report.failed)
    std::fprintf(stderr, "ccreplay lab: cannot remove %s\n", line.c_str());
}

int CleanupLab() {
  absl::StatusOr<lab::ReapReport> report = lab::ReapOrphanedLabResources();
  if (!report.ok()) {
    std::fprintf(stderr, "ccreplay lab: %s\n",
                 std::string(report.status().message()).c_str());
    return ExitCodeForStatus(report.status());
  }
  PrintReapReport(*report, stdout, "");
  if (report->removed.empty() && report->failed.empty())
    std::printf("nothing to remove\n");
  return report->failed.empty() ? kExitOk : kExitPartial;
}

}  // namespace

int RunLab(const Args& args) {
  if (!args.empty()) {
    std::fprintf(stderr,
                 "ccreplay lab: unexpected argument '%s' (see --help)\n",
                 args[0].c_str());
    return kExitUsage;
  }
  if (absl::GetFlag(FLAGS_cleanup)) return CleanupLab();
  lab::LabFlagValues flags;  // The lab's defaults where a flag is unset.
  // Shared flags (cli/common_flags.cc): empty or unset when not given.
  if (!absl::GetFlag(FLAGS_cc).empty()) flags.cc = absl::GetFlag(FLAGS_cc);
  flags.rate = absl::GetFlag(FLAGS_rate).value_or(flags.rate);
  flags.delay = absl::GetFlag(FLAGS_delay).value_or(flags.delay);
  flags.duration = absl::GetFlag(FLAGS_duration).value_or(flags.duration);
  flags.ecn = absl::GetFlag(FLAGS_ecn);
  flags.queue = absl::GetFlag(FLAGS_queue);
  flags.mark = absl::GetFlag(FLAGS_mark);
  flags.mss_bytes = absl::GetFlag(FLAGS_mss);
  flags.flows = absl::GetFlag(FLAGS_flows);
  flags.transfer = absl::GetFlag(FLAGS_transfer);
  flags.paced = absl::GetFlag(FLAGS_paced);
  flags.output_dir = absl::GetFlag(FLAGS_o);
  flags.rate2 = absl::GetFlag(FLAGS_rate2);
  flags.queue2 = absl::GetFlag(FLAGS_queue2);
  flags.delay2 = absl::GetFlag(FLAGS_delay2);
  flags.reorder_percent = absl::GetFlag(FLAGS_reorder);
  flags.reorder_delay = absl::GetFlag(FLAGS_reorder_delay);
  absl::StatusOr<lab::LabConfig> config = lab::ParseLabConfig(flags);
  if (!config.ok()) {
    std::fprintf(stderr, "ccreplay lab: %s\n",
                 std::string(config.status().message()).c_str());
    return kExitUsage;
  }
  absl::StatusOr<lab::LabRun> run = lab::RunLab(*config);
  if (!run.ok()) {
    std::fprintf(stderr, "ccreplay lab: %s\n",
                 std::string(run.status().message()).c_str());
    // An unknown controller is a bad flag value, found only once the
    // sender namespace exists.
    if (run.status().code() == absl::StatusCode::kInvalidArgument)
      return kExitUsage;
    return ExitCodeForStatus(run.status());
  }
  PrintReapReport(run->reaped, stderr, "ccreplay lab: left by a killed lab, ");
  std::fputs(lab::LabRunSummary(*run).c_str(), stdout);
  return kExitOk;
}

}  // namespace ccreplay
