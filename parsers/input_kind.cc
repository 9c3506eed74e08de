#include "parsers/input_kind.h"

#include <algorithm>
#include <cstdint>
#include <filesystem>
#include <memory>
#include <system_error>
#include <vector>

#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "absl/strings/strip.h"
#include "parsers/input_file.h"

namespace ccreplay {
namespace {

// The first four bytes as a big-endian word.
uint32_t FirstWord(absl::string_view bytes) {
  uint32_t word = 0;
  for (size_t i = 0; i < 4; ++i)
    word = word << 8 | static_cast<unsigned char>(bytes[i]);
  return word;
}

// Magic numbers: pcap (pcap-savefile(5)) in either byte order, micro- and
// nanosecond variants; pcapng's Section Header Block type (RFC draft
// pcapng 4.1), the same in both byte orders; gzip (RFC 1952 2.3.1).
InputKind ClassifyMagic(absl::string_view bytes) {
  if (bytes.size() >= 2 && static_cast<unsigned char>(bytes[0]) == 0x1f &&
      static_cast<unsigned char>(bytes[1]) == 0x8b) {
    return InputKind::kGzip;
  }
  if (bytes.size() < 4) return InputKind::kUnknown;
  switch (FirstWord(bytes)) {
    case 0xa1b2c3d4:
    case 0xd4c3b2a1:
    case 0xa1b23c4d:
    case 0x4d3cb2a1:
      return InputKind::kPcap;
    case 0x0a0d0d0a:
      return InputKind::kPcapng;
    default:
      return InputKind::kUnknown;
  }
}

// A JSON text: qlog (its header names the qlog version, format or traces)
// or a quicly event log (one {"module":..,"type":..} object per line).
InputKind ClassifyJson(absl::string_view text) {
  if (text[0] == 0x1e) return InputKind::kQlogJsonSeq;  // RFC 7464 record
  const absl::string_view first_line = text.substr(0, text.find('\n'));
  const bool qlog = absl::StrContains(first_line, "\"qlog_version\"") ||
                    absl::StrContains(first_line, "\"file_schema\"") ||
                    absl::StrContains(first_line, "\"qlog_format\"") ||
                    absl::StrContains(first_line, "\"traces\"");
  if (!qlog && absl::StrContains(first_line, "\"type\""))
    return InputKind::kQuiclyLog;
  if (absl::StrContains(first_line, "JSON-SEQ")) return InputKind::kQlogJsonSeq;
  // A JSON document without the markers on its first line (pretty-printed
  // qlog): the qlog parser judges it.
  return InputKind::kQlogJson;
}

// /proc/net/tcpprobe (net/ipv4/tcp_probe.c, removed in Linux 4.16) has no
// marker word: "SECONDS SRC:PORT DST:PORT" and 8 or 9 more numbers.
bool LooksLikeTcpProbeModuleLine(absl::string_view line) {
  std::vector<absl::string_view> tokens =
      absl::StrSplit(line, ' ', absl::SkipEmpty());
  double seconds = 0;
  return (tokens.size() == 11 || tokens.size() == 12) &&
         absl::SimpleAtod(tokens[0], &seconds) &&
         absl::StrContains(tokens[1], ':') && absl::StrContains(tokens[2], ':');
}

}  // namespace

InputKind ClassifyBytes(absl::string_view first_bytes) {
  const InputKind magic = ClassifyMagic(first_bytes);
  if (magic != InputKind::kUnknown) return magic;
  const absl::string_view text = absl::StripLeadingAsciiWhitespace(first_bytes);
  if (text.empty()) return InputKind::kEmpty;
  if (text[0] == 0x1e || text[0] == '{' || text[0] == '[')
    return ClassifyJson(text);
  // tcp_probe first: an ftrace buffer may hold ss-like words in its payload.
  if (absl::StrContains(text, " tcp_probe: ") ||
      absl::StrContains(text, " tcp_cong_state_set: ") ||
      absl::StartsWith(text, "# tracer:")) {
    return InputKind::kTcpProbe;
  }
  if (absl::StrContains(text, "ESTAB") || absl::StrContains(text, "SYN-SENT") ||
      absl::StrContains(text, "cwnd:")) {
    return InputKind::kSsLog;
  }
  if (LooksLikeTcpProbeModuleLine(text.substr(0, text.find('\n'))))
    return InputKind::kTcpProbe;
  return InputKind::kUnknown;
}

absl::StatusOr<InputClass> ClassifyInput(const std::string& path) {
  std::error_code error;
  if (std::filesystem::is_directory(path, error)) {
    // A directory is an input only as a lab bundle, which meta.json marks
    // (parsers/bundle.h); any other directory cannot be read as one.
    if (std::filesystem::exists(std::filesystem::path(path) / "meta.json",
                                error)) {
      return InputClass{InputKind::kBundleDirectory, false};
    }
    return absl::NotFoundError(absl::StrCat(
        path, ": is a directory, and not a lab bundle (it has no meta.json)"));
  }
  absl::StatusOr<std::unique_ptr<InputFile>> file = InputFile::Open(path);
  if (!file.ok()) return file.status();
  // Read in pieces and kept as they come, so that a short input costs its
  // own size, not a zero-filled kClassifyPrefixBytes (per fuzz execution).
  std::string head;
  char piece[8192];
  // A gzip stream may return less than asked before its end.
  while (head.size() < kClassifyPrefixBytes) {
    absl::StatusOr<size_t> n = (*file)->Read(
        piece, std::min(sizeof(piece), kClassifyPrefixBytes - head.size()));
    if (!n.ok()) return n.status();
    if (*n == 0) break;
    head.append(piece, *n);
  }
  // zstd's frame magic 0xFD2FB528, little-endian (RFC 8878 3.1.1): a
  // compression ccreplay does not read (it reads gzip only), named so that
  // the user knows what to do rather than "unknown format".
  if (absl::StartsWith(head, "\x28\xb5\x2f\xfd")) {
    return absl::InvalidArgumentError(
        absl::StrCat(path, ": zstd-compressed: decompress with zstd -d first"));
  }
  return InputClass{ClassifyBytes(head), (*file)->gzip()};
}

bool IsCapture(InputKind kind) {
  return kind == InputKind::kPcap || kind == InputKind::kPcapng;
}

bool IsQlog(InputKind kind) {
  return kind == InputKind::kQlogJson || kind == InputKind::kQlogJsonSeq;
}

const char* InputKindName(InputKind kind) {
  switch (kind) {
    case InputKind::kUnknown:
      return "unknown";
    case InputKind::kEmpty:
      return "empty";
    case InputKind::kGzip:
      return "gzip";
    case InputKind::kPcap:
      return "pcap";
    case InputKind::kPcapng:
      return "pcapng";
    case InputKind::kSsLog:
      return "ss log";
    case InputKind::kTcpProbe:
      return "tcp_probe trace";
    case InputKind::kQlogJson:
      return "qlog JSON";
    case InputKind::kQlogJsonSeq:
      return "qlog JSON-SEQ";
    case InputKind::kQuiclyLog:
      return "quicly event log";
    case InputKind::kBundleDirectory:
      return "lab bundle directory";
  }
  return "unknown";
}

}  // namespace ccreplay
