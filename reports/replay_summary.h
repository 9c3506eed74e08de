// The replay's part of the diagnosis JSON (proto/report.proto's Replay):
// which captured cwnd the controllers were compared with, and per
// controller replayed its role (claimed or counterfactual), whether it is
// the best-fitting claimed one, its error against the captured cwnd, where
// it first diverged, and its mean cwnd against the BDP.
#ifndef CCREPLAY_REPORTS_REPLAY_SUMMARY_H_
#define CCREPLAY_REPORTS_REPLAY_SUMMARY_H_

#include <string>

#include "proto/report.pb.h"
#include "reports/controller_choice.h"
#include "reports/replay_evidence.h"

namespace ccreplay {

// "claimed", "rtt_scaling_off", "normalization_on".
const char* ReplayRoleName(ReplayRole role);

// `evidence.replay` must be set. Times are the report's (seconds from the
// flow's first packet); `bdp_bytes` <= 0 leaves the BDP fractions out.
proto::Replay SummarizeReplay(const ReplayEvidence& evidence,
                              const std::string& controller_reason,
                              double bdp_bytes);

}  // namespace ccreplay

#endif  // CCREPLAY_REPORTS_REPLAY_SUMMARY_H_
