#include "fuzz/fuzz_input.h"

#include <sys/mman.h>
#include <unistd.h>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"

namespace ccreplay {

FuzzFile::FuzzFile(const uint8_t* data, size_t size) {
  fd_ = memfd_create("ccreplay_fuzz", MFD_CLOEXEC);
  if (fd_ < 0) return;
  size_t written = 0;
  while (written < size) {
    const ssize_t n = write(fd_, data + written, size - written);
    if (n <= 0) {
      close(fd_);
      fd_ = -1;
      return;
    }
    written += static_cast<size_t>(n);
  }
  path_ = absl::StrCat("/proc/self/fd/", fd_);
}

FuzzFile::~FuzzFile() {
  if (fd_ >= 0) close(fd_);
}

void ForEachLine(const uint8_t* data, size_t size,
                 absl::FunctionRef<void(absl::string_view)> line) {
  const absl::string_view text(reinterpret_cast<const char*>(data), size);
  for (absl::string_view piece : absl::StrSplit(text, '\n')) line(piece);
}

}  // namespace ccreplay
