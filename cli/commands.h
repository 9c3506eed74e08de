// The subcommands. Each takes the positional arguments left after flag
// parsing (without the program and subcommand names) and returns an exit
// code from cli/exit_codes.h.
#ifndef CCREPLAY_CLI_COMMANDS_H_
#define CCREPLAY_CLI_COMMANDS_H_

#include <string>
#include <vector>

namespace ccreplay {

using Args = std::vector<std::string>;

int RunFlows(const Args& args);
int RunConvert(const Args& args);
int RunDiagnose(const Args& args);
int RunControllers(const Args& args);
int RunLab(const Args& args);
int RunSimulate(const Args& args);
int RunExperiment(const Args& args);
int RunTimeline(const Args& args);
int RunReplay(const Args& args);
int RunCheck(const Args& args);
int RunWatch(const Args& args);

}  // namespace ccreplay

#endif  // CCREPLAY_CLI_COMMANDS_H_
