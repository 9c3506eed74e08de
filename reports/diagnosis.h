// Turns one flow's observed timeline and its replay through reference
// controllers into a diagnosis: path estimates, the limiter in force per
// interval, findings with their evidence (the rules of reports/rules/,
// reports/rules/registry.h lists them), and the report page and JSON.
#ifndef CCREPLAY_REPORTS_DIAGNOSIS_H_
#define CCREPLAY_REPORTS_DIAGNOSIS_H_

#include <string>
#include <vector>

#include "parsers/flow_table.h"
#include "proto/report.pb.h"
#include "replay/ack_timeline.h"
#include "reports/flow_observation.h"
#include "reports/limiter_runs.h"
#include "reports/path_estimates.h"
#include "reports/replay_evidence.h"
#include "reports/report_model.h"

namespace ccreplay {

struct DiagnosisInput {
  std::string input_path;
  const Flow* flow = nullptr;
  FlowSummary summary;
  TimelineStats stats;
  const FlowObserver* observed = nullptr;
  // QUIC (from a qlog): the summary's TCP fields are not filled.
  bool quic = false;
  uint64_t quic_congestion_events = 0;
  std::string host_state_path;
  // The replay, and why these controllers; null: timeline findings only.
  const ReplayEvidence* replay = nullptr;
  std::string controller_reason;
  // Run closed-loop simulations of the fitted path as evidence.
  bool simulate = true;
};

struct Diagnosis {
  proto::Diagnosis result;
  ReportPage page;
};

Diagnosis Diagnose(const DiagnosisInput& input);

}  // namespace ccreplay

#endif  // CCREPLAY_REPORTS_DIAGNOSIS_H_
