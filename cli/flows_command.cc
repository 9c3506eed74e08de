// `ccreplay flows CAPTURE [--json]`: the flows of a capture.
#include <cstdio>
#include <string>

#include "absl/flags/flag.h"
#include "absl/strings/str_format.h"
#include "cli/commands.h"
#include "cli/common_flags.h"
#include "cli/exit_codes.h"
#include "parsers/flow_table.h"
#include "parsers/pcap_reader.h"
#include "reports/flows_report.h"

namespace ccreplay {

int RunFlows(const Args& args) {
  if (args.size() != 1) {
    std::fprintf(stderr, "usage: ccreplay flows CAPTURE [--json]  (see --help)\n");
    return kExitUsage;
  }
  FlowTable table;
  absl::StatusOr<CaptureInfo> info = ReadCapture(args[0], table);
  if (!info.ok()) {
    std::fprintf(stderr, "ccreplay flows: %s\n", std::string(info.status().message()).c_str());
    return ExitCodeForStatus(info.status());
  }
  std::vector<FlowSummary> summaries;
  summaries.reserve(table.flows().size());
  for (const Flow& flow : table.flows()) {
    summaries.push_back(SummarizeFlow(flow, info->first_packet_time_ns));
  }
  for (const std::string& warning : info->warnings) {
    std::fprintf(stderr, "ccreplay flows: warning: %s: %s\n", args[0].c_str(), warning.c_str());
  }
  const std::string out = absl::GetFlag(FLAGS_json) ? FlowsJson(*info, summaries)
                                                    : FlowsTable(*info, summaries);
  std::fwrite(out.data(), 1, out.size(), stdout);
  return info->truncated ? kExitPartial : kExitOk;
}

}  // namespace ccreplay
