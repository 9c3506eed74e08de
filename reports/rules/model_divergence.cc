#include "reports/rules/model_divergence.h"

#include <algorithm>
#include <cmath>
#include <functional>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"
#include "reports/rules/rule_helpers.h"

namespace ccreplay {
namespace {

// Where the captured window is the flight size (no ss, tcp_probe or qlog),
// it stands for cwnd only while the sender was cwnd-limited; below this
// share of the data phase the few ACKs compared cannot tell a wrong model
// from a flight that was not at cwnd (an application-limited Linux sender
// keeps cwnd up to twice its flight, tcp_is_cwnd_limited(), 6.18).
constexpr double kMinFlightCwndLimitedShare = 0.1;

// The note when the flight-size comparison rests on too little; nullopt
// when it can be judged.
std::optional<std::string> TooLittleFlight(const RuleContext& x,
                                           const std::string& spec) {
  if (x.evidence->replay->source != CapturedSource::kFlightSize ||
      !(x.data_s > 0)) {
    return std::nullopt;
  }
  // BBR's cwnd is a cap (cwnd_gain x BDP plus quanta, tcp_bbr.c
  // bbr_set_cwnd(), 6.18) that its pacing rate keeps the flight under:
  // the flight does not show it.
  if (absl::StartsWith(spec, "bbr:")) {
    return absl::StrCat("model_divergence: not judged: ", spec,
                        "'s cwnd is a cap its pacing keeps the flight under, "
                        "and the captured window is the flight");
  }
  const double share =
      CoverageOf(x.limiter_runs, Limiter::kCwnd).total_s / x.data_s;
  if (share >= kMinFlightCwndLimitedShare) return std::nullopt;
  return absl::StrFormat(
      "model_divergence: not judged: the captured window is the flight "
      "size, which shows cwnd only while the sender was cwnd-limited, and "
      "it was for %.0f%% of the flow (a judgement needs %.0f%%)",
      100 * share, 100 * kMinFlightCwndLimitedShare);
}

}  // namespace

// Where the excursion starts and ends, the phase where the error is
// largest, then the finding.
// long: the message names each of them.
void ModelDivergenceRule::Check(const RuleContext& x, RuleOutput* out) const {
  const int best = x.best;
  const ReplayedController& c = x.evidence->replay->controllers[best];
  const DivergenceSummary& d = c.divergence;
  if (!d.first_divergence_us.has_value() || !d.median_abs_err_pct.has_value()) {
    out->notes.push_back(
        absl::StrCat("model_divergence: the replay of ", c.spec,
                     d.samples == 0 ? " had no cwnd-limited sample to compare"
                                    : " stayed within ±25% of the captured "
                                      "cwnd (no lasting excursion)"));
    return;
  }
  if (std::optional<std::string> note = TooLittleFlight(x, c.spec)) {
    out->notes.push_back(*std::move(note));
    return;
  }
  const double start = x.samples.TrackerTime(*d.first_divergence_us);
  // The excursion ends when the model is back in the band for as long as
  // it took to call it diverged (replay/divergence.h's rule).
  const DivergenceOptions rule;
  const double back_s =
      std::max(rule.rtts * x.typical_srtt_s, rule.min_us * 1e-6);
  double end = x.duration_s;
  std::optional<double> in_since;
  for (size_t i = 0; i < x.samples.size(); ++i) {
    const std::optional<double> cap = x.samples.captured(i);
    if (!cap.has_value() || *cap <= 0 || x.samples.t(i) < start) continue;
    if (std::fabs(x.samples.at(best, i).cwnd_bytes - *cap) >
        rule.band_pct / 100 * *cap) {
      in_since.reset();
    } else if (!in_since) {
      in_since = x.samples.t(i);
    } else if (x.samples.t(i) - *in_since > back_s) {
      end = *in_since;
      break;
    }
  }
  Finding f;
  f.kind = "model_divergence";
  f.severity = *d.median_abs_err_pct > rule.band_pct ? Severity::kWarning
                                                     : Severity::kInfo;
  f.start_s = start;
  f.end_s = std::max(end, start);
  const char* phase_names[] = {"slow start", "congestion avoidance",
                               "recovery/CWR"};
  int worst = -1;
  for (int p = 0; p < 3; ++p) {
    if (d.median_by_phase_pct[p].has_value() &&
        (worst < 0 ||
         *d.median_by_phase_pct[p] > *d.median_by_phase_pct[worst])) {
      worst = p;
    }
  }
  f.message = absl::StrFormat(
      "The replay of %s (%s) leaves the captured "
      "cwnd at %.3f s and "
      "stays more than 25%% off until %.3f s; over the flow its median error "
      "is %.1f%% (95th "
      "percentile %.1f%%)%s.",
      c.spec,
      x.evidence->controller_named
          ? "the controller the flow claims"
          : "a default guess: no input names the controller",
      f.start_s, f.end_s, *d.median_abs_err_pct, d.p95_abs_err_pct.value_or(0),
      worst >= 0
          ? absl::StrFormat(", largest in %s (%.1f%%)", phase_names[worst],
                            *d.median_by_phase_pct[worst])
          : "");
  f.evidence.push_back(
      absl::StrCat("captured cwnd: ", x.evidence->replay->source_description));
  f.evidence.push_back(absl::StrFormat(
      "%d cwnd-limited samples compared (replay/divergence.h)", d.samples));
  out->findings.push_back(std::move(f));
}

}  // namespace ccreplay
