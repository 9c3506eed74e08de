// A file opened for streaming reads, decompressed on the fly (zlib's
// inflate) when it starts with the gzip magic; every input goes through here.
// Parsers read through it so that `.gz` inputs work everywhere and no input
// is ever loaded whole.
#ifndef CCREPLAY_PARSERS_INPUT_FILE_H_
#define CCREPLAY_PARSERS_INPUT_FILE_H_

#include <zlib.h>

#include <cstdint>
#include <cstdio>
#include <memory>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "parsers/append_buffer.h"
#include "parsers/input_stream.h"

namespace ccreplay {

class InputFile {
 public:
  // The longest line ReadLine returns. No line of the text logs ccreplay
  // reads comes near it (an `ss -ti` line is under 2 KiB, a qlog or quicly
  // event a few KiB); longer lines are skipped, so that memory stays bounded
  // whatever the input.
  static constexpr size_t kMaxLineBytes = 1 << 20;
  // Past this many bytes without a line break the rest of the input is not
  // a text log: ReadLine stops with DataLoss (the lines before it are
  // kept, as for a cut) instead of skipping forever (`/dev/zero`).
  static constexpr uint64_t kMaxLineBreakGapBytes = uint64_t{1} << 30;

  // NotFound / PermissionDenied when the file cannot be opened, Unavailable
  // when it is a directory or another I/O error stops it. "-" is stdin; it,
  // a FIFO or a pipe is read through its InputStream (parsers/input_stream.h),
  // so that opening it again starts from its first byte.
  static absl::StatusOr<std::unique_ptr<InputFile>> Open(
      const std::string& path);
  ~InputFile();
  InputFile(const InputFile&) = delete;
  InputFile& operator=(const InputFile&) = delete;

  // Reads up to `size` bytes; 0 at the end of the data. A compressed stream
  // cut short or corrupt is DataLoss naming the compressed and decompressed
  // offsets, returned after every byte decompressed before it; an I/O
  // error is Unavailable.
  absl::StatusOr<size_t> Read(char* buffer, size_t size);

  // Reads the next line, without its "\n" or "\r\n", into `line`. Returns
  // false at the end of the data or on an error (see status()); a line cut
  // by an error is dropped. A line longer than kMaxLineBytes is returned
  // empty (its bytes are skipped, so line numbers stay true), counted, and
  // the first one is described in warnings().
  bool ReadLine(std::string* line);

  // The first error met by ReadLine or the stdio view, if any.
  const absl::Status& status() const { return status_; }
  // Lines skipped by ReadLine for being longer than kMaxLineBytes.
  uint64_t overlong_lines() const { return overlong_lines_; }
  // What ReadLine skipped, for the user (at most one message per kind).
  const std::vector<std::string>& warnings() const { return warnings_; }

  // Bytes of (decompressed) data consumed so far.
  uint64_t offset() const { return offset_; }
  // Bytes of the input as stored (compressed, for gzip) read so far.
  uint64_t raw_bytes_read() const { return compressed_read_; }
  const std::string& path() const { return path_; }
  bool gzip() const { return gzip_; }
  // A regular file (not stdin, a FIFO or a pipe): it may be opened again.
  bool regular() const { return stream_ == nullptr; }

  // A read-only stdio view of the (decompressed) data, for libraries that
  // take a FILE* (libpcap's pcap_fopen_offline, which closes it). The caller
  // owns the FILE*; this object must outlive it. Use either this view or
  // Read/ReadLine, not both. ftell() on it works; seeking does not.
  FILE* OpenStdio();

  // From now on, every byte Read hands out is appended to `*copy` too,
  // until the copy would pass its capacity: then it is emptied and
  // abandoned (copy_whole() stays false).
  void CopyTo(AppendBuffer* copy);
  // Every byte of the data is in the copy: Read reached the end with no
  // error and the copy was never abandoned.
  bool copy_whole() const { return copy_ != nullptr && copy_at_end_; }

 private:
  InputFile(std::string path, int fd, std::shared_ptr<InputStream> stream);
  static ssize_t CookieRead(void* cookie, char* buffer, size_t size);
  static int CookieSeek(void* cookie, off64_t* position, int whence);
  static int CookieClose(void* cookie);
  bool Refill();
  // Bytes ReadLine has consumed (offset_ less what is still buffered).
  uint64_t consumed() const { return offset_ - (buffer_end_ - buffer_begin_); }
  void SkipOverlongLine(uint64_t line_start);
  // read(2) with EINTR retried; Unavailable on an error.
  absl::StatusOr<size_t> ReadFd(char* buffer, size_t size);
  // Decompresses into `buffer`; returns the bytes produced, and sets
  // `error` when the stream cannot go on.
  size_t Inflate(char* buffer, size_t size, absl::Status* error);
  // DataLoss for the compressed stream, `produced` bytes into this read.
  absl::Status CompressedError(absl::string_view reason, size_t produced) const;

  std::string path_;
  int fd_;  // -1 when read through stream_.
  std::shared_ptr<InputStream> stream_;
  bool gzip_ = false;
  z_stream zstream_ = {};
  std::unique_ptr<unsigned char[]> compressed_;  // Input to inflate.
  size_t compressed_bytes_ = 0;                  // Its size.
  uint64_t compressed_read_ = 0;                 // Bytes read from fd_.
  bool member_ended_ = false;  // The last gzip member is complete.
  uint64_t offset_ = 0;
  AppendBuffer* copy_ = nullptr;  // CopyTo's.
  bool copy_at_end_ = false;
  absl::Status status_;
  absl::Status pending_error_;
  // Line-reading buffer.
  std::unique_ptr<char[]> buffer_;
  size_t line_buffer_bytes_ = 0;  // Its size.
  size_t buffer_begin_ = 0;
  size_t buffer_end_ = 0;
  bool eof_ = false;
  uint64_t line_number_ = 0;
  uint64_t overlong_lines_ = 0;
  std::vector<std::string> warnings_;
};

}  // namespace ccreplay

#endif  // CCREPLAY_PARSERS_INPUT_FILE_H_
