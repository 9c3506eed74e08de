// libFuzzer target for format detection: any bytes as an input file,
// classified by content (ClassifyBytes on the bytes, ClassifyInput on the
// file, through gzip), judged as a
// host-state log
// (DetectHostStateFormat, which also sees through gzip), then read by the
// parser detection chose (ReadHostState). It must never crash, hang or
// leak.
#include <cstddef>
#include <cstdint>

#include "fuzz/fuzz_input.h"
#include "parsers/host_state_reader.h"
#include "parsers/host_state_summary.h"
#include "parsers/input_kind.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  ccreplay::FuzzFile file(data, size);
  if (!file.ok()) return 0;
  (void)ccreplay::InputKindName(ccreplay::ClassifyBytes(
      absl::string_view(reinterpret_cast<const char*>(data), size)));
  (void)ccreplay::ClassifyInput(file.path());
  if (!ccreplay::DetectHostStateFormat(file.path()).ok()) return 0;
  absl::StatusOr<ccreplay::HostStateLog> log =
      ccreplay::ReadHostState(file.path());
  if (log.ok()) {
    for (const ccreplay::HostTrace& trace : log->traces)
      (void)ccreplay::SummarizeHostTrace(trace);
  }
  return 0;
}
