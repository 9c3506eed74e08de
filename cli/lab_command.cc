// ccreplay lab: flag handling for the namespace testbed (cli/lab/).
#include <cstdio>
#include <string>
#include <vector>

#include "absl/flags/flag.h"
#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "cli/commands.h"
#include "cli/common_flags.h"
#include "cli/exit_codes.h"
#include "cli/lab/lab.h"

ABSL_FLAG(std::string, ecn, "off",
          "ECN mode: off, rfc3168 or accecn (net.ipv4.tcp_ecn).");
ABSL_FLAG(
    std::string, queue, "1000p",
    "Bottleneck queue: Np (pfifo, packets) or NkB/NMB/NB (bfifo, bytes).");
ABSL_FLAG(std::string, mark, "none",
          "CE marking: none, or step:K_BYTES (eBPF step marker at the "
          "bottleneck; needs ECN).");
ABSL_FLAG(std::vector<std::string>, flows, {},
          "Comma-separated flows, each CC[:mss=BYTES][:rate=RATE] (rate = "
          "application-limited "
          "sending rate). Default: one bulk flow of --cc.");
ABSL_FLAG(std::string, transfer, "auto",
          "Traffic generator: auto (iperf3 if installed), iperf3 or builtin.");

namespace ccreplay {

int RunLab(const Args& args) {
  if (!args.empty()) {
    std::fprintf(stderr,
                 "ccreplay lab: unexpected argument '%s' (see --help)\n",
                 args[0].c_str());
    return kExitUsage;
  }
  lab::LabFlagValues flags;
  // Shared flags (cli/common_flags.cc) with the lab's defaults.
  flags.cc =
      absl::GetFlag(FLAGS_cc).empty() ? "cubic" : absl::GetFlag(FLAGS_cc);
  flags.ecn = absl::GetFlag(FLAGS_ecn);
  flags.rate =
      absl::GetFlag(FLAGS_rate).empty() ? "50mbit" : absl::GetFlag(FLAGS_rate);
  flags.queue = absl::GetFlag(FLAGS_queue);
  flags.mark = absl::GetFlag(FLAGS_mark);
  flags.delay_ms = absl::GetFlag(FLAGS_delay);
  flags.duration_s =
      absl::GetFlag(FLAGS_duration) > 0 ? absl::GetFlag(FLAGS_duration) : 5;
  flags.mss_bytes = absl::GetFlag(FLAGS_mss);
  flags.flows = absl::GetFlag(FLAGS_flows);
  flags.transfer = absl::GetFlag(FLAGS_transfer);
  flags.output_dir = absl::GetFlag(FLAGS_o);
  absl::StatusOr<lab::LabConfig> config = lab::ParseLabConfig(flags);
  if (!config.ok()) {
    std::fprintf(stderr, "ccreplay lab: %s\n",
                 std::string(config.status().message()).c_str());
    return kExitUsage;
  }
  absl::StatusOr<lab::BundleMeta> meta = lab::RunLab(*config);
  if (!meta.ok()) {
    std::fprintf(stderr, "ccreplay lab: %s\n",
                 std::string(meta.status().message()).c_str());
    // An unknown controller is a bad flag value, found only once the
    // sender namespace exists.
    if (meta.status().code() == absl::StatusCode::kInvalidArgument)
      return kExitUsage;
    return ExitCodeForStatus(meta.status());
  }
  std::printf(
      "bundle %s: %zu flow(s), %s, %.1f s wall\n"
      "  sender.pcap %llu packets (libpcap drops %llu), receiver.pcap %llu "
      "packets (drops "
      "%llu)\n  ss.log %lld samples, tcp_probe.txt %lld events (overrun "
      "%lld)\n",
      config->output_dir.c_str(), meta->plan.flows.size(),
      meta->transfer_tool.c_str(), meta->wall_s,
      static_cast<unsigned long long>(meta->sender_capture.packets_written),
      static_cast<unsigned long long>(meta->sender_capture.ps_drop),
      static_cast<unsigned long long>(meta->receiver_capture.packets_written),
      static_cast<unsigned long long>(meta->receiver_capture.ps_drop),
      static_cast<long long>(meta->ss.samples),
      static_cast<long long>(meta->trace.entries),
      static_cast<long long>(meta->trace.overrun));
  if (meta->delay_line.has_value()) {
    std::printf(
        "  delay line: %lld packets, late max %lld us, %lld over 0.1 ms\n",
        static_cast<long long>(meta->delay_line->packets),
        static_cast<long long>(meta->delay_line->late_max_us),
        static_cast<long long>(meta->delay_line->late_over_100us));
  }
  return kExitOk;
}

}  // namespace ccreplay
