// Renders a replay (replay/replay_session.h): the `--json` contract of
// `ccreplay replay`, the series as CSV, and a table for people.
#ifndef CCREPLAY_REPORTS_REPLAY_REPORT_H_
#define CCREPLAY_REPORTS_REPLAY_REPORT_H_

#include <string>

#include "replay/replay_session.h"

namespace ccreplay {

// proto::ReplayReport (proto/replay.proto) as JSON.
std::string ReplayReportJson(const ReplayResult& result);

// One row per series point: t_s, captured_cwnd_bytes (empty when unknown),
// then each controller's cwnd_bytes, with a header row.
std::string ReplayReportCsv(const ReplayResult& result);

// The divergence table.
std::string ReplayReportText(const ReplayResult& result);

}  // namespace ccreplay

#endif  // CCREPLAY_REPORTS_REPLAY_REPORT_H_
