#include "reports/rules/rtt_scaling_slow_growth.h"

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

// Prague's RTT scaling matters when it slows additive increase at least
// this much (ControllerState::ai_factor).
constexpr double kSlowAiFactor = 0.5;

// Replays whose median errors differ by at most this many percentage
// points fit the captured cwnd equally well.
constexpr double kSameFitPct = 1;

// A fitted closed loop whose utilization with the flow's own controller is
// further than this from the captured utilization does not reproduce it
// (the run is shorter than the flow: a generous margin).
constexpr double kFitUtilizationGap = 0.25;

// A slowed stretch over this share of the flow is critical: the slow
// growth, not an episode, is the flow's story.
constexpr double kCriticalShare = 0.2;

// Least-squares slope of the captured cwnd against time over samples
// [first, last], in bytes per second; nullopt with fewer than two samples.
std::optional<double> CapturedSlopeBytesPerS(const RuleContext& x, size_t first,
                                             size_t last) {
  double n = 0, st = 0, sc = 0, stt = 0, stc = 0;
  for (size_t i = first; i <= last; ++i) {
    const std::optional<double> c = x.samples.captured(i);
    if (!c.has_value()) continue;
    const double t = x.samples.t(i);
    n += 1;
    st += t;
    sc += *c;
    stt += t * t;
    stc += t * *c;
  }
  const double var = n * stt - st * st;
  if (n < 2 || !(var > 0)) return std::nullopt;
  return (n * stc - st * sc) / var;
}

// One scaling profile's stretch below the BDP and what the capture and the
// counterfactual without scaling show there.
struct SlowGrowth {
  int c = -1;    // The scaling profile's replay.
  int off = -1;  // Its counterfactual without scaling.
  Stretch slow;
  double captured_median_bytes = 0;
  double off_median_bytes = 0;
  double ai_median = 0;
  double srtt_ms = 0;
  std::optional<double> slope_bytes_per_s;
  double growth_per_rtt = 0;  // Captured, in segments.
  double regained_s = -1;     // Counterfactual back at the BDP, into it.
};

// Claimed profiles that scale, best fitting first.
std::vector<int> ScalingProfiles(const RuleContext& x) {
  std::vector<int> claimed;
  for (size_t c = 0; c < x.evidence->choices.size(); ++c) {
    const ReplayChoice& choice = x.evidence->choices[c];
    const absl::StatusOr<ControllerSpec> parsed =
        ControllerSpec::Parse(choice.spec);
    if (choice.role == ReplayRole::kClaimed && parsed.ok() &&
        parsed->family == "prague" && parsed->Value("rtt_scaling") != "none") {
      claimed.push_back(static_cast<int>(c));
    }
  }
  std::stable_sort(claimed.begin(), claimed.end(), [&](int a, int b) {
    return MedianErrorPct(*x.evidence, a) < MedianErrorPct(*x.evidence, b);
  });
  return claimed;
}

// After slow start, the longest stretch where profile `c`'s scaling slows
// increase while its cwnd is below the BDP.
Stretch ScaledBelowBdp(const RuleContext& x, int c) {
  return x.samples.Longest([&](size_t i) {
    const SeriesSample& m = x.samples.at(c, i);
    if (m.phase == Phase::kSlowStart) return -1;
    return m.ai_factor < kSlowAiFactor && m.cwnd_bytes < kBelowBdp * x.bdp_bytes
               ? 1
               : 0;
  });
}

