#include "reports/html_report.h"

#include <algorithm>
#include <cmath>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "proto/json_printer.h"
#include "proto/plot.pb.h"
#include "reports/decimate.h"
#include "reports/html_assets.h"

namespace ccreplay {

const char* SeverityName(Severity severity) {
  switch (severity) {
    case Severity::kCritical:
      return "critical";
    case Severity::kWarning:
      return "warning";
    case Severity::kInfo:
      break;
  }
  return "info";
}

std::string HtmlEscape(const std::string& text) {
  std::string out;
  out.reserve(text.size());
  for (char c : text) {
    switch (c) {
      case '&':
        out += "&amp;";
        break;
      case '<':
        out += "&lt;";
        break;
      case '>':
        out += "&gt;";
        break;
      case '"':
        out += "&quot;";
        break;
      case '\'':
        out += "&#39;";
        break;
      default:
        out += c;
    }
  }
  return out;
}

namespace {

// Plot geometry (SVG user units; the SVG scales to the page width).
constexpr double kWidth = 960;
constexpr double kHeight = 210;
constexpr double kBandHeight = 60;
constexpr double kLeft = 62;
constexpr double kRight = 12;
constexpr double kTop = 8;
constexpr double kBottom = 24;
// A band strip has a column per 3 SVG units of the plot area (about 3
// screen pixels at the report's width): with one per pixel, stretches
// where two limiters alternate within a few RTTs still flicker.
constexpr int kBandColumns = static_cast<int>((kWidth - kLeft - kRight) / 3);

// 1, 2 or 5 times a power of ten, giving about `count` steps over `span`.
double NiceStep(double span, int count) {
  if (!(span > 0)) return 1;
  const double raw = span / count;
  const double power = std::pow(10, std::floor(std::log10(raw)));
  for (double m : {1.0, 2.0, 5.0, 10.0}) {
    if (raw <= m * power) return m * power;
  }
  return 10 * power;
}

// An SVG coordinate or length; one that could not be computed is 0, so
// that no "nan" reaches an attribute (SeriesPath skips such points).
std::string Number(double v) {
  return absl::StrFormat("%.6g", std::isfinite(v) ? v : 0.0);
}

// A tick label: no more digits than the step needs.
std::string TickLabel(double v, double step) {
  if (std::fabs(v) >= 1e6 || (v != 0 && std::fabs(v) < 1e-3))
    return absl::StrFormat("%.3g", v);
  const int decimals =
      step >= 1 ? 0 : static_cast<int>(std::ceil(-std::log10(step)));
  return absl::StrFormat("%.*f", decimals, v);
}

double MaxY(const Plot& plot, double t0, double t1) {
  double m = 0;
  for (const PlotSeries& s : plot.series) {
    // Series the reader has to switch on do not set the initial scale.
    if (s.initially_hidden) continue;
    for (size_t i = 0; i < s.y.size() && i < s.t_s.size(); ++i) {
      if (s.t_s[i] >= t0 && s.t_s[i] <= t1 && std::isfinite(s.y[i]))
        m = std::max(m, s.y[i]);
    }
  }
  return m > 0 ? m * 1.06 : 1;
}

// The path of a series in data coordinates: x = seconds, y = -value (SVG's
// y grows downwards), drawn in a nested <svg> whose viewBox is the data
// range; strokes do not scale (vector-effect), so zooming is a viewBox
// change.
std::string SeriesPath(const Decimated& d, SeriesStyle style) {
  std::string path;
  path.reserve(d.t.size() * 16);
  bool gap = true;  // The next point starts a new subpath.
  for (size_t i = 0; i < d.t.size(); ++i) {
    // A value that could not be computed is a gap, not a "nan" coordinate.
    if (!std::isfinite(d.t[i]) || !std::isfinite(d.y[i])) {
      gap = true;
      continue;
    }
    const std::string x = Number(d.t[i]);
    const std::string y = Number(-d.y[i]);
    if (style == SeriesStyle::kPoints) {
      absl::StrAppend(&path, "M", x, " ", y, "h0");
    } else if (gap) {
      gap = false;
      absl::StrAppend(&path, "M", x, " ", y);
    } else if (style == SeriesStyle::kStep) {
      absl::StrAppend(&path, "H", x, "V", y);
    } else {
      absl::StrAppend(&path, "L", x, " ", y);
    }
  }
  return path;
}

void AppendXAxis(const ReportPage& page, double plot_bottom, std::string* out) {
  // A flow of one instant has no time axis to tick (0/0 would be "nan").
  const double span = std::max(page.end_s - page.start_s, 1e-9);
  const double step = NiceStep(span, 10);
  // Ticks are placed by the script on zoom; these are the full-range ones.
  absl::StrAppendFormat(out, "<g class=\"xaxis\" data-bottom=\"%s\">",
                        Number(plot_bottom));
  for (double t = std::ceil(page.start_s / step) * step;
       t <= page.end_s + 1e-12; t += step) {
    const double x =
        kLeft + (t - page.start_s) / span * (kWidth - kLeft - kRight);
    absl::StrAppendFormat(
        out,
        "<line x1=\"%.1f\" x2=\"%.1f\" y1=\"%.1f\" y2=\"%.1f\" class=\"grid\"/>"
        "<text x=\"%.1f\" y=\"%.1f\" class=\"tick\" "
        "text-anchor=\"middle\">%s</text>",
        x, x, kTop, plot_bottom, x, plot_bottom + 15, TickLabel(t, step));
  }
  out->append("</g>");
}

// "12.300–14.500 s: cwnd (waiting for ACKs) 78%, unknown / pacing 22%".
std::string BandSpanTitle(const BinnedBands& binned, const BandSpan& span) {
  std::vector<size_t> order;
  for (size_t l = 0; l < span.shares.size(); ++l) {
    if (span.shares[l] >= 0.005) order.push_back(l);
  }
  std::sort(order.begin(), order.end(), [&span](size_t a, size_t b) {
    return span.shares[a] > span.shares[b];
  });
  std::string title = absl::StrFormat("%.3f–%.3f s:", span.start_s, span.end_s);
  for (size_t k = 0; k < order.size(); ++k) {
    absl::StrAppendFormat(&title, "%s %s %.0f%%", k == 0 ? "" : ",",
                          binned.labels[order[k]], 100 * span.shares[order[k]]);
  }
  return title;
}

// A strip of bands (the limiter): per column the dominant band, shaded by
// its share (solid: it held the whole column), the shares in the tooltip.
// The script re-bins the raw bands (AppendBandData) when the view zooms.
void AppendBandStrip(const Plot& plot, double t0, double t1, double y_max,
                     std::string* out) {
  const BinnedBands binned = DominantBands(plot.bands, t0, t1, kBandColumns);
  for (const BandSpan& span : binned.spans) {
    absl::StrAppendFormat(
        out,
        "<rect class=\"band\" x=\"%s\" y=\"%s\" width=\"%s\" height=\"%s\" "
        "fill=\"%s\" fill-opacity=\"%.2f\"><title>%s</title></rect>\n",
        Number(span.start_s), Number(-y_max), Number(span.end_s - span.start_s),
        Number(y_max), HtmlEscape(binned.colors[span.dominant]),
        0.3 + 0.7 * span.shares[span.dominant],
        HtmlEscape(BandSpanTitle(binned, span)));
  }
}

// The raw bands for the script: labels, colours and runs of a label.
proto::LimiterBands BandData(const Plot& plot) {
  const BandLabels named = LabelBands(plot.bands);
  proto::LimiterBands data;
  for (size_t b = 0; b < plot.bands.size(); ++b) {
    proto::BandRun* run = data.add_runs();
    run->set_start_s(std::round(plot.bands[b].start_s * 1e6) / 1e6);
    run->set_end_s(std::round(plot.bands[b].end_s * 1e6) / 1e6);
    run->set_label(named.of_band[b]);
  }
  for (const std::string& label : named.labels) data.add_labels(label);
  for (const std::string& color : named.colors) data.add_colors(color);
  return data;
}

// The figure's caption, outer SVG and fixed y axis (grid and labels).
void AppendPlotFrame(const Plot& plot, double height, double y_max,
                     std::string* out) {
  const double bottom = height - kBottom;
  absl::StrAppendFormat(
      out, "<figure class=\"plot%s\" id=\"%s\">\n<figcaption>%s</figcaption>\n",
      plot.bands_only ? " bandsonly" : "", HtmlEscape(plot.id),
      HtmlEscape(plot.title));
  absl::StrAppendFormat(
      out,
      "<svg class=\"chart\" viewBox=\"0 0 %s %s\" role=\"img\" "
      "aria-label=\"%s\" data-plot=\"%s\">\n",
      Number(kWidth), Number(height), HtmlEscape(plot.title),
      HtmlEscape(plot.id));
  if (plot.bands_only) return;
  const double step = NiceStep(y_max, 4);
  for (double v = 0; v <= y_max + 1e-12; v += step) {
    const double y = bottom - v / y_max * (bottom - kTop);
    absl::StrAppendFormat(
        out,
        "<line x1=\"%.1f\" x2=\"%.1f\" y1=\"%.1f\" y2=\"%.1f\" "
        "class=\"grid\"/><text x=\"%.1f\" y=\"%.1f\" class=\"tick\" "
        "text-anchor=\"end\">%s</text>",
        kLeft, kWidth - kRight, y, y, kLeft - 5, y + 4, TickLabel(v, step));
  }
  absl::StrAppendFormat(
      out,
      "<text class=\"ylabel\" transform=\"translate(13 %.1f) rotate(-90)\" "
      "text-anchor=\"middle\">%s</text>",
      (kTop + bottom) / 2, HtmlEscape(plot.y_label));
}

// The data area's opening: a nested SVG in data coordinates, with the
// plot's bands behind the series.
void AppendDataArea(const ReportPage& page, const Plot& plot, double bottom,
                    double y_max, std::string* out) {
  const double span = std::max(page.end_s - page.start_s, 1e-9);
  absl::StrAppendFormat(
      out,
      "<svg class=\"data\" x=\"%s\" y=\"%s\" width=\"%s\" height=\"%s\" "
      "viewBox=\"%s %s %s %s\" preserveAspectRatio=\"none\">\n",
      Number(kLeft), Number(kTop), Number(kWidth - kLeft - kRight),
      Number(bottom - kTop), Number(page.start_s), Number(-y_max), Number(span),
      Number(y_max));
  if (plot.bands_only) {
    AppendBandStrip(plot, page.start_s, page.end_s, y_max, out);
    return;
  }
  for (const PlotBand& band : plot.bands) {
    absl::StrAppendFormat(
        out,
        "<rect class=\"band\" x=\"%s\" y=\"%s\" width=\"%s\" "
        "height=\"%s\" fill=\"%s\"><title>%s</title></rect>\n",
        Number(band.start_s), Number(-y_max),
        Number(std::max(band.end_s - band.start_s, span * 1e-4)), Number(y_max),
        HtmlEscape(band.color), HtmlEscape(band.label));
  }
}

// Each series' path, and its decimated points for the script.
void AppendSeries(const ReportPage& page, const Plot& plot, std::string* out,
                  proto::PlotData* data) {
  for (size_t i = 0; i < plot.series.size(); ++i) {
    const PlotSeries& s = plot.series[i];
    const Decimated d =
        DecimateMinMax(s.t_s, s.y, page.start_s, page.end_s, kPlotColumns);
    const char* style_class = s.style == SeriesStyle::kPoints   ? "points"
                              : s.style == SeriesStyle::kDashed ? "dashed"
                                                                : "line";
    absl::StrAppendFormat(
        out,
        "<path class=\"series %s\" data-series=\"%d\" stroke=\"%s\"%s "
        "d=\"%s\"/>\n",
        style_class, i, HtmlEscape(s.color),
        s.initially_hidden ? " style=\"display:none\"" : "",
        SeriesPath(d, s.style));
    proto::PlotSeriesData* series = data->add_series();
    series->set_name(s.name);
    series->set_step(s.style == SeriesStyle::kStep);
    for (double t : d.t) series->add_t(std::round(t * 1e6) / 1e6);
    for (double y : d.y) series->add_y(y);
  }
}

// Legend: toggles with the script, a plain list without it; a key entry
// per kind of band (each label once) on a bands-only plot.
void AppendLegend(const Plot& plot, std::string* out) {
  out->append("<div class=\"legend\">");
  for (size_t i = 0; i < plot.series.size(); ++i) {
    const PlotSeries& s = plot.series[i];
    absl::StrAppendFormat(
        out,
        "<label><input type=\"checkbox\" data-plot=\"%s\" data-series=\"%d\"%s>"
        "<span class=\"swatch %s\" style=\"background:%s\"></span>%s"
        "<span class=\"readout\"></span></label>",
        HtmlEscape(plot.id), i, s.initially_hidden ? "" : " checked",
        s.style == SeriesStyle::kDashed ? "dashed" : "", HtmlEscape(s.color),
        HtmlEscape(s.name));
  }
  std::vector<std::string> keyed;
  for (const PlotBand& band : plot.bands) {
    if (!plot.bands_only ||
        std::find(keyed.begin(), keyed.end(), band.label) != keyed.end()) {
      continue;
    }
    keyed.push_back(band.label);
    absl::StrAppendFormat(out,
                          "<span class=\"bandkey\"><span class=\"swatch\" "
                          "style=\"background:%s\"></span>%s<span "
                          "class=\"readout\"></span></span>",
                          HtmlEscape(band.color), HtmlEscape(band.label));
  }
  out->append("</div>\n</figure>\n");
}

void AppendPlot(const ReportPage& page, const Plot& plot,
                proto::ReportPlots* data, std::string* out) {
  const double height = plot.bands_only ? kBandHeight : kHeight;
  const double bottom = height - kBottom;
  const double y_max =
      plot.bands_only ? 1 : MaxY(plot, page.start_s, page.end_s);
  AppendPlotFrame(plot, height, y_max, out);
  AppendXAxis(page, bottom, out);
  AppendDataArea(page, plot, bottom, y_max, out);
  proto::PlotData& plot_data = (*data->mutable_plots())[plot.id];
  plot_data.set_ymax(y_max);
  if (plot.bands_only) *plot_data.mutable_bands() = BandData(plot);
  AppendSeries(page, plot, out, &plot_data);
  out->append(
      "<line class=\"cursor\" x1=\"0\" x2=\"0\" y1=\"0\" y2=\"0\"/></svg>\n");
  absl::StrAppendFormat(
      out,
      "<rect class=\"frame\" x=\"%s\" y=\"%s\" width=\"%s\" height=\"%s\"/>"
      "</svg>\n",
      Number(kLeft), Number(kTop), Number(kWidth - kLeft - kRight),
      Number(bottom - kTop));
  AppendLegend(plot, out);
}

// The verdict, opening the page's section: its ids start with `prefix`,
// and the script (reports/html/report.js) scopes itself to it.
void AppendVerdict(const ReportPage& page, const std::string& prefix,
                   std::string* out) {
  absl::StrAppend(out, "<section class=\"report\" data-prefix=\"",
                  HtmlEscape(prefix), "\">\n<p class=\"verdict\" id=\"",
                  HtmlEscape(prefix), "verdict\">", HtmlEscape(page.verdict),
                  "</p>\n");
}

void AppendFinding(const std::string& prefix, size_t i, const Finding& f,
                   std::string* out) {
  const std::string p = HtmlEscape(prefix);
  absl::StrAppendFormat(
      out,
      "<tr id=\"%sfinding-%d\"><td><span class=\"sev %s\">%s</span></td>"
      "<td class=\"kind\">%s</td><td class=\"num\"><a class=\"range\" "
      "href=\"#%srange=%s,%s\" data-start=\"%s\" data-end=\"%s\">"
      "%.3f–%.3f s</a>"
      "</td><td>%s",
      p, i, SeverityName(f.severity), SeverityName(f.severity),
      HtmlEscape(f.kind), p, Number(f.start_s), Number(f.end_s),
      Number(f.start_s), Number(f.end_s), f.start_s, f.end_s,
      HtmlEscape(f.message));
  if (!f.evidence.empty()) {
    out->append("<ul class=\"evidence\">");
    for (const std::string& e : f.evidence)
      absl::StrAppend(out, "<li>", HtmlEscape(e), "</li>");
    out->append("</ul>");
  }
  out->append("</td></tr>\n");
}

void AppendFindings(const ReportPage& page, const std::string& prefix,
                    std::string* out) {
  absl::StrAppend(out, "<h2 id=\"", HtmlEscape(prefix),
                  "findings\">Findings</h2>\n");
  if (page.findings.empty()) {
    absl::StrAppend(
        out,
        "<p>No finding: none of the checks listed under \"How this was "
        "computed\" found a problem.</p>\n");
    return;
  }
  absl::StrAppend(
      out,
      "<table class=\"findings\"><thead><tr><th>severity</th><th>finding</th>"
      "<th>time</th><th>what happened</th></tr></thead><tbody>\n");
  for (size_t i = 0; i < page.findings.size(); ++i) {
    AppendFinding(prefix, i, page.findings[i], out);
  }
  out->append("</tbody></table>\n");
}

// The plots, sharing one time axis; returns their data for the script.
proto::ReportPlots AppendPlots(const ReportPage& page,
                               const std::string& prefix, std::string* out) {
  const std::string p = HtmlEscape(prefix);
  absl::StrAppend(out, "<h2 id=\"", p, "plots\">Plots <span class=\"tick\">(",
                  HtmlEscape(page.time_axis), ")</span></h2>\n");
  absl::StrAppend(
      out,
      "<div class=\"controls\" hidden>Drag across a plot to zoom, double-click "
      "to zoom out; hover to read values. <span id=\"",
      p, "range\"></span> <span id=\"", p, "cursor-t\"></span><button id=\"", p,
      "reset\" type=\"button\">full range</button></div>\n");
  proto::ReportPlots data;
  data.set_start(page.start_s);
  data.set_end(page.end_s);
  data.set_band_columns(kBandColumns);
  for (Plot plot : page.plots) {
    plot.id = prefix + plot.id;
    AppendPlot(page, plot, &data, out);
  }
  return data;
}

// Facts and method.
void AppendSummaryAndMethod(const ReportPage& page, const std::string& prefix,
                            std::string* out) {
  absl::StrAppend(out, "<h2 id=\"", HtmlEscape(prefix), "summary\">",
                  HtmlEscape(page.summary_heading),
                  "</h2>\n<dl class=\"facts\">\n");
  for (const auto& [label, value] : page.summary) {
    absl::StrAppend(out, "<dt>", HtmlEscape(label), "</dt><dd>",
                    HtmlEscape(value), "</dd>\n");
  }
  absl::StrAppend(out, "</dl>\n<h2 id=\"", HtmlEscape(prefix),
                  "method\">How this was computed</h2>\n<ul "
                  "class=\"method\">\n");
  for (const std::string& line : page.method)
    absl::StrAppend(out, "<li>", HtmlEscape(line), "</li>\n");
  absl::StrAppend(out, "</ul>\n");
}

// The data for the script, on one line; "</" cannot occur in it unescaped.
void AppendPlotData(const proto::ReportPlots& data, const std::string& prefix,
                    std::string* out) {
  std::string json = PrintJson(data, JsonPrintOptions{0});
  json.pop_back();  // PrintJson's trailing newline.
  for (size_t p = json.find("</"); p != std::string::npos;
       p = json.find("</", p + 2)) {
    json.replace(p, 2, "<\\/");
  }
  absl::StrAppend(out, "<script type=\"application/json\" id=\"",
                  HtmlEscape(prefix), "report-data\">", json,
                  "</script>\n</section>\n");
}

}  // namespace

std::string RenderHtmlDocument(const std::string& title,
                               const std::string& body) {
  return absl::StrCat(
      "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n"
      "<meta name=\"viewport\" content=\"width=device-width, "
      "initial-scale=1\">\n<title>ccreplay: ",
      HtmlEscape(title), "</title>\n<style>\n", HtmlReportStyle(),
      "</style>\n</head>\n<body>\n<main>\n", body, "</main>\n<script>\n",
      HtmlReportScript(), "</script>\n</body>\n</html>\n");
}

std::string RenderReportSection(const ReportPage& page,
                                const std::string& id_prefix) {
  std::string out;
  out.reserve(1 << 20);
  AppendVerdict(page, id_prefix, &out);
  AppendFindings(page, id_prefix, &out);
  const proto::ReportPlots data = AppendPlots(page, id_prefix, &out);
  AppendSummaryAndMethod(page, id_prefix, &out);
  AppendPlotData(data, id_prefix, &out);
  return out;
}

std::string RenderHtmlReport(const ReportPage& page) {
  return RenderHtmlDocument(
      page.title,
      absl::StrCat(
          "<h1>", HtmlEscape(page.title),
          "</h1>\n<div class=\"sub\">ccreplay diagnosis report</div>\n",
          RenderReportSection(page, "")));
}

}  // namespace ccreplay
