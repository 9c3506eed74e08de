// Reads qlog files of every dialect in use (input-formats.md §2):
//  - contained JSON (`.qlog`): {"traces":[{..., "events":[...]}, ...]},
//    several traces per file with their vantage points;
//  - sequential: JSON-SEQ (`.sqlog`, RFC 7464 records starting with 0x1E)
//    and newline-delimited JSON, a header record then one event per record;
//  - `qlog_version` draft-00 … draft-03 and 0.1 … 0.4, and the current
//    draft's `file_schema` URNs; draft-00/01 `event_fields` arrays with
//    upper- or lower-case categories, and `configuration.time_units` "us";
//  - event names old and new (`recovery:metrics_updated`,
//    `recovery:metric_update`, `quic:recovery_metrics_updated`, …),
//    `congestion_window` or `cwnd`;
//  - `reference_time` as a number, a numeric string or an object; times
//    relative, absolute or delta-encoded.
// The file is streamed: the outer structure is walked by JsonStream and each
// event is parsed alone with simdjson's On-Demand API, so memory does not
// grow with the file.
//
// Output per trace: the captured series (cwnd, bytes in flight, ssthresh,
// RTTs, pacing rate, congestion state) and the logging endpoint's sender
// events (packets sent with sizes, ACK frames received with ranges, ACK
// delay and ECN counts, packets lost). Times are µs relative to the trace's
// reference time; RTTs are µs.
#ifndef CCREPLAY_PARSERS_QLOG_H_
#define CCREPLAY_PARSERS_QLOG_H_

#include <string>

#include "absl/status/statusor.h"
#include "parsers/host_state.h"

namespace ccreplay {

// Errors name the file and byte offset:
//  - InvalidArgument: not JSON, or JSON that is not qlog;
//  - Unimplemented: a qlog dialect (qlog_version / file_schema) that is
//    recognised as qlog but not supported, named in the message;
//  - DataLoss / ResourceExhausted from the stream.
// A file cut mid-event keeps the events before the cut and adds a warning.
absl::StatusOr<HostStateLog> ParseQlog(const std::string& path);

}  // namespace ccreplay

#endif  // CCREPLAY_PARSERS_QLOG_H_
