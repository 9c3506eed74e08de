// Each subcommand's flags: the table that declares which flags a command
// accepts and documents them, the parser that sets them from argv, and the
// help printer driven by the same table.
//
// The flags themselves are ABSL_FLAGs (typed storage, AbslParseFlag for the
// quantities of replay/sim/units.h). absl::ParseCommandLine is not used: it
// accepts every flag of the binary for every command, exits with 1 on a bad
// value, and its --help prints the source files that define the flags. This
// parser sets each flag through absl's CommandLineFlag::ParseFrom.
#ifndef CCREPLAY_CLI_COMMAND_LINE_H_
#define CCREPLAY_CLI_COMMAND_LINE_H_

#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "absl/types/span.h"
#include "cli/commands.h"

namespace ccreplay {

// One flag as a command documents it.
struct FlagDoc {
  absl::string_view name;   // the ABSL_FLAG's name
  absl::string_view value;  // what it takes ("RATE", "50ms"); empty: boolean
  // Meaning, unit and default when this command reads the flag its own way;
  // empty: the ABSL_FLAG's help text.
  absl::string_view help;
};

struct CommandSpec {
  absl::string_view name;
  int (*run)(const Args&);
  absl::string_view summary;      // one line for the overview
  absl::string_view synopsis;     // "ccreplay flows CAPTURE [--json]"
  absl::string_view description;  // what it does
  absl::string_view example;      // one command line
  std::vector<FlagDoc> flags;     // every flag it accepts
};

// Every subcommand (cli/command_table.cc).
const std::vector<CommandSpec>& AllCommands();

struct CommandLine {
  Args positional;
  bool help = false;  // --help, -h, --helpfull or --helpshort was given
};

// Sets the flags of `args` (the words after the subcommand name) and returns
// the positional arguments. InvalidArgument, with the message to print, for
// a flag `command` does not accept (naming the commands that do), an unknown
// flag, a missing or bad value. `--` ends the flags.
absl::StatusOr<CommandLine> ParseCommandLine(const CommandSpec& command,
                                             absl::Span<const CommandSpec> all,
                                             absl::Span<char* const> args);

// `ccreplay COMMAND --help`: synopsis, description, the command's flags
// with their values and meanings, and the example.
std::string CommandHelp(const CommandSpec& command);

}  // namespace ccreplay

#endif  // CCREPLAY_CLI_COMMAND_LINE_H_
