// libFuzzer target for the qlog reader: any bytes as a qlog file (the
// reader streams from a file), then summarised. It must never crash, hang
// or leak.
#include <cstddef>
#include <cstdint>

#include "fuzz/fuzz_input.h"
#include "parsers/host_state_summary.h"
#include "parsers/qlog.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  ccreplay::FuzzFile file(data, size);
  if (!file.ok()) return 0;
  absl::StatusOr<ccreplay::HostStateLog> log = ccreplay::ParseQlog(file.path());
  if (log.ok()) {
    for (const ccreplay::HostTrace& trace : log->traces)
      (void)ccreplay::SummarizeHostTrace(trace);
  }
  return 0;
}
