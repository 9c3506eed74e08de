#include "parsers/host_state_reader.h"

#include "absl/strings/str_cat.h"
#include "parsers/input_kind.h"
#include "parsers/qlog.h"
#include "parsers/quicly_log.h"
#include "parsers/ss_log.h"
#include "parsers/tcp_probe.h"

namespace ccreplay {

absl::StatusOr<HostStateSource> DetectHostStateFormat(const std::string& path) {
  absl::StatusOr<InputClass> input = ClassifyInput(path);
  if (!input.ok()) return input.status();
  switch (input->kind) {
    case InputKind::kSsLog:
      return HostStateSource::kSs;
    case InputKind::kTcpProbe:
      return HostStateSource::kTcpProbe;
    case InputKind::kQlogJson:
    case InputKind::kQlogJsonSeq:
      return HostStateSource::kQlog;
    case InputKind::kQuiclyLog:
      return HostStateSource::kQuicly;
    case InputKind::kEmpty:
      return absl::InvalidArgumentError(
          absl::StrCat(path, ": the file is empty"));
    case InputKind::kUnknown:
      return absl::InvalidArgumentError(
          absl::StrCat(path,
                       ": not an ss log, tcp_probe trace, qlog or quicly "
                       "event log"));
    default:
      return absl::InvalidArgumentError(
          absl::StrCat(path, ": a ", InputKindName(input->kind),
                       ", not an ss log, tcp_probe trace, qlog or quicly "
                       "event log"));
  }
}

absl::StatusOr<HostStateLog> ReadHostState(const std::string& path) {
  absl::StatusOr<HostStateSource> format = DetectHostStateFormat(path);
  if (!format.ok()) return format.status();
  switch (*format) {
    case HostStateSource::kSs:
      return ParseSsLog(path);
    case HostStateSource::kTcpProbe:
      return ParseTcpProbe(path);
    case HostStateSource::kQlog:
      return ParseQlog(path);
    case HostStateSource::kQuicly:
      return ParseQuiclyLog(path);
  }
  return absl::InternalError("unreachable");
}

}  // namespace ccreplay
