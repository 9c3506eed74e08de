// Percentiles of a sample: the one definition every rule and estimate in
// reports/ uses.
//
// Percentile(v, q) is the element at 0-based index ceil(q * (n - 1)) of v
// sorted ascending: numpy.percentile's method "higher" (the upper of the two
// order statistics around the virtual index q * (n - 1); numpy docs,
// numpy.percentile, "method"). So Median(v) is v[n / 2] after sorting: the
// middle element for odd n, the upper middle one for even n. It picks a
// sample that occurred rather than interpolating between two.
//
// The streaming histograms in replay/ (DivergenceTracker, RttSummary) keep
// bins, not samples, and use the nearest rank ceil(q * n) instead (the lower
// middle for even n); their tests depend on it.
#ifndef CCREPLAY_REPORTS_PERCENTILE_H_
#define CCREPLAY_REPORTS_PERCENTILE_H_

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <utility>
#include <vector>

namespace ccreplay {

// The q-quantile (0 <= q <= 1) of `values` by the definition above; T{} when
// `values` is empty. O(n): a selection, not a sort.
template <typename T>
T Percentile(std::vector<T> values, double q) {
  if (values.empty()) return T{};
  const double last = static_cast<double>(values.size() - 1);
  // The tolerance keeps q * (n - 1) that is an integer in exact arithmetic
  // (0.07 * 100) from rounding up to the next index.
  const double index = std::ceil(std::clamp(q, 0.0, 1.0) * last - 1e-9);
  const auto nth = values.begin() +
                   static_cast<std::ptrdiff_t>(std::clamp(index, 0.0, last));
  std::nth_element(values.begin(), nth, values.end());
  return *nth;
}

// Percentile(values, 0.5): the upper median.
template <typename T>
T Median(std::vector<T> values) {
  return Percentile(std::move(values), 0.5);
}

}  // namespace ccreplay

#endif  // CCREPLAY_REPORTS_PERCENTILE_H_
