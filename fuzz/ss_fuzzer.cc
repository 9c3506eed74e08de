// libFuzzer target for the ss log parser: any bytes, split into lines, as
// an ss log, then summarised. It must never crash, hang or leak.
#include <cstddef>
#include <cstdint>

#include "fuzz/fuzz_input.h"
#include "parsers/host_state_summary.h"
#include "parsers/ss_log.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  ccreplay::SsLogParser parser("fuzz");
  ccreplay::ForEachLine(data, size,
                        [&](absl::string_view line) { parser.AddLine(line); });
  absl::StatusOr<ccreplay::HostStateLog> log = parser.Finish();
  if (log.ok()) {
    for (const ccreplay::HostTrace& trace : log->traces)
      (void)ccreplay::SummarizeHostTrace(trace);
  }
  return 0;
}
