// Who owns a lab resource that outlives a process by design: network
// namespaces (/run/netns), tracefs mounts and instances, temporary
// directories. Each carries its owner in its name,
//
//   ccrl-<pid>-<start>-<run id>-<role>      e.g. ccrl-4242-8f3a1-03c1-snd
//
// where <start> is the owner's start time (field 22 of /proc/PID/stat, in
// clock ticks since boot, hexadecimal). A pid alone can be reused by an
// unrelated process; pid and start time together name one process for the
// life of the machine, so a resource whose owner is gone is recognised
// exactly, and nothing of a running lab (in this process or another, the
// ccreplay binary or a test) is ever taken for a leftover.
#ifndef CCREPLAY_LAB_LAB_OWNER_H_
#define CCREPLAY_LAB_LAB_OWNER_H_

#include <sys/types.h>

#include <cstdint>
#include <optional>
#include <string>

#include "absl/strings/string_view.h"

namespace ccreplay::lab {

// Every owned resource's name (or, for paths, last component) starts with
// this. Resources of the older "ccl-" scheme carry no owner and are never
// touched.
inline constexpr absl::string_view kLabResourcePrefix = "ccrl-";

struct LabOwner {
  pid_t pid = 0;
  uint64_t start_ticks = 0;
  bool operator==(const LabOwner& other) const {
    return pid == other.pid && start_ticks == other.start_ticks;
  }
};

// The calling process.
LabOwner SelfOwner();

// "ccrl-<pid>-<start>-<run_id>-<role>".
std::string LabResourceName(const LabOwner& owner, absl::string_view run_id,
                            absl::string_view role);

// The owner named by `name` (a bare name, not a path), or nullopt when it
// is not a lab resource name.
std::optional<LabOwner> ParseLabResourceOwner(absl::string_view name);

// True while the process `owner` names runs: /proc/PID exists, is not a
// zombie, and started at the recorded time (not a later process that
// reused the pid).
bool LabOwnerAlive(const LabOwner& owner);

}  // namespace ccreplay::lab

#endif  // CCREPLAY_LAB_LAB_OWNER_H_
