// A capture filter: an expression of libpcap's filter language
// (pcap-filter(7), as `tcpdump` takes it), compiled by pcap_compile() for
// the link type of the frames it judges and run on each raw frame by
// pcap_offline_filter(), before the frame is decoded. A frame it rejects is
// as if it were not in the capture.
#ifndef CCREPLAY_PARSERS_CAPTURE_FILTER_H_
#define CCREPLAY_PARSERS_CAPTURE_FILTER_H_

#include <pcap/pcap.h>

#include <cstdint>
#include <functional>
#include <memory>
#include <string>

#include "absl/container/flat_hash_map.h"
#include "absl/status/status.h"
#include "absl/status/statusor.h"

namespace ccreplay {

// How far a capture reader has got, for a progress display.
struct ReadProgress {
  // Of the input as stored (compressed for .gz), or of the decompressed
  // bytes a gzip capture's earlier read kept (DecompressedCapture).
  uint64_t bytes_read = 0;
  uint64_t total_bytes = 0;  // Their size; 0 when unknown (a pipe).
  uint64_t packets = 0;      // Packet records read.
};
using ProgressCallback = std::function<void(const ReadProgress&)>;

struct DecompressedCapture;  // parsers/pcap_reader.h

// What a caller asks of ReadCapture (parsers/pcap_reader.h) besides the
// input.
struct CaptureReadOptions {
  // A pcap-filter(7) expression; empty: every frame.
  std::string filter;
  // Called every kProgressPackets records and once at the end; may be empty.
  ProgressCallback progress;
  // May be null. A read of a gzip-compressed capture keeps what it
  // decompressed here, and a later read of the same path with the same
  // object takes those bytes instead of inflating the file again (callers
  // that read a capture more than once: the replay reads it two or three
  // times, and inflating is about a quarter of a read).
  std::shared_ptr<DecompressedCapture> reuse;
};

// Whether `expression` compiles (for Ethernet, whose link layer accepts
// every primitive of the language but the link-specific ones of other
// types). InvalidArgument with libpcap's message otherwise.
absl::Status CheckCaptureFilter(const std::string& expression);

// The compiled programs of one expression, one per link type met.
class FrameFilter {
 public:
  // An empty `expression` passes every frame.
  explicit FrameFilter(std::string expression);
  ~FrameFilter();
  FrameFilter(const FrameFilter&) = delete;
  FrameFilter& operator=(const FrameFilter&) = delete;

  bool empty() const { return expression_.empty(); }

  // Compiles the program for `link_type`, before its first frame: OutOfRange
  // (a usage error: the expression is the user's) with libpcap's message
  // when the expression does not compile for it.
  absl::Status Prepare(int link_type);

  // Whether the frame of `link_type` with `captured` of `wire` bytes at
  // `data` passes: always without an expression, never for a link type not
  // prepared.
  bool Matches(int link_type, const uint8_t* data, uint32_t captured,
               uint32_t wire) const;

 private:
  struct Program;

  std::string expression_;
  absl::flat_hash_map<int, std::unique_ptr<Program>> programs_;
};

}  // namespace ccreplay

#endif  // CCREPLAY_PARSERS_CAPTURE_FILTER_H_
