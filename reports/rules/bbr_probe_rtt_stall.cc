#include "reports/rules/bbr_probe_rtt_stall.h"

#include <algorithm>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "absl/strings/str_format.h"
#include "reports/rules/bbr_counterfactual.h"
#include "reports/rules/rule_helpers.h"

namespace ccreplay {
namespace {

// tcp_bbr.c bbr_min_rtt_win_sec: PROBE_RTT comes once the min RTT is 10 s
// old, so a shorter flow cannot show one.
constexpr double kMinFlowS = 10;
// Evidence lines for at most this many entries; the message counts all.
constexpr size_t kMaxEvidenceEntries = 4;
// A cost above this share of what the flow delivered is a warning.
constexpr double kWarnCostShare = 0.05;

// One PROBE_RTT entry: its span, the bw before it (bit/s) and what it
// delivered against that rate (bytes).
struct ProbeRttEntry {
  double start_s = 0, end_s = 0;
  double bw_before_bps = 0;
  double delivered_bytes = 0;
  double expected_bytes = 0;
  uint64_t min_cwnd_bytes = 0;
  double cost_bytes() const {
    return std::max(0.0, expected_bytes - delivered_bytes);
  }
};

std::vector<ProbeRttEntry> ProbeRttEntries(const RuleContext& x) {
  const std::vector<BbrStateRecord>& r = x.bbr->records;
  const double mss = x.bbr->mss_bytes;
  std::vector<ProbeRttEntry> entries;
  for (const BbrRun& run : BbrRuns(*x.bbr, [](const BbrStateRecord& s) {
         return s.mode == BbrMode::kProbeRtt;
       })) {
    if (run.first == 0) continue;  // no rate before it
    const BbrStateRecord& before = r[run.first - 1];
    const BbrStateRecord& after = r[std::min(run.end, r.size() - 1)];
    ProbeRttEntry e;
    e.start_s = BbrRecordTime(x, r[run.first]);
    e.end_s = BbrRecordTime(x, after);
    e.bw_before_bps = before.bw_bps;
    e.delivered_bytes = static_cast<double>(after.delivered_packets -
                                            before.delivered_packets) *
                        mss;
    e.expected_bytes =
        e.bw_before_bps / 8 * (e.end_s - BbrRecordTime(x, before));
    e.min_cwnd_bytes = r[run.first].cwnd_bytes;
    for (size_t i = run.first; i < run.end; ++i) {
      e.min_cwnd_bytes = std::min(e.min_cwnd_bytes, r[i].cwnd_bytes);
    }
    entries.push_back(e);
  }
  return entries;
}

// The counterfactual: the same fitted path without PROBE_RTT
// (bbr_probe_rtt_mode_ms = 0, which bbr_update_min_rtt() tests); nullopt
// without a fitted path.
std::optional<std::string> ClosedLoop(const RuleContext& x) {
  const int c = BbrControllerIndex(x);
  if (c < 0 || !x.evidence->path.has_value()) return std::nullopt;
  const std::optional<BbrCounterfactual> cf = RunBbrCounterfactual(
      *x.evidence->path, x.evidence->replay->controllers[c].spec,
      {{"probe_rtt_ms", "0"}}, x.packet_bytes);
  if (!cf.has_value()) return std::nullopt;
  return DescribeBbrCounterfactual(*cf, "without PROBE_RTT");
}

}  // namespace

void BbrProbeRttStallRule::Check(const RuleContext& x, RuleOutput* out) const {
  if (x.bbr == nullptr) return;  // not a BBR flow
  if (x.duration_s < kMinFlowS) {
    out->notes.push_back(absl::StrFormat(
        "bbr_probe_rtt_stall: the flow lasts %.1f s, under the %.0f s after "
        "which BBR's min RTT expires",
        x.duration_s, kMinFlowS));
    return;
  }
  const std::vector<ProbeRttEntry> entries = ProbeRttEntries(x);
  if (entries.empty()) {
    out->notes.push_back(
        "bbr_probe_rtt_stall: the bbr:linux replay never entered PROBE_RTT "
        "(its min RTT was refreshed in time)");
    return;
  }
  const std::vector<BbrStateRecord>& r = x.bbr->records;
  const double flow_delivered_bytes =
      static_cast<double>(r.back().delivered_packets) * x.bbr->mss_bytes;
  double held_s = 0, cost_bytes = 0;
  for (const ProbeRttEntry& e : entries) {
    held_s += e.end_s - e.start_s;
    cost_bytes += e.cost_bytes();
  }
  const double cost_share =
      flow_delivered_bytes > 0 ? cost_bytes / flow_delivered_bytes : 0;
  Finding f;
  f.kind = "bbr_probe_rtt_stall";
  f.severity =
      cost_share >= kWarnCostShare ? Severity::kWarning : Severity::kInfo;
  f.start_s = entries.front().start_s;
  f.end_s = entries.back().end_s;
  f.message = absl::StrFormat(
      "BBR entered PROBE_RTT %d times (its 10-s min RTT expired), holding "
      "cwnd at 4 packets for %.0f ms each on average, %.1f%% of the flow's "
      "%.1f s; against the bandwidth estimate before each entry that cost "
      "%.0f kB of delivery, %.1f%% of the %.0f kB delivered.",
      entries.size(), 1e3 * held_s / entries.size(),
      100 * held_s / x.duration_s, x.duration_s, cost_bytes / 1e3,
      100 * cost_share, flow_delivered_bytes / 1e3);
  for (size_t i = 0; i < entries.size() && i < kMaxEvidenceEntries; ++i) {
    const ProbeRttEntry& e = entries[i];
    f.evidence.push_back(absl::StrFormat(
        "the bbr:linux replay is in PROBE_RTT from %.3f s to %.3f s, cwnd "
        "down to %.0f bytes; it delivered %.0f kB where %.2f Mbit/s (its bw "
        "before) gives %.0f kB",
        e.start_s, e.end_s, static_cast<double>(e.min_cwnd_bytes),
        e.delivered_bytes / 1e3, e.bw_before_bps / 1e6,
        e.expected_bytes / 1e3));
  }
  f.evidence.push_back(
      "Linux 6.18 tcp_bbr.c: PROBE_RTT every bbr_min_rtt_win_sec = 10 s "
      "without a lower RTT sample, cwnd bbr_cwnd_min_target = 4 for "
      "max(200 ms, one round)");
  if (std::optional<std::string> cf = ClosedLoop(x)) {
    f.evidence.push_back(std::move(*cf));
  }
  out->findings.push_back(std::move(f));
}

}  // namespace ccreplay
