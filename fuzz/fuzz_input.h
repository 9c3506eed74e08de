// What every fuzz target needs to hand its bytes to a reader: a file that
// path-taking readers can open (an anonymous in-memory file, named by its
// /proc/self/fd path, so nothing touches the disk and nothing is left
// behind), and the bytes split into lines for the line-fed parsers.
#ifndef CCREPLAY_FUZZ_FUZZ_INPUT_H_
#define CCREPLAY_FUZZ_FUZZ_INPUT_H_

#include <cstddef>
#include <cstdint>
#include <string>

#include "absl/functional/function_ref.h"
#include "absl/strings/string_view.h"

namespace ccreplay {

// The bytes as a file; closed (and gone) when this object is.
class FuzzFile {
 public:
  FuzzFile(const uint8_t* data, size_t size);
  ~FuzzFile();
  FuzzFile(const FuzzFile&) = delete;
  FuzzFile& operator=(const FuzzFile&) = delete;

  // False when the file could not be made (the target then skips).
  bool ok() const { return fd_ >= 0; }
  // "/proc/self/fd/N": each open() of it reads from the first byte.
  const std::string& path() const { return path_; }

 private:
  int fd_ = -1;
  std::string path_;
};

// Calls `line` for every '\n'-separated line of the bytes, the last one
// even without its '\n'. A '\r' before the '\n' stays, so the parsers
// meet it too (InputFile::ReadLine would strip it).
void ForEachLine(const uint8_t* data, size_t size,
                 absl::FunctionRef<void(absl::string_view)> line);

}  // namespace ccreplay

#endif  // CCREPLAY_FUZZ_FUZZ_INPUT_H_
