// Renders `ccreplay flows`: the JSON contract and the table for people.
#ifndef CCREPLAY_REPORTS_FLOWS_REPORT_H_
#define CCREPLAY_REPORTS_FLOWS_REPORT_H_

#include <string>
#include <vector>

#include "parsers/flow_table.h"
#include "parsers/pcap_reader.h"

namespace ccreplay {

// {"capture": {...}, "flows": [...]} exactly as README.md documents it.
std::string FlowsJson(const CaptureInfo& capture, const std::vector<FlowSummary>& flows);

// A compact table, one line per flow, with a capture header line.
std::string FlowsTable(const CaptureInfo& capture, const std::vector<FlowSummary>& flows);

}  // namespace ccreplay

#endif  // CCREPLAY_REPORTS_FLOWS_REPORT_H_
