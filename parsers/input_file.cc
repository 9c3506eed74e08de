#include "parsers/input_file.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include "absl/strings/match.h"
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
  struct stat st;
  if (fstat(fd, &st) == 0 && S_ISDIR(st.st_mode)) {
    ::close(fd);
    return absl::UnavailableError(absl::StrCat(path, ": is a directory"));
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

absl::Status InputFile::ReadError(int zlib_error, int saved_errno,
                                  absl::string_view zlib_message) const {
  // zlib reports a gzip stream cut short as Z_BUF_ERROR at the end.
  if (zlib_error == Z_BUF_ERROR) {
    return absl::DataLossError(
        absl::StrCat(path_, ": compressed data cut short after ", offset_,
                     " decompressed bytes"));
  }
  if (zlib_error == Z_ERRNO) {
    return absl::UnavailableError(absl::StrCat(path_, ": read error after ",
                                               offset_, " bytes: ",
                                               std::strerror(saved_errno)));
  }
  // zlib's message starts with the name it was given, "<fd:N>: ", which
  // means nothing to the user: name the path instead.
  const size_t name_end = zlib_message.find(": ");
  if (absl::StartsWith(zlib_message, "<fd:") &&
      name_end != absl::string_view::npos) {
    zlib_message.remove_prefix(name_end + 2);
  }
  return absl::DataLossError(
      absl::StrCat(path_, ": corrupt compressed data after ", offset_,
                   " decompressed bytes: ", zlib_message));
}

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
    const int saved_errno = errno;
    const char* message = n <= 0 ? gzerror(gz_, &errnum) : "";
    if (n < 0 || (n == 0 && errnum != Z_OK)) {
      pending_error_ = ReadError(errnum, saved_errno, message);
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
  uint64_t line_start = consumed();
  bool overlong = false;
  while (true) {
    const char* begin = buffer_ ? buffer_.get() + buffer_begin_ : nullptr;
    const size_t available = buffer_end_ - buffer_begin_;
    const void* newline =
        available > 0 ? std::memchr(begin, '\n', available) : nullptr;
    const size_t length =
        newline != nullptr ? static_cast<const char*>(newline) - begin
                           : available;
    // Past kMaxLineBytes the line's bytes are dropped, not kept.
    overlong = overlong || line->size() + length > kMaxLineBytes;
    if (overlong) {
      line->clear();
    } else {
      line->append(begin, length);
    }
    buffer_begin_ += length + (newline != nullptr ? 1 : 0);
    if (newline != nullptr) {
      ++line_number_;
      if (overlong) {
        // Skipped: read the next line instead.
        SkipOverlongLine(line_start);
        line_start = consumed();
        overlong = false;
        continue;
      }
      if (!line->empty() && line->back() == '\r') line->pop_back();
      return true;
    }
    if (consumed() - line_start > kMaxLineBreakGapBytes) {
      status_ = absl::InvalidArgumentError(absl::StrCat(
          path_, ": no line break in the ", consumed() - line_start,
          " bytes from byte offset ", line_start, ": not a text log"));
      return false;
    }
    if (!Refill()) {
      // The end of the data, or an error: a line an error cut is dropped.
      if (!status_.ok() || consumed() == line_start) return false;
      ++line_number_;
      if (overlong) {
        SkipOverlongLine(line_start);
        return false;
      }
      if (!line->empty() && line->back() == '\r') line->pop_back();
      return true;
    }
  }
}

void InputFile::SkipOverlongLine(uint64_t line_start) {
  if (overlong_lines_++ == 0) {
    warnings_.push_back(absl::StrCat(
        path_, ":", line_number_, ": line of ", consumed() - line_start,
        " bytes (from byte offset ", line_start, "), longer than the ",
        kMaxLineBytes, " a line may have: skipped"));
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
