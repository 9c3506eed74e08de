#include "parsers/append_buffer.h"

#include <sys/mman.h>

#include <cstring>

namespace ccreplay {
namespace {

// A transparent huge page on x86-64 and arm64 (4 KiB base pages).
constexpr size_t kHugePageBytes = size_t{2} << 20;

}  // namespace

AppendBuffer::~AppendBuffer() {
  if (data_ != nullptr) ::munmap(data_, mapped_);
}

bool AppendBuffer::Append(absl::string_view bytes) {
  if (bytes.size() > capacity_ - size_) return false;
  if (bytes.empty()) return true;
  if (data_ == nullptr) {
    // Rounded up to whole huge pages; the kernel backs a huge page only
    // where the range covers an aligned 2 MiB, which it mostly does.
    const size_t length =
        (capacity_ + kHugePageBytes - 1) / kHugePageBytes * kHugePageBytes;
    void* p = ::mmap(nullptr, length, PROT_READ | PROT_WRITE,
                     MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
    if (p == MAP_FAILED) return false;
    // Advice only: without THP the pages are ordinary ones.
    ::madvise(p, length, MADV_HUGEPAGE);
    data_ = static_cast<char*>(p);
    mapped_ = length;
  }
  std::memcpy(data_ + size_, bytes.data(), bytes.size());
  size_ += bytes.size();
  return true;
}

void AppendBuffer::Clear() {
  if (data_ != nullptr) ::munmap(data_, mapped_);
  data_ = nullptr;
  mapped_ = 0;
  size_ = 0;
}

}  // namespace ccreplay
