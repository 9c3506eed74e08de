// libFuzzer target for the qlog reader: any bytes as a qlog file (the
// reader streams from a file, so the bytes go into a memfd), then
// summarised. It must never crash, hang or leak.
#include <sys/mman.h>
#include <unistd.h>

#include <cstddef>
#include <cstdint>
#include <string>

#include "absl/strings/str_cat.h"
#include "parsers/host_state_summary.h"
#include "parsers/qlog.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  int fd = memfd_create("qlog_fuzz", MFD_CLOEXEC);
  if (fd < 0) return 0;
  size_t written = 0;
  while (written < size) {
    ssize_t n = write(fd, data + written, size - written);
    if (n <= 0) break;
    written += static_cast<size_t>(n);
  }
  absl::StatusOr<ccreplay::HostStateLog> log =
      ccreplay::ParseQlog(absl::StrCat("/proc/self/fd/", fd));
  if (log.ok()) {
    for (const ccreplay::HostTrace& trace : log->traces)
      (void)ccreplay::SummarizeHostTrace(trace);
  }
  close(fd);
  return 0;
}
