// Removes what lab runs left behind when they could not clean up (SIGKILL,
// a crash, a power cut of the namespace's owner): every resource named by
// lab_owner.h whose owner process is gone. Network namespaces (after
// killing any process still inside), tracefs instances (still tracing into
// their kernel buffers), tracefs mounts and temporary directories in /tmp.
// Resources of running labs, and anything not named "ccrl-...", are left
// alone. `ccreplay lab` reaps before every run; `ccreplay lab --cleanup`
// reaps on demand.
#ifndef CCREPLAY_LAB_REAPER_H_
#define CCREPLAY_LAB_REAPER_H_

#include <string>
#include <vector>

#include "absl/status/statusor.h"

namespace ccreplay::lab {

struct ReapReport {
  // One line per resource removed, e.g. "network namespace
  // ccrl-4242-8f3a1-03c1-snd (2 processes killed)".
  std::vector<std::string> removed;
  // One line per orphaned resource that could not be removed, with why.
  std::vector<std::string> failed;
};

// PermissionDenied unless root; otherwise what was removed and what not.
absl::StatusOr<ReapReport> ReapOrphanedLabResources();

}  // namespace ccreplay::lab

#endif  // CCREPLAY_LAB_REAPER_H_
