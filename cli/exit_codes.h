// Exit codes of every ccreplay subcommand (documented in README.md).
#ifndef CCREPLAY_CLI_EXIT_CODES_H_
#define CCREPLAY_CLI_EXIT_CODES_H_

#include "absl/status/status.h"
#include "absl/strings/string_view.h"

namespace ccreplay {

enum ExitCode : int {
  kExitOk = 0,
  // A runtime failure that fits no class below.
  kExitFailure = 1,
  // Bad command line: unknown subcommand, flag or value.
  kExitUsage = 2,
  // The input could not be opened or read (missing file, permission, I/O);
  // only that: a readable input with nothing in it to work on is 7.
  kExitUnreadable = 3,
  // The input is not in any format ccreplay reads (e.g. not a capture).
  kExitNotRecognized = 4,
  // A recognised format with something ccreplay does not support (link
  // type, qlog dialect, pcapng version).
  kExitUnsupported = 5,
  // A result was produced, but from part of the input only (e.g. a capture
  // cut in the middle of a packet); the warnings say what was lost.
  kExitPartial = 6,
  // A readable input with nothing to diagnose: no TCP flow, no sender
  // state (a qlog without congestion_window, an ss log without the flow's
  // socket), no ACKs from the receiver.
  kExitNothingToDiagnose = 7,
};

// Maps a module's error status to the exit code above, by status code:
// NotFound/PermissionDenied/Unavailable -> unreadable, InvalidArgument/
// DataLoss -> not recognised, Unimplemented -> unsupported,
// FailedPrecondition (what the modules return for "nothing to diagnose") ->
// nothing to diagnose, OutOfRange (a --flow that names no flow) -> usage.
int ExitCodeForStatus(const absl::Status& status);

// Prints "ccreplay COMMAND: MESSAGE" to stderr and returns
// ExitCodeForStatus(status).
int ReportFailure(absl::string_view command, const absl::Status& status);

}  // namespace ccreplay

#endif  // CCREPLAY_CLI_EXIT_CODES_H_
