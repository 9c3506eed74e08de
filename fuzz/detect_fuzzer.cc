// libFuzzer target for format detection: any bytes as an input file, judged
// as a capture (IsCaptureFile) and as a host-state log
// (DetectHostStateFormat, which also sees through gzip), then read by the
// parser detection chose (ReadHostState). It must never crash, hang or
// leak.
#include <cstddef>
#include <cstdint>

#include "fuzz/fuzz_input.h"
#include "parsers/host_state_reader.h"
#include "parsers/host_state_summary.h"
#include "parsers/pcap_reader.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  ccreplay::FuzzFile file(data, size);
  if (!file.ok()) return 0;
  (void)ccreplay::IsCaptureFile(file.path());
  if (!ccreplay::DetectHostStateFormat(file.path()).ok()) return 0;
  absl::StatusOr<ccreplay::HostStateLog> log =
      ccreplay::ReadHostState(file.path());
  if (log.ok()) {
    for (const ccreplay::HostTrace& trace : log->traces)
      (void)ccreplay::SummarizeHostTrace(trace);
  }
  return 0;
}
