#include "reports/rules/rfc_violation.h"

#include <algorithm>
#include <string>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"

namespace ccreplay {
namespace {

// Evidence lines at most; the rest are counted.
constexpr size_t kMaxEvidenceLines = 6;

}  // namespace

void RfcViolationRule::Check(const RuleContext& x, RuleOutput* out) const {
  if (!x.conformance_not_checked.empty()) {
    out->notes.push_back(absl::StrCat("rfc_violation: not checked (",
                                      x.conformance_not_checked, ")"));
    return;
  }
  if (x.conformance == nullptr || x.conformance->acks_checked == 0) {
    out->notes.push_back(
        "rfc_violation: not checked (no cwnd logged per ACK: tcp_probe or "
        "qlog)");
    return;
  }
  const ConformanceResult& c = *x.conformance;
  if (c.violation_count() == 0) {
    out->notes.push_back(absl::StrCat(
        "rfc_violation: ", c.acks_checked,
        " ACKs checked against the family's RFC rules, none broken"));
    return;
  }
  Finding f;
  f.kind = std::string(kind());
  f.severity = Severity::kWarning;
  bool first = true;
  size_t shown = 0;
  for (const ConformanceViolation& v : c.violations) {
    if (!v.documented_deviation.empty()) continue;
    const double start_s = x.samples.TrackerTime(v.start_us);
    const double end_s = x.samples.TrackerTime(v.end_us);
    f.start_s = first ? start_s : std::min(f.start_s, start_s);
    f.end_s = first ? end_s : std::max(f.end_s, end_s);
    first = false;
    if (shown++ < kMaxEvidenceLines) {
      f.evidence.push_back(absl::StrFormat(
          "%s (%s), %.3f-%.3f s, %d ACKs: expected %d B, seen %d B: %s", v.rule,
          v.rfc_section, start_s, end_s, v.acks, v.expected_bytes, v.seen_bytes,
          v.description));
    }
  }
  if (shown > kMaxEvidenceLines) {
    f.evidence.push_back(absl::StrCat(shown - kMaxEvidenceLines,
                                      " more group(s): `ccreplay check`"));
  }
  f.message = absl::StrCat(
      "The captured cwnd breaks its family's RFC rules "
      "in ",
      c.violation_count(), " place(s) over ", c.acks_checked, " ACKs checked");
  out->findings.push_back(std::move(f));
}

}  // namespace ccreplay
