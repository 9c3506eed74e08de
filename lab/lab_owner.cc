#include "lab/lab_owner.h"

#include <unistd.h>

#include <fstream>
#include <sstream>
#include <vector>

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"

namespace ccreplay::lab {
namespace {

// Field 22 of /proc/PID/stat, "starttime" (proc_pid_stat(5)), of a process
// that is not a zombie (state Z or X: dead, waiting for its parent to reap
// it); the fields are counted after the last ')' because field 2, the
// command name, may hold spaces and parentheses.
std::optional<uint64_t> LiveStartTicks(pid_t pid) {
  std::ifstream file(absl::StrCat("/proc/", pid, "/stat"));
  std::stringstream text;
  text << file.rdbuf();
  const std::string stat = text.str();
  const size_t close = stat.rfind(')');
  if (!file || close == std::string::npos) return std::nullopt;
  std::vector<absl::string_view> fields = absl::StrSplit(
      absl::string_view(stat).substr(close + 1), ' ', absl::SkipEmpty());
  // fields[0] is field 3 (state), so starttime (22) is fields[19].
  uint64_t ticks = 0;
  if (fields.size() < 20 || fields[0] == "Z" || fields[0] == "X" ||
      !absl::SimpleAtoi(fields[19], &ticks)) {
    return std::nullopt;
  }
  return ticks;
}

}  // namespace

LabOwner SelfOwner() {
  const pid_t pid = getpid();
  return LabOwner{pid, LiveStartTicks(pid).value_or(0)};
}

std::string LabResourceName(const LabOwner& owner, absl::string_view run_id,
                            absl::string_view role) {
  return absl::StrCat(kLabResourcePrefix, owner.pid, "-",
                      absl::Hex(owner.start_ticks), "-", run_id, "-", role);
}

std::optional<LabOwner> ParseLabResourceOwner(absl::string_view name) {
  if (!absl::ConsumePrefix(&name, kLabResourcePrefix)) return std::nullopt;
  std::vector<absl::string_view> parts =
      absl::StrSplit(name, absl::MaxSplits('-', 3));
  LabOwner owner;
  if (parts.size() < 4 || !absl::SimpleAtoi(parts[0], &owner.pid) ||
      owner.pid <= 0 || !absl::SimpleHexAtoi(parts[1], &owner.start_ticks)) {
    return std::nullopt;
  }
  return owner;
}

bool LabOwnerAlive(const LabOwner& owner) {
  std::optional<uint64_t> ticks = LiveStartTicks(owner.pid);
  return ticks.has_value() && *ticks == owner.start_ticks;
}

}  // namespace ccreplay::lab
