// `ccreplay diagnose INPUT --flows all`: the index of every flow with a
// one-line verdict (throughput, utilization bound, main limiter, worst
// finding) from one pass (replay/flow_index.h), sortable, as the JSON
// message proto::FlowIndex, a terminal table and a self-contained HTML page
// whose table sorts by clicking a column.
#ifndef CCREPLAY_REPORTS_FLOW_INDEX_REPORT_H_
#define CCREPLAY_REPORTS_FLOW_INDEX_REPORT_H_

#include <deque>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "parsers/capture_filter.h"
#include "proto/flow_index.pb.h"
#include "replay/flow_index.h"
#include "reports/flows_report.h"

namespace ccreplay {

// The sort keys `--sort` takes; the first is the default.
inline constexpr absl::string_view kFlowIndexSortKeys[] = {
    "throughput",      "utilization", "duration",
    "retransmissions", "start",       "index"};

// The row of one flow, with its worst finding: "no ACK from the receiver"
// or "too short to tell" when reports/evidence_quality.h's gate holds the
// full diagnosis's findings back; else the limiter rule
// (receive_window_limited, loss_recovery_dominant, application_limited)
// whose limiter held the sender over reports/rules/rule_helpers.h's
// kMinLimiterShare of the time with a stretch of kMinLimiterRunRtts base
// (min) RTTs, the warnings before the information; else "".
proto::FlowIndexRow FlowIndexRowOf(const IndexedFlow& flow);

// Sorts the rows by `key` (kFlowIndexSortKeys): throughput, utilization,
// duration and retransmissions descending, start and index ascending; a
// row without the figure last; ties by flow index. InvalidArgument naming
// the keys for another key.
absl::Status SortFlowIndex(absl::string_view key, proto::FlowIndex* index);

struct FlowIndexRun {
  // The index without its rows (input, sort key, ...): a million rows as
  // protos held 620 bytes each (seven strings), more than the entries
  // they come from; the terminal table is written from the entries a row
  // at a time, the JSON too (WriteFlowIndexJson), and FlowIndexProto makes
  // them only for the HTML.
  proto::FlowIndex index;
  FlowIndex flows;              // The entries and the records they read.
  std::vector<uint32_t> order;  // Flow indexes in the key's order.
  std::vector<std::string> warnings;
  bool truncated = false;
};

// One pass over `input` (a capture or a lab bundle directory, whose sender
// capture is read), its entries ordered by `sort_key` (as SortFlowIndex
// orders rows).
absl::StatusOr<FlowIndexRun> BuildFlowIndex(const std::string& input,
                                            const CaptureReadOptions& read,
                                            absl::string_view sort_key);
// The run's index with its rows, in its order. Consumes the run's flows
// and order (freed as the rows are made): write its table first.
proto::FlowIndex FlowIndexProto(FlowIndexRun* run);

// One line per flow, in the index's order.
std::string FlowIndexTable(const proto::FlowIndex& index);
// The same text, handed to `write` a line at a time.
void WriteFlowIndexTable(const proto::FlowIndex& index, TextSink write);
// The same text for a run, its rows made a line at a time (never all
// held).
void WriteFlowIndexTable(const FlowIndexRun& run, TextSink write);

// The run's index as PrintJson prints FlowIndexProto's message, handed to
// `write` a row at a time: each row made by FlowIndexRowOf and printed by
// AppendJson, never all held (a million rows as protos and their text were
// 1.2 GB). Consumes nothing: the run is as it was.
void WriteFlowIndexJson(const FlowIndexRun& run, TextSink write);

// A self-contained page: the table, sorted as the index is; clicking a
// column's header sorts by it (again: the other way); #sort=COL,COL... in
// the address clicks those columns (0-based) in turn.
std::string RenderFlowIndexHtml(const proto::FlowIndex& index);

}  // namespace ccreplay

#endif  // CCREPLAY_REPORTS_FLOW_INDEX_REPORT_H_
