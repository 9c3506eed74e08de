#include "lab/reaper.h"

#include <dirent.h>
#include <fcntl.h>
#include <ftw.h>
#include <signal.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <sstream>

#include "absl/status/status.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "lab/cleanup_registry.h"
#include "lab/lab_owner.h"

namespace ccreplay::lab {
namespace {

// Where `ip netns add` keeps named namespaces (iproute2 ip/ipnetns.c,
// NETNS_RUN_DIR) and where the lab makes its mount points and scratch
// directories.
constexpr char kNetnsDir[] = "/run/netns";
constexpr char kTempDir[] = "/tmp";

std::vector<std::string> DirectoryEntries(const std::string& path) {
  std::vector<std::string> names;
  DIR* dir = opendir(path.c_str());
  if (dir == nullptr) return names;
  while (dirent* entry = readdir(dir)) {
    absl::string_view name = entry->d_name;
    if (name != "." && name != "..") names.emplace_back(name);
  }
  closedir(dir);
  return names;
}

bool Orphaned(absl::string_view name) {
  std::optional<LabOwner> owner = ParseLabResourceOwner(name);
  return owner.has_value() && !LabOwnerAlive(*owner);
}

void Fail(ReapReport& report, absl::string_view what) {
  report.failed.push_back(absl::StrCat(what, ": ", std::strerror(errno)));
}

// Kills (SIGKILL) every process whose network namespace is the one bound
// at `netns_path`, as `ip netns pids` finds them (iproute2 ip/ipnetns.c,
// netns_pids: same device and inode as /proc/PID/ns/net). Children of a
// lab without PR_SET_PDEATHSIG outlive it and keep the namespace, its
// veths and its qdiscs alive.
int KillProcessesInNetns(const std::string& netns_path) {
  struct stat netns;
  if (stat(netns_path.c_str(), &netns) != 0) return 0;
  int killed = 0;
  for (const std::string& entry : DirectoryEntries("/proc")) {
    pid_t pid = 0;
    if (!absl::SimpleAtoi(entry, &pid) || pid == getpid()) continue;
    struct stat ns;
    if (stat(absl::StrCat("/proc/", pid, "/ns/net").c_str(), &ns) != 0)
      continue;
    if (ns.st_dev == netns.st_dev && ns.st_ino == netns.st_ino &&
        kill(pid, SIGKILL) == 0) {
      ++killed;
    }
  }
  return killed;
}

// What `ip netns delete` does (netns_delete): detach the bind mount that
// keeps the namespace, then remove the file.
void ReapNamespaces(ReapReport& report) {
  for (const std::string& name : DirectoryEntries(kNetnsDir)) {
    if (!Orphaned(name)) continue;
    const std::string path = absl::StrCat(kNetnsDir, "/", name);
    const int killed = KillProcessesInNetns(path);
    umount2(path.c_str(), MNT_DETACH);
    if (unlink(path.c_str()) != 0) {
      Fail(report, absl::StrCat("network namespace ", name));
      continue;
    }
    report.removed.push_back(absl::StrCat(
        "network namespace ", name,
        killed > 0 ? absl::StrCat(" (", killed, " processes killed)") : ""));
  }
}

int WriteFile(const std::string& path, absl::string_view value) {
  int fd = open(path.c_str(), O_WRONLY | O_TRUNC | O_CLOEXEC);
  if (fd < 0) return -1;
  ssize_t written = write(fd, value.data(), value.size());
  close(fd);
  return written == static_cast<ssize_t>(value.size()) ? 0 : -1;
}

std::string ReadFirstLine(const std::string& path) {
  std::ifstream file(path);
  std::string line;
  std::getline(file, line);
  return line;
}

// Tracefs instances are global: every tracefs mount shows them all under
// instances/. They are looked at through a private mount of this
// process's own (registered, so a signal removes it too).
void ReapTracefsInstances(ReapReport& report) {
  std::string mount_dir = absl::StrCat(
      kTempDir, "/", LabResourceName(SelfOwner(), "reap", "tracefs-XXXXXX"));
  CleanupRegistry& registry = CleanupRegistry::Global();
  int dir_handle = -1, mount_handle = -1;
  {
    SignalDeferral deferral;
    if (mkdtemp(mount_dir.data()) == nullptr) return Fail(report, "mkdtemp");
    dir_handle = registry.Add(CleanupRegistry::Action::kRemoveDir, mount_dir);
  }
  ScopedCleanup remove_dir(dir_handle);
  {
    SignalDeferral deferral;
    if (mount("nodev", mount_dir.c_str(), "tracefs", 0, nullptr) != 0) {
      // ENODEV: no tracefs in this kernel, so no instances either.
      if (errno != ENODEV)
        Fail(report, absl::StrCat("mount tracefs on ", mount_dir));
      return;
    }
    mount_handle = registry.Add(CleanupRegistry::Action::kUnmount, mount_dir);
  }
  ScopedCleanup unmount(mount_handle);
  const std::string instances = mount_dir + "/instances";
  for (const std::string& name : DirectoryEntries(instances)) {
    if (!Orphaned(name)) continue;
    const std::string path = absl::StrCat(instances, "/", name);
    const std::string buffer_kb = ReadFirstLine(path + "/buffer_total_size_kb");
    WriteFile(path + "/tracing_on", "0");
    if (rmdir(path.c_str()) != 0) {
      Fail(report, absl::StrCat("tracefs instance ", name));
      continue;
    }
    report.removed.push_back(absl::StrCat("tracefs instance ", name, " (",
                                          buffer_kb, " kB of trace buffer)"));
  }
}

// Mount points in /proc/self/mounts (proc_pid_mounts(5): the second field)
// whose last component is an orphaned lab name.
void ReapMounts(ReapReport& report) {
  std::ifstream mounts("/proc/self/mounts");
  std::string line;
  std::vector<std::pair<std::string, std::string>> orphans;
  while (std::getline(mounts, line)) {
    std::vector<std::string> fields = absl::StrSplit(line, ' ');
    if (fields.size() < 3) continue;
    const std::string& point = fields[1];
    if (Orphaned(point.substr(point.rfind('/') + 1)))
      orphans.emplace_back(point, fields[2]);
  }
  for (const auto& [point, type] : orphans) {
    if (umount2(point.c_str(), MNT_DETACH) != 0) {
      Fail(report, absl::StrCat("mount ", point));
      continue;
    }
    report.removed.push_back(absl::StrCat("mount ", point, " (", type, ")"));
  }
}

int RemoveEntry(const char* path, const struct stat*, int, FTW*) {
  return remove(path) == 0 ? 0 : -1;
}

// Depth first, never crossing into another file system (FTW_MOUNT: a
// mount that could not be detached keeps its directory) nor following
// symbolic links (FTW_PHYS).
void ReapTempDirectories(ReapReport& report) {
  for (const std::string& name : DirectoryEntries(kTempDir)) {
    if (!Orphaned(name)) continue;
    const std::string path = absl::StrCat(kTempDir, "/", name);
    if (nftw(path.c_str(), RemoveEntry, 16, FTW_DEPTH | FTW_PHYS | FTW_MOUNT) !=
        0) {
      Fail(report, absl::StrCat("directory ", path));
      continue;
    }
    report.removed.push_back(absl::StrCat("directory ", path));
  }
}

}  // namespace

absl::StatusOr<ReapReport> ReapOrphanedLabResources() {
  if (geteuid() != 0) {
    return absl::PermissionDeniedError(
        "removing lab leftovers needs root (namespaces, mounts, tracefs)");
  }
  ReapReport report;
  // Namespaces first: killing the processes left in them stops the
  // transfer that feeds the trace.
  ReapNamespaces(report);
  ReapTracefsInstances(report);
  ReapMounts(report);
  ReapTempDirectories(report);
  return report;
}

}  // namespace ccreplay::lab
