// Pieces the host-state parsers share while they build a HostStateLog: a
// bounded warning list, a table from a connection key to its trace, and
// series lookups.
#ifndef CCREPLAY_PARSERS_HOST_STATE_BUILDER_H_
#define CCREPLAY_PARSERS_HOST_STATE_BUILDER_H_

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/status/statusor.h"
#include "parsers/host_state.h"
#include "parsers/input_file.h"

namespace ccreplay {

// Feeds `path` line by line to a line parser (AddLine / LooksWrong /
// Finish, as SsLogParser and TcpProbeParser have), stopping early once the
// parser sees the file is not its format.
template <typename LineParser>
absl::StatusOr<HostStateLog> ParseLineByLine(const std::string& path) {
  absl::StatusOr<std::unique_ptr<InputFile>> file = InputFile::Open(path);
  if (!file.ok()) return file.status();
  LineParser parser(path);
  std::string line;
  while ((*file)->ReadLine(&line)) {
    parser.AddLine(line);
    if (parser.LooksWrong()) break;
  }
  if (!(*file)->status().ok()) return (*file)->status();
  return parser.Finish();
}

// Keeps the first kMaxWarnings warnings and counts the rest, so that a
// huge malformed file cannot grow memory through its warnings.
class WarningSink {
 public:
  static constexpr size_t kMaxWarnings = 100;
  explicit WarningSink(std::vector<std::string>* warnings)
      : warnings_(warnings) {}
  void Add(std::string warning);
  // Appends "... and N more warnings" when some were dropped.
  void Finish();

 private:
  std::vector<std::string>* warnings_;
  uint64_t dropped_ = 0;
};

// Finds the trace of `key` in `traces`, appending one (set up by `init`)
// the first time the key is seen. Traces keep their order of appearance.
template <typename Key>
class TraceIndex {
 public:
  template <typename Init>
  HostTrace& Get(const Key& key, std::vector<HostTrace>* traces, Init init) {
    auto [it, inserted] = index_.try_emplace(key, traces->size());
    if (inserted) {
      traces->emplace_back();
      init(traces->back());
    }
    return (*traces)[it->second];
  }

 private:
  absl::flat_hash_map<Key, size_t> index_;
};

// max − min of `series[name]`, 0 when absent.
double SeriesGrowth(const std::map<std::string, Series>& series,
                    const std::string& name);

// The last value of `series[name]`, 0 when absent.
double LastValue(const std::map<std::string, Series>& series,
                 const std::string& name);

}  // namespace ccreplay

#endif  // CCREPLAY_PARSERS_HOST_STATE_BUILDER_H_
