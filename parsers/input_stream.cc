#include "parsers/input_stream.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>

#include "absl/container/flat_hash_map.h"
#include "absl/strings/str_cat.h"

namespace ccreplay {
namespace {

absl::Status OpenError(const std::string& path, int err) {
  std::string message = absl::StrCat(path, ": ", std::strerror(err));
  if (err == ENOENT) return absl::NotFoundError(message);
  if (err == EACCES) return absl::PermissionDeniedError(message);
  return absl::UnavailableError(message);
}

// Every stream opened so far, by path; they live until the process ends
// (stdin is never closed).
struct Registry {
  absl::Mutex mu;
  absl::flat_hash_map<std::string, std::shared_ptr<InputStream>> streams
      ABSL_GUARDED_BY(mu);
};

Registry& Streams() {
  static Registry* registry = new Registry;
  return *registry;
}

// An unlinked temporary file in $TMPDIR (or /tmp).
absl::StatusOr<int> TemporaryFile() {
  const char* dir = std::getenv("TMPDIR");
  std::string path = absl::StrCat(dir != nullptr && *dir ? dir : "/tmp",
                                  "/ccreplay-spool-XXXXXX");
  const int fd = mkostemp(path.data(), O_CLOEXEC);
  if (fd < 0) return OpenError(path, errno);
  unlink(path.c_str());
  return fd;
}

}  // namespace

absl::StatusOr<std::shared_ptr<InputStream>> InputStream::ForPath(
    const std::string& path) {
  Registry& registry = Streams();
  absl::MutexLock lock(&registry.mu);
  auto it = registry.streams.find(path);
  if (it != registry.streams.end()) return it->second;
  int fd = 0;  // "-": stdin.
  if (path != "-") {
    struct stat st;
    if (::stat(path.c_str(), &st) != 0) return OpenError(path, errno);
    if (S_ISREG(st.st_mode) || S_ISDIR(st.st_mode)) return nullptr;
    fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
    if (fd < 0) return OpenError(path, errno);
  }
  std::shared_ptr<InputStream> stream(new InputStream(path, fd));
  registry.streams[path] = stream;
  return stream;
}

absl::StatusOr<size_t> InputStream::ReadFd(char* buffer, size_t size) {
  while (true) {
    const ssize_t n = ::read(fd_, buffer, size);
    if (n >= 0) return static_cast<size_t>(n);
    if (errno == EINTR) continue;
    return absl::UnavailableError(
        absl::StrCat(path_, ": read error after ", fd_read_,
                     " bytes: ", std::strerror(errno)));
  }
}

absl::StatusOr<size_t> InputStream::ReadAt(uint64_t position, char* buffer,
                                           size_t size) {
  absl::MutexLock lock(&mu_);
  if (spool_fd_ >= 0) {
    const ssize_t n = ::pread(spool_fd_, buffer, size, position);
    if (n < 0) return OpenError(path_, errno);
    return static_cast<size_t>(n);
  }
  if (kept_whole_ && position < kept_.size()) {
    const size_t n = std::min<uint64_t>(size, kept_.size() - position);
    std::memcpy(buffer, kept_.data() + position, n);
    return n;
  }
  if (position != fd_read_) {
    return absl::FailedPreconditionError(
        absl::StrCat(path_,
                     ": a pipe or FIFO can be read only once, and this command "
                     "needs its start again: give a file instead"));
  }
  absl::StatusOr<size_t> n = ReadFd(buffer, size);
  if (!n.ok()) return n.status();
  fd_read_ += *n;
  if (kept_whole_ && kept_.size() + *n <= kReplayBytes) {
    kept_.append(buffer, *n);
  } else if (kept_whole_) {
    kept_whole_ = false;  // Past the kept bytes: no reader can start over.
    std::string().swap(kept_);
  }
  return n;
}

absl::StatusOr<uint64_t> InputStream::Spool() {
  absl::MutexLock lock(&mu_);
  if (spool_fd_ >= 0) return 0;
  if (!kept_whole_) {
    return absl::FailedPreconditionError(
        absl::StrCat(path_, ": already read past its start: cannot spool"));
  }
  absl::StatusOr<int> spool = TemporaryFile();
  if (!spool.ok()) return spool.status();
  std::string chunk = std::move(kept_);
  kept_whole_ = false;
  uint64_t total = 0;
  while (true) {
    if (!chunk.empty() && ::write(*spool, chunk.data(), chunk.size()) !=
                              static_cast<ssize_t>(chunk.size())) {
      const int err = errno;
      ::close(*spool);
      return absl::UnavailableError(absl::StrCat(
          path_, ": cannot spool to a temporary file: ", std::strerror(err)));
    }
    total += chunk.size();
    chunk.resize(kReplayBytes);
    absl::StatusOr<size_t> n = ReadFd(chunk.data(), chunk.size());
    if (!n.ok()) {
      ::close(*spool);
      return n.status();
    }
    if (*n == 0) break;
    fd_read_ += *n;
    chunk.resize(*n);
  }
  spool_fd_ = *spool;
  return total;
}

absl::StatusOr<std::string> SpoolForRereading(const std::string& path) {
  absl::StatusOr<std::shared_ptr<InputStream>> stream =
      InputStream::ForPath(path);
  if (!stream.ok() || *stream == nullptr) return std::string();
  absl::StatusOr<uint64_t> bytes = (*stream)->Spool();
  if (!bytes.ok()) return bytes.status();
  if (*bytes == 0) return std::string();
  return absl::StrCat(path,
                      ": not a regular file, and this command reads it twice: "
                      "copied to a temporary file (",
                      *bytes, " bytes)");
}

}  // namespace ccreplay
