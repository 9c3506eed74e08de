// One `ccreplay diagnose` run over several flows: the flows a --flows
// list names in one input, or each input's flow when several inputs are
// given (two qlogs, a pcap and a qlog, bundles). Each flow is diagnosed by
// DiagnoseInput() (reports/diagnose_session.h), then compared on one time
// axis (reports/competition.h).
#ifndef CCREPLAY_REPORTS_COMPETITION_SESSION_H_
#define CCREPLAY_REPORTS_COMPETITION_SESSION_H_

#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "reports/competition.h"
#include "reports/diagnose_session.h"

namespace ccreplay {

struct MultiFlowOptions {
  // One per input, each as for a single-flow diagnosis (its --flow the
  // input's flow).
  std::vector<DiagnoseOptions> inputs;
  // With one input: the flows to diagnose (--flows LIST), each a --flow
  // selector; they replace the input's --flow.
  std::vector<std::string> flows;
};

struct MultiFlowRun {
  std::vector<CompetitorRun> flows;
  MultiFlowReport report;
  // Each flow's warnings, prefixed with its label ("B: ...").
  std::vector<std::string> warnings;
  bool truncated = false;  // Some input ended mid-packet.
  // No flow had anything to diagnose (no ACKs seen); some_nothing: at
  // least one.
  bool nothing_to_diagnose = false;
  bool some_nothing_to_diagnose = false;
};

// Errors as DiagnoseInput()'s, the first flow's that failed, its message
// prefixed with the flow's selector and input; OutOfRange (a usage error,
// as for a --flow that names no flow) when two selectors or inputs name the
// same flow.
absl::StatusOr<MultiFlowRun> DiagnoseFlows(const MultiFlowOptions& options);

// A --flows list: selectors separated by commas ("1,3",
// "10.0.0.1:5201-10.0.0.2:40000,2"); InvalidArgument for an empty item.
// "all" is not a list (the flow index, cli).
absl::StatusOr<std::vector<std::string>> ParseFlowList(absl::string_view list);

}  // namespace ccreplay

#endif  // CCREPLAY_REPORTS_COMPETITION_SESSION_H_
