// What more than one diagnosis rule computes, in one place.
#ifndef CCREPLAY_REPORTS_RULES_RULE_HELPERS_H_
#define CCREPLAY_REPORTS_RULES_RULE_HELPERS_H_

#include <optional>
#include <string>
#include <vector>

#include "reports/controller_choice.h"
#include "reports/limiter_runs.h"
#include "reports/percentile.h"
#include "reports/report_model.h"
#include "reports/rules/finding_rule.h"
#include "reports/rules/rule_context.h"

namespace ccreplay {

// cwnd "below the BDP" means under this share of it (the BDP estimate is
// itself uncertain by some percent).
inline constexpr double kBelowBdp = 0.8;

// `bytes` in packets of `mss`, one decimal: "12.5".
std::string Pkts(double bytes, double mss);

// The choice with `role` that varies the claimed `base` spec; -1: none.
int FindSpec(const ReplayEvidence& e, ReplayRole role, const std::string& base);
// The choice replayed as `spec`; -1: none.
int FindSpecByName(const ReplayEvidence& e, const std::string& spec);

// The replayed controller whose ACK-by-ACK BBR trace the context holds
// (RuleContext::bbr); -1 when it holds none (not a BBR flow).
int BbrControllerIndex(const RuleContext& x);

// The first sample of controller `c` out of slow start.
std::optional<size_t> SlowStartExit(const RuleContext& x, int c);

// Whether the flow saw loss or congestion marks before `t_s`.
bool SignalBefore(const FlowObserver& obs, double t_s);

// Bytes delivered over the flow / (estimated rate x duration).
double CapturedUtilization(const RuleContext& x);

// The timeline rules' shared check: `limiter` held the sender for
// kMinLimiterShare of the data phase, with one stretch of kMinLimiterRtts
// base RTTs; the finding spans that longest stretch. nullopt otherwise.
std::optional<Finding> LimiterFinding(const RuleContext& x, Limiter limiter,
                                      absl::string_view kind, Severity severity,
                                      absl::string_view what);
// A limiter finding needs its condition over this share of the data
// phase (shorter episodes are incidents, not the flow's story)...
inline constexpr double kMinLimiterShare = 0.10;
// ...and over at least this many base RTTs in one stretch (a window-limited
// sender alternates limits within an RTT or two).
inline constexpr double kMinLimiterRunRtts = 5;

}  // namespace ccreplay

#endif  // CCREPLAY_REPORTS_RULES_RULE_HELPERS_H_
