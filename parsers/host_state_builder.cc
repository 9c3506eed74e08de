#include "parsers/host_state_builder.h"

#include <algorithm>
#include <cmath>
#include <utility>

#include "absl/strings/str_cat.h"
#include "absl/strings/strip.h"

namespace ccreplay {

void WarningSink::Add(std::string warning) {
  if (warnings_->size() < kMaxWarnings) {
    warnings_->push_back(std::move(warning));
  } else {
    ++dropped_;
  }
}

void WarningSink::Finish() {
  if (dropped_ > 0)
    warnings_->push_back(absl::StrCat("... and ", dropped_, " more warnings"));
  dropped_ = 0;
}

void AddReaderOutcome(const InputFile& file, HostStateLog* log) {
  for (const std::string& warning : file.warnings())
    log->warnings.push_back(warning);
  if (file.overlong_lines() > 1) {
    log->warnings.push_back(absl::StrCat(log->path, ": ", file.overlong_lines(),
                                         " over-long lines skipped in all"));
  }
  if (absl::IsDataLoss(file.status())) {
    log->truncated = true;
    log->truncated_at_offset = file.offset();
    // The message names the path, which every warning is printed with.
    absl::string_view reason = file.status().message();
    absl::ConsumePrefix(&reason, absl::StrCat(file.path(), ": "));
    log->warnings.push_back(
        absl::StrCat(reason, "; the lines before it are kept"));
  }
}

std::optional<uint64_t> ExactUnsigned(double value, uint64_t max) {
  // 2^64 is exact in a double; below it every double converts defined.
  constexpr double kTwoTo64 = 18446744073709551616.0;
  if (!(value >= 0 && value < kTwoTo64) || std::floor(value) != value)
    return std::nullopt;
  const uint64_t result = static_cast<uint64_t>(value);
  if (result > max) return std::nullopt;
  return result;
}

double SeriesGrowth(const std::map<std::string, Series>& series,
                    const std::string& name) {
  auto it = series.find(name);
  if (it == series.end() || it->second.empty()) return 0;
  auto [min, max] =
      std::minmax_element(it->second.begin(), it->second.end(),
                          [](const SeriesPoint& a, const SeriesPoint& b) {
                            return a.value < b.value;
                          });
  return max->value - min->value;
}

double LastValue(const std::map<std::string, Series>& series,
                 const std::string& name) {
  auto it = series.find(name);
  if (it == series.end() || it->second.empty()) return 0;
  return it->second.back().value;
}

}  // namespace ccreplay
