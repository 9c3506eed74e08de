// Renders `ccreplay flows`: the JSON contract and the table for people.
#ifndef CCREPLAY_REPORTS_FLOWS_REPORT_H_
#define CCREPLAY_REPORTS_FLOWS_REPORT_H_

#include <cstddef>
#include <string>

#include "absl/functional/function_ref.h"
#include "absl/strings/string_view.h"
#include "parsers/flow_table.h"
#include "parsers/pcap_reader.h"
#include "replay/ack_timeline.h"

namespace ccreplay {

// One flow: the flow table's flow, its summary and its sender's timeline
// figures.
struct FlowRow {
  const Flow* source = nullptr;
  FlowSummary flow;
  TimelineStats timeline;
};

// Row `i` of `flow_count`, made when it is printed.
using FlowRowSource = absl::FunctionRef<FlowRow(size_t)>;
// Takes each piece of the output as it is made.
using TextSink = absl::FunctionRef<void(absl::string_view)>;

// Both writers make one row at a time and hand its text to `write`
// before making the next: a capture can hold millions of flows, and
// neither the rows nor the whole output are ever held at once.

// Row `r` as AppendJson writes its proto::FlowReport (proto/flows.proto)
// at nesting `depth`, without making the message (flows_report_test
// compares the two).
void AppendFlowReportJson(const FlowRow& r, int depth, std::string* out);

// proto::FlowsReport (proto/flows.proto) as JSON.
void WriteFlowsJson(const CaptureInfo& capture, size_t flow_count,
                    FlowRowSource row, TextSink write);

// A compact table, one line per flow, with a capture header line; a
// trailing tunnel column when `tunnel_column` (some flow came through one).
void WriteFlowsTable(const CaptureInfo& capture, size_t flow_count,
                     bool tunnel_column, FlowRowSource row, TextSink write);

}  // namespace ccreplay

#endif  // CCREPLAY_REPORTS_FLOWS_REPORT_H_