// Profile `c` explains a lasting slow growth when the captured flow is
// below the BDP there too, grows far slower than Reno's one segment per
// RTT, and the replay without scaling regains the BDP. nullopt otherwise,
// with `why_not` updated when the stretch exists but does not qualify.
std::optional<SlowGrowth> MeasureSlowGrowth(const RuleContext& x, int c,
                                            std::string* why_not) {
  const std::string& spec = x.evidence->choices[c].spec;
  SlowGrowth g;
  g.c = c;
  // Parses: it is one of ScalingProfiles().
  const absl::StatusOr<ControllerSpec> off_spec =
      RttScalingOffSpec(*ControllerSpec::Parse(spec));
  g.off =
      off_spec.ok() ? FindSpecByName(*x.evidence, off_spec->ToString()) : -1;
  if (g.off < 0) return std::nullopt;
  g.slow = ScaledBelowBdp(x, c);
  const Stretch& slow = g.slow;
  if (!slow.found || slow.span_s() < x.min_stretch_s) return std::nullopt;
  std::vector<double> captured, ai, srtt, off_cwnd;
  for (size_t i = slow.first; i <= slow.last; ++i) {
    if (x.samples.captured(i).has_value())
      captured.push_back(*x.samples.captured(i));
    ai.push_back(x.samples.at(c, i).ai_factor);
    off_cwnd.push_back(x.samples.at(g.off, i).cwnd_bytes);
    if (x.samples.at(c, i).srtt_us > 0)
      srtt.push_back(x.samples.at(c, i).srtt_us * 1e-3);
  }
  if (captured.empty() || Median(captured) >= kBelowBdp * x.bdp_bytes) {
    *why_not = absl::StrFormat(
        "the replay of %s is held below the BDP from %.3f s to %.3f s, but "
        "the captured cwnd is not",
        spec, slow.start_s, slow.end_s);
    return std::nullopt;
  }
  g.captured_median_bytes = Median(captured);
  g.off_median_bytes = Median(off_cwnd);
  g.ai_median = Median(ai);
  g.slope_bytes_per_s = CapturedSlopeBytesPerS(x, slow.first, slow.last);
  g.srtt_ms = Median(srtt);
  g.growth_per_rtt = g.slope_bytes_per_s.has_value()
                         ? *g.slope_bytes_per_s * g.srtt_ms * 1e-3 / x.mss_bytes
                         : 0;
  if (!g.slope_bytes_per_s.has_value() || g.growth_per_rtt >= kSlowAiFactor) {
    *why_not = absl::StrFormat(
        "from %.3f s to %.3f s the captured cwnd grew %.2f segments per RTT, "
        "not far below Reno's 1",
        slow.start_s, slow.end_s, g.growth_per_rtt);
    return std::nullopt;
  }
  for (size_t i = slow.first; i <= slow.last; ++i) {
    if (x.samples.at(g.off, i).cwnd_bytes >= x.bdp_bytes) {
      g.regained_s = x.samples.t(i) - slow.start_s;
      break;
    }
  }
  if (g.regained_s < 0) {
    *why_not = absl::StrFormat(
        "from %.3f s to %.3f s the replay of %s stays below the BDP too: "
        "scaling does not explain it",
        slow.start_s, slow.end_s, x.evidence->choices[g.off].spec);
    return std::nullopt;
  }
  return g;
}

