// Flags that several subcommands share. Each subcommand defines its own
// flags in its own file (cli/<name>_command.cc); which command accepts which
// flag is declared in cli/command_table.cc.
#ifndef CCREPLAY_CLI_COMMON_FLAGS_H_
#define CCREPLAY_CLI_COMMON_FLAGS_H_

#include <optional>
#include <string>
#include <vector>

#include "absl/flags/declare.h"
#include "absl/time/time.h"
#include "replay/sim/units.h"

ABSL_DECLARE_FLAG(bool, json);
ABSL_DECLARE_FLAG(bool, csv);
ABSL_DECLARE_FLAG(std::string, flow);
ABSL_DECLARE_FLAG(std::string, o);
ABSL_DECLARE_FLAG(std::string, cc);
ABSL_DECLARE_FLAG(std::optional<ccreplay::BitRate>, rate);
ABSL_DECLARE_FLAG(std::optional<absl::Duration>, delay);
ABSL_DECLARE_FLAG(std::optional<absl::Duration>, duration);
ABSL_DECLARE_FLAG(int, mss);
ABSL_DECLARE_FLAG(std::string, ss);
ABSL_DECLARE_FLAG(std::string, probe);
ABSL_DECLARE_FLAG(std::string, qlog);
ABSL_DECLARE_FLAG(std::vector<std::string>, flows);

namespace ccreplay {

// Writes `content` to the file `path` (an output flag's value): false when
// it cannot.
bool WriteFile(const std::string& path, const std::string& content);

}  // namespace ccreplay

#endif  // CCREPLAY_CLI_COMMON_FLAGS_H_
