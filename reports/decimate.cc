#include "reports/decimate.h"

#include <algorithm>
#include <array>
#include <cmath>
#include <utility>

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

namespace {

// An overlap below this fraction of a column is rounding, not time.
constexpr double kTouchFraction = 1e-9;

}  // namespace

BandLabels LabelBands(const std::vector<PlotBand>& bands) {
  BandLabels out;
  for (const PlotBand& band : bands) {
    const auto known =
        std::find(out.labels.begin(), out.labels.end(), band.label);
    out.of_band.push_back(known - out.labels.begin());
    if (known == out.labels.end()) {
      out.labels.push_back(band.label);
      out.colors.push_back(band.color);
    }
  }
  return out;
}

BinnedBands DominantBands(const std::vector<PlotBand>& bands, double t0,
                          double t1, int columns) {
  BinnedBands out;
  // No bands, no labels: nothing to bin (the per-column table is empty).
  if (columns <= 0 || !(t1 > t0) || bands.empty()) return out;
  BandLabels named = LabelBands(bands);
  const std::vector<size_t>& label_of = named.of_band;
  out.labels = std::move(named.labels);
  out.colors = std::move(named.colors);
  const size_t labels = out.labels.size();
  const double width = (t1 - t0) / columns;
  // Seconds under each label, per column (columns x labels).
  std::vector<double> seconds(static_cast<size_t>(columns) * labels, 0);
  for (size_t b = 0; b < bands.size(); ++b) {
    const double start = std::max(bands[b].start_s, t0);
    const double end = std::min(bands[b].end_s, t1);
    if (!(end > start)) continue;
    const int first = std::min(
        columns - 1, static_cast<int>(std::floor((start - t0) / width)));
    const int last =
        std::min(columns - 1, static_cast<int>(std::floor((end - t0) / width)));
    for (int c = first; c <= last; ++c) {
      const double overlap =
          std::min(end, t0 + (c + 1) * width) - std::max(start, t0 + c * width);
      // Rounding of the column edges must not give a band a column it
      // only touches.
      if (overlap > kTouchFraction * width) {
        seconds[c * labels + label_of[b]] += overlap;
      }
    }
  }
  for (int c = 0; c < columns; ++c) {
    const double* column = &seconds[c * labels];
    size_t dominant = 0;
    for (size_t l = 1; l < labels; ++l) {
      if (column[l] > column[dominant]) dominant = l;
    }
    if (labels == 0 || !(column[dominant] > 0)) continue;
    const double start = t0 + c * width;
    const double end = c == columns - 1 ? t1 : t0 + (c + 1) * width;
    if (out.spans.empty() || out.spans.back().dominant != dominant ||
        out.spans.back().end_s < start - width / 2) {
      out.spans.push_back(
          {start, start, dominant, std::vector<double>(labels)});
    }
    BandSpan& span = out.spans.back();
    // Shares are kept as seconds until the span is complete.
    for (size_t l = 0; l < labels; ++l) span.shares[l] += column[l];
    span.end_s = end;
  }
  for (BandSpan& span : out.spans) {
    for (double& share : span.shares) share /= span.end_s - span.start_s;
  }
  return out;
}

}  // namespace ccreplay
