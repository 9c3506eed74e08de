// Opens any host-state input — ss log, tcp_probe trace, qlog (any
// dialect) or quicly event log — by looking at its first bytes, so that
// `ccreplay flows` / `diagnose --ss/--qlog/--probe` need not be told which.
#ifndef CCREPLAY_PARSERS_HOST_STATE_READER_H_
#define CCREPLAY_PARSERS_HOST_STATE_READER_H_

#include <string>

#include "absl/status/statusor.h"
#include "parsers/host_state.h"

namespace ccreplay {

// The format `path` holds, judged by ClassifyInput (parsers/input_kind.h).
// InvalidArgument when it is none of them (the error names the file).
absl::StatusOr<HostStateSource> DetectHostStateFormat(const std::string& path);

// DetectHostStateFormat, then the matching parser.
absl::StatusOr<HostStateLog> ReadHostState(const std::string& path);

}  // namespace ccreplay

#endif  // CCREPLAY_PARSERS_HOST_STATE_READER_H_
