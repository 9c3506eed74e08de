// Flags that several subcommands share. Each subcommand defines its own
// flags in its own file (cli/<name>_command.cc).
#ifndef CCREPLAY_CLI_COMMON_FLAGS_H_
#define CCREPLAY_CLI_COMMON_FLAGS_H_

#include <string>

#include "absl/flags/declare.h"

ABSL_DECLARE_FLAG(bool, json);
ABSL_DECLARE_FLAG(bool, csv);
ABSL_DECLARE_FLAG(std::string, flow);
ABSL_DECLARE_FLAG(std::string, o);
ABSL_DECLARE_FLAG(std::string, cc);
ABSL_DECLARE_FLAG(std::string, rate);
ABSL_DECLARE_FLAG(double, delay);
ABSL_DECLARE_FLAG(double, duration);
ABSL_DECLARE_FLAG(int, mss);
ABSL_DECLARE_FLAG(std::string, ss);
ABSL_DECLARE_FLAG(std::string, probe);
ABSL_DECLARE_FLAG(std::string, qlog);

#endif  // CCREPLAY_CLI_COMMON_FLAGS_H_
