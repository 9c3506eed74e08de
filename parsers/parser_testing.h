// Helpers the parsers' tests share: a scratch input file, and a host-state
// trace by its local endpoint. Header-only; tests only.
#ifndef CCREPLAY_PARSERS_PARSER_TESTING_H_
#define CCREPLAY_PARSERS_PARSER_TESTING_H_

#include <zlib.h>

#include <cstdint>
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

// The classic pcap file at `path` (gzip-compressed or not) with every
// record written twice in a row: what `mergecap -w out.pcap F F` makes
// (it takes equal timestamps from its first file first), a capture in
// which every frame was seen twice. Empty when unreadable.
inline std::string DoubledPcap(const std::string& path) {
  gzFile in = gzopen(path.c_str(), "rb");
  if (in == nullptr) return "";
  std::string bytes;
  char buffer[1 << 16];
  for (int n; (n = gzread(in, buffer, sizeof(buffer))) > 0;)
    bytes.append(buffer, static_cast<size_t>(n));
  gzclose(in);
  if (bytes.size() < 24) return "";
  // pcap-savefile(5): the magic's byte order is the file's.
  const bool little = static_cast<uint8_t>(bytes[0]) == 0xd4 ||
                      static_cast<uint8_t>(bytes[0]) == 0x4d;
  auto u32 = [&](size_t at) {
    uint32_t v = 0;
    for (int i = 0; i < 4; ++i) {
      const uint8_t b = static_cast<uint8_t>(bytes[at + (little ? 3 - i : i)]);
      v = v << 8 | b;
    }
    return v;
  };
  std::string out = bytes.substr(0, 24);
  for (size_t at = 24; at + 16 <= bytes.size();) {
    const size_t record = 16 + u32(at + 8);  // Header + captured length.
    out += bytes.substr(at, record);
    out += bytes.substr(at, record);
    at += record;
  }
  return out;
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
