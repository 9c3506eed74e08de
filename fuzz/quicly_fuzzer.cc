// libFuzzer target for the quicly event-log reader: any bytes as a quicly
// (or h2olog) log file, then summarised. It must never crash, hang or leak.
#include <cstddef>
#include <cstdint>

#include "fuzz/fuzz_input.h"
#include "parsers/host_state_summary.h"
#include "parsers/quicly_log.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  ccreplay::FuzzFile file(data, size);
  if (!file.ok()) return 0;
  absl::StatusOr<ccreplay::HostStateLog> log =
      ccreplay::ParseQuiclyLog(file.path());
  if (log.ok()) {
    for (const ccreplay::HostTrace& trace : log->traces)
      (void)ccreplay::SummarizeHostTrace(trace);
  }
  return 0;
}
