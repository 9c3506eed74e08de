// Helpers the parsers' tests share: a scratch input file, and a host-state
// trace by its local endpoint. Header-only; tests only.
#ifndef CCREPLAY_PARSERS_PARSER_TESTING_H_
#define CCREPLAY_PARSERS_PARSER_TESTING_H_

#include <fstream>
#include <string>

#include "gtest/gtest.h"
#include "parsers/host_state.h"

namespace ccreplay {

// Writes `contents` to `name` in the test's scratch directory; returns the
// path.
inline std::string WriteTemp(const std::string& name,
                             const std::string& contents) {
  std::string path = ::testing::TempDir() + "/" + name;
  std::ofstream(path, std::ios::binary) << contents;
  return path;
}

// The trace whose local endpoint is `local` ("addr:port"), null when none.
inline const HostTrace* FindTrace(const HostStateLog& log,
                                  const std::string& local) {
  for (const HostTrace& trace : log.traces) {
    if (trace.local_endpoint == local) return &trace;
  }
  return nullptr;
}

}  // namespace ccreplay

#endif  // CCREPLAY_PARSERS_PARSER_TESTING_H_
