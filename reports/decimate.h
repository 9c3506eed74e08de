// Reduces a series to what a plot of a given width can show: per pixel
// column its first, minimum, maximum and last points, in time order. The
// drawn shape is the same as with every point (spikes survive), and a
// ten-million-point series becomes a few thousand.
//
// A strip of bands (the limiter in force) is reduced the same way: per
// column the share of time under each label, the column drawn in the
// dominant one's colour. A sender that flips between two limiters at
// every ACK becomes a steady strip whose shade says how mixed it was.
#ifndef CCREPLAY_REPORTS_DECIMATE_H_
#define CCREPLAY_REPORTS_DECIMATE_H_

#include <string>
#include <vector>

#include "reports/report_model.h"

namespace ccreplay {

struct Decimated {
  std::vector<double> t;
  std::vector<double> y;
};

// `t` ascending, same length as `y`. Points outside [t0, t1] are dropped.
Decimated DecimateMinMax(const std::vector<double>& t,
                         const std::vector<double>& y, double t0, double t1,
                         int columns);

// The distinct labels of `bands` in order of first appearance, their
// colours (the first band's), and each band's index into them.
struct BandLabels {
  std::vector<std::string> labels;
  std::vector<std::string> colors;
  std::vector<size_t> of_band;
};
BandLabels LabelBands(const std::vector<PlotBand>& bands);

// A run of neighbouring columns with the same dominant band label.
struct BandSpan {
  double start_s = 0;
  double end_s = 0;
  size_t dominant = 0;  // Index into BinnedBands::labels.
  // Per label: the time under it / (end_s - start_s). The rest of the
  // span had no band.
  std::vector<double> shares;
};

struct BinnedBands {
  // Distinct labels in order of first appearance, with their colours.
  std::vector<std::string> labels;
  std::vector<std::string> colors;
  std::vector<BandSpan> spans;  // Ascending; columns without a band skipped.
};

// `bands` may overlap or leave gaps; the parts outside [t0, t1] are
// dropped. The dominant label of a column has the largest share (the first
// label on a tie).
BinnedBands DominantBands(const std::vector<PlotBand>& bands, double t0,
                          double t1, int columns);

}  // namespace ccreplay

#endif  // CCREPLAY_REPORTS_DECIMATE_H_
