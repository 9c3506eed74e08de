// Several flows on one time axis: how the capacity was shared among the
// flows that competed (throughput and shares over time and over the
// interval they all sent, Jain's fairness index), each flow's cwnd and
// RTT, and each flow's own diagnosis beside. The flows come from one
// capture (`diagnose --flows LIST`) or from several inputs (two qlogs, a
// pcap and a qlog); reports/competition_session.h runs them.
#ifndef CCREPLAY_REPORTS_COMPETITION_H_
#define CCREPLAY_REPORTS_COMPETITION_H_

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "absl/types/span.h"
#include "proto/competition.pb.h"
#include "replay/shared_bottleneck.h"
#include "reports/diagnose_session.h"
#include "reports/report_model.h"

namespace ccreplay {

// One flow as DiagnoseInput() returned it, and the input it came from.
struct CompetitorRun {
  std::string input;
  DiagnoseRun run;
};

// When a flow delivered data, s on the shared axis: from the start of the
// first bin in which it delivered to the end of the last.
struct ActiveSpan {
  double start_s = 0;
  double end_s = 0;
};

struct CompetitorGrouping {
  std::vector<uint32_t> flow_ids;
  // "rfc8382" or "overlap only" (proto/competition.proto CompetitorGroup).
  std::string method;
  std::optional<double> confidence;
};

// The flows that competed, by index into `spans`. With `sbd` (RFC 8382
// shared-bottleneck detection over the same flows, replay/
// shared_bottleneck.h; its flow ids index `spans`): the flows it grouped
// form its groups ("rfc8382", its confidence); a flow it evaluated and
// found crossing no bottleneck is a group of one ("rfc8382", no
// confidence). The flows it could not evaluate (too short, no absolute
// clock), or all without `sbd`, are grouped by time: those whose active
// spans overlap (directly or through another flow) form one group
// ("overlap only", no confidence); one that overlaps no other is a group of
// one. Groups in order of their first flow.
std::vector<CompetitorGrouping> GroupCompetitors(
    absl::Span<const ActiveSpan> spans, const SbdResult* sbd = nullptr);

// Jain's fairness index (R. Jain, D. Chiu, W. Hawe, DEC-TR-301, 1984):
// (sum x)^2 / (n sum x^2), from 1/n (one flow has it all) to 1 (equal).
// nullopt for no values or when every value is 0.
std::optional<double> JainIndex(absl::Span<const double> x);

struct MultiFlowReport {
  proto::MultiFlowDiagnosis result;
  // The shared view: verdict (shares, Jain's index, groups), the compared
  // pairs as findings over their common interval, the shared plots, facts
  // and method.
  ReportPage shared;
  // A short summary for the terminal: shares, Jain's index, groups, then
  // each flow's verdict line.
  std::string summary_text;
};

// Shares and pairs per group, plots on the shared axis; every flow's
// Diagnosis copied into the result. Each pair of a group is attributed
// (reports/unfairness.h) from the flows' competitor facts, their
// throughput the group's shares', on the shared fitted path, with its
// closed-loop counterfactuals when `simulate`; flows of different groups
// are not compared. `flows` must hold at least one flow, each with its
// observer.
MultiFlowReport CompareFlows(absl::Span<const CompetitorRun> flows,
                             bool simulate);

// A flow's label on the page and the terminal: "A", "B", ..., "Z",
// then "F27", "F28", ...
std::string FlowLabel(uint32_t id);

}  // namespace ccreplay

#endif  // CCREPLAY_REPORTS_COMPETITION_H_
