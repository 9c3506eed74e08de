#include "reports/rules/bbr_app_limited_bw.h"

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
// "Well below" the path's rate.
constexpr double kLowShare = 0.8;
// STARTUP's gain of 2.89 closes a 24x gap in 3 rounds; PROBE_BW's 1.25
// probe comes once per 8-round gain cycle. An estimate this many rounds
// below the path took the slow way.
constexpr uint32_t kMinLowRounds = 8;

// An application-limited phase from record `first`, the record `end` at
// which the sender resumed (ResumeRecord), and the records [end, low_end)
// in which the estimate stayed below kLowShare of the path (low_end:
// records.size() when it never rose).
struct Recovery {
  size_t first = 0, end = 0, low_end = 0;
  uint32_t rounds_low = 0;
  double low_s = 0;
  double delivered_bps = 0;  // over [end, low_end)
};

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
  Recovery v{first, resume, resume};
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
  return absl::StrFormat(
      "when the sender resumed after the application-limited phase from "
      "%.3f s to %.3f s, %s's bandwidth estimate was %.2f Mb/s, %.0f%% of "
      "the path's %.2f Mb/s, in %s; it stayed below %.0f%% of the path for "
      "%.3f s (%d round%s)%s, the flow delivering %.2f Mb/s meanwhile",
      BbrRecordTime(x, r[v.first]), BbrRecordTime(x, at_end), spec,
      at_end.bw_bps / 1e6, 100 * at_end.bw_bps / path_bps, path_bps / 1e6,
      BbrModeName(at_end.mode), 100 * kLowShare, v.low_s,
      static_cast<int>(v.rounds_low), v.rounds_low == 1 ? "" : "s",
      v.low_end < r.size() ? "" : ", to the end of the flow",
      v.delivered_bps / 1e6);
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
  const std::string what = Describe(x, spec, *v, path_bps);
  if (v->rounds_low < kMinLowRounds ||
      v->delivered_bps >= kLowShare * path_bps) {
    out->notes.push_back(absl::StrCat("bbr_app_limited_bw: ", what,
                                      " (not a finding: below ", kMinLowRounds,
                                      " rounds, or the flow kept up)"));
    return;
  }
  Finding f;
  f.kind = "bbr_app_limited_bw";
  f.severity = Severity::kWarning;
  f.start_s = BbrRecordTime(x, x.bbr->records[v->end]);
  f.end_s = BbrRecordTime(
      x, x.bbr->records[v->low_end < x.bbr->records.size() ? v->low_end
                                                           : v->low_end - 1]);
  f.message = absl::StrCat(
      "The bandwidth estimate was left low by application-limited samples: ",
      what,
      ". tcp_bbr.c keeps an application-limited sample only when it raises "
      "the estimate, so the phase's best sample, not the path's rate, is "
      "what the flow resumed with.");
  f.evidence.push_back(absl::StrFormat(
      "the replay of %s, ACK by ACK: rate samples marked application-limited "
      "(tcp_rate.c) through the phase",
      spec));
  f.evidence.push_back(absl::StrFormat(
      "the path's rate is the diagnosis' bottleneck estimate (%.2f Mb/s)",
      path_bps / 1e6));
  out->findings.push_back(std::move(f));
}

}  // namespace ccreplay
