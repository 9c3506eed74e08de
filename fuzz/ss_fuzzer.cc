// libFuzzer target for the ss log parser: any bytes, split into lines, as
// an ss log, then summarised. It must never crash, hang or leak.
#include <cstddef>
#include <cstdint>

#include "absl/strings/str_split.h"
#include "absl/strings/string_view.h"
#include "parsers/host_state_summary.h"
#include "parsers/ss_log.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  ccreplay::SsLogParser parser("fuzz");
  absl::string_view text(reinterpret_cast<const char*>(data), size);
  for (absl::string_view line : absl::StrSplit(text, '\n'))
    parser.AddLine(line);
  absl::StatusOr<ccreplay::HostStateLog> log = parser.Finish();
  if (log.ok()) {
    for (const ccreplay::HostTrace& trace : log->traces)
      (void)ccreplay::SummarizeHostTrace(trace);
  }
  return 0;
}
