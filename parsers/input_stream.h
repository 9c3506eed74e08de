// A non-seekable input (stdin as "-", a FIFO, a pipe from process
// substitution `<(zcat x)`) can be read only once, yet ccreplay opens an
// input more than once: format detection peeks at its start, then the
// parser reads it. An InputStream is that input opened once per process
// and shared by every InputFile opened on its path: it keeps the first
// bytes it read (up to kReplayBytes) so that a later open starts again from
// byte 0 as long as no reader went past them. A command that must read the
// whole input twice (the flow table, then the chosen flow's timeline) spools
// it first (SpoolForRereading).
#ifndef CCREPLAY_PARSERS_INPUT_STREAM_H_
#define CCREPLAY_PARSERS_INPUT_STREAM_H_

#include <cstdint>
#include <memory>
#include <string>

#include "absl/base/thread_annotations.h"
#include "absl/status/statusor.h"
#include "absl/synchronization/mutex.h"

namespace ccreplay {

class InputStream {
 public:
  // The raw bytes kept for a later open: more than format detection and
  // libpcap's header reading consume, together with the stdio and inflate
  // buffers in front of them (256 KiB each).
  static constexpr size_t kReplayBytes = size_t{1} << 20;

  // The stream for `path` when it is "-" (stdin) or not a regular file or
  // directory; nullptr for a regular file (opened normally) or a directory.
  // NotFound / PermissionDenied / Unavailable when `path` cannot be opened.
  static absl::StatusOr<std::shared_ptr<InputStream>> ForPath(
      const std::string& path);

  // Up to `size` raw bytes at `position`. FailedPrecondition when they are
  // gone (a previous reader went past the kept bytes and the input was not
  // spooled); Unavailable on an I/O error.
  absl::StatusOr<size_t> ReadAt(uint64_t position, char* buffer, size_t size);

  // Copies the rest of the input to an unlinked temporary file, so that it
  // can be read from the start any number of times. Returns the bytes
  // spooled (0 when it already was).
  absl::StatusOr<uint64_t> Spool();

  const std::string& path() const { return path_; }

 private:
  InputStream(std::string path, int fd) : path_(std::move(path)), fd_(fd) {}
  absl::StatusOr<size_t> ReadFd(char* buffer, size_t size)
      ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);

  const std::string path_;
  absl::Mutex mu_;
  int fd_ ABSL_GUARDED_BY(mu_);
  std::string kept_ ABSL_GUARDED_BY(mu_);        // Bytes [0, kept_.size()).
  bool kept_whole_ ABSL_GUARDED_BY(mu_) = true;  // kept_ = all bytes read.
  uint64_t fd_read_ ABSL_GUARDED_BY(mu_) = 0;    // Bytes read from fd_.
  int spool_fd_ ABSL_GUARDED_BY(mu_) = -1;       // Set once spooled.
};

// For a command that reads its input twice: when `path` is a non-seekable
// input, spools it and returns a warning saying so (empty when nothing was
// done).
absl::StatusOr<std::string> SpoolForRereading(const std::string& path);

}  // namespace ccreplay

#endif  // CCREPLAY_PARSERS_INPUT_STREAM_H_
