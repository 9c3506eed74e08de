// The HTML report's stylesheet and script. They live as real files in
// reports/html/ (report.css, report.js); reports/html/embed.cmake embeds
// their bytes at build time.
#ifndef CCREPLAY_REPORTS_HTML_ASSETS_H_
#define CCREPLAY_REPORTS_HTML_ASSETS_H_

#include "absl/strings/string_view.h"

namespace ccreplay {

// The contents of reports/html/report.css.
absl::string_view HtmlReportStyle();
// The contents of reports/html/report.js.
absl::string_view HtmlReportScript();

}  // namespace ccreplay

#endif  // CCREPLAY_REPORTS_HTML_ASSETS_H_
