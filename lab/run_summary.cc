#include "lab/run_summary.h"

#include <utility>

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
  for (const auto& [name, line] :
       {std::pair{"delay line", &run.delay_line},
        std::pair{"path 2 delay line", &run.second_delay_line},
        std::pair{"reorder line", &run.reorder_line}}) {
    if (!line->has_value()) continue;
    absl::StrAppendFormat(
        &text, "  %s: %d packets, late max %d us, %d over 0.1 ms\n", name,
        (*line)->packets, (*line)->late_max_us, (*line)->late_over_100us);
  }
  if (run.reorder_line.has_value()) {
    absl::StrAppendFormat(&text, "  reordered %d of %d packets (%d overtook)\n",
                          run.reorder_line->reordered_packets,
                          run.reorder_line->packets,
                          run.reorder_line->overtaking_packets);
  }
  return text;
}

}  // namespace ccreplay::lab
