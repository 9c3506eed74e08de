// The kernel's own view of the flows: tcp:tcp_probe (one event per segment a
// socket receives, taken before the segment is processed: snd_cwnd in
// packets, srtt in us; include/trace/events/tcp.h) and
// tcp:tcp_cong_state_set, recorded in a tracefs instance that the lab
// creates on a private tracefs mount and removes afterwards. The global
// trace buffer is never touched. The instance uses the "mono" trace clock
// (CLOCK_MONOTONIC); clock pairs taken at start and end map it to
// CLOCK_REALTIME, the clock of the pcap timestamps and the ss log.
#ifndef CCREPLAY_LAB_KERNEL_TRACE_H_
#define CCREPLAY_LAB_KERNEL_TRACE_H_

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"

namespace ccreplay::lab {

// CLOCK_REALTIME = CLOCK_MONOTONIC + offset_ns, measured by reading
// MONOTONIC, REALTIME, MONOTONIC back to back and keeping the tightest of
// 20 tries; bracket_ns is that tightest MONOTONIC gap (the uncertainty).
struct ClockPair {
  std::string label;
  int64_t mono_ns = 0;
  int64_t realtime_ns = 0;
  int64_t offset_ns = 0;
  int64_t bracket_ns = 0;
};
ClockPair MeasureClockPair(absl::string_view label);

struct TraceStats {
  std::string instance;
  std::string filter;
  int64_t buffer_size_kb_per_cpu = 0;
  // Sums over the per-CPU ring buffers (per_cpu/cpuN/stats): events lost
  // because the ring was full (overrun) or could not be reserved (dropped).
  int64_t entries = 0;
  int64_t overrun = 0;
  int64_t dropped_events = 0;
  std::vector<ClockPair> clock_pairs;
};

// Where this process's run `run_id` mounts its private tracefs: this
// prefix plus a random suffix (mkdtemp), e.g.
// "/tmp/ccrl-4242-8f3a1-03c1-tracefs-Q1w2E3" (a name of lab_owner.h).
std::string TracefsMountPrefix(absl::string_view run_id);

class KernelTrace {
 public:
  inline static constexpr char kTraceClock[] = "mono";
  inline static constexpr const char* kEvents[] = {"tcp/tcp_probe",
                                                   "tcp/tcp_cong_state_set"};

  // Records events whose sport or dport is one of `ports`, in the instance
  // LabResourceName(self, run_id, "trace").
  static absl::StatusOr<std::unique_ptr<KernelTrace>> Start(
      absl::string_view run_id, const std::vector<int>& ports,
      int64_t buffer_size_kb_per_cpu);
  ~KernelTrace();

  // Stops recording, writes the instance's `trace` text to `path` and removes
  // the instance and the mount.
  absl::StatusOr<TraceStats> StopAndSave(absl::string_view path);

 private:
  KernelTrace() = default;
  // Mounts the private tracefs and creates the instance in it.
  absl::Status CreateInstance(absl::string_view run_id);
  absl::Status WriteControl(absl::string_view file, absl::string_view value);
  absl::Status AddClockPair(absl::string_view label);
  void Remove();

  std::string mount_dir_;
  std::string instance_dir_;
  std::vector<int> cleanup_handles_;  // mount dir, mount, instance
  TraceStats stats_;
};

}  // namespace ccreplay::lab

#endif  // CCREPLAY_LAB_KERNEL_TRACE_H_
