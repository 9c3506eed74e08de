#include "reports/conformance_report.h"

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "proto/json_printer.h"

namespace ccreplay {

proto::ConformanceViolation ConformanceViolationProto(
    const ConformanceViolation& v, int64_t start_us) {
  proto::ConformanceViolation out;
  out.set_rule(v.rule);
  out.set_rfc_section(v.rfc_section);
  out.set_start_s((v.start_us - start_us) / 1e6);
  out.set_end_s((v.end_us - start_us) / 1e6);
  out.set_acks(v.acks);
  out.set_expected_bytes(v.expected_bytes);
  out.set_seen_bytes(v.seen_bytes);
  out.set_description(v.description);
  out.set_documented_deviation(v.documented_deviation);
  return out;
}

proto::ConformanceReport ConformanceReportProto(const std::string& input,
                                                const CheckRun& run) {
  proto::ConformanceReport report;
  report.set_input(input);
  report.set_transport(
      std::string(ConformanceTransportName(run.profile.transport)));
  report.set_family(std::string(ConformanceFamilyName(run.profile.family)));
  report.set_stack(run.profile.stack);
  report.set_cwnd_source(run.source_description);
  report.set_acks_checked(run.result.acks_checked);
  report.set_violation_count(run.result.violation_count());
  for (const ConformanceViolation& v : run.result.violations) {
    *report.add_violations() = ConformanceViolationProto(v, run.first_ack_us);
  }
  for (const std::string& w : run.warnings) report.add_warnings(w);
  return report;
}

std::string ConformanceReportJson(const std::string& input,
                                  const CheckRun& run) {
  return PrintJson(ConformanceReportProto(input, run));
}

std::string ConformanceReportText(const std::string& input,
                                  const CheckRun& run) {
  std::string out = absl::StrFormat(
      "%s: %s %s rules%s, cwnd from %s: %d ACKs checked, %d violation(s)\n",
      input, ConformanceTransportName(run.profile.transport),
      ConformanceFamilyName(run.profile.family),
      run.profile.stack.empty()
          ? ""
          : absl::StrCat(" (", run.profile.stack, " deviations known)"),
      run.source_description, run.result.acks_checked,
      run.result.violation_count());
  for (const ConformanceViolation& v : run.result.violations) {
    absl::StrAppendFormat(
        &out,
        "%s %-30s %8.3f-%8.3fs %6d ACKs  expected %d, seen %d B  (%s)%s\n",
        v.documented_deviation.empty() ? "VIOLATION" : "deviation", v.rule,
        (v.start_us - run.first_ack_us) / 1e6,
        (v.end_us - run.first_ack_us) / 1e6, v.acks, v.expected_bytes,
        v.seen_bytes, v.rfc_section,
        v.documented_deviation.empty()
            ? absl::StrCat(": ", v.description)
            : absl::StrCat(": documented: ", v.documented_deviation));
  }
  return out;
}

}  // namespace ccreplay
