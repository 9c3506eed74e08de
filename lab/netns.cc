#include "lab/netns.h"

#include <fcntl.h>
#include <sched.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <thread>

#include "absl/strings/str_cat.h"
#include "lab/subprocess.h"

namespace ccreplay::lab {
namespace {

std::string NetnsPath(absl::string_view name) {
  return absl::StrCat("/run/netns/", name);
}

}  // namespace

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

}  // namespace ccreplay::lab
