// --filter and --quiet: how a command that reads a packet capture reads it
// (parsers/capture_filter.h's CaptureReadOptions), from its flags.
#ifndef CCREPLAY_CLI_CAPTURE_FLAGS_H_
#define CCREPLAY_CLI_CAPTURE_FLAGS_H_

#include <string>

#include "absl/flags/declare.h"
#include "absl/strings/string_view.h"
#include "cli/progress_meter.h"
#include "parsers/capture_filter.h"

ABSL_DECLARE_FLAG(std::string, filter);
ABSL_DECLARE_FLAG(bool, quiet);

namespace ccreplay {

// The options for reading `input` (empty when the command reads no capture,
// e.g. `--qlog FILE` alone), progress going to `meter`. Returns kExitOk, or
// prints why and returns kExitUsage: a --filter that libpcap does not
// compile, or one given for an input that is not a packet capture (or a
// bundle directory holding one).
int CaptureOptionsFromFlags(absl::string_view command, const std::string& input,
                            ProgressMeter& meter, CaptureReadOptions* options);

// The meter for `command`: drawn on stderr when it is a terminal, unless
// --quiet.
ProgressMeter MeterFromFlags(absl::string_view command);

}  // namespace ccreplay

#endif  // CCREPLAY_CLI_CAPTURE_FLAGS_H_
