#include "reports/decimate.h"

#include <algorithm>
#include <array>
#include <cmath>

namespace ccreplay {

Decimated DecimateMinMax(const std::vector<double>& t,
                         const std::vector<double>& y, double t0, double t1,
                         int columns) {
  Decimated out;
  const size_t n = std::min(t.size(), y.size());
  if (n == 0 || columns <= 0 || !(t1 > t0)) {
    for (size_t i = 0; i < n; ++i) {
      if (t[i] >= t0 && t[i] <= t1) {
        out.t.push_back(t[i]);
        out.y.push_back(y[i]);
      }
    }
    return out;
  }
  const double width = (t1 - t0) / columns;
  size_t i = 0;
  while (i < n && t[i] < t0) ++i;
  while (i < n && t[i] <= t1) {
    const long column = static_cast<long>(std::floor((t[i] - t0) / width));
    // The column's points: first, min, max, last (indices, kept in order).
    size_t first = i, last = i, lowest = i, highest = i;
    while (i < n && t[i] <= t1 &&
           static_cast<long>(std::floor((t[i] - t0) / width)) == column) {
      if (y[i] < y[lowest]) lowest = i;
      if (y[i] > y[highest]) highest = i;
      last = i;
      ++i;
    }
    std::array<size_t, 4> keep = {first, lowest, highest, last};
    std::sort(keep.begin(), keep.end());
    for (size_t k = 0; k < keep.size(); ++k) {
      if (k > 0 && keep[k] == keep[k - 1]) continue;
      out.t.push_back(t[keep[k]]);
      out.y.push_back(y[keep[k]]);
    }
  }
  return out;
}

}  // namespace ccreplay
