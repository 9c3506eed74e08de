#include "lab/run_summary.h"

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"

namespace ccreplay::lab {

std::string LabRunSummary(const LabRun& run) {
  std::string text = absl::StrFormat(
      "bundle %s: %d flow(s), %s, %.1f s wall\n"
      "  sender.pcap %d packets (libpcap drops %d), receiver.pcap %d "
      "packets (drops %d)\n"
      "  ss.log %d samples, tcp_probe.txt %d events (overrun %d)\n",
      run.config.output_dir, run.plan.flows.size(), run.transfer_tool,
      run.wall_s, run.sender_capture.packets_written,
      run.sender_capture.ps_drop, run.receiver_capture.packets_written,
      run.receiver_capture.ps_drop, run.ss.samples, run.trace.entries,
      run.trace.overrun);
  if (run.delay_line.has_value()) {
    absl::StrAppendFormat(
        &text, "  delay line: %d packets, late max %d us, %d over 0.1 ms\n",
        run.delay_line->packets, run.delay_line->late_max_us,
        run.delay_line->late_over_100us);
  }
  return text;
}

}  // namespace ccreplay::lab
