#include "cli/exit_codes.h"

#include <cstdio>
#include <string>

namespace ccreplay {

int ExitCodeForStatus(const absl::Status& status) {
  switch (status.code()) {
    case absl::StatusCode::kOk:
      return kExitOk;
    case absl::StatusCode::kNotFound:
    case absl::StatusCode::kPermissionDenied:
    case absl::StatusCode::kUnavailable:
      return kExitUnreadable;
    case absl::StatusCode::kInvalidArgument:
    case absl::StatusCode::kDataLoss:
      return kExitNotRecognized;
    case absl::StatusCode::kUnimplemented:
      return kExitUnsupported;
    case absl::StatusCode::kFailedPrecondition:
      return kExitNothingToDiagnose;
    case absl::StatusCode::kOutOfRange:
      return kExitUsage;
    default:
      return kExitFailure;
  }
}

int ReportFailure(absl::string_view command, const absl::Status& status) {
  std::fprintf(stderr, "ccreplay %s: %s\n", std::string(command).c_str(),
               std::string(status.message()).c_str());
  return ExitCodeForStatus(status);
}

}  // namespace ccreplay
