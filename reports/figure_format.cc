#include "reports/figure_format.h"

#include <cmath>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"

namespace ccreplay {

std::string Figure(double value, int decimals, absl::string_view unit) {
  if (!std::isfinite(value)) return std::string(kNotAvailable);
  return absl::StrCat(absl::StrFormat("%.*f", decimals, value), unit);
}

std::string Percent(double fraction, int decimals) {
  return Figure(100 * fraction, decimals, "%");
}

std::string PercentOf(double part, double whole, int decimals) {
  if (!(whole > 0)) return std::string(kNotAvailable);
  return Percent(part / whole, decimals);
}

std::string Mbps(double bits_per_second) {
  return Figure(bits_per_second / 1e6, 2, " Mb/s");
}

std::string Count(uint64_t n, absl::string_view singular) {
  return absl::StrCat(n, " ", singular, n == 1 ? "" : "s");
}

}  // namespace ccreplay
