// Pieces the host-state parsers share while they build a HostStateLog: a
// bounded warning list, a table from a connection key to its trace, and
// series lookups.
#ifndef CCREPLAY_PARSERS_HOST_STATE_BUILDER_H_
#define CCREPLAY_PARSERS_HOST_STATE_BUILDER_H_

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/status/statusor.h"
#include "parsers/host_state.h"
#include "parsers/input_file.h"

namespace ccreplay {

// Appends `file`'s warnings to `log` and marks it truncated when the file
// broke off (DataLoss).
void AddReaderOutcome(const InputFile& file, HostStateLog* log);

// Feeds `path` line by line to a line parser (AddLine / LooksWrong /
// Finish, as SsLogParser and TcpProbeParser have), stopping early once the
// parser sees the file is not its format. A stream that breaks off after
// some lines (a cut or corrupt `.gz`) keeps what came before it, marked
// truncated; the reader's own warnings (over-long lines) are added.
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
  const absl::Status& read = (*file)->status();
  if (!read.ok() && !absl::IsDataLoss(read)) return read;
  absl::StatusOr<HostStateLog> log = parser.Finish();
  if (!log.ok()) return read.ok() ? log.status() : read;
  AddReaderOutcome(**file, &*log);
  return log;
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

// `value` as an integer when it is one in [0, max]; nullopt otherwise (NaN,
// negative, fractional, or too large), so that no out-of-range double is
// ever cast to an integer, which is undefined behaviour ([conv.fpint]).
std::optional<uint64_t> ExactUnsigned(double value, uint64_t max);

// Counts QUIC packet numbers up to 2^62 − 1 (RFC 9000 §12.3).
constexpr uint64_t kMaxQuicPacketNumber = (uint64_t{1} << 62) - 1;
// The largest window or byte count any parser accepts: 2^53, the largest
// integer a double holds exactly (far above any real window).
constexpr uint64_t kMaxByteCount = uint64_t{1} << 53;

// max − min of `series[name]`, 0 when absent.
double SeriesGrowth(const std::map<std::string, Series>& series,
                    const std::string& name);

// The last value of `series[name]`, 0 when absent.
double LastValue(const std::map<std::string, Series>& series,
                 const std::string& name);

}  // namespace ccreplay

#endif  // CCREPLAY_PARSERS_HOST_STATE_BUILDER_H_
