// libFuzzer target for `ccreplay diagnose`: any bytes as its input (a
// capture, or a qlog when they do not start like a capture), diagnosed by
// the command's own entry point (DiagnoseInput), then rendered as JSON
// (PrintJson) and HTML (RenderHtmlReport) in memory. The closed-loop
// simulations of the fitted path are off: each runs for seconds, and they
// read only the path estimates, which the rest of the run already
// exercises. It must never crash, hang or leak.
#include <cstddef>
#include <cstdint>
#include <string>

#include "fuzz/fuzz_input.h"
#include "parsers/input_kind.h"
#include "proto/json_printer.h"
#include "reports/diagnose_session.h"
#include "reports/html_report.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  ccreplay::FuzzFile file(data, size);
  if (!file.ok()) return 0;
  absl::StatusOr<ccreplay::InputClass> kind =
      ccreplay::ClassifyInput(file.path());
  if (!kind.ok()) return 0;
  const bool capture = ccreplay::IsCapture(kind->kind);
  ccreplay::DiagnoseOptions options;
  (capture ? options.input : options.qlog_path) = file.path();
  options.simulate = false;
  absl::StatusOr<ccreplay::DiagnoseRun> run = ccreplay::DiagnoseInput(options);
  if (!run.ok()) return 0;
  const std::string json = ccreplay::PrintJson(run->diagnosis.result);
  const std::string html = ccreplay::RenderHtmlReport(run->diagnosis.page);
  // Output that is empty would mean a renderer gave up silently.
  if (json.empty() || html.empty()) __builtin_trap();
  return 0;
}
