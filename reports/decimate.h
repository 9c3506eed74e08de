// Reduces a series to what a plot of a given width can show: per pixel
// column its first, minimum, maximum and last points, in time order. The
// drawn shape is the same as with every point (spikes survive), and a
// ten-million-point series becomes a few thousand.
#ifndef CCREPLAY_REPORTS_DECIMATE_H_
#define CCREPLAY_REPORTS_DECIMATE_H_

#include <vector>

namespace ccreplay {

struct Decimated {
  std::vector<double> t;
  std::vector<double> y;
};

// `t` ascending, same length as `y`. Points outside [t0, t1] are dropped.
Decimated DecimateMinMax(const std::vector<double>& t,
                         const std::vector<double>& y, double t0, double t1,
                         int columns);

}  // namespace ccreplay

#endif  // CCREPLAY_REPORTS_DECIMATE_H_
