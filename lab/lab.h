// `ccreplay lab`: builds the namespace testbed, runs the transfer while
// capturing both sides, sampling ss and tracing tcp_probe, writes the bundle
// and tears everything down on every exit path (errors and SIGINT/SIGTERM
// included, through CleanupRegistry). Needs root. One lab per process at a
// time; several processes may run labs side by side.
#ifndef CCREPLAY_LAB_LAB_H_
#define CCREPLAY_LAB_LAB_H_

#include "absl/status/statusor.h"
#include "lab/bundle_meta.h"
#include "lab/lab_config.h"

namespace ccreplay::lab {

// Refuses (FailedPrecondition / PermissionDenied, naming what is missing)
// when not root or when a tool the lab runs is not installed.
absl::Status CheckLabPrerequisites(const LabConfig& config);

// Runs the lab and returns what it built and measured, which it also wrote
// into config.output_dir/meta.json (ToBundleMeta).
absl::StatusOr<LabRun> RunLab(const LabConfig& config);

}  // namespace ccreplay::lab

#endif  // CCREPLAY_LAB_LAB_H_
