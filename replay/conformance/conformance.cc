#include "replay/conformance/conformance.h"

#include <algorithm>
#include <map>
#include <string>
#include <tuple>
#include <utility>

#include "replay/conformance/conformance_rules.h"

namespace ccreplay {
namespace {

// Violations of one rule less than this apart are one group: a per-ACK
// bug is one line of the report, not one per ACK.
constexpr int64_t kMergeGapUs = 1'000'000;

constexpr KnownDeviation kKnownDeviations[] = {
    {"linux", kRuleSlowStartIncrease,
     "Linux grows cwnd by every packet an ACK delivers in slow start, "
     "not at most L = 2 (tcp_slow_start(), net/ipv4/tcp_cong.c, 6.18)"},
    {"linux", kRuleInitialWindow,
     "Linux starts at 10 segments whatever the MSS (TCP_INIT_CWND, "
     "include/net/tcp.h, 6.18), above RFC 6928's 14600 bytes for MSS > 1460"},
    {"linux", kRuleIncreaseNotCwndLimited,
     "Linux judges cwnd-limited once per window: flight that reached cwnd "
     "(in slow start, half of it) once in a window lets the ACKs of the "
     "next grow cwnd (tcp_cwnd_validate(): is_cwnd_limited, max_packets_out, "
     "cwnd_usage_seq, net/ipv4/tcp_output.c; tcp_is_cwnd_limited(), "
     "include/net/tcp.h, 6.18)"},
    {"ngtcp2", kRuleCwndStalled,
     "ngtcp2 caps cwnd growth by the delivery rate (its CUBIC and Reno in "
     "lib/ngtcp2_cc.c, 0.12.1): growth stops while the rate does not rise"},
    {"ngtcp2", kRuleCubicGrowth,
     "ngtcp2 grows W_est with alpha = 1 from the start of congestion "
     "avoidance, not alpha_cubic until W_est reaches W_max "
     "(ngtcp2_cc_cubic_cc_on_ack_recv(), lib/ngtcp2_cc.c, 0.12.1)"},
};

uint64_t Excess(const ConformanceViolation& v) {
  return v.seen_bytes > v.expected_bytes ? v.seen_bytes - v.expected_bytes
                                         : v.expected_bytes - v.seen_bytes;
}

// Merges each rule's violations that are less than kMergeGapUs apart,
// keeping the worst step's bound and value; returns them by start time.
std::vector<ConformanceViolation> Group(std::vector<ConformanceViolation> raw) {
  std::stable_sort(
      raw.begin(), raw.end(),
      [](const ConformanceViolation& a, const ConformanceViolation& b) {
        return std::tie(a.rule, a.start_us) < std::tie(b.rule, b.start_us);
      });
  std::vector<ConformanceViolation> groups;
  for (ConformanceViolation& v : raw) {
    if (!groups.empty() && groups.back().rule == v.rule &&
        v.start_us - groups.back().end_us <= kMergeGapUs) {
      ConformanceViolation& g = groups.back();
      g.end_us = std::max(g.end_us, v.end_us);
      g.acks += v.acks;
      if (Excess(v) > Excess(g)) {
        g.expected_bytes = v.expected_bytes;
        g.seen_bytes = v.seen_bytes;
      }
      continue;
    }
    groups.push_back(std::move(v));
  }
  std::stable_sort(
      groups.begin(), groups.end(),
      [](const ConformanceViolation& a, const ConformanceViolation& b) {
        return a.start_us < b.start_us;
      });
  return groups;
}

}  // namespace

uint64_t ConformanceResult::violation_count() const {
  return std::count_if(violations.begin(), violations.end(),
                       [](const ConformanceViolation& v) {
                         return v.documented_deviation.empty();
                       });
}

absl::Span<const KnownDeviation> KnownDeviations() { return kKnownDeviations; }

ConformanceResult CheckConformance(absl::Span<const ConformanceAck> acks,
                                   const ConformanceProfile& profile,
                                   std::optional<uint64_t> initial_cwnd_bytes) {
  // Undone events are as if never declared (FindUndoneEvents()).
  const std::vector<UndoneEvent> undone =
      FindUndoneEvents(acks, profile.transport);
  std::vector<ConformanceAck> kept(acks.begin(), acks.end());
  for (const UndoneEvent& u : undone) {
    kept[u.event].congestion_event = kept[u.event].timeout = false;
    kept[u.event].ecn_event = false;
  }
  RuleInputs in{kept, ClassifySteps(kept, profile.transport), profile,
                initial_cwnd_bytes};
  for (const UndoneEvent& u : undone) {
    for (size_t k = u.event; k <= u.restore; ++k) {
      in.regimes[k].settling = true;
    }
  }
  std::vector<ConformanceViolation> raw;
  for (auto* rule : {&CheckInitialWindow, &CheckSlowStartIncrease,
                     &CheckCongestionAvoidanceIncrease, &CheckCwndStalled,
                     &CheckReduction, &CheckIncreaseInRecovery,
                     &CheckFlightAboveCwnd, &CheckIncreaseNotCwndLimited,
                     &CheckSecondReduction, &CheckPersistentCongestion,
                     &CheckCubicGrowth, &CheckPrrBound, &CheckDctcpReduction}) {
    rule(in, &raw);
  }
  ConformanceResult result;
  for (const StepRegime& r : in.regimes) {
    if (r.before && r.after) ++result.acks_checked;
  }
  result.violations = Group(std::move(raw));
  for (ConformanceViolation& v : result.violations) {
    for (const KnownDeviation& d : kKnownDeviations) {
      if (d.stack == profile.stack && d.rule == v.rule) {
        v.documented_deviation = std::string(d.description);
      }
    }
  }
  return result;
}

absl::string_view ConformanceFamilyName(ConformanceFamily family) {
  switch (family) {
    case ConformanceFamily::kCubic:
      return "cubic";
    case ConformanceFamily::kDctcp:
      return "dctcp";
    case ConformanceFamily::kReno:
      break;
  }
  return "reno";
}

absl::string_view ConformanceTransportName(ConformanceTransport transport) {
  return transport == ConformanceTransport::kQuic ? "quic" : "tcp";
}

}  // namespace ccreplay
