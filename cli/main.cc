// ccreplay: replay captured ACK/ECN sequences through reference congestion
// controllers. This file only dispatches to subcommands; their flags and
// help come from cli/command_table.cc through cli/command_line.h.
#include <cstdio>
#include <string>

#include "absl/types/span.h"
#include "cli/command_line.h"
#include "cli/exit_codes.h"

namespace ccreplay {
namespace {

void PrintOverview(FILE* out) {
  std::fprintf(
      out,
      "usage: ccreplay COMMAND [ARGS] [FLAGS]\n\n"
      "Rebuilds what a TCP or QUIC sender saw ACK by ACK and replays it "
      "through\nreference congestion controllers.\n\nCommands:\n");
  for (const CommandSpec& c : AllCommands()) {
    std::fprintf(out, "  %-12s %s\n", std::string(c.name).c_str(),
                 std::string(c.summary).c_str());
  }
  std::fprintf(
      out,
      "\n`ccreplay COMMAND --help` shows a command's flags and an example.\n");
}

int RunCommand(const CommandSpec& command, int argc, char** argv) {
  absl::StatusOr<CommandLine> line = ParseCommandLine(
      command, AllCommands(), absl::MakeConstSpan(argv + 2, argc - 2));
  if (!line.ok()) {
    std::fprintf(stderr, "ccreplay %s: %s\n", std::string(command.name).c_str(),
                 std::string(line.status().message()).c_str());
    return line.status().code() == absl::StatusCode::kInvalidArgument
               ? kExitUsage
               : kExitFailure;
  }
  if (line->help) {
    const std::string help = CommandHelp(command);
    std::fwrite(help.data(), 1, help.size(), stdout);
    return kExitOk;
  }
  return command.run(line->positional);
}

int Main(int argc, char** argv) {
  const std::string first = argc < 2 ? "" : argv[1];
  if (argc < 2 || first == "--help" || first == "help" || first == "-h") {
    PrintOverview(argc < 2 ? stderr : stdout);
    return argc < 2 ? kExitUsage : kExitOk;
  }
  for (const CommandSpec& command : AllCommands()) {
    if (first == command.name) return RunCommand(command, argc, argv);
  }
  std::fprintf(stderr, "ccreplay: unknown command '%s'\n\n", first.c_str());
  PrintOverview(stderr);
  return kExitUsage;
}

}  // namespace
}  // namespace ccreplay

int main(int argc, char** argv) { return ccreplay::Main(argc, argv); }
