#include "reports/rules/ce_overreaction.h"

#include <algorithm>
#include <cmath>
#include <functional>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"
#include "cc/registry.h"
#include "reports/rules/rule_helpers.h"

namespace ccreplay {
namespace {

// An overreaction cuts at least this many times what the reference cuts
// on the same marks (half again: less is within what the profiles' other
// differences, such as their additive increase, explain).
constexpr double kOverreactionCutRatio = 1.5;

// Sum of cwnd decreases from sample to sample, after slow start.
double CutBytes(const RuleContext& x, int c, size_t from) {
  double cut = 0;
  for (size_t i = from + 1; i < x.samples.size(); ++i) {
    const double before = x.samples.at(c, i - 1).cwnd_bytes,
                 after = x.samples.at(c, i).cwnd_bytes;
    if (after < before) cut += before - after;
  }
  return cut;
}

// The CE marks fed back: AccECN counts CE packets (its ACE field reuses
// the ECE bit, so ECE ACKs count nothing there); RFC 3168 feedback only
// flags ACKs.
uint64_t CeMarks(const FlowObserver& observed) {
  uint64_t ce_packets = 0, ece_acks = 0;
  for (const ObservationBin& b : observed.bins()) {
    ce_packets += b.ce_packets;
    ece_acks += b.ece_acks;
  }
  return ce_packets > 0 ? ce_packets : ece_acks;
}

// The reference for AccECN feedback is Prague v0.7 (its fixed-point
// fractional window replaced the v0.5/v0.6 backlog, which applies
// reductions computed from a not-yet-reduced cwnd); -1 when not replayed.
int Reference(const ReplayEvidence& e) {
  int reference = -1;
  for (size_t c = 0; c < e.choices.size(); ++c) {
    const absl::StatusOr<ControllerSpec> parsed =
        ControllerSpec::Parse(e.choices[c].spec);
    if (e.choices[c].role == ReplayRole::kClaimed && parsed.ok() &&
        *parsed == ControllerSpec{"prague", "v07", {}}) {
      reference = static_cast<int>(c);
    }
  }
  return reference;
}

struct Overreaction {
  int reference = -1;
  uint64_t marks = 0;
  double cut_best_bytes = 0, cut_reference_bytes = 0;
  Stretch lower;  // The best's cwnd under kBelowBdp of the reference's.
};

Finding OverreactionFinding(const RuleContext& x, const Overreaction& o) {
  const std::string& spec = x.evidence->choices[x.best].spec;
  const std::string& reference = x.evidence->choices[o.reference].spec;
  std::vector<double> ratio;
  for (size_t i = o.lower.first; i <= o.lower.last; ++i) {
    if (x.samples.at(o.reference, i).cwnd_bytes > 0) {
      ratio.push_back(static_cast<double>(x.samples.at(x.best, i).cwnd_bytes) /
                      x.samples.at(o.reference, i).cwnd_bytes);
    }
  }
  Finding f;
  f.kind = "ce_overreaction";
  f.severity = Severity::kWarning;
  f.start_s = o.lower.start_s;
  f.end_s = o.lower.end_s;
  f.message = absl::StrFormat(
      "For the same %d CE marks, %s (which fits the captured cwnd best, median "
      "error %s) cuts "
      "%.0f packets in total after slow start where the reference %s cuts "
      "%.0f; from %.3f s to "
      "%.3f s its cwnd is a median %.0f%% of the reference's.",
      o.marks, spec, MedianErrorText(*x.evidence, x.best),
      o.cut_best_bytes / x.mss_bytes, reference,
      o.cut_reference_bytes / x.mss_bytes, f.start_s, f.end_s,
      100 * Median(ratio));
  f.evidence.push_back(
      absl::StrFormat("%s fits with median error %s, %s with %s", spec,
                      MedianErrorText(*x.evidence, x.best), reference,
                      MedianErrorText(*x.evidence, o.reference)));
  f.evidence.push_back("window plot: both replays on the same ACKs and marks");
  return f;
}

}  // namespace

void CeOverreactionRule::Check(const RuleContext& x, RuleOutput* out) const {
  const int best = x.best;
  Overreaction o;
  o.marks = CeMarks(*x.observed);
  if (o.marks == 0) {
    out->notes.push_back("ce_overreaction: no CE feedback in the flow");
    return;
  }
  const std::string& spec = x.evidence->choices[best].spec;
  o.reference = Reference(*x.evidence);
  if (o.reference < 0 || o.reference == best) {
    out->notes.push_back(absl::StrCat(
        "ce_overreaction: ",
        o.reference < 0 ? "no reference controller for this feedback replayed"
                        : "the reference controller fits the flow best itself",
        " (compared: ", spec, ")"));
    return;
  }
  const std::optional<size_t> exit = SlowStartExit(x, best);
  if (!exit) return;
  o.cut_best_bytes = CutBytes(x, best, *exit);
  o.cut_reference_bytes = CutBytes(x, o.reference, *exit);
  o.lower = x.samples.Longest([&](size_t i) {
    if (i < *exit) return -1;
    return x.samples.at(best, i).cwnd_bytes <
                   kBelowBdp * x.samples.at(o.reference, i).cwnd_bytes
               ? 1
               : 0;
  });
  if (o.cut_best_bytes < kOverreactionCutRatio * o.cut_reference_bytes ||
      !o.lower.found || o.lower.span_s() < x.min_stretch_s) {
    out->notes.push_back(absl::StrFormat(
        "ce_overreaction: %s cuts %.0f packets in total after slow start, the "
        "reference %s %.0f: "
        "not an overreaction",
        spec, o.cut_best_bytes / x.mss_bytes,
        x.evidence->choices[o.reference].spec,
        o.cut_reference_bytes / x.mss_bytes));
    return;
  }
  out->findings.push_back(OverreactionFinding(x, o));
}

}  // namespace ccreplay
