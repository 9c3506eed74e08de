#include "reports/competition_html.h"

#include "absl/strings/ascii.h"
#include "absl/strings/str_cat.h"
#include "reports/html_report.h"

namespace ccreplay {

std::string FlowSectionPrefix(uint32_t id) {
  return absl::StrCat(absl::AsciiStrToLower(FlowLabel(id)), "-");
}

std::string FlowSectionId(uint32_t id) {
  return absl::StrCat("flow-", absl::AsciiStrToLower(FlowLabel(id)));
}

std::string RenderMultiFlowHtml(const MultiFlowReport& report,
                                absl::Span<const CompetitorRun> flows) {
  std::string body = absl::StrCat(
      "<h1>", HtmlEscape(report.shared.title),
      "</h1>\n<div class=\"sub\">ccreplay multi-flow diagnosis report</div>\n"
      "<nav class=\"flowlinks\">Each flow's diagnosis:");
  for (uint32_t id = 0; id < flows.size(); ++id) {
    absl::StrAppend(&body, " <a href=\"#", FlowSectionId(id), "\">",
                    FlowLabel(id), "</a>");
  }
  absl::StrAppend(&body, "</nav>\n",
                  RenderReportSection(report.shared, "shared-"),
                  "<h2 id=\"flows\">Each flow's diagnosis</h2>\n");
  for (uint32_t id = 0; id < flows.size(); ++id) {
    const ReportPage& page = flows[id].run.diagnosis.page;
    absl::StrAppend(&body, "<details class=\"flow\" id=\"", FlowSectionId(id),
                    "\">\n<summary><b>", FlowLabel(id), "</b> ",
                    HtmlEscape(page.title), " <span class=\"sub\">(",
                    HtmlEscape(flows[id].input), ")</span></summary>\n",
                    RenderReportSection(page, FlowSectionPrefix(id)),
                    "</details>\n");
  }
  return RenderHtmlDocument(report.shared.title, body);
}

}  // namespace ccreplay