Finding SlowGrowthFinding(const RuleContext& x, const SlowGrowth& g) {
  const std::string& spec = x.evidence->choices[g.c].spec;
  Finding f;
  f.kind = "rtt_scaling_slow_growth";
  f.severity = g.slow.span_s() > kCriticalShare * x.duration_s
                   ? Severity::kCritical
                   : Severity::kWarning;
  f.start_s = g.slow.start_s;
  f.end_s = g.slow.end_s;
  f.message = absl::StrFormat(
      "From %.3f s to %.3f s cwnd stayed below the %s-packet BDP (captured "
      "median %s packets) and grew %.4f segments per RTT where Reno grows "
      "one: %s RTT scaling (srtt %.2f ms) cut additive increase to 1/%.0f "
      "of Reno's; on the same ACKs without scaling the replay %s.",
      f.start_s, f.end_s, Pkts(x.bdp_bytes, x.mss_bytes),
      Pkts(g.captured_median_bytes, x.mss_bytes), g.growth_per_rtt, spec,
      g.srtt_ms, 1 / std::max(g.ai_median, 1e-9),
      g.regained_s > 0
          ? absl::StrFormat("regains the BDP in %.2f s", g.regained_s)
          : std::string("stays at or above the BDP"));
  f.evidence.push_back(
      absl::StrFormat("replay of %s (median error %.1f%%): median "
                      "RTT-scaling factor %.4g over the stretch (α plot)",
                      spec, MedianErrorPct(*x.evidence, g.c), g.ai_median));
  f.evidence.push_back(absl::StrFormat(
      "captured cwnd: least-squares slope %.0f bytes/s, %.3g segments per "
      "RTT of %.2f ms",
      g.slope_bytes_per_s.value_or(0), g.growth_per_rtt, g.srtt_ms));
  f.evidence.push_back(absl::StrFormat(
      "counterfactual %s on the same ACKs: median cwnd %s packets over the "
      "stretch, at the BDP %.2f s into it",
      x.evidence->choices[g.off].spec, Pkts(g.off_median_bytes, x.mss_bytes),
      g.regained_s));
  return f;
}

// The fitted path's closed loop with each scaling profile that fits as
// well as `g`'s (their replays can agree on these ACKs while their closed
// loops differ, e.g. in when the transition falls), then without scaling.
std::string ClosedLoopEvidence(const RuleContext& x,
                               const std::vector<int>& claimed,
                               const SlowGrowth& g) {
  std::vector<std::string> specs;
  for (int other : claimed) {
    if (MedianErrorPct(*x.evidence, other) <=
        MedianErrorPct(*x.evidence, g.c) + kSameFitPct)
      specs.push_back(x.evidence->choices[other].spec);
  }
  specs.push_back(x.evidence->choices[g.off].spec);
  std::vector<std::string> results;
  std::optional<double> first_u;
  for (const std::string& s : specs) {
    absl::StatusOr<double> u =
        SimulatedUtilization(*x.evidence->path, s, x.mss_bytes);
    if (u.ok()) {
      if (!first_u) first_u = *u;
      results.push_back(absl::StrFormat("%.0f%% with %s", 100 * *u, s));
    }
  }
  std::string caveat;
  const double captured_u = CapturedUtilization(x);
  if (first_u && std::abs(*first_u - captured_u) > kFitUtilizationGap) {
    // The closed loop is only evidence when it reproduces the capture;
    // the receiver's ACK policy (how many segments, how long a timer)
    // is the least observable input from the sender's side.
    caveat = absl::StrFormat(
        "; it does not reproduce the captured %.0f%%, so this run is no "
        "evidence either way (the receiver's ACK timing is inferred from "
        "the sender's side)",
        100 * captured_u);
  }
  return absl::StrCat("closed-loop simulation of the fitted path (",
                      x.evidence->path->Describe(), "): utilization ",
                      absl::StrJoin(results, ", "), caveat);
}

}  // namespace

void RttScalingSlowGrowthRule::Check(const RuleContext& x,
                                     RuleOutput* out) const {
  const std::vector<int> claimed = ScalingProfiles(x);
  std::string why_not = claimed.empty()
                            ? "not applicable (no Prague profile replayed)"
                            : "no stretch where Prague's RTT scaling held cwnd "
                              "below the BDP";
  // One finding: the best-fitting profile that explains a stretch.
  for (int c : claimed) {
    const std::optional<SlowGrowth> g = MeasureSlowGrowth(x, c, &why_not);
    if (!g.has_value()) continue;
    Finding f = SlowGrowthFinding(x, *g);
    if (x.evidence->path.has_value())
      f.evidence.push_back(ClosedLoopEvidence(x, claimed, *g));
    out->findings.push_back(std::move(f));
    return;
  }
  out->notes.push_back(absl::StrCat("rtt_scaling_slow_growth: ", why_not));
}

}  // namespace ccreplay
