// Child processes with argv vectors (never a shell): the iproute2 tools that
// build the testbed, ss, iperf3. A child inherits the network namespace of
// the thread that spawns it unless given one, and the signal mask of that
// thread; it gets PR_SET_PDEATHSIG (SIGKILL), so it dies with the thread
// that started it, and with the lab, even when the lab is killed.
#ifndef CCREPLAY_LAB_SUBPROCESS_H_
#define CCREPLAY_LAB_SUBPROCESS_H_

#include <sys/types.h>

#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "absl/time/time.h"

namespace ccreplay::lab {

// The program's absolute path from $PATH (plus /usr/sbin and /sbin, where
// ip and tc live), or "" when it is not installed.
std::string FindProgram(absl::string_view name);

// Runs argv to completion; returns its stdout and stderr interleaved. A
// nonzero exit is an error that quotes the command and its output.
absl::StatusOr<std::string> RunProgram(const std::vector<std::string>& argv);

// Starts argv in the background with stdout/stderr on the given descriptors
// (-1: /dev/null), inside the network namespace open at `netns_fd` (-1: the
// calling thread's). The caller waits for it (WaitProgram) or kills it.
absl::StatusOr<pid_t> SpawnProgram(const std::vector<std::string>& argv,
                                   int stdout_fd, int stderr_fd,
                                   int netns_fd = -1);

// Waits for pid up to `timeout`, then sends SIGTERM and waits again.
// Returns the exit status as waitpid(2) reports it.
absl::StatusOr<int> WaitProgram(pid_t pid, absl::Duration timeout);

// A waitpid(2) status as text: "exit N" or "signal N".
std::string DescribeExitStatus(int status);

}  // namespace ccreplay::lab

#endif  // CCREPLAY_LAB_SUBPROCESS_H_
