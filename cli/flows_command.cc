// `ccreplay flows CAPTURE [--json]`: the flows of a capture.
#include <cstdio>
#include <string>

#include "absl/algorithm/container.h"
#include "absl/flags/flag.h"
#include "absl/strings/str_format.h"
#include "cli/capture_flags.h"
#include "cli/commands.h"
#include "cli/common_flags.h"
#include "cli/exit_codes.h"
#include "parsers/flow_table.h"
#include "parsers/host_state_reader.h"
#include "parsers/host_state_summary.h"
#include "parsers/input_kind.h"
#include "parsers/pcap_reader.h"
#include "replay/ack_timeline.h"
#include "reports/flows_report.h"
#include "reports/host_state_report.h"

namespace ccreplay {

namespace {

// An ss log, tcp_probe trace, qlog or quicly log: one entry per connection
// or trace.
int HostStateFlows(const std::string& path) {
  absl::StatusOr<HostStateLog> log = ReadHostState(path);
  if (absl::IsInvalidArgument(log.status())) {
    std::fprintf(stderr,
                 "ccreplay flows: %s: not a pcap/pcapng capture, ss log, "
                 "tcp_probe trace, qlog "
                 "or quicly log (%s)\n",
                 path.c_str(), std::string(log.status().message()).c_str());
    return ExitCodeForStatus(log.status());
  }
  if (!log.ok()) {
    return ReportFailure("flows", log.status());
  }
  std::vector<HostTraceSummary> summaries;
  for (const HostTrace& trace : log->traces)
    summaries.push_back(SummarizeHostTrace(trace));
  for (const std::string& warning : log->warnings) {
    std::fprintf(stderr, "ccreplay flows: warning: %s: %s\n", path.c_str(),
                 warning.c_str());
  }
  const std::string out = absl::GetFlag(FLAGS_json)
                              ? HostStateFlowsJson(*log, summaries)
                              : HostStateFlowsTable(*log, summaries);
  std::fwrite(out.data(), 1, out.size(), stdout);
  return log->truncated ? kExitPartial : kExitOk;
}

}  // namespace

int RunFlows(const Args& args) {
  if (args.size() != 1) {
    std::fprintf(stderr,
                 "usage: ccreplay flows INPUT [--json] [--filter EXPR]  (see "
                 "--help)\n");
    return kExitUsage;
  }
  ProgressMeter meter = MeterFromFlags("flows");
  CaptureReadOptions read_options;
  const int flags =
      CaptureOptionsFromFlags("flows", args[0], meter, &read_options);
  if (flags != kExitOk) return flags;
  absl::StatusOr<InputClass> input = ClassifyInput(args[0]);
  if (!input.ok()) {
    return ReportFailure("flows", input.status());
  }
  const bool capture = IsCapture(input->kind);
  if (!capture) return HostStateFlows(args[0]);
  // One pass: the builder feeds its flow table and reconstructs every
  // flow's sender alongside.
  AckTimelineBuilder builder;
  absl::StatusOr<CaptureInfo> info =
      ReadCapture(args[0], builder, read_options);
  builder.Finish();
  meter.Finish();
  if (!info.ok()) {
    return ReportFailure("flows", info.status());
  }
  for (const std::string& warning : info->warnings) {
    std::fprintf(stderr, "ccreplay flows: warning: %s: %s\n", args[0].c_str(),
                 warning.c_str());
  }
  const auto& flows = builder.flow_table().flows();
  const auto row = [&](size_t i) {
    return FlowRow{&flows[i],
                   SummarizeFlow(flows[i], info->first_packet_time_ns),
                   builder.Stats(flows[i].index)};
  };
  const auto write = [](absl::string_view text) {
    std::fwrite(text.data(), 1, text.size(), stdout);
  };
  if (absl::GetFlag(FLAGS_json)) {
    WriteFlowsJson(*info, flows.size(), row, write);
  } else {
    const bool tunnel_column = absl::c_any_of(flows, [](const Flow& f) {
      return f.encapsulation != Encapsulation::kNone;
    });
    WriteFlowsTable(*info, flows.size(), tunnel_column, row, write);
  }
  return info->truncated ? kExitPartial : kExitOk;
}

}  // namespace ccreplay
