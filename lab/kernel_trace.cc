#include "lab/kernel_trace.h"

#include <fcntl.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <fstream>
#include <sstream>

#include "absl/status/status.h"
#include "absl/strings/ascii.h"
#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_replace.h"
#include "absl/strings/str_split.h"
#include "lab/cleanup_registry.h"
#include "lab/lab_owner.h"

namespace ccreplay::lab {
namespace {

int64_t ReadClockNs(clockid_t clock) {
  timespec now;
  clock_gettime(clock, &now);
  return now.tv_sec * 1'000'000'000LL + now.tv_nsec;
}

bool KernelHasFilesystem(absl::string_view name) {
  std::ifstream filesystems("/proc/filesystems");
  std::string line;
  while (std::getline(filesystems, line)) {
    std::vector<absl::string_view> fields = absl::StrSplit(line, '\t');
    if (fields.back() == name) return true;
  }
  return false;
}

absl::StatusOr<std::string> ReadSmallFile(const std::string& path) {
  std::ifstream file(path);
  if (!file) return absl::NotFoundError(absl::StrCat("cannot read ", path));
  std::stringstream text;
  text << file.rdbuf();
  return text.str();
}

// "overrun: 12" -> 12 from a per_cpu/cpuN/stats file.
int64_t StatsField(absl::string_view stats, absl::string_view key) {
  for (absl::string_view line : absl::StrSplit(stats, '\n')) {
    if (!absl::ConsumePrefix(&line, key) || !absl::ConsumePrefix(&line, ":"))
      continue;
    int64_t value = 0;
    if (absl::SimpleAtoi(absl::StripAsciiWhitespace(line), &value))
      return value;
  }
  return 0;
}

}  // namespace

ClockPair MeasureClockPair(absl::string_view label) {
  ClockPair best;
  best.label = std::string(label);
  best.bracket_ns = INT64_MAX;
  for (int i = 0; i < 20; ++i) {
    int64_t before_ns = ReadClockNs(CLOCK_MONOTONIC);
    int64_t realtime_ns = ReadClockNs(CLOCK_REALTIME);
    int64_t after_ns = ReadClockNs(CLOCK_MONOTONIC);
    if (after_ns - before_ns < best.bracket_ns) {
      best.bracket_ns = after_ns - before_ns;
      best.mono_ns = before_ns + (after_ns - before_ns) / 2;
      best.realtime_ns = realtime_ns;
    }
  }
  best.offset_ns = best.realtime_ns - best.mono_ns;
  return best;
}

std::string TracefsMountPrefix(absl::string_view run_id) {
  return absl::StrCat("/tmp/",
                      LabResourceName(SelfOwner(), run_id, "tracefs-"));
}

// The owner and run id in the mount point and instance names tell this
// run's from others' (labs run side by side) and from a killed lab's
// leftovers (reaper.h). Each is created and registered with the signals
// deferred, so a handler always knows what to remove.
absl::Status KernelTrace::CreateInstance(absl::string_view run_id) {
  CleanupRegistry& registry = CleanupRegistry::Global();
  std::string mount_template =
      absl::StrCat(TracefsMountPrefix(run_id), "XXXXXX");
  {
    SignalDeferral deferral;
    if (mkdtemp(mount_template.data()) == nullptr) {
      return absl::InternalError(
          absl::StrCat("mkdtemp: ", std::strerror(errno)));
    }
    mount_dir_ = mount_template;
    cleanup_handles_.push_back(
        registry.Add(CleanupRegistry::Action::kRemoveDir, mount_dir_));
  }
  {
    SignalDeferral deferral;
    if (mount("nodev", mount_dir_.c_str(), "tracefs", 0, nullptr) != 0) {
      return absl::FailedPreconditionError(absl::StrCat(
          "cannot mount tracefs on ", mount_dir_, ": ", std::strerror(errno)));
    }
    cleanup_handles_.push_back(
        registry.Add(CleanupRegistry::Action::kUnmount, mount_dir_));
  }
  stats_.instance = LabResourceName(SelfOwner(), run_id, "trace");
  instance_dir_ = absl::StrCat(mount_dir_, "/instances/", stats_.instance);
  {
    SignalDeferral deferral;
    if (mkdir(instance_dir_.c_str(), 0700) != 0) {
      return absl::FailedPreconditionError(
          absl::StrCat("kernel feature missing: tracefs instances (mkdir ",
                       instance_dir_, ": ", std::strerror(errno), ")"));
    }
    cleanup_handles_.push_back(
        registry.Add(CleanupRegistry::Action::kRemoveDir, instance_dir_));
  }
  return absl::OkStatus();
}

absl::StatusOr<std::unique_ptr<KernelTrace>> KernelTrace::Start(
    absl::string_view run_id, const std::vector<int>& ports,
    int64_t buffer_size_kb_per_cpu) {
  if (!KernelHasFilesystem("tracefs")) {
    return absl::FailedPreconditionError(
        "kernel feature missing: tracefs (CONFIG_TRACING), needed for "
        "tcp:tcp_probe");
  }
  std::unique_ptr<KernelTrace> trace(new KernelTrace());
  absl::Status status = trace->CreateInstance(run_id);
  if (!status.ok()) return status;
  for (const char* event : kEvents) {
    if (access(absl::StrCat(trace->instance_dir_, "/events/", event).c_str(),
               F_OK) != 0) {
      return absl::FailedPreconditionError(
          absl::StrCat("kernel feature missing: tracepoint ",
                       absl::StrReplaceAll(event, {{"/", ":"}})));
    }
  }
  std::vector<std::string> terms;
  for (int port : ports)
    terms.push_back(absl::StrCat("sport == ", port, " || dport == ", port));
  trace->stats_.filter = absl::StrJoin(terms, " || ");
  trace->stats_.buffer_size_kb_per_cpu = buffer_size_kb_per_cpu;
  for (auto [file, value] : std::vector<std::pair<std::string, std::string>>{
           {"tracing_on", "0"},
           {"buffer_size_kb", absl::StrCat(buffer_size_kb_per_cpu)},
           {"trace_clock", kTraceClock}}) {
    status = trace->WriteControl(file, value);
    if (!status.ok()) return status;
  }
  for (const char* event : kEvents) {
    for (auto [file, value] : std::vector<std::pair<std::string, std::string>>{
             {"filter", trace->stats_.filter}, {"enable", "1"}}) {
      status =
          trace->WriteControl(absl::StrCat("events/", event, "/", file), value);
      if (!status.ok()) return status;
    }
  }
  status = trace->WriteControl("tracing_on", "1");
  if (!status.ok()) return status;
  status = trace->AddClockPair("start");
  if (!status.ok()) return status;
  return trace;
}

absl::Status KernelTrace::WriteControl(absl::string_view file,
                                       absl::string_view value) {
  std::string path = absl::StrCat(instance_dir_, "/", file);
  // An open file of the instance makes its rmdir fail with EBUSY
  // (kernel/trace/trace.c, __remove_instance: tr->ref), so a signal handler
  // must not run while one is open.
  SignalDeferral deferral;
  int fd = open(path.c_str(), O_WRONLY | O_TRUNC | O_CLOEXEC);
  if (fd < 0) {
    return absl::FailedPreconditionError(absl::StrCat(
        "tracefs: cannot open ", path, ": ", std::strerror(errno)));
  }
  ssize_t written = write(fd, value.data(), value.size());
  int write_errno = errno;
  close(fd);
  if (written != static_cast<ssize_t>(value.size())) {
    return absl::FailedPreconditionError(
        absl::StrCat("tracefs: the kernel rejects '", value, "' in ", path,
                     ": ", std::strerror(write_errno)));
  }
  return absl::OkStatus();
}

// Also writes the pair into the trace (trace_marker), so the text file
// carries its own clock mapping.
absl::Status KernelTrace::AddClockPair(absl::string_view label) {
  ClockPair pair = MeasureClockPair(label);
  stats_.clock_pairs.push_back(pair);
  return WriteControl(
      "trace_marker",
      absl::StrFormat("clockpair %s mono_ns=%d realtime_ns=%d offset_ns=%d "
                      "bracket_ns=%d",
                      pair.label, pair.mono_ns, pair.realtime_ns,
                      pair.offset_ns, pair.bracket_ns));
}

absl::StatusOr<TraceStats> KernelTrace::StopAndSave(absl::string_view path) {
  absl::Status status = AddClockPair("end");
  if (status.ok()) status = WriteControl("tracing_on", "0");
  if (!status.ok()) return status;
  // The instance's files are open (see WriteControl): signals wait, for
  // about a second per 100 MB of trace.
  SignalDeferral deferral;
  {
    std::ifstream source(absl::StrCat(instance_dir_, "/trace"),
                         std::ios::binary);
    std::ofstream target(std::string(path), std::ios::binary);
    target << source.rdbuf();
    if (!source || !target) {
      return absl::InternalError(
          absl::StrCat("cannot write the trace to ", path));
    }
  }
  for (int cpu = 0;; ++cpu) {
    absl::StatusOr<std::string> cpu_stats = ReadSmallFile(
        absl::StrCat(instance_dir_, "/per_cpu/cpu", cpu, "/stats"));
    if (!cpu_stats.ok()) break;
    stats_.entries += StatsField(*cpu_stats, "entries");
    stats_.overrun += StatsField(*cpu_stats, "overrun");
    stats_.dropped_events += StatsField(*cpu_stats, "dropped events");
  }
  Remove();
  return stats_;
}

void KernelTrace::Remove() {
  // Newest first: instance, mount, mount point.
  for (auto it = cleanup_handles_.rbegin(); it != cleanup_handles_.rend();
       ++it) {
    CleanupRegistry::Global().Run(*it);
  }
  cleanup_handles_.clear();
}

KernelTrace::~KernelTrace() { Remove(); }

}  // namespace ccreplay::lab
