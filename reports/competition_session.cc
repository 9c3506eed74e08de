#include "reports/competition_session.h"

#include <utility>

#include "absl/algorithm/container.h"
#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "absl/strings/strip.h"

namespace ccreplay {
namespace {

// The single-flow runs the options ask for, in order.
std::vector<DiagnoseOptions> PerFlowOptions(const MultiFlowOptions& options) {
  if (options.inputs.size() != 1 || options.flows.empty())
    return options.inputs;
  std::vector<DiagnoseOptions> runs;
  for (const std::string& flow : options.flows) {
    DiagnoseOptions o = options.inputs[0];
    o.flow = flow;
    runs.push_back(o);
  }
  return runs;
}

std::string Describe(const DiagnoseOptions& o) {
  const std::string& input = o.input.empty() ? o.qlog_path : o.input;
  return o.flow.empty() ? input : absl::StrCat(input, " flow ", o.flow);
}

// The same flow diagnosed twice (two selectors for one flow, or one input
// given twice): the same file read (a bundle's flows may each be their own
// qlog, all with flow index 0), same sender and receiver.
bool SameFlow(const CompetitorRun& a, const CompetitorRun& b) {
  const proto::Diagnosis& x = a.run.diagnosis.result;
  const proto::Diagnosis& y = b.run.diagnosis.result;
  return x.input() == y.input() && x.flow_index() == y.flow_index() &&
         x.sender() == y.sender() && x.receiver() == y.receiver();
}

}  // namespace

absl::StatusOr<std::vector<std::string>> ParseFlowList(absl::string_view list) {
  std::vector<std::string> flows;
  for (absl::string_view item : absl::StrSplit(list, ',')) {
    item = absl::StripAsciiWhitespace(item);
    if (item.empty()) {
      return absl::InvalidArgumentError(
          absl::StrCat("--flows \"", list, "\": an empty item"));
    }
    flows.emplace_back(item);
  }
  return flows;
}

// One DiagnoseInput() per flow: a capture is read again for each (its flow
// table, the fitting and replay passes), so N flows cost N single-flow
// diagnoses; the shared view then reads no input.
absl::StatusOr<MultiFlowRun> DiagnoseFlows(const MultiFlowOptions& options) {
  MultiFlowRun run;
  for (const DiagnoseOptions& o : PerFlowOptions(options)) {
    absl::StatusOr<DiagnoseRun> one = DiagnoseInput(o);
    if (!one.ok()) {
      return absl::Status(
          one.status().code(),
          absl::StrCat(Describe(o), ": ", one.status().message()));
    }
    CompetitorRun flow{o.input.empty() ? o.qlog_path : o.input,
                       *std::move(one)};
    for (const CompetitorRun& earlier : run.flows) {
      if (SameFlow(earlier, flow)) {
        // OutOfRange, as a --flow that names no flow: a usage error.
        return absl::OutOfRangeError(absl::StrCat(
            Describe(o), ": the same flow as an earlier selector or input"));
      }
    }
    const std::string label = FlowLabel(run.flows.size());
    for (const std::string& w : flow.run.warnings)
      run.warnings.push_back(absl::StrCat(label, ": ", w));
    run.truncated |= flow.run.truncated;
    run.some_nothing_to_diagnose |= flow.run.diagnosis.nothing_to_diagnose;
    run.flows.push_back(std::move(flow));
  }
  run.nothing_to_diagnose = true;
  for (const CompetitorRun& f : run.flows)
    run.nothing_to_diagnose &= f.run.diagnosis.nothing_to_diagnose;
  // --nosimulate applies to every input alike.
  const bool simulate = absl::c_all_of(
      options.inputs, [](const DiagnoseOptions& o) { return o.simulate; });
  run.report = CompareFlows(run.flows, simulate);
  return run;
}

}  // namespace ccreplay
