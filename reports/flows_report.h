// Renders `ccreplay flows`: the JSON contract and the table for people.
#ifndef CCREPLAY_REPORTS_FLOWS_REPORT_H_
#define CCREPLAY_REPORTS_FLOWS_REPORT_H_

#include <string>
#include <vector>

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

// proto::FlowsReport (proto/flows.proto) as JSON, printed flow by flow.
std::string FlowsJson(const CaptureInfo& capture,
                      const std::vector<FlowRow>& flows);

// A compact table, one line per flow, with a capture header line.
std::string FlowsTable(const CaptureInfo& capture,
                       const std::vector<FlowRow>& flows);

}  // namespace ccreplay

#endif  // CCREPLAY_REPORTS_FLOWS_REPORT_H_
