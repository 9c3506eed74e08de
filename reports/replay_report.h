// Renders a replay (replay/replay_session.h): the `--json` contract of
// `ccreplay replay`, the series as CSV, and a table for people.
#ifndef CCREPLAY_REPORTS_REPLAY_REPORT_H_
#define CCREPLAY_REPORTS_REPLAY_REPORT_H_

#include <string>

#include "replay/replay_session.h"
#include "replay/sender_config_fit.h"

namespace ccreplay {

// proto::ReplayReport (proto/replay.proto) as JSON; `sender_config`, when
// not null and with a fitted spec, as its sender_config.
std::string ReplayReportJson(const ReplayResult& result,
                             const SenderConfigReport* sender_config = nullptr);

// One row per series point: t_s, captured_cwnd_bytes (empty when unknown),
// then each controller's cwnd_bytes, with a header row.
std::string ReplayReportCsv(const ReplayResult& result);

// The divergence table, then the fitted sender configuration (when not
// null and fitted).
std::string ReplayReportText(const ReplayResult& result,
                             const SenderConfigReport* sender_config = nullptr);

}  // namespace ccreplay

#endif  // CCREPLAY_REPORTS_REPLAY_REPORT_H_
