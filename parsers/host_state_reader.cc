#include "parsers/host_state_reader.h"

#include <memory>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/string_view.h"
#include "absl/strings/strip.h"
#include "parsers/input_file.h"
#include "parsers/qlog.h"
#include "parsers/quicly_log.h"
#include "parsers/ss_log.h"
#include "parsers/tcp_probe.h"

namespace ccreplay {
namespace {

constexpr size_t kSniffBytes = 64 << 10;

}  // namespace

absl::StatusOr<HostStateSource> DetectHostStateFormat(const std::string& path) {
  absl::StatusOr<std::unique_ptr<InputFile>> file = InputFile::Open(path);
  if (!file.ok()) return file.status();
  std::string head(kSniffBytes, '\0');
  absl::StatusOr<size_t> n = (*file)->Read(head.data(), head.size());
  if (!n.ok()) return n.status();
  head.resize(*n);
  absl::string_view text = absl::StripLeadingAsciiWhitespace(head);
  if (text.empty())
    return absl::InvalidArgumentError(
        absl::StrCat(path, ": the file is empty"));
  if (text[0] == 0x1e) return HostStateSource::kQlog;
  if (text[0] == '{' || text[0] == '[') {
    absl::string_view first_line = text.substr(0, text.find('\n'));
    bool qlog = absl::StrContains(first_line, "\"qlog_version\"") ||
                absl::StrContains(first_line, "\"file_schema\"") ||
                absl::StrContains(first_line, "\"qlog_format\"") ||
                absl::StrContains(first_line, "\"traces\"");
    if (!qlog && absl::StrContains(first_line, "\"type\""))
      return HostStateSource::kQuicly;
    return HostStateSource::kQlog;
  }
  if (absl::StrContains(text, " tcp_probe: ") ||
      absl::StrContains(text, " tcp_cong_state_set: ") ||
      absl::StartsWith(text, "# tracer:")) {
    return HostStateSource::kTcpProbe;
  }
  if (absl::StrContains(text, "ESTAB") || absl::StrContains(text, "SYN-SENT") ||
      absl::StrContains(text, "cwnd:")) {
    return HostStateSource::kSs;
  }
  // The old /proc/net/tcpprobe lines have no marker word; let its parser
  // judge, and say what was tried if it refuses.
  return HostStateSource::kTcpProbe;
}

absl::StatusOr<HostStateLog> ReadHostState(const std::string& path) {
  absl::StatusOr<HostStateSource> format = DetectHostStateFormat(path);
  if (!format.ok()) return format.status();
  switch (*format) {
    case HostStateSource::kSs:
      return ParseSsLog(path);
    case HostStateSource::kTcpProbe: {
      absl::StatusOr<HostStateLog> log = ParseTcpProbe(path);
      if (log.ok() || log.status().code() != absl::StatusCode::kInvalidArgument)
        return log;
      return absl::InvalidArgumentError(
          absl::StrCat(log.status().message(),
                       "; not an ss log, qlog or quicly event log either"));
    }
    case HostStateSource::kQlog:
      return ParseQlog(path);
    case HostStateSource::kQuicly:
      return ParseQuiclyLog(path);
  }
  return absl::InternalError("unreachable");
}

}  // namespace ccreplay
