// `ccreplay convert INPUT [--flow N] [-o FILE] [--json]`: any input as the
// proto trace (proto/trace.proto), binary or protobuf JSON.
#include <cstdio>
#include <fstream>
#include <string>

#include "absl/flags/flag.h"
#include "absl/strings/numbers.h"
#include "cli/capture_flags.h"
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

namespace {

// --flow as an index, or nullopt when absent; false when it is not one.
bool ParseFlowIndex(std::optional<uint32_t>* only_flow) {
  const std::string flow = absl::GetFlag(FLAGS_flow);
  if (flow.empty()) return true;
  uint32_t index;
  if (!absl::SimpleAtoi(flow, &index)) return false;
  *only_flow = index;
  return true;
}

// A capture's trace (of one flow with --flow). Returns an exit code;
// `partial` when the capture was cut short.
int CaptureTrace(const std::string& path, const CaptureReadOptions& options,
                 std::optional<uint32_t> only_flow, proto::Trace* trace,
                 bool* partial) {
  TraceBuilder builder(only_flow);
  absl::StatusOr<CaptureInfo> info = ReadCapture(path, builder, options);
  if (!info.ok()) return ReportFailure("convert", info.status());
  if (only_flow.has_value() &&
      *only_flow >= builder.flow_table().flows().size()) {
    std::fprintf(stderr,
                 "ccreplay convert: %s has %zu flows; there is no flow %u\n",
                 path.c_str(), builder.flow_table().flows().size(), *only_flow);
    return kExitUsage;
  }
  *trace = builder.Finish(*info);
  *partial = info->truncated;
  return kExitOk;
}

// A host-state log's trace (of one host trace with --flow). Returns an
// exit code; `partial` when the log was cut short.
int HostStateTrace(const std::string& path, std::optional<uint32_t> only_flow,
                   proto::Trace* trace, bool* partial) {
  absl::StatusOr<HostStateLog> log = ReadHostState(path);
  if (!log.ok()) return ReportFailure("convert", log.status());
  *trace = HostStateToProto(*log);
  *partial = log->truncated;
  if (!only_flow.has_value()) return kExitOk;
  if (*only_flow >= static_cast<uint32_t>(trace->host_traces_size())) {
    std::fprintf(stderr,
                 "ccreplay convert: %s has %d traces; there is no trace %u\n",
                 path.c_str(), trace->host_traces_size(), *only_flow);
    return kExitUsage;
  }
  proto::HostTrace kept = trace->host_traces(static_cast<int>(*only_flow));
  trace->clear_host_traces();
  *trace->add_host_traces() = std::move(kept);
  return kExitOk;
}

// The trace, binary or JSON, to -o or stdout. Returns an exit code.
int WriteTrace(const proto::Trace& trace) {
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
    return kExitOk;
  }
  std::ofstream file(path, std::ios::binary);
  file.write(out.data(), static_cast<std::streamsize>(out.size()));
  if (!file) {
    std::fprintf(stderr, "ccreplay convert: cannot write %s\n", path.c_str());
    return kExitFailure;
  }
  return kExitOk;
}

}  // namespace

int RunConvert(const Args& args) {
  if (args.size() != 1) {
    std::fprintf(stderr,
                 "usage: ccreplay convert INPUT [--flow N] [-o FILE] [--json] "
                 "[--filter EXPR]\n");
    return kExitUsage;
  }
  std::optional<uint32_t> only_flow;
  if (!ParseFlowIndex(&only_flow)) {
    std::fprintf(stderr,
                 "ccreplay convert: --flow takes a flow index (see `ccreplay "
                 "flows`)\n");
    return kExitUsage;
  }
  ProgressMeter meter = MeterFromFlags("convert");
  CaptureReadOptions read_options;
  const int flags =
      CaptureOptionsFromFlags("convert", args[0], meter, &read_options);
  if (flags != kExitOk) return flags;
  absl::StatusOr<InputClass> input = ClassifyInput(args[0]);
  if (!input.ok()) return ReportFailure("convert", input.status());
  proto::Trace trace;
  bool partial = false;
  const int read =
      IsCapture(input->kind)
          ? CaptureTrace(args[0], read_options, only_flow, &trace, &partial)
          : HostStateTrace(args[0], only_flow, &trace, &partial);
  meter.Finish();
  if (read != kExitOk) return read;
  for (const std::string& warning : trace.capture().warnings()) {
    std::fprintf(stderr, "ccreplay convert: warning: %s: %s\n", args[0].c_str(),
                 warning.c_str());
  }
  const int written = WriteTrace(trace);
  if (written != kExitOk) return written;
  return partial ? kExitPartial : kExitOk;
}

}  // namespace ccreplay
