// `ccreplay check`'s output: the conformance result as the proto message
// (--json, printed by PrintJson) and as text, one line per violation group.
#ifndef CCREPLAY_REPORTS_CONFORMANCE_REPORT_H_
#define CCREPLAY_REPORTS_CONFORMANCE_REPORT_H_

#include <string>

#include "proto/conformance.pb.h"
#include "replay/conformance/conformance_input.h"

namespace ccreplay {

// Times are seconds from `start_us` (the first ACK checked).
proto::ConformanceViolation ConformanceViolationProto(
    const ConformanceViolation& v, int64_t start_us);
proto::ConformanceReport ConformanceReportProto(const std::string& input,
                                                const CheckRun& run);
std::string ConformanceReportJson(const std::string& input,
                                  const CheckRun& run);
std::string ConformanceReportText(const std::string& input,
                                  const CheckRun& run);

}  // namespace ccreplay

#endif  // CCREPLAY_REPORTS_CONFORMANCE_REPORT_H_
