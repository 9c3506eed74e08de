// What an input is, judged by its content, never by its name: a capture
// (pcap, pcapng), a host-state log (ss, tcp_probe, qlog JSON or JSON-SEQ,
// quicly event log), gzip of any of them, or a lab bundle directory.
//
// ClassifyBytes works on a prefix of the data alone, so that an input read
// once from a pipe can be classified from the bytes peeked at its start;
// ClassifyInput is the wrapper for a path (directories, gzip).
#ifndef CCREPLAY_PARSERS_INPUT_KIND_H_
#define CCREPLAY_PARSERS_INPUT_KIND_H_

#include <cstddef>
#include <string>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"

namespace ccreplay {

enum class InputKind {
  kUnknown,  // none of the formats below
  kEmpty,    // no bytes at all (or only white space)
  kGzip,     // gzip: classify the decompressed bytes
  kPcap,
  kPcapng,
  kSsLog,            // `ss -tin` output
  kTcpProbe,         // tcp:tcp_probe ftrace text or /proc/net/tcpprobe lines
  kQlogJson,         // qlog, one JSON document (draft-00 .. 0.3 "JSON")
  kQlogJsonSeq,      // qlog JSON-SEQ (RFC 7464 records, or "JSON-SEQ" header)
  kQuiclyLog,        // quicly's JSON-lines event log
  kBundleDirectory,  // a directory: read as a `ccreplay lab` bundle
};

// How many bytes ClassifyBytes wants to see: the text formats are judged
// on their first lines, which fit in this.
constexpr size_t kClassifyPrefixBytes = 64 << 10;

// The kind of data that starts with `first_bytes` (a prefix of up to
// kClassifyPrefixBytes; shorter when the data is shorter).
InputKind ClassifyBytes(absl::string_view first_bytes);

struct InputClass {
  InputKind kind = InputKind::kUnknown;
  bool gzip = false;  // `kind` was found inside gzip
};

// The kind of the file or directory at `path`, looking through gzip.
// NotFound / PermissionDenied when it cannot be read.
absl::StatusOr<InputClass> ClassifyInput(const std::string& path);

bool IsCapture(InputKind kind);
bool IsQlog(InputKind kind);
// "pcap", "qlog JSON-SEQ", "lab bundle directory", ...
const char* InputKindName(InputKind kind);

}  // namespace ccreplay

#endif  // CCREPLAY_PARSERS_INPUT_KIND_H_
