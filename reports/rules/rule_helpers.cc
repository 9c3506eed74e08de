#include "reports/rules/rule_helpers.h"

#include <algorithm>
#include <utility>

#include "absl/strings/str_format.h"

namespace ccreplay {

std::string Pkts(double bytes, double mss) {
  return absl::StrFormat("%.1f", bytes / mss);
}

int FindSpec(const ReplayEvidence& e, ReplayRole role,
             const std::string& base) {
  for (size_t i = 0; i < e.choices.size(); ++i) {
    if (e.choices[i].role == role && e.choices[i].base_spec == base)
      return static_cast<int>(i);
  }
  return -1;
}

int FindSpecByName(const ReplayEvidence& e, const std::string& spec) {
  for (size_t i = 0; i < e.choices.size(); ++i) {
    if (e.choices[i].spec == spec) return static_cast<int>(i);
  }
  return -1;
}

int BbrControllerIndex(const RuleContext& x) {
  if (x.bbr == nullptr || x.evidence == nullptr) return -1;
  const std::vector<ReplayedController>& c = x.evidence->replay->controllers;
  for (size_t i = 0; i < c.size(); ++i) {
    if (c[i].bbr_state.has_value() && &*c[i].bbr_state == x.bbr) {
      return static_cast<int>(i);
    }
  }
  return -1;
}

std::optional<size_t> SlowStartExit(const RuleContext& x, int c) {
  for (size_t i = 0; i < x.samples.size(); ++i) {
    if (x.samples.at(c, i).phase != Phase::kSlowStart) return i;
  }
  return std::nullopt;
}

bool SignalBefore(const FlowObserver& obs, double t_s) {
  const double w = obs.bin_width_s();
  for (size_t i = 0; i < obs.bins().size() && i * w < t_s; ++i) {
    const ObservationBin& b = obs.bins()[i];
    if (b.retransmissions > 0 || b.ce_packets > 0 || b.ece_acks > 0)
      return true;
  }
  return false;
}

double CapturedUtilization(const RuleContext& x) {
  uint64_t delivered = 0;
  for (const ObservationBin& b : x.observed->bins())
    delivered += b.delivered_bytes;
  const double capacity = x.estimates->bottleneck_rate_bps / 8 * x.duration_s;
  return capacity > 0 ? delivered / capacity : 0;
}

std::optional<Finding> LimiterFinding(const RuleContext& x, Limiter limiter,
                                      absl::string_view kind, Severity severity,
                                      absl::string_view what) {
  const LimiterCoverage c = CoverageOf(x.limiter_runs, limiter);
  if (x.data_s <= 0 || c.total_s < kMinLimiterShare * x.data_s)
    return std::nullopt;
  if (c.longest.end_s - c.longest.start_s <
      kMinLimiterRunRtts * x.estimates->base_rtt_s)
    return std::nullopt;
  Finding f;
  f.kind = std::string(kind);
  f.severity = severity;
  f.start_s = c.longest.start_s;
  f.end_s = c.longest.end_s;
  f.message = absl::StrFormat(
      "%s for %.0f%% of the data phase (%.2f s of %.2f s); the longest "
      "stretch runs from %.3f s to %.3f s.",
      what, 100 * c.total_s / x.data_s, c.total_s, x.data_s, f.start_s,
      f.end_s);
  f.evidence.push_back(absl::StrFormat(
      "limiter per interval from the ACK timeline (what the sender did just "
      "before each ACK); the band \"%s\" in the limiter plot",
      LimiterLabel(limiter)));
  return f;
}

}  // namespace ccreplay
