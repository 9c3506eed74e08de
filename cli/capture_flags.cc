#include "cli/capture_flags.h"

#include <cstdio>

#include "absl/flags/flag.h"
#include "absl/strings/str_cat.h"
#include "cli/exit_codes.h"
#include "parsers/input_kind.h"

ABSL_FLAG(std::string, filter, "",
          "read only the frames this libpcap capture filter passes (the "
          "language of tcpdump and pcap-filter(7): 'tcp port 5201', 'host "
          "10.0.0.1'), applied before decoding. Packet captures only.");
ABSL_FLAG(bool, quiet, false,
          "no progress line on stderr (drawn only when stderr is a terminal "
          "and the work takes over a second).");

namespace ccreplay {
namespace {

// Why a filter cannot apply to `input`; empty when it can (a capture, a
// bundle directory, or an input the command will refuse on its own).
std::string FilterMismatch(const std::string& input) {
  if (input.empty())
    return "filters apply to packet captures, and this command reads none "
           "(--qlog)";
  absl::StatusOr<InputClass> kind = ClassifyInput(input);
  if (!kind.ok() || IsCapture(kind->kind) ||
      kind->kind == InputKind::kBundleDirectory ||
      kind->kind == InputKind::kUnknown || kind->kind == InputKind::kEmpty) {
    return "";
  }
  return absl::StrCat("filters apply to packet captures, and ", input,
                      " is not one (", InputKindName(kind->kind), ")");
}

}  // namespace

int CaptureOptionsFromFlags(absl::string_view command, const std::string& input,
                            ProgressMeter& meter, CaptureReadOptions* options) {
  options->filter = absl::GetFlag(FLAGS_filter);
  options->progress = meter.Callback();
  if (options->filter.empty()) return kExitOk;
  absl::Status compiles = CheckCaptureFilter(options->filter);
  std::string problem(compiles.message());
  if (problem.empty()) {
    const std::string mismatch = FilterMismatch(input);
    if (!mismatch.empty()) problem = absl::StrCat("--filter: ", mismatch);
  }
  if (problem.empty()) return kExitOk;
  std::fprintf(stderr, "ccreplay %s: %s\n", std::string(command).c_str(),
               problem.c_str());
  return kExitUsage;
}

ProgressMeter MeterFromFlags(absl::string_view command) {
  return ProgressMeter(command, ProgressWanted(absl::GetFlag(FLAGS_quiet)),
                       stderr);
}

}  // namespace ccreplay
