#include "lab/subprocess.h"

#include <fcntl.h>
#include <signal.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_split.h"

extern char** environ;

namespace ccreplay::lab {
namespace {

std::vector<char*> ArgvPointers(const std::vector<std::string>& argv) {
  std::vector<char*> pointers;
  for (const std::string& arg : argv)
    pointers.push_back(const_cast<char*>(arg.c_str()));
  pointers.push_back(nullptr);
  return pointers;
}

absl::StatusOr<pid_t> Spawn(const std::vector<std::string>& argv, int stdout_fd,
                            int stderr_fd) {
  if (argv.empty()) return absl::InvalidArgumentError("empty command");
  std::string path = FindProgram(argv[0]);
  if (path.empty()) {
    return absl::FailedPreconditionError(absl::StrCat(
        "program '", argv[0], "' is not installed (not found in PATH)"));
  }
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_addopen(&actions, STDIN_FILENO, "/dev/null",
                                   O_RDONLY, 0);
  if (stdout_fd >= 0) {
    posix_spawn_file_actions_adddup2(&actions, stdout_fd, STDOUT_FILENO);
  } else {
    posix_spawn_file_actions_addopen(&actions, STDOUT_FILENO, "/dev/null",
                                     O_WRONLY, 0);
  }
  if (stderr_fd >= 0) {
    posix_spawn_file_actions_adddup2(&actions, stderr_fd, STDERR_FILENO);
  } else {
    posix_spawn_file_actions_addopen(&actions, STDERR_FILENO, "/dev/null",
                                     O_WRONLY, 0);
  }
  pid_t pid = 0;
  std::vector<char*> args = ArgvPointers(argv);
  int err =
      posix_spawn(&pid, path.c_str(), &actions, nullptr, args.data(), environ);
  posix_spawn_file_actions_destroy(&actions);
  if (err != 0) {
    return absl::InternalError(
        absl::StrCat("cannot start ", path, ": ", std::strerror(err)));
  }
  return pid;
}

}  // namespace

std::string FindProgram(absl::string_view name) {
  if (name.find('/') != absl::string_view::npos) return std::string(name);
  const char* env_path = std::getenv("PATH");
  std::string search =
      absl::StrCat(env_path != nullptr ? env_path : "", ":/usr/sbin:/sbin");
  for (absl::string_view dir : absl::StrSplit(search, ':', absl::SkipEmpty())) {
    std::string candidate = absl::StrCat(dir, "/", name);
    if (access(candidate.c_str(), X_OK) == 0) return candidate;
  }
  return "";
}

absl::StatusOr<std::string> RunProgram(const std::vector<std::string>& argv) {
  int fds[2];
  if (pipe2(fds, O_CLOEXEC) != 0) {
    return absl::InternalError(absl::StrCat("pipe: ", std::strerror(errno)));
  }
  absl::StatusOr<pid_t> pid = Spawn(argv, fds[1], fds[1]);
  close(fds[1]);
  if (!pid.ok()) {
    close(fds[0]);
    return pid.status();
  }
  std::string output;
  char buffer[4096];
  for (;;) {
    ssize_t n = read(fds[0], buffer, sizeof(buffer));
    if (n > 0) {
      output.append(buffer, n);
    } else if (n == 0 || errno != EINTR) {
      break;
    }
  }
  close(fds[0]);
  int status = 0;
  while (waitpid(*pid, &status, 0) < 0 && errno == EINTR) {
  }
  if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) {
    return absl::InternalError(absl::StrCat(
        "`", absl::StrJoin(argv, " "), "` failed (",
        WIFEXITED(status) ? absl::StrCat("exit ", WEXITSTATUS(status))
                          : absl::StrCat("signal ", WTERMSIG(status)),
        "): ", output));
  }
  return output;
}

absl::StatusOr<pid_t> SpawnProgram(const std::vector<std::string>& argv,
                                   int stdout_fd, int stderr_fd) {
  return Spawn(argv, stdout_fd, stderr_fd);
}

absl::StatusOr<int> WaitProgram(pid_t pid, absl::Duration timeout) {
  absl::Time deadline = absl::Now() + timeout;
  int status = 0;
  for (;;) {
    pid_t done = waitpid(pid, &status, WNOHANG);
    if (done == pid) return status;
    if (done < 0 && errno != EINTR) {
      return absl::InternalError(
          absl::StrCat("waitpid ", pid, ": ", std::strerror(errno)));
    }
    if (absl::Now() >= deadline) break;
    absl::SleepFor(absl::Milliseconds(5));
  }
  kill(pid, SIGTERM);
  while (waitpid(pid, &status, 0) < 0 && errno == EINTR) {
  }
  return status;
}

}  // namespace ccreplay::lab
