#include "parsers/input_file.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"

namespace ccreplay {
namespace {

constexpr size_t kBufferBytes = 1 << 18;

// A buffer for a regular file of `size` bytes: kBufferBytes, or less for a
// smaller file, so that a small input (a test, a fuzz execution) does not
// allocate and map 256 KiB per open. Reads are the same either way.
size_t BufferBytesFor(uint64_t size) {
  return static_cast<size_t>(
      std::clamp<uint64_t>(size + 1, uint64_t{4096}, kBufferBytes));
}

bool HasGzipMagic(const unsigned char* magic, size_t n) {
  return n == 2 && magic[0] == 0x1f && magic[1] == 0x8b;
}

// The first two bytes, read without consuming them (the stream keeps them).
size_t PeekMagic(int fd, InputStream* stream, unsigned char* magic) {
  if (stream == nullptr) return std::max<ssize_t>(0, pread(fd, magic, 2, 0));
  size_t filled = 0;
  while (filled < 2) {
    absl::StatusOr<size_t> n = stream->ReadAt(
        filled, reinterpret_cast<char*>(magic) + filled, 2 - filled);
    if (!n.ok() || *n == 0) break;
    filled += *n;
  }
  return filled;
}

}  // namespace

absl::StatusOr<std::unique_ptr<InputFile>> InputFile::Open(
    const std::string& path) {
  absl::StatusOr<std::shared_ptr<InputStream>> stream =
      InputStream::ForPath(path);
  if (!stream.ok()) return stream.status();
  int fd = -1;
  size_t buffer_bytes = kBufferBytes;
  if (*stream == nullptr) {
    fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
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
    if (S_ISREG(st.st_mode)) buffer_bytes = BufferBytesFor(st.st_size);
  }
  std::unique_ptr<InputFile> file(new InputFile(path, fd, *std::move(stream)));
  unsigned char magic[2] = {0, 0};
  file->gzip_ = HasGzipMagic(magic, PeekMagic(fd, file->stream_.get(), magic));
  // Decompressed lines may be longer than the file: their buffer is whole.
  file->line_buffer_bytes_ = file->gzip_ ? kBufferBytes : buffer_bytes;
  if (!file->gzip_) return file;
  file->compressed_bytes_ = buffer_bytes;
  file->compressed_.reset(new unsigned char[buffer_bytes]);
  // 16 + MAX_WBITS: a gzip wrapper, not a zlib one (zlib.h, inflateInit2).
  if (inflateInit2(&file->zstream_, 16 + MAX_WBITS) != Z_OK) {
    file->gzip_ = false;
    return absl::UnavailableError(
        absl::StrCat(path, ": cannot set up decompression"));
  }
  return file;
}

InputFile::InputFile(std::string path, int fd,
                     std::shared_ptr<InputStream> stream)
    : path_(std::move(path)), fd_(fd), stream_(std::move(stream)) {}

InputFile::~InputFile() {
  if (gzip_) inflateEnd(&zstream_);
  if (fd_ >= 0) ::close(fd_);
}

absl::StatusOr<size_t> InputFile::ReadFd(char* buffer, size_t size) {
  while (true) {
    if (stream_ != nullptr) {
      absl::StatusOr<size_t> n =
          stream_->ReadAt(compressed_read_, buffer, size);
      if (!n.ok()) return n.status();
      return *n;
    }
    const ssize_t n = ::read(fd_, buffer, size);
    if (n >= 0) return static_cast<size_t>(n);
    if (errno == EINTR) continue;
    return absl::UnavailableError(
        absl::StrCat(path_, ": read error after ", compressed_read_,
                     " bytes: ", std::strerror(errno)));
  }
}

absl::StatusOr<size_t> InputFile::Read(char* buffer, size_t size) {
  // An error met after some bytes were read is reported on the next call,
  // so that no decompressed byte is lost.
  if (!pending_error_.ok()) return pending_error_;
  absl::Status error;
  size_t total = 0;
  if (!gzip_) {
    while (total < size && error.ok()) {
      absl::StatusOr<size_t> n = ReadFd(buffer + total, size - total);
      if (!n.ok()) error = n.status();
      if (n.ok() && *n == 0) break;
      total += n.value_or(0);
      compressed_read_ += n.value_or(0);
    }
  } else {
    total = Inflate(buffer, size, &error);
  }
  offset_ += total;
  if (copy_ != nullptr) {
    if (copy_->Append(absl::string_view(buffer, total))) {
      copy_at_end_ = error.ok() && total == 0 && size > 0;
    } else {
      copy_->Clear();
      copy_ = nullptr;
    }
  }
  if (error.ok()) return total;
  pending_error_ = error;
  if (total > 0) return total;
  return pending_error_;
}

void InputFile::CopyTo(AppendBuffer* copy) {
  copy_ = copy;
  copy_at_end_ = false;
}

size_t InputFile::Inflate(char* buffer, size_t size, absl::Status* error) {
  zstream_.next_out = reinterpret_cast<Bytef*>(buffer);
  zstream_.avail_out = static_cast<uInt>(std::min<size_t>(size, 1u << 30));
  const uInt wanted = zstream_.avail_out;
  while (zstream_.avail_out > 0) {
    if (zstream_.avail_in == 0) {
      absl::StatusOr<size_t> n =
          ReadFd(reinterpret_cast<char*>(compressed_.get()), compressed_bytes_);
      if (!n.ok()) {
        *error = n.status();
        break;
      }
      if (*n == 0) {
        if (!member_ended_) {
          *error = CompressedError("compressed data cut short",
                                   wanted - zstream_.avail_out);
        }
        break;
      }
      compressed_read_ += *n;
      zstream_.next_in = compressed_.get();
      zstream_.avail_in = static_cast<uInt>(*n);
    }
    if (member_ended_) {
      // RFC 1952 §2.2: members may follow one another; anything else after
      // a member is ignored, as gzip(1) does with trailing zeros.
      if (zstream_.next_in[0] != 0x1f) {
        zstream_.avail_in = 0;
        continue;
      }
      inflateReset(&zstream_);
      member_ended_ = false;
    }
    const int rc = inflate(&zstream_, Z_NO_FLUSH);
    if (rc == Z_STREAM_END) {
      member_ended_ = true;
    } else if (rc != Z_OK && rc != Z_BUF_ERROR) {
      *error = CompressedError(
          absl::StrCat("corrupt compressed data (",
                       zstream_.msg != nullptr ? zstream_.msg : "zlib error",
                       ")"),
          wanted - zstream_.avail_out);
      break;
    }
  }
  return wanted - zstream_.avail_out;
}

absl::Status InputFile::CompressedError(absl::string_view reason,
                                        size_t produced) const {
  return absl::DataLossError(
      absl::StrCat(path_, ": ", reason, " at compressed byte offset ",
                   compressed_read_ - zstream_.avail_in, ", after ",
                   offset_ + produced, " decompressed bytes"));
}

bool InputFile::Refill() {
  if (eof_) return false;
  if (!buffer_) buffer_.reset(new char[line_buffer_bytes_]);
  if (buffer_begin_ > 0) {
    std::memmove(buffer_.get(), buffer_.get() + buffer_begin_,
                 buffer_end_ - buffer_begin_);
    buffer_end_ -= buffer_begin_;
    buffer_begin_ = 0;
  }
  if (buffer_end_ == line_buffer_bytes_) return false;
  absl::StatusOr<size_t> n =
      Read(buffer_.get() + buffer_end_, line_buffer_bytes_ - buffer_end_);
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
  const uint64_t line_start = consumed();
  bool overlong = false;
  while (true) {
    const char* begin = buffer_ ? buffer_.get() + buffer_begin_ : nullptr;
    const size_t available = buffer_end_ - buffer_begin_;
    const void* newline =
        available > 0 ? std::memchr(begin, '\n', available) : nullptr;
    const size_t length = newline != nullptr
                              ? static_cast<const char*>(newline) - begin
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
      // A skipped line is handed on empty, so that line numbers stay true.
      if (overlong) SkipOverlongLine(line_start);
      if (!line->empty() && line->back() == '\r') line->pop_back();
      return true;
    }
    if (consumed() - line_start > kMaxLineBreakGapBytes) {
      // DataLoss: the rest of the input is given up, as for a cut.
      status_ = absl::DataLossError(
          absl::StrCat(path_, ": no line break in the ",
                       consumed() - line_start, " bytes from byte offset ",
                       line_start, ": the rest is not a text log"));
      return false;
    }
    if (!Refill()) {
      // The end of the data, or an error: a line an error cut is dropped.
      if (!status_.ok() || consumed() == line_start) return false;
      ++line_number_;
      if (overlong) SkipOverlongLine(line_start);
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
  // CookieClose leaves the file open: this object closes it.
  cookie_io_functions_t io = {CookieRead, nullptr, CookieSeek, CookieClose};
  FILE* stdio = fopencookie(this, "rb", io);
  if (stdio != nullptr) setvbuf(stdio, nullptr, _IOFBF, kBufferBytes);
  return stdio;
}

}  // namespace ccreplay
