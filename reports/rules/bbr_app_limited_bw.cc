#include "reports/rules/bbr_app_limited_bw.h"

#include <algorithm>
#include <cmath>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "reports/rules/rule_helpers.h"

namespace ccreplay {
namespace {

// An application-limited phase counts when it lasts this many rounds: a
// phase, not the bubble of one write.
constexpr uint32_t kMinPhaseRounds = 4;
// The rounds an estimate stays low are counted until it reaches this share
// of the path's rate.
constexpr double kLowShare = 0.8;
// An estimate under this share of the path needs two or more of STARTUP's
// rounds (gain 2.89: 0.25 x 2.89 = 0.72 < 0.8) to regain 80 % of it; at a
// larger share one round does, which no sender avoids.
constexpr double kFindingShare = 0.25;
// The sample that set the max filter's value is the last one before the
// resume whose rate equals it within this share (the two are converted
// from the same kernel integers by different roundings).
constexpr double kSameRateShare = 1e-3;
// A cost above this share of what the flow delivered is a warning.
constexpr double kWarnCostShare = 0.05;

// An application-limited phase from record `first`, the record `end` at
// which the sender resumed (ResumeRecord), and the records [end, low_end)
// in which the estimate stayed below kLowShare of the path (low_end:
// records.size() when it never rose).
struct Recovery {
  size_t first = 0, end = 0, low_end = 0;
  uint32_t rounds_low = 0;
  double low_s = 0;
  double delivered_bps = 0;  // over [end, low_end)
  // The sample that set the estimate at `end` (its record), and whether
  // tcp_rate.c had marked it application-limited; nullopt: not found.
  std::optional<size_t> source;
  bool source_app_limited = false;
  // What the path's rate would have delivered over [end, low_end) less
  // what the flow did, bytes.
  double cost_bytes = 0;
};

// The record of the sample that set the max filter's value at `at`: the
// last valid sample up to it with that rate.
std::optional<size_t> EstimateSource(const std::vector<BbrStateRecord>& r,
                                     size_t at) {
  const double bw = r[at].max_bw_bps;
  for (size_t i = at + 1; i-- > 0;) {
    if (r[i].delivery_rate_bps.has_value() &&
        std::abs(*r[i].delivery_rate_bps - bw) <= kSameRateShare * bw) {
      return i;
    }
  }
  return std::nullopt;
}

// In a phase: an application-limited sample, or no valid sample at all.
bool InPhase(const BbrStateRecord& r) {
  return r.app_limited || !r.delivery_rate_bps.has_value();
}

// The record at which the sender resumed sending after a phase whose
// last application-limited sample is record `end - 1`: tcp_rate.c marks
// every packet sent until the data in flight at the bubble is delivered
// (tcp_rate_check_app_limited()), about a round trip after the last write
// that found the queue empty, and their samples come a round trip later;
// so two min RTTs before the first sample that is not marked.
size_t ResumeRecord(const RuleContext& x, size_t first, size_t end) {
  const std::vector<BbrStateRecord>& r = x.bbr->records;
  const double min_rtt_s = r[end].min_rtt_us.value_or(0) * 1e-6;
  const double resume_s = BbrRecordTime(x, r[end]) - 2 * min_rtt_s;
  size_t i = end;
  while (i > first && BbrRecordTime(x, r[i]) > resume_s) --i;
  return i;
}

Recovery RecoveryAfter(const RuleContext& x, size_t first, size_t end,
                       double path_bps) {
  const std::vector<BbrStateRecord>& r = x.bbr->records;
  const size_t resume = ResumeRecord(x, first, end);
  Recovery v;
  v.first = first;
  v.end = v.low_end = resume;
  while (v.low_end < r.size() && r[v.low_end].bw_bps < kLowShare * path_bps) {
    ++v.low_end;
  }
  const BbrStateRecord& last = r[std::max(v.low_end, resume + 1) - 1];
  v.rounds_low = last.round_count - r[resume].round_count;
  v.low_s = BbrRecordTime(x, last) - BbrRecordTime(x, r[resume]);
  if (v.low_s > 0) {
    v.delivered_bps = 8.0 * x.bbr->mss_bytes *
                      (last.delivered_packets - r[resume].delivered_packets) /
                      v.low_s;
  }
  v.cost_bytes = std::max(0.0, (path_bps - v.delivered_bps) / 8 * v.low_s);
  v.source = EstimateSource(r, resume);
  v.source_app_limited = v.source.has_value() && r[*v.source].app_limited;
  return v;
}

// The phase after which the estimate stayed low longest; nullopt when no
// phase lasted kMinPhaseRounds and ended before the trace did.
std::optional<Recovery> LongestRecovery(const RuleContext& x, double path_bps) {
  const std::vector<BbrStateRecord>& r = x.bbr->records;
  std::optional<Recovery> worst;
  for (const BbrRun& run : BbrRuns(*x.bbr, InPhase)) {
    bool app_limited = false;
    for (size_t i = run.first; i < run.end; ++i)
      app_limited |= r[i].app_limited;
    if (!app_limited || run.end >= r.size() ||
        r[run.end - 1].round_count - r[run.first].round_count <
            kMinPhaseRounds) {
      continue;
    }
    const Recovery v = RecoveryAfter(x, run.first, run.end, path_bps);
    if (!worst.has_value() || v.rounds_low > worst->rounds_low) worst = v;
  }
  return worst;
}

std::string Describe(const RuleContext& x, const std::string& spec,
                     const Recovery& v, double path_bps) {
  const std::vector<BbrStateRecord>& r = x.bbr->records;
  const BbrStateRecord& at_end = r[v.end];
  const std::string source =
      !v.source.has_value()
          ? std::string("no sample of that rate found")
          : absl::StrFormat("set by the %s sample at %.3f s",
                            v.source_app_limited ? "application-limited"
                                                 : "not application-limited",
                            BbrRecordTime(x, r[*v.source]));
  return absl::StrFormat(
      "when the sender resumed after the application-limited phase from "
      "%.3f s to %.3f s, %s's bandwidth estimate was %.2f Mb/s, %.0f%% of "
      "the path's %.2f Mb/s, in %s (%s); it stayed below %.0f%% of the path "
      "for %.3f s (%d round%s)%s, the flow delivering %.2f Mb/s meanwhile",
      BbrRecordTime(x, r[v.first]), BbrRecordTime(x, at_end), spec,
      at_end.bw_bps / 1e6, 100 * at_end.bw_bps / path_bps, path_bps / 1e6,
      BbrModeName(at_end.mode), source, 100 * kLowShare, v.low_s,
      static_cast<int>(v.rounds_low), v.rounds_low == 1 ? "" : "s",
      v.low_end < r.size() ? "" : ", to the end of the flow",
      v.delivered_bps / 1e6);
}

Finding AppLimitedFinding(const RuleContext& x, const std::string& spec,
                          const Recovery& v, double path_bps) {
  const std::vector<BbrStateRecord>& r = x.bbr->records;
  const double flow_bytes =
      static_cast<double>(r.back().delivered_packets) * x.bbr->mss_bytes;
  Finding f;
  f.kind = "bbr_app_limited_bw";
  f.severity = flow_bytes > 0 && v.cost_bytes > kWarnCostShare * flow_bytes
                   ? Severity::kWarning
                   : Severity::kInfo;
  f.start_s = BbrRecordTime(x, r[v.end]);
  f.end_s =
      BbrRecordTime(x, r[v.low_end < r.size() ? v.low_end : r.size() - 1]);
  f.message = absl::StrCat(
      "The bandwidth estimate was the application's, not the path's: ",
      Describe(x, spec, v, path_bps),
      absl::StrFormat(
          ". The flow had been application-limited since before it measured "
          "the path, so its max filter held only the application's rate "
          "(tcp_bbr.c keeps an application-limited sample when it does not "
          "lower the estimate); at the path's rate from the resume it would "
          "have delivered %.0f kB more over those rounds.",
          v.cost_bytes / 1e3));
  f.evidence.push_back(absl::StrFormat(
      "the replay of %s, ACK by ACK: the estimate at the resume and the "
      "sample that set it, marked application-limited by tcp_rate.c (a "
      "write that found the data sent, tcp_rate_check_app_limited())",
      spec));
  f.evidence.push_back(absl::StrFormat(
      "counterfactual: a sender that had measured the path before the phase "
      "keeps that estimate through it (bbr_update_bw() passes no "
      "application-limited sample below the max, so the filter never ages) "
      "and resumes at %.2f Mb/s; the path's rate is the diagnosis' "
      "bottleneck estimate",
      path_bps / 1e6));
  return f;
}

}  // namespace

void BbrAppLimitedBwRule::Check(const RuleContext& x, RuleOutput* out) const {
  const int c = BbrControllerIndex(x);
  if (c < 0) return;  // Not a BBR flow: the BBR rules stay silent.
  const std::string& spec = x.evidence->replay->controllers[c].spec;
  const double path_bps = x.estimates->bottleneck_rate_bps;
  const std::optional<Recovery> v =
      path_bps > 0 ? LongestRecovery(x, path_bps) : std::nullopt;
  if (!v.has_value()) {
    out->notes.push_back(absl::StrFormat(
        "bbr_app_limited_bw: no application-limited phase of %d rounds "
        "followed by data to send",
        static_cast<int>(kMinPhaseRounds)));
    return;
  }
  const double share = x.bbr->records[v->end].bw_bps / path_bps;
  if (!v->source_app_limited || share >= kFindingShare) {
    out->notes.push_back(absl::StrFormat(
        "bbr_app_limited_bw: %s (not a finding: %s)",
        Describe(x, spec, *v, path_bps),
        !v->source_app_limited
            ? "the estimate was not the application's"
            : absl::StrFormat("at %.0f%% of the path or more STARTUP's gain "
                              "regains 80%% of it in one round",
                              100 * kFindingShare)));
    return;
  }
  out->findings.push_back(AppLimitedFinding(x, spec, *v, path_bps));
}

}  // namespace ccreplay
