// libFuzzer target for the tcp_probe parser: any bytes, split into lines,
// as ftrace tcp_probe / tcp_cong_state_set text or /proc/net/tcpprobe
// lines, then summarised. It must never crash, hang or leak.
#include <cstddef>
#include <cstdint>

#include "fuzz/fuzz_input.h"
#include "parsers/host_state_summary.h"
#include "parsers/tcp_probe.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  ccreplay::TcpProbeParser parser("fuzz");
  ccreplay::ForEachLine(data, size, [&](absl::string_view line) {
    parser.AddLine(line);
    (void)parser.LooksWrong();
  });
  absl::StatusOr<ccreplay::HostStateLog> log = parser.Finish();
  if (log.ok()) {
    for (const ccreplay::HostTrace& trace : log->traces)
      (void)ccreplay::SummarizeHostTrace(trace);
  }
  return 0;
}
