#include "reports/html_report.h"

#include <string>

#include "absl/strings/match.h"
#include "gtest/gtest.h"
#include "proto/json_printer.h"
#include "proto/plot.pb.h"

namespace ccreplay {
namespace {

ReportPage SamplePage() {
  ReportPage page;
  page.title = "10.0.0.1:1 → 10.0.0.2:2";
  page.verdict = "cwnd stayed <below> the BDP";
  page.start_s = 0;
  page.end_s = 10;
  Finding f;
  f.kind = "rtt_scaling_slow_growth";
  f.severity = Severity::kCritical;
  f.start_s = 1.2;
  f.end_s = 9.8;
  f.message = "From 1.2 s to 9.8 s cwnd stayed below the 33-packet BDP.";
  f.evidence = {"replay with rtt_scaling=none regains the BDP in 0.1 s"};
  page.findings.push_back(f);
  Plot cwnd;
  cwnd.id = "plot-cwnd";
  cwnd.title = "Congestion window";
  cwnd.y_label = "cwnd (packets)";
  PlotSeries s;
  s.name = "captured";
  s.color = "#1f77b4";
  s.style = SeriesStyle::kStep;
  for (int i = 0; i <= 100000; ++i) {
    s.t_s.push_back(i * 1e-4);
    s.y.push_back(20 + (i % 1000) * 0.01);
  }
  cwnd.series.push_back(s);
  cwnd.bands.push_back({2, 3, "recovery", "#e15759"});
  page.plots.push_back(cwnd);
  page.summary = {{"sender", "10.0.0.1:1"}};
  page.method = {"BDP = rate x base RTT"};
  return page;
}

TEST(HtmlReportTest, SelfContainedWithPlotsFindingsAndEscaping) {
  const std::string html = RenderHtmlReport(SamplePage());
  EXPECT_TRUE(absl::StartsWith(html, "<!DOCTYPE html>"));
  // No external resource of any kind.
  EXPECT_FALSE(absl::StrContains(html, "src=\"http"));
  EXPECT_FALSE(absl::StrContains(html, "href=\"http"));
  EXPECT_FALSE(absl::StrContains(html, "@import"));
  EXPECT_FALSE(absl::StrContains(html, "url("));
  // The finding links to its time range; the plot and its band are there.
  EXPECT_TRUE(absl::StrContains(html, "data-start=\"1.2\" data-end=\"9.8\""));
  EXPECT_TRUE(absl::StrContains(html, "id=\"plot-cwnd\""));
  EXPECT_TRUE(absl::StrContains(html, "<title>recovery</title>"));
  EXPECT_TRUE(absl::StrContains(html, "cwnd stayed &lt;below&gt; the BDP"));
  // 100,001 points are decimated to at most 4 per column.
  const size_t path_start = html.find("<path class=\"series");
  const size_t path_end = html.find("/>", path_start);
  const std::string path = html.substr(path_start, path_end - path_start);
  size_t vertices = 0;
  for (char c : path) vertices += (c == 'H');
  EXPECT_LE(vertices, static_cast<size_t>(4 * kPlotColumns));
  EXPECT_GT(vertices, 1000u);
}

// A limiter strip that flips at every ACK is drawn as the dominant
// limiter per column, with the shares in the tooltip (no script needed),
// and the raw bands go to the script for re-binning on zoom.
TEST(HtmlReportTest, BandStripShowsTheDominantBandWithShares) {
  ReportPage page = SamplePage();
  Plot strip;
  strip.id = "plot-limiter";
  strip.title = "What limited the sender";
  strip.bands_only = true;
  for (int ms = 0; ms < 10000; ++ms) {  // 10 s, 3 of 4 ms "cwnd".
    strip.bands.push_back({ms * 1e-3, (ms + 1) * 1e-3,
                           ms % 4 < 3 ? "cwnd" : "unknown",
                           ms % 4 < 3 ? "#4e79a7" : "#dddddd"});
  }
  page.plots.push_back(strip);
  const std::string html = RenderHtmlReport(page);
  const size_t figure = html.find("id=\"plot-limiter\"");
  const std::string svg =
      html.substr(figure, html.find("</figure>", figure) - figure);
  size_t rects = 0;
  for (size_t p = svg.find("<rect class=\"band\""); p != std::string::npos;
       p = svg.find("<rect class=\"band\"", p + 1)) {
    ++rects;
  }
  EXPECT_EQ(rects, 1u);
  EXPECT_TRUE(absl::StrContains(
      svg, "<title>0.000–10.000 s: cwnd 75%, unknown 25%</title>"));
  EXPECT_TRUE(absl::StrContains(svg, "fill-opacity=\"0.82\""));  // .3+.7x.75
  EXPECT_TRUE(absl::StrContains(html, "\"labels\":[\"cwnd\",\"unknown\"]"));
  // The script's data is a proto::ReportPlots: every run, label by index.
  const std::string open =
      "<script type=\"application/json\" id=\"report-data\">";
  const size_t data = html.find(open) + open.size();
  proto::ReportPlots plots;
  ASSERT_TRUE(
      ParseJson(html.substr(data, html.find("</script>", data) - data), &plots)
          .ok());
  const proto::LimiterBands& bands = plots.plots().at("plot-limiter").bands();
  ASSERT_EQ(bands.runs_size(), 10000);
  EXPECT_EQ(bands.runs(1).start_s(), 0.001);
  EXPECT_EQ(bands.runs(1).end_s(), 0.002);
  EXPECT_EQ(bands.runs(1).label(), 0u);
  EXPECT_EQ(bands.runs(3).label(), 1u);
}

TEST(HtmlReportTest, NoFindingSaysSo) {
  ReportPage page = SamplePage();
  page.findings.clear();
  EXPECT_TRUE(absl::StrContains(RenderHtmlReport(page),
                                "No finding: none of the checks"));
}

}  // namespace
}  // namespace ccreplay
