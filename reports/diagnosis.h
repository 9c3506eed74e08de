// Turns one flow's observed timeline and its replay through reference
// controllers into a diagnosis: path estimates, the limiter in force per
// interval, findings with their evidence (the rules of reports/rules/,
// reports/rules/registry.h lists them), and the report page and JSON.
#ifndef CCREPLAY_REPORTS_DIAGNOSIS_H_
#define CCREPLAY_REPORTS_DIAGNOSIS_H_

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "parsers/flow_table.h"
#include "proto/report.pb.h"
#include "replay/ack_timeline.h"
#include "replay/conformance/conformance.h"
#include "reports/fitted_simulation.h"
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
  // The captured cwnd checked against the claimed family's RFC rules, on
  // the replay's pass; null when not checked.
  const ConformanceResult* conformance = nullptr;
  // Why it was not checked, when that is not the lack of a per-ACK cwnd
  // (e.g. a controller no RFC's window rules are written for); "" else.
  std::string conformance_not_checked;
  // How the sender's configuration was fitted for the claimed controllers
  // (replay/sender_config_fit.h DescribeSenderConfig()); empty: not fitted.
  std::vector<std::string> sender_config;
  // Run closed-loop simulations of the fitted path as evidence.
  bool simulate = true;
  // The capture's snaplen (absent when the file does not say) and the TCP
  // packets it cut.
  std::optional<uint32_t> snaplen_bytes;
  uint64_t snaplen_cut_packets = 0;
};

struct Diagnosis {
  proto::Diagnosis result;
  ReportPage page;
  // What the capture can tell (also among page.summary's rows), for the
  // terminal summary.
  std::vector<std::pair<std::string, std::string>> evidence_rows;
  // The receiver's ACKs were never seen: nothing about the sender's
  // window or the path can be diagnosed (exit code 7).
  bool nothing_to_diagnose = false;
  // The path fitted from the flow's estimates (reports/fitted_simulation.h),
  // whether or not simulations ran; nullopt when it could not be fitted.
  std::optional<FittedPath> fitted_path;
};

Diagnosis Diagnose(const DiagnosisInput& input);

}  // namespace ccreplay

#endif  // CCREPLAY_REPORTS_DIAGNOSIS_H_
