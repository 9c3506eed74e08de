#include "lab/subprocess.h"

#include <fcntl.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <sys/prctl.h>
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

// The child's stack until it execs: the few system calls of ExecChild.
constexpr size_t kChildStackBytes = 64 * 1024;

struct ChildSetup {
  const char* path;
  char* const* argv;
  int stdout_fd;  // -1: /dev/null
  int stderr_fd;
  int netns_fd;  // -1: the parent's namespace
  pid_t parent;
  sigset_t mask;  // the spawning thread's signal mask, for the program
};

// Runs in the child between clone and exec, in the parent's memory:
// async-signal-safe calls only (signal-safety(7)), since other threads of
// the parent may hold locks, and nothing written that the parent reads.
[[noreturn]] void ExecChild(const ChildSetup& child) {
  // The child dies with the lab, even by SIGKILL (prctl(2)
  // PR_SET_PDEATHSIG). The kernel sends the signal when the *thread* that
  // started it exits, so a child that outlives its Spawn call is started
  // by a thread that outlives it too. A parent that died before the prctl
  // is seen by getppid() no longer being it.
  if (prctl(PR_SET_PDEATHSIG, SIGKILL) != 0 || getppid() != child.parent)
    _exit(127);
  // Inherited handlers would clean up the lab from the child.
  struct sigaction default_action = {};
  default_action.sa_handler = SIG_DFL;
  for (int signo : {SIGINT, SIGTERM, SIGHUP})
    sigaction(signo, &default_action, nullptr);
  // What `ip netns exec` does (iproute2 ip/ipnetns.c, netns_switch).
  if (child.netns_fd >= 0 && setns(child.netns_fd, CLONE_NEWNET) != 0)
    _exit(126);
  int null_fd = open("/dev/null", O_RDWR);
  if (null_fd < 0) _exit(127);
  dup2(null_fd, STDIN_FILENO);
  dup2(child.stdout_fd >= 0 ? child.stdout_fd : null_fd, STDOUT_FILENO);
  dup2(child.stderr_fd >= 0 ? child.stderr_fd : null_fd, STDERR_FILENO);
  sigprocmask(SIG_SETMASK, &child.mask, nullptr);
  execve(child.path, child.argv, environ);
  _exit(127);
}

absl::StatusOr<pid_t> Spawn(const std::vector<std::string>& argv, int stdout_fd,
                            int stderr_fd, int netns_fd) {
  if (argv.empty()) return absl::InvalidArgumentError("empty command");
  std::string path = FindProgram(argv[0]);
  if (path.empty()) {
    return absl::FailedPreconditionError(absl::StrCat(
        "program '", argv[0], "' is not installed (not found in PATH)"));
  }
  std::vector<char*> args = ArgvPointers(argv);
  ChildSetup child{path.c_str(), args.data(), stdout_fd, stderr_fd,
                   netns_fd,     getpid(),    {}};
  // Every signal blocked across the clone: the child runs no handler before
  // it has reset them.
  sigset_t all;
  sigfillset(&all);
  pthread_sigmask(SIG_SETMASK, &all, &child.mask);
  // As glibc's posix_spawn does (sysdeps/unix/sysv/linux/spawni.c): the
  // child shares the memory (CLONE_VM) on a stack of its own and the
  // parent waits until it has exec'd (CLONE_VFORK). A fork() would copy
  // the page tables of the whole lab (capture rings, trace) for every ss
  // sample: the sampler's 10 ms interval stretched to 24 ms under load.
  std::vector<char> stack(kChildStackBytes);
  pid_t pid = clone(
      [](void* setup) -> int { ExecChild(*static_cast<ChildSetup*>(setup)); },
      stack.data() + stack.size(), CLONE_VM | CLONE_VFORK | SIGCHLD, &child);
  int clone_errno = errno;
  pthread_sigmask(SIG_SETMASK, &child.mask, nullptr);
  if (pid < 0) {
    return absl::InternalError(
        absl::StrCat("cannot start ", path, ": ", std::strerror(clone_errno)));
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
  absl::StatusOr<pid_t> pid = Spawn(argv, fds[1], fds[1], -1);
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
    return absl::InternalError(
        absl::StrCat("`", absl::StrJoin(argv, " "), "` failed (",
                     DescribeExitStatus(status), "): ", output));
  }
  return output;
}

absl::StatusOr<pid_t> SpawnProgram(const std::vector<std::string>& argv,
                                   int stdout_fd, int stderr_fd, int netns_fd) {
  return Spawn(argv, stdout_fd, stderr_fd, netns_fd);
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

std::string DescribeExitStatus(int status) {
  return WIFEXITED(status) ? absl::StrCat("exit ", WEXITSTATUS(status))
                           : absl::StrCat("signal ", WTERMSIG(status));
}

}  // namespace ccreplay::lab
