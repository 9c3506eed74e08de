// `ccreplay convert INPUT [--flow N] [-o FILE] [--json]`: any input as the
// proto trace (proto/trace.proto), binary or protobuf JSON.
#include <cstdio>
#include <fstream>
#include <string>

#include "absl/flags/flag.h"
#include "absl/strings/numbers.h"
#include "cli/commands.h"
#include "cli/common_flags.h"
#include "cli/exit_codes.h"
#include "parsers/host_state_proto.h"
#include "parsers/host_state_reader.h"
#include "parsers/input_kind.h"
#include "parsers/pcap_reader.h"
#include "parsers/trace_builder.h"
#include "proto/json_printer.h"

namespace ccreplay {

int RunConvert(const Args& args) {
  if (args.size() != 1) {
    std::fprintf(
        stderr,
        "usage: ccreplay convert INPUT [--flow N] [-o FILE] [--json]\n");
    return kExitUsage;
  }
  std::optional<uint32_t> only_flow;
  const std::string flow = absl::GetFlag(FLAGS_flow);
  if (!flow.empty()) {
    uint32_t index;
    if (!absl::SimpleAtoi(flow, &index)) {
      std::fprintf(stderr,
                   "ccreplay convert: --flow takes a flow index (see `ccreplay "
                   "flows`)\n");
      return kExitUsage;
    }
    only_flow = index;
  }
  absl::StatusOr<InputClass> input = ClassifyInput(args[0]);
  if (!input.ok()) {
    std::fprintf(stderr, "ccreplay convert: %s\n",
                 std::string(input.status().message()).c_str());
    return ExitCodeForStatus(input.status());
  }
  const bool capture = IsCapture(input->kind);
  proto::Trace trace;
  bool partial = false;
  if (capture) {
    TraceBuilder builder(only_flow);
    absl::StatusOr<CaptureInfo> info = ReadCapture(args[0], builder);
    if (!info.ok()) {
      std::fprintf(stderr, "ccreplay convert: %s\n",
                   std::string(info.status().message()).c_str());
      return ExitCodeForStatus(info.status());
    }
    if (only_flow.has_value() &&
        *only_flow >= builder.flow_table().flows().size()) {
      std::fprintf(
          stderr, "ccreplay convert: %s has %zu flows; there is no flow %u\n",
          args[0].c_str(), builder.flow_table().flows().size(), *only_flow);
      return kExitUsage;
    }
    trace = builder.Finish(*info);
    partial = info->truncated;
  } else {
    absl::StatusOr<HostStateLog> log = ReadHostState(args[0]);
    if (!log.ok()) {
      std::fprintf(stderr, "ccreplay convert: %s\n",
                   std::string(log.status().message()).c_str());
      return ExitCodeForStatus(log.status());
    }
    trace = HostStateToProto(*log);
    partial = log->truncated;
    if (only_flow.has_value()) {
      if (*only_flow >= static_cast<uint32_t>(trace.host_traces_size())) {
        std::fprintf(
            stderr,
            "ccreplay convert: %s has %d traces; there is no trace %u\n",
            args[0].c_str(), trace.host_traces_size(), *only_flow);
        return kExitUsage;
      }
      proto::HostTrace kept = trace.host_traces(static_cast<int>(*only_flow));
      trace.clear_host_traces();
      *trace.add_host_traces() = std::move(kept);
    }
  }
  for (const std::string& warning : trace.capture().warnings()) {
    std::fprintf(stderr, "ccreplay convert: warning: %s: %s\n", args[0].c_str(),
                 warning.c_str());
  }
  std::string out;
  if (absl::GetFlag(FLAGS_json)) {
    out = PrintJson(trace);
  } else if (!trace.SerializeToString(&out)) {
    std::fprintf(stderr, "ccreplay convert: cannot serialize the trace\n");
    return kExitFailure;
  }
  const std::string path = absl::GetFlag(FLAGS_o);
  if (path.empty() || path == "-") {
    std::fwrite(out.data(), 1, out.size(), stdout);
  } else {
    std::ofstream file(path, std::ios::binary);
    file.write(out.data(), static_cast<std::streamsize>(out.size()));
    if (!file) {
      std::fprintf(stderr, "ccreplay convert: cannot write %s\n", path.c_str());
      return kExitFailure;
    }
  }
  return partial ? kExitPartial : kExitOk;
}

}  // namespace ccreplay
