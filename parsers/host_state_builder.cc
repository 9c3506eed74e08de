#include "parsers/host_state_builder.h"

#include <algorithm>
#include <utility>

#include "absl/strings/str_cat.h"

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
