#include "parsers/input_file.h"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include "absl/strings/str_cat.h"

namespace ccreplay {
namespace {

constexpr size_t kBufferBytes = 1 << 18;

bool HasGzipMagic(int fd) {
  unsigned char magic[2] = {0, 0};
  ssize_t n = pread(fd, magic, 2, 0);
  return n == 2 && magic[0] == 0x1f && magic[1] == 0x8b;
}

}  // namespace

absl::StatusOr<std::unique_ptr<InputFile>> InputFile::Open(
    const std::string& path) {
  int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) {
    int err = errno;
    std::string message = absl::StrCat(path, ": ", std::strerror(err));
    if (err == ENOENT) return absl::NotFoundError(message);
    if (err == EACCES) return absl::PermissionDeniedError(message);
    return absl::UnavailableError(message);
  }
  bool gzip = HasGzipMagic(fd);
  gzFile gz = gzdopen(fd, "rb");
  if (gz == nullptr) {
    ::close(fd);
    return absl::UnavailableError(
        absl::StrCat(path, ": cannot open for reading"));
  }
  gzbuffer(gz, kBufferBytes);
  return std::unique_ptr<InputFile>(new InputFile(path, gz, gzip));
}

InputFile::InputFile(std::string path, gzFile gz, bool gzip)
    : path_(std::move(path)), gz_(gz), gzip_(gzip) {}

InputFile::~InputFile() { gzclose(gz_); }

absl::StatusOr<size_t> InputFile::Read(char* buffer, size_t size) {
  // An error met after some bytes were read is reported on the next call,
  // so that no decompressed byte is lost.
  if (!pending_error_.ok()) return pending_error_;
  size_t total = 0;
  while (total < size) {
    unsigned chunk =
        static_cast<unsigned>(std::min<size_t>(size - total, 1u << 30));
    int n = gzread(gz_, buffer + total, chunk);
    int errnum = Z_OK;
    const char* message = n <= 0 ? gzerror(gz_, &errnum) : "";
    if (n < 0 || (n == 0 && errnum != Z_OK)) {
      // zlib reports a gzip stream cut short as Z_BUF_ERROR at the end.
      pending_error_ = absl::DataLossError(
          errnum == Z_BUF_ERROR
              ? absl::StrCat("compressed data cut short after ", offset_,
                             " decompressed bytes")
              : absl::StrCat(path_, ": read error at byte offset ", offset_,
                             ": ", message));
      if (total > 0) return total;
      return pending_error_;
    }
    if (n == 0) break;
    total += static_cast<size_t>(n);
    offset_ += static_cast<uint64_t>(n);
  }
  return total;
}

bool InputFile::Refill() {
  if (eof_) return false;
  if (!buffer_) buffer_.reset(new char[kBufferBytes]);
  if (buffer_begin_ > 0) {
    std::memmove(buffer_.get(), buffer_.get() + buffer_begin_,
                 buffer_end_ - buffer_begin_);
    buffer_end_ -= buffer_begin_;
    buffer_begin_ = 0;
  }
  if (buffer_end_ == kBufferBytes) return false;
  absl::StatusOr<size_t> n =
      Read(buffer_.get() + buffer_end_, kBufferBytes - buffer_end_);
  if (!n.ok()) {
    status_ = n.status();
    eof_ = true;
    return false;
  }
  if (*n == 0) eof_ = true;
  buffer_end_ += *n;
  return *n > 0;
}

bool InputFile::ReadLine(std::string* line) {
  line->clear();
  while (true) {
    const char* begin = buffer_ ? buffer_.get() + buffer_begin_ : nullptr;
    size_t available = buffer_end_ - buffer_begin_;
    const void* newline =
        available > 0 ? std::memchr(begin, '\n', available) : nullptr;
    if (newline != nullptr) {
      size_t length = static_cast<const char*>(newline) - begin;
      line->append(begin, length);
      buffer_begin_ += length + 1;
      if (!line->empty() && line->back() == '\r') line->pop_back();
      return true;
    }
    // No newline in the buffer: keep what there is and read more. A line
    // longer than the buffer is returned in buffer-sized pieces' sum.
    if (available == kBufferBytes) {
      line->append(begin, available);
      buffer_begin_ = buffer_end_ = 0;
    }
    if (!Refill()) {
      size_t rest = buffer_end_ - buffer_begin_;
      if (rest == 0 && line->empty()) return false;
      line->append(buffer_.get() + buffer_begin_, rest);
      buffer_begin_ = buffer_end_ = 0;
      if (!line->empty() && line->back() == '\r') line->pop_back();
      return true;
    }
  }
}

ssize_t InputFile::CookieRead(void* cookie, char* buffer, size_t size) {
  auto* self = static_cast<InputFile*>(cookie);
  absl::StatusOr<size_t> n = self->Read(buffer, size);
  if (!n.ok()) {
    self->status_ = n.status();
    errno = EIO;
    return -1;
  }
  return static_cast<ssize_t>(*n);
}

// Only "where am I" is supported (ftell), which libpcap and our truncation
// warnings use; real seeks fail.
int InputFile::CookieSeek(void* cookie, off64_t* position, int whence) {
  auto* self = static_cast<InputFile*>(cookie);
  if (whence == SEEK_CUR && *position == 0) {
    *position = static_cast<off64_t>(self->offset_);
    return 0;
  }
  errno = ESPIPE;
  return -1;
}

int InputFile::CookieClose(void*) { return 0; }

FILE* InputFile::OpenStdio() {
  // CookieClose leaves gz_ open: this object closes it.
  cookie_io_functions_t io = {CookieRead, nullptr, CookieSeek, CookieClose};
  FILE* stdio = fopencookie(this, "rb", io);
  if (stdio != nullptr) setvbuf(stdio, nullptr, _IOFBF, kBufferBytes);
  return stdio;
}

}  // namespace ccreplay
