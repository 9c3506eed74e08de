// Renders a ReportPage as one self-contained HTML file: inline CSS, inline
// SVG plots, a little inline JavaScript, no network requests. Without
// JavaScript every plot, the findings and the facts are there; with it the
// reader also gets hover read-outs, zoom on the shared time axis (drag, or a
// finding's link), and series toggles. Series are decimated (min/max per
// pixel column) so a very long capture still makes a file of a few MB; a
// strip of bands (the limiter) shows the dominant band per column, with
// the time shares in its tooltip, and is re-binned by the script on zoom.
#ifndef CCREPLAY_REPORTS_HTML_REPORT_H_
#define CCREPLAY_REPORTS_HTML_REPORT_H_

#include <string>

#include "reports/report_model.h"

namespace ccreplay {

// Pixel columns each series is decimated to.
inline constexpr int kPlotColumns = 1600;

std::string RenderHtmlReport(const ReportPage& page);

// The body of a report (verdict, findings, plots, facts, method and the
// plots' data) as one <section class="report">, every id in it starting
// with `id_prefix`, so that several reports with their own time axes share
// one page (reports/competition_html.h); the script scopes itself to each
// section. A finding's link is then #<id_prefix>range=START,END.
std::string RenderReportSection(const ReportPage& page,
                                const std::string& id_prefix);

// A self-contained page (style and script inline) around `body`.
std::string RenderHtmlDocument(const std::string& title,
                               const std::string& body);

// Escapes &, <, >, " and ' for HTML text and attribute values.
std::string HtmlEscape(const std::string& text);

}  // namespace ccreplay

#endif  // CCREPLAY_REPORTS_HTML_REPORT_H_
