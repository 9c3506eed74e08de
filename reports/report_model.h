// What a diagnosis report shows, independent of where the numbers came from
// (a replayed capture, a host-state log, the simulator): a verdict, the
// findings, plots that share one time axis, and the facts behind them.
// reports/html_report.h renders it; the diagnosis rules fill it.
#ifndef CCREPLAY_REPORTS_REPORT_MODEL_H_
#define CCREPLAY_REPORTS_REPORT_MODEL_H_

#include <string>
#include <utility>
#include <vector>

namespace ccreplay {

enum class SeriesStyle {
  kLine,    // Points joined in order.
  kStep,    // Held until the next point (a sampled state such as cwnd).
  kPoints,  // Separate marks (RTT samples, retransmissions).
  kDashed,  // A reference line (BDP, counterfactuals).
};

struct PlotSeries {
  std::string name;
  std::string color;  // CSS colour.
  SeriesStyle style = SeriesStyle::kLine;
  // Seconds from the flow's first packet, ascending; y in the plot's unit.
  std::vector<double> t_s;
  std::vector<double> y;
  // Hidden until the reader switches it on (counterfactuals, raw samples).
  bool initially_hidden = false;
};

// A coloured stretch of time drawn behind a plot's series (the limiter in
// force, a finding's range).
struct PlotBand {
  double start_s = 0;
  double end_s = 0;
  std::string label;
  std::string color;
};

struct Plot {
  std::string id;  // HTML id, e.g. "plot-cwnd".
  std::string title;
  std::string y_label;  // With its unit: "cwnd (packets)".
  std::vector<PlotSeries> series;
  std::vector<PlotBand> bands;
  // The plot is a strip of bands only (the limiter).
  bool bands_only = false;
};

enum class Severity { kInfo, kWarning, kCritical };
const char* SeverityName(Severity severity);  // "info", "warning", "critical"

struct Finding {
  std::string kind;  // e.g. "rtt_scaling_slow_growth".
  Severity severity = Severity::kInfo;
  double start_s = 0;
  double end_s = 0;
  std::string message;  // For a person, with numbers.
  // What supports it: one line each (series, counterfactual, estimate).
  std::vector<std::string> evidence;
};

struct ReportPage {
  std::string title;    // e.g. "192.168.122.79:38754 → 10.72.0.230:5201".
  std::string verdict;  // One or two sentences.
  std::vector<Finding> findings;
  std::vector<Plot> plots;
  // Flow facts and estimates, as label/value rows.
  std::vector<std::pair<std::string, std::string>> summary;
  // "How this was computed": inputs, vantage point, estimates, caveats.
  std::vector<std::string> method;
  // The plots' time axis, in words, and the facts' heading.
  std::string time_axis = "time in seconds from the flow's first packet";
  std::string summary_heading = "Flow summary";
  // Time axis shared by every plot, seconds.
  double start_s = 0;
  double end_s = 0;
};

}  // namespace ccreplay

#endif  // CCREPLAY_REPORTS_REPORT_MODEL_H_
