#include "reports/rules/bbr_long_term_mode.h"

#include <algorithm>
#include <string>
#include <utility>
#include <vector>

#include "absl/strings/str_format.h"

namespace ccreplay {

void BbrLongTermModeRule::Check(const RuleContext& x, RuleOutput* out) const {
  if (x.bbr == nullptr) return;  // not a BBR flow
  const std::vector<BbrStateRecord>& r = x.bbr->records;
  const std::vector<BbrRun> runs =
      BbrRuns(*x.bbr, [](const BbrStateRecord& s) { return s.lt_use_bw; });
  if (runs.empty()) {
    out->notes.push_back(
        "bbr_long_term_mode: the bbr:linux replay never judged the path "
        "policed (no two consistent sampling intervals with >= 20% loss)");
    return;
  }
  double held_s = 0;
  for (const BbrRun& run : runs) {
    held_s += BbrRecordTime(x, r[std::min(run.end, r.size() - 1)]) -
              BbrRecordTime(x, r[run.first]);
  }
  const BbrStateRecord& entry = r[runs.front().first];
  // The max filter's estimate just before the entry: what BBR paced at
  // without the long-term mode.
  const double max_bw_bps = runs.front().first > 0
                                ? r[runs.front().first - 1].max_bw_bps
                                : entry.max_bw_bps;
  const double t_entry = BbrRecordTime(x, entry);
  Finding f;
  f.kind = "bbr_long_term_mode";
  f.severity = Severity::kWarning;
  f.start_s = t_entry;
  f.end_s = BbrRecordTime(x, r[std::min(runs.back().end, r.size() - 1)]);
  f.message = absl::StrFormat(
      "From %.3f s BBR judged the path policed (a token-bucket policer): two "
      "sampling intervals lost %.0f%% of their packets (the threshold is "
      "20%%, bbr_lt_loss_thresh = 50/256) at consistent delivery rates, so "
      "it paced at their average, %.2f Mbit/s, instead of its max-filter "
      "estimate of %.2f Mbit/s; long-term mode was on %d times, %.1f s in "
      "all (%.0f%% of the flow).",
      t_entry, 100 * entry.lt_loss_ratio, entry.lt_bw_bps / 1e6,
      max_bw_bps / 1e6, runs.size(), held_s,
      100 * held_s / std::max(x.duration_s, 1e-9));
  f.evidence.push_back(absl::StrFormat(
      "the bbr:linux replay sets lt_use_bw at %.3f s (round %d) with lt_bw "
      "%.2f Mbit/s after an interval of %.1f%% loss; %d of %d packets were "
      "marked lost by then",
      t_entry, static_cast<int>(entry.round_count), entry.lt_bw_bps / 1e6,
      100 * entry.lt_loss_ratio, static_cast<int>(entry.lost_packets),
      static_cast<int>(entry.delivered_packets + entry.lost_packets)));
  f.evidence.push_back(
      "Linux 6.18 tcp_bbr.c bbr_lt_bw_sampling(): intervals of 4-16 rounds "
      "ended by a loss; consistent within 1/8 or 4 kbit/s; lt_bw kept for "
      "48 rounds, then gain cycling restarts");
  out->findings.push_back(std::move(f));
}

}  // namespace ccreplay
