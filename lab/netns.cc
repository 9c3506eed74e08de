#include "lab/netns.h"

#include <fcntl.h>
#include <sched.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <fstream>
#include <initializer_list>
#include <thread>

#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_split.h"
#include "absl/strings/strip.h"
#include "absl/time/clock.h"
#include "lab/subprocess.h"

namespace ccreplay::lab {
namespace {

std::string NetnsPath(absl::string_view name) {
  return absl::StrCat("/run/netns/", name);
}

// True when the namespace of the calling thread has a `kind` socket on
// local `port`: /proc/thread-self/net/tcp or udp, local address as
// HEXIP:HEXPORT, state 0A = TCP_LISTEN (proc(5)); a bound UDP socket may be
// in any state.
bool ThreadNetnsHasSocket(ServerSocket kind, int port) {
  const bool tcp = kind == ServerSocket::kTcpListen;
  std::ifstream table(tcp ? "/proc/thread-self/net/tcp"
                          : "/proc/thread-self/net/udp");
  std::string line;
  std::string local_suffix = absl::StrFormat(":%04X", port);
  while (std::getline(table, line)) {
    std::vector<absl::string_view> fields =
        absl::StrSplit(line, ' ', absl::SkipWhitespace());
    if (fields.size() > 3 && absl::EndsWith(fields[1], local_suffix) &&
        (!tcp || fields[3] == "0A")) {
      return true;
    }
  }
  return false;
}

// Adds the non-zero counters of `file`'s tables named in `prefixes`: each
// table is a line of names and a line of values, both led by "Prefix:".
void AddCounters(const char* file,
                 std::initializer_list<absl::string_view> prefixes,
                 std::map<std::string, int64_t>* counters) {
  std::ifstream in(file);
  std::string names, values;
  while (std::getline(in, names) && std::getline(in, values)) {
    std::vector<absl::string_view> name =
        absl::StrSplit(names, ' ', absl::SkipWhitespace());
    std::vector<absl::string_view> value =
        absl::StrSplit(values, ' ', absl::SkipWhitespace());
    if (name.empty() || name.size() != value.size()) continue;
    const absl::string_view prefix = absl::StripSuffix(name[0], ":");
    if (std::find(prefixes.begin(), prefixes.end(), prefix) == prefixes.end())
      continue;
    for (size_t i = 1; i < name.size(); ++i) {
      int64_t number = 0;
      if (absl::SimpleAtoi(value[i], &number) && number != 0)
        (*counters)[absl::StrCat(prefix, name[i])] = number;
    }
  }
}

}  // namespace

absl::StatusOr<std::map<std::string, int64_t>> ReadTcpCounters(
    absl::string_view netns) {
  std::map<std::string, int64_t> counters;
  absl::Status status = RunInNetns(netns, [&]() -> absl::Status {
    AddCounters("/proc/thread-self/net/snmp", {"Tcp"}, &counters);
    AddCounters("/proc/thread-self/net/netstat", {"TcpExt"}, &counters);
    return absl::OkStatus();
  });
  if (!status.ok()) return status;
  return counters;
}

bool NetnsExists(absl::string_view name) {
  return access(NetnsPath(name).c_str(), F_OK) == 0;
}

absl::Status EnterNetns(absl::string_view name) {
  std::string path = NetnsPath(name);
  int fd = open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) {
    return absl::NotFoundError(
        absl::StrCat("network namespace ", path, ": ", std::strerror(errno)));
  }
  int result = setns(fd, CLONE_NEWNET);
  int setns_errno = errno;
  close(fd);
  if (result != 0) {
    return absl::PermissionDeniedError(
        absl::StrCat("setns(", path, "): ", std::strerror(setns_errno)));
  }
  return absl::OkStatus();
}

absl::Status RunInNetns(absl::string_view name,
                        const std::function<absl::Status()>& fn) {
  absl::Status status;
  std::thread worker([&] {
    status = EnterNetns(name);
    if (status.ok()) status = fn();
  });
  worker.join();
  return status;
}

absl::Status WriteNetnsSysctl(absl::string_view netns, absl::string_view key,
                              absl::string_view value) {
  return RunInNetns(netns, [&]() -> absl::Status {
    std::string path = absl::StrCat("/proc/sys/", key);
    int fd = open(path.c_str(), O_WRONLY | O_CLOEXEC);
    if (fd < 0) {
      return absl::FailedPreconditionError(
          absl::StrCat("kernel feature missing: sysctl ", path, " (",
                       std::strerror(errno), ")"));
    }
    ssize_t written = write(fd, value.data(), value.size());
    int write_errno = errno;
    close(fd);
    if (written != static_cast<ssize_t>(value.size())) {
      return absl::FailedPreconditionError(
          absl::StrCat("the kernel rejects ", path, " = ", value, " (",
                       std::strerror(write_errno), ")"));
    }
    return absl::OkStatus();
  });
}

absl::StatusOr<pid_t> SpawnInNetns(absl::string_view netns,
                                   const std::vector<std::string>& argv,
                                   int stdout_fd, int stderr_fd) {
  // Forked by the calling thread, which outlives the child, and moved
  // into the namespace in the child: a worker thread of RunInNetns would
  // exit at once and, through PR_SET_PDEATHSIG, take the child with it.
  std::string path = NetnsPath(netns);
  int fd = open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) {
    return absl::NotFoundError(
        absl::StrCat("network namespace ", path, ": ", std::strerror(errno)));
  }
  absl::StatusOr<pid_t> pid = SpawnProgram(argv, stdout_fd, stderr_fd, fd);
  close(fd);
  return pid;
}

absl::Status WaitForServerSocket(absl::string_view netns, ServerSocket kind,
                                 int port, absl::string_view server,
                                 absl::Duration timeout) {
  return RunInNetns(netns, [&]() -> absl::Status {
    absl::Time deadline = absl::Now() + timeout;
    while (!ThreadNetnsHasSocket(kind, port)) {
      if (absl::Now() > deadline) {
        return absl::DeadlineExceededError(
            absl::StrCat(server, " did not open port ", port));
      }
      absl::SleepFor(absl::Milliseconds(5));
    }
    return absl::OkStatus();
  });
}

}  // namespace ccreplay::lab
