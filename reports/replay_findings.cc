#include "reports/replay_findings.h"

#include <algorithm>
#include <cmath>
#include <functional>
#include <limits>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"
#include "cc/registry.h"

namespace ccreplay {
namespace {

// cwnd "below the BDP" means under this share of it (the BDP estimate is
// itself uncertain by some percent).
constexpr double kBelowBdp = 0.8;
// A stretch counts when it lasts this many typical RTTs and this share of
// the flow.
constexpr double kMinStretchRtts = 20;
constexpr double kMinStretchShare = 0.05;
// Prague's RTT scaling matters when it slows additive increase at least
// this much (ControllerState::ai_factor).
constexpr double kSlowAiFactor = 0.5;
// Replays whose median errors differ by at most this many percentage
// points fit the captured cwnd equally well.
constexpr double kSameFitPct = 1;
// Slow start "well below" the BDP.
constexpr double kEarlyExitShare = 0.5;
// Fewer packets than this in a BDP make "below the BDP" meaningless.
constexpr double kMinBdpPackets = 4;
// A fitted closed loop whose utilization with the flow's own controller is
// further than this from the captured utilization does not reproduce it
// (the run is shorter than the flow: a generous margin).
constexpr double kFitUtilizationGap = 0.25;

double Median(std::vector<double> v) {
  if (v.empty()) return 0;
  std::nth_element(v.begin(), v.begin() + v.size() / 2, v.end());
  return v[v.size() / 2];
}

struct Stretch {
  bool found = false;
  size_t first = 0, last = 0;
  double start_s = 0, end_s = 0;
  double span_s() const { return end_s - start_s; }
};

// The samples of a replay on the report's clock.
class Samples {
 public:
  explicit Samples(const ReplayEvidence& e) : e_(e) {}
  size_t size() const { return e_.replay->captured_cwnd_bytes.size(); }
  const SeriesSample& at(size_t controller, size_t i) const {
    return e_.replay->controllers[controller].series.samples[i];
  }
  double t(size_t i) const { return at(0, i).time_us * 1e-6 - e_.offset_s; }
  std::optional<double> captured(size_t i) const {
    const std::optional<uint64_t>& c = e_.replay->captured_cwnd_bytes[i];
    return c.has_value() ? std::optional<double>(static_cast<double>(*c))
                         : std::nullopt;
  }
  // A time on the divergence tracker's clock (that of the timeline).
  double TrackerTime(int64_t us) const {
    return (us - e_.replay->start_us) * 1e-6 - e_.offset_s;
  }

  // The longest run of samples where `pred` is 1; -1 (unknown) neither
  // extends nor breaks a run.
  Stretch Longest(const std::function<int(size_t)>& pred,
                  size_t from = 0) const {
    Stretch best, current;
    for (size_t i = from; i < size(); ++i) {
      const int v = pred(i);
      if (v < 0) continue;
      if (v == 0) {
        current.found = false;
        continue;
      }
      if (!current.found) {
        current.found = true;
        current.first = i;
        current.start_s = t(i);
      }
      current.last = i;
      current.end_s = t(i);
      if (!best.found || current.span_s() > best.span_s()) best = current;
    }
    return best;
  }

 private:
  const ReplayEvidence& e_;
};

int FindSpec(const ReplayEvidence& e, ReplayRole role,
             const std::string& base) {
  for (size_t i = 0; i < e.choices.size(); ++i) {
    if (e.choices[i].role == role && e.choices[i].base_spec == base)
      return static_cast<int>(i);
  }
  return -1;
}

double MedianErr(const ReplayEvidence& e, int c) {
  const std::optional<double>& m =
      e.replay->controllers[c].divergence.median_abs_err_pct;
  return m.value_or(std::numeric_limits<double>::infinity());
}

std::string Pkts(double bytes, double mss) {
  return absl::StrFormat("%.1f", bytes / mss);
}

// What the check needs, shared by the rules.
struct Context {
  const ReplayEvidence& e;
  Samples s;
  const PathEstimates& est;
  const FlowObserver& obs;
  double mss = 1448;
  double bdp = 0;
  double typical_srtt_s = 0;
  double duration_s = 0;
  double min_stretch_s = 0;
  ReplayFindings* out = nullptr;
};

// Bytes delivered over the flow / (estimated rate x duration).
double CapturedUtilization(const Context& x) {
  uint64_t delivered = 0;
  for (const ObservationBin& b : x.obs.bins()) delivered += b.delivered_bytes;
  const double capacity = x.est.bottleneck_rate_bps / 8 * x.duration_s;
  return capacity > 0 ? delivered / capacity : 0;
}

// The first sample of controller `c` out of slow start.
std::optional<size_t> SlowStartExit(const Context& x, int c) {
  for (size_t i = 0; i < x.s.size(); ++i) {
    if (x.s.at(c, i).phase != Phase::kSlowStart) return i;
  }
  return std::nullopt;
}

// Whether the flow saw loss or congestion marks before `t_s`.
bool SignalBefore(const FlowObserver& obs, double t_s) {
  const double w = obs.bin_width_s();
  for (size_t i = 0; i < obs.bins().size() && i * w < t_s; ++i) {
    const ObservationBin& b = obs.bins()[i];
    if (b.retransmissions > 0 || b.ce_packets > 0 || b.ece_acks > 0)
      return true;
  }
  return false;
}

void ModelDivergence(const Context& x, int best) {
  const ReplayedController& c = x.e.replay->controllers[best];
  const DivergenceSummary& d = c.divergence;
  if (!d.first_divergence_us.has_value() || !d.median_abs_err_pct.has_value()) {
    x.out->notes.push_back(
        absl::StrCat("model_divergence: the replay of ", c.spec,
                     d.samples == 0 ? " had no cwnd-limited sample to compare"
                                    : " stayed within ±25% of the captured "
                                      "cwnd (no lasting excursion)"));
    return;
  }
  const double start = x.s.TrackerTime(*d.first_divergence_us);
  // The excursion ends when the model is back in the band for as long as
  // it took to call it diverged (replay/divergence.h's rule).
  const DivergenceOptions rule;
  const double back_s =
      std::max(rule.rtts * x.typical_srtt_s, rule.min_us * 1e-6);
  double end = x.duration_s;
  std::optional<double> in_since;
  for (size_t i = 0; i < x.s.size(); ++i) {
    const std::optional<double> cap = x.s.captured(i);
    if (!cap.has_value() || *cap <= 0 || x.s.t(i) < start) continue;
    if (std::fabs(x.s.at(best, i).cwnd_bytes - *cap) >
        rule.band_pct / 100 * *cap) {
      in_since.reset();
    } else if (!in_since) {
      in_since = x.s.t(i);
    } else if (x.s.t(i) - *in_since > back_s) {
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
      "The replay of %s (the controller the flow claims) leaves the captured "
      "cwnd at %.3f s and "
      "stays more than 25%% off until %.3f s; over the flow its median error "
      "is %.1f%% (95th "
      "percentile %.1f%%)%s.",
      c.spec, f.start_s, f.end_s, *d.median_abs_err_pct,
      d.p95_abs_err_pct.value_or(0),
      worst >= 0
          ? absl::StrFormat(", largest in %s (%.1f%%)", phase_names[worst],
                            *d.median_by_phase_pct[worst])
          : "");
  f.evidence.push_back(
      absl::StrCat("captured cwnd: ", x.e.replay->source_description));
  f.evidence.push_back(absl::StrFormat(
      "%d cwnd-limited samples compared (replay/divergence.h)", d.samples));
  x.out->findings.push_back(std::move(f));
}

void SlowStartExitEarly(const Context& x, int best) {
  const std::string& spec = x.e.replay->controllers[best].spec;
  const std::optional<size_t> exit = SlowStartExit(x, best);
  if (!exit.has_value()) {
    x.out->notes.push_back(absl::StrCat("slow_start_exit_early: ", spec,
                                        " never left slow start"));
    return;
  }
  const double t_exit = x.s.t(*exit);
  if (SignalBefore(x.obs, t_exit + x.typical_srtt_s)) {
    x.out->notes.push_back(
        absl::StrFormat("slow_start_exit_early: slow start ended at %.3f s on "
                        "loss or CE feedback",
                        t_exit));
    return;
  }
  // The captured cwnd around the exit (the largest within one RTT), else
  // the model's.
  double cwnd = 0;
  for (size_t i = *exit;
       i < x.s.size() && x.s.t(i) <= t_exit + x.typical_srtt_s; ++i) {
    cwnd = std::max(cwnd, x.s.captured(i).value_or(0));
  }
  if (cwnd == 0) cwnd = x.s.at(best, *exit).cwnd_bytes;
  if (cwnd >= kEarlyExitShare * x.bdp) {
    x.out->notes.push_back(
        absl::StrFormat("slow_start_exit_early: slow start ended at %.3f s "
                        "without loss or marks, at %.0f%% of "
                        "the BDP (not early)",
                        t_exit, 100 * cwnd / x.bdp));
    return;
  }
  // How long congestion avoidance then took to reach the BDP.
  double reached = -1;
  for (size_t i = *exit; i < x.s.size(); ++i) {
    if (x.s.captured(i).value_or(x.s.at(best, i).cwnd_bytes) >=
        kBelowBdp * x.bdp) {
      reached = x.s.t(i);
      break;
    }
  }
  Finding f;
  f.kind = "slow_start_exit_early";
  f.severity = Severity::kWarning;
  f.start_s = t_exit;
  f.end_s = reached > 0 ? reached : x.duration_s;
  f.message = absl::StrFormat(
      "Slow start ended at %.3f s with cwnd at %s packets, %.0f%% of the "
      "%s-packet BDP, before "
      "any loss or CE mark (a delay-based exit such as HyStart); congestion "
      "avoidance %s.",
      t_exit, Pkts(cwnd, x.mss), 100 * cwnd / x.bdp, Pkts(x.bdp, x.mss),
      reached > 0
          ? absl::StrFormat("then took %.2f s to bring cwnd to 80%% of the BDP",
                            reached - t_exit)
          : std::string("never brought cwnd to 80% of the BDP"));
  f.evidence.push_back(absl::StrFormat(
      "the replay of %s leaves slow start at %.3f s", spec, t_exit));
  f.evidence.push_back(
      "no retransmission, CE or ECE in the timeline before then");
  x.out->findings.push_back(std::move(f));
}

int FindSpecByName(const ReplayEvidence& e, const std::string& spec) {
  for (size_t i = 0; i < e.choices.size(); ++i) {
    if (e.choices[i].spec == spec) return static_cast<int>(i);
  }
  return -1;
}

// Least-squares slope of the captured cwnd against time over samples
// [first, last], in bytes per second; nullopt with fewer than two samples.
std::optional<double> CapturedSlopeBytesPerS(const Context& x, size_t first,
                                             size_t last) {
  double n = 0, st = 0, sc = 0, stt = 0, stc = 0;
  for (size_t i = first; i <= last; ++i) {
    const std::optional<double> c = x.s.captured(i);
    if (!c.has_value()) continue;
    const double t = x.s.t(i);
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

void RttScalingSlowGrowth(const Context& x) {
  // Claimed profiles that scale, best fitting first.
  std::vector<int> claimed;
  for (size_t c = 0; c < x.e.choices.size(); ++c) {
    const ReplayChoice& choice = x.e.choices[c];
    const absl::StatusOr<ControllerSpec> parsed =
        ControllerSpec::Parse(choice.spec);
    if (choice.role == ReplayRole::kClaimed && parsed.ok() &&
        parsed->family == "prague" && parsed->Value("rtt_scaling") != "none") {
      claimed.push_back(static_cast<int>(c));
    }
  }
  std::stable_sort(claimed.begin(), claimed.end(), [&](int a, int b) {
    return MedianErr(x.e, a) < MedianErr(x.e, b);
  });
  std::string why_not = claimed.empty()
                            ? "not applicable (no Prague profile replayed)"
                            : "no stretch where Prague's RTT scaling held cwnd "
                              "below the BDP";
  for (int c : claimed) {
    const std::string& spec = x.e.choices[c].spec;
    // Parses: it is one of `claimed`.
    const absl::StatusOr<ControllerSpec> off_spec =
        RttScalingOffSpec(*ControllerSpec::Parse(spec));
    const int off =
        off_spec.ok() ? FindSpecByName(x.e, off_spec->ToString()) : -1;
    if (off < 0) continue;
    // After slow start, while scaling slows increase, cwnd below the BDP.
    const Stretch slow = x.s.Longest([&](size_t i) {
      const SeriesSample& m = x.s.at(c, i);
      if (m.phase == Phase::kSlowStart) return -1;
      return m.ai_factor < kSlowAiFactor && m.cwnd_bytes < kBelowBdp * x.bdp
                 ? 1
                 : 0;
    });
    if (!slow.found || slow.span_s() < x.min_stretch_s) continue;
    // The captured flow must be below the BDP there too, and grow far
    // slower than Reno's one segment per RTT.
    std::vector<double> captured, ai, srtt, off_cwnd;
    for (size_t i = slow.first; i <= slow.last; ++i) {
      if (x.s.captured(i).has_value()) captured.push_back(*x.s.captured(i));
      ai.push_back(x.s.at(c, i).ai_factor);
      off_cwnd.push_back(x.s.at(off, i).cwnd_bytes);
      if (x.s.at(c, i).srtt_us > 0) srtt.push_back(x.s.at(c, i).srtt_us * 1e-3);
    }
    if (captured.empty() || Median(captured) >= kBelowBdp * x.bdp) {
      why_not = absl::StrFormat(
          "the replay of %s is held below the BDP from %.3f s to %.3f s, but "
          "the captured cwnd is not",
          spec, slow.start_s, slow.end_s);
      continue;
    }
    const std::optional<double> slope =
        CapturedSlopeBytesPerS(x, slow.first, slow.last);
    const double srtt_ms = Median(srtt);
    const double growth_per_rtt =
        slope.has_value() ? *slope * srtt_ms * 1e-3 / x.mss : 0;
    if (!slope.has_value() || growth_per_rtt >= kSlowAiFactor) {
      why_not = absl::StrFormat(
          "from %.3f s to %.3f s the captured cwnd grew %.2f segments per RTT, "
          "not far below Reno's 1",
          slow.start_s, slow.end_s, growth_per_rtt);
      continue;
    }
    double regained = -1;
    for (size_t i = slow.first; i <= slow.last; ++i) {
      if (x.s.at(off, i).cwnd_bytes >= x.bdp) {
        regained = x.s.t(i) - slow.start_s;
        break;
      }
    }
    if (regained < 0) {
      why_not = absl::StrFormat(
          "from %.3f s to %.3f s the replay of %s stays below the BDP too: "
          "scaling does not explain it",
          slow.start_s, slow.end_s, x.e.choices[off].spec);
      continue;
    }
    const double ai_median = Median(ai);
    Finding f;
    f.kind = "rtt_scaling_slow_growth";
    f.severity = slow.span_s() > 0.2 * x.duration_s ? Severity::kCritical
                                                    : Severity::kWarning;
    f.start_s = slow.start_s;
    f.end_s = slow.end_s;
    f.message = absl::StrFormat(
        "From %.3f s to %.3f s cwnd stayed below the %s-packet BDP (captured "
        "median %s packets) and grew %.4f segments per RTT where Reno grows "
        "one: %s RTT scaling (srtt %.2f ms) cut additive increase to 1/%.0f "
        "of Reno's; on the same ACKs without scaling the replay %s.",
        f.start_s, f.end_s, Pkts(x.bdp, x.mss), Pkts(Median(captured), x.mss),
        growth_per_rtt, spec, srtt_ms, 1 / std::max(ai_median, 1e-9),
        regained > 0 ? absl::StrFormat("regains the BDP in %.2f s", regained)
                     : std::string("stays at or above the BDP"));
    f.evidence.push_back(
        absl::StrFormat("replay of %s (median error %.1f%%): median "
                        "RTT-scaling factor %.4g over the stretch (α plot)",
                        spec, MedianErr(x.e, c), ai_median));
    f.evidence.push_back(absl::StrFormat(
        "captured cwnd: least-squares slope %.0f bytes/s, %.3g segments per "
        "RTT of %.2f ms",
        slope.value_or(0), growth_per_rtt, srtt_ms));
    f.evidence.push_back(absl::StrFormat(
        "counterfactual %s on the same ACKs: median cwnd %s packets over the "
        "stretch, at the BDP %.2f s into it",
        x.e.choices[off].spec, Pkts(Median(off_cwnd), x.mss), regained));
    if (x.e.path.has_value()) {
      // Each scaling profile that fits as well (their replays can agree
      // on these ACKs while their closed loops differ, e.g. in when the
      // transition falls), then without scaling.
      std::vector<std::string> specs;
      for (int other : claimed) {
        if (MedianErr(x.e, other) <= MedianErr(x.e, c) + kSameFitPct)
          specs.push_back(x.e.choices[other].spec);
      }
      specs.push_back(x.e.choices[off].spec);
      std::vector<std::string> results;
      std::optional<double> first_u;
      for (const std::string& s : specs) {
        absl::StatusOr<double> u = SimulatedUtilization(*x.e.path, s, x.mss);
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
      f.evidence.push_back(absl::StrCat(
          "closed-loop simulation of the fitted path (", x.e.path->Describe(),
          "): utilization ", absl::StrJoin(results, ", "), caveat));
    }
    x.out->findings.push_back(std::move(f));
    return;  // One finding: the best-fitting profile comes first.
  }
  x.out->notes.push_back(absl::StrCat("rtt_scaling_slow_growth: ", why_not));
}

// Congestion-avoidance growth in bytes per RTT, measured without the RTT:
// while cwnd grows by g bytes per cwnd of bytes acknowledged (Reno: g = the
// packet size, or 1462 with normalization, quicly PR #686), dC/dB = g / C,
// so C^2 = C0^2 + 2 g B along one epoch. g is the slope of C^2 against the
// bytes delivered B, pooled over the epochs of congestion avoidance between
// two reductions of the best-fitting replay (each epoch its own intercept).
// `cwnd(i)` is the window of sample i (nullopt: not known there). 0 when
// no epoch has two samples.
double CaGrowthBytesPerRtt(
    const Context& x, int phase_of,
    const std::function<std::optional<double>(size_t)>& cwnd) {
  double sxy = 0, sxx = 0;
  size_t i = 0;
  while (i < x.s.size()) {
    if (x.s.at(phase_of, i).phase != Phase::kCongestionAvoidance) {
      ++i;
      continue;
    }
    std::vector<std::pair<double, double>> epoch;  // (B, C^2)
    for (; i < x.s.size() &&
           x.s.at(phase_of, i).phase == Phase::kCongestionAvoidance;
         ++i) {
      const std::optional<double> c = cwnd(i);
      if (c.has_value() && *c > 0) {
        epoch.emplace_back(
            static_cast<double>(x.s.at(phase_of, i).delivered_bytes), *c * *c);
      }
    }
    if (epoch.size() < 2) continue;
    double mean_b = 0, mean_y = 0;
    for (const auto& [b, y] : epoch) {
      mean_b += b;
      mean_y += y;
    }
    mean_b /= epoch.size();
    mean_y /= epoch.size();
    for (const auto& [b, y] : epoch) {
      sxy += (b - mean_b) * (y - mean_y);
      sxx += (b - mean_b) * (b - mean_b);
    }
  }
  return sxx > 0 ? sxy / sxx / 2 : 0;
}

void MtuNormalizationGap(const Context& x, int best, uint32_t packet_bytes) {
  if (packet_bytes > kNormalizationGapPacketBytes) {
    x.out->notes.push_back(absl::StrFormat(
        "mtu_normalization_gap: packets of %d bytes are within %.0f%% of the "
        "1462-byte reference",
        packet_bytes,
        100.0 *
            (kReferenceMtuBytes - std::min(packet_bytes, kReferenceMtuBytes)) /
            kReferenceMtuBytes));
    return;
  }
  const std::string& spec = x.e.choices[best].spec;
  const int on = FindSpec(x.e, ReplayRole::kNormalizationOn, spec);
  if (on < 0) {
    x.out->notes.push_back(
        absl::StrCat("mtu_normalization_gap: ", spec,
                     " has no normalization option to compare with"));
    return;
  }
  // Congestion avoidance must be where the flow spends its time.
  size_t ca = 0;
  std::optional<size_t> first_ca;
  for (size_t i = 0; i < x.s.size(); ++i) {
    if (x.s.at(best, i).phase == Phase::kCongestionAvoidance) {
      ++ca;
      if (!first_ca) first_ca = i;
    }
  }
  if (!first_ca || ca < x.s.size() / 5) {
    x.out->notes.push_back(
        "mtu_normalization_gap: too little congestion avoidance to measure");
    return;
  }
  // Which growth the captured cwnd follows: the replay without
  // normalization or the one with it, on the same ACKs and epochs.
  const double captured_g =
      CaGrowthBytesPerRtt(x, best, [&](size_t i) { return x.s.captured(i); });
  const auto replayed = [&](int c) {
    return CaGrowthBytesPerRtt(x, best, [&](size_t i) {
      return x.s.captured(i).has_value()
                 ? std::optional<double>(x.s.at(c, i).cwnd_bytes)
                 : std::nullopt;
    });
  };
  const double off_g = replayed(best), on_g = replayed(on);
  if (!(captured_g > 0) || !(off_g > 0) || !(on_g > 0)) {
    x.out->notes.push_back(
        "mtu_normalization_gap: no congestion-avoidance epoch with the "
        "captured cwnd to measure its growth");
    return;
  }
  const std::string growth = absl::StrFormat(
      "congestion-avoidance growth per RTT (slope of cwnd^2 against bytes "
      "delivered, halved): captured %.0f bytes, replay of %s %.0f, of %s "
      "%.0f",
      captured_g, spec, off_g, x.e.choices[on].spec, on_g);
  // Two signals must agree: the growth, and which replay fits the
  // captured cwnd better overall (median error).
  const bool grows_unnormalized = std::fabs(std::log(captured_g / off_g)) <
                                  std::fabs(std::log(captured_g / on_g));
  const bool fits_unnormalized = MedianErr(x.e, best) <= MedianErr(x.e, on);
  if (!grows_unnormalized || !fits_unnormalized) {
    x.out->notes.push_back(absl::StrFormat(
        "mtu_normalization_gap: %s (the flow may normalize already); %s; "
        "median error %s %.1f%%, %s %.1f%%",
        grows_unnormalized
            ? "the normalized replay fits the captured cwnd better"
            : "the captured growth is nearer the normalized replay's",
        growth, spec, MedianErr(x.e, best), x.e.choices[on].spec,
        MedianErr(x.e, on)));
    return;
  }
  Finding f;
  f.kind = "mtu_normalization_gap";
  f.severity = Severity::kWarning;
  f.start_s = x.s.t(*first_ca);
  f.end_s = x.duration_s;
  f.message = absl::StrFormat(
      "In congestion avoidance (from %.3f s) the %d-byte packets' cwnd grows "
      "like %s without MTU normalization: %.0f bytes per RTT (its replay "
      "%.0f) where normalize=1462 would give %.0f on the same ACKs, %.1f%% "
      "more (RFC 7141 section 2.3; with normalization Reno grows 1462 bytes "
      "per RTT whatever the packet size, quicly PR #686).",
      f.start_s, packet_bytes, spec, captured_g, off_g, on_g,
      100 * (on_g / captured_g - 1));
  f.evidence.push_back(growth);
  f.evidence.push_back(absl::StrFormat(
      "median error against the captured cwnd: %s %.1f%%, %s %.1f%%", spec,
      MedianErr(x.e, best), x.e.choices[on].spec, MedianErr(x.e, on)));
  if (x.e.path.has_value()) {
    absl::StatusOr<double> without = SimulatedThroughputRatio(
        *x.e.path, spec, packet_bytes, spec, kReferenceMtuBytes);
    absl::StatusOr<double> with =
        SimulatedThroughputRatio(*x.e.path, x.e.choices[on].spec, packet_bytes,
                                 x.e.choices[on].spec, kReferenceMtuBytes);
    if (without.ok() && with.ok()) {
      f.evidence.push_back(
          absl::StrFormat("closed-loop simulation of the fitted path (%s), "
                          "this flow against a 1462-byte flow of "
                          "the same controller: throughput ratio %.3f without "
                          "normalization, %.3f with",
                          x.e.path->Describe(), *without, *with));
    }
  }
  x.out->findings.push_back(std::move(f));
}

// Sum of cwnd decreases from sample to sample, after slow start.
double CutBytes(const Context& x, int c, size_t from) {
  double cut = 0;
  for (size_t i = from + 1; i < x.s.size(); ++i) {
    const double before = x.s.at(c, i - 1).cwnd_bytes,
                 after = x.s.at(c, i).cwnd_bytes;
    if (after < before) cut += before - after;
  }
  return cut;
}

void CeOverreaction(const Context& x, int best) {
  // AccECN counts CE packets (its ACE field reuses the ECE bit, so ECE
  // ACKs count nothing there); RFC 3168 feedback only flags ACKs.
  uint64_t ce_packets = 0, ece_acks = 0;
  for (const ObservationBin& b : x.obs.bins()) {
    ce_packets += b.ce_packets;
    ece_acks += b.ece_acks;
  }
  const uint64_t marks = ce_packets > 0 ? ce_packets : ece_acks;
  if (marks == 0) {
    x.out->notes.push_back("ce_overreaction: no CE feedback in the flow");
    return;
  }
  // The reference for AccECN feedback is Prague v0.7 (its fixed-point
  // fractional window replaced the v0.5/v0.6 backlog, which applies
  // reductions computed from a not-yet-reduced cwnd).
  const std::string& spec = x.e.choices[best].spec;
  int reference = -1;
  for (size_t c = 0; c < x.e.choices.size(); ++c) {
    const absl::StatusOr<ControllerSpec> parsed =
        ControllerSpec::Parse(x.e.choices[c].spec);
    if (x.e.choices[c].role == ReplayRole::kClaimed && parsed.ok() &&
        *parsed == ControllerSpec{"prague", "v07", {}}) {
      reference = static_cast<int>(c);
    }
  }
  if (reference < 0 || reference == best) {
    x.out->notes.push_back(absl::StrCat(
        "ce_overreaction: ",
        reference < 0 ? "no reference controller for this feedback replayed"
                      : "the reference controller fits the flow best itself",
        " (compared: ", spec, ")"));
    return;
  }
  const std::optional<size_t> exit = SlowStartExit(x, best);
  if (!exit) return;
  const double cut_best = CutBytes(x, best, *exit),
               cut_ref = CutBytes(x, reference, *exit);
  const Stretch lower = x.s.Longest([&](size_t i) {
    if (i < *exit) return -1;
    return x.s.at(best, i).cwnd_bytes <
                   kBelowBdp * x.s.at(reference, i).cwnd_bytes
               ? 1
               : 0;
  });
  if (cut_best < 1.5 * cut_ref || !lower.found ||
      lower.span_s() < x.min_stretch_s) {
    x.out->notes.push_back(absl::StrFormat(
        "ce_overreaction: %s cuts %.0f packets in total after slow start, the "
        "reference %s %.0f: "
        "not an overreaction",
        spec, cut_best / x.mss, x.e.choices[reference].spec, cut_ref / x.mss));
    return;
  }
  std::vector<double> ratio;
  for (size_t i = lower.first; i <= lower.last; ++i) {
    if (x.s.at(reference, i).cwnd_bytes > 0) {
      ratio.push_back(static_cast<double>(x.s.at(best, i).cwnd_bytes) /
                      x.s.at(reference, i).cwnd_bytes);
    }
  }
  Finding f;
  f.kind = "ce_overreaction";
  f.severity = Severity::kWarning;
  f.start_s = lower.start_s;
  f.end_s = lower.end_s;
  f.message = absl::StrFormat(
      "For the same %d CE marks, %s (which fits the captured cwnd best, median "
      "error %.1f%%) cuts "
      "%.0f packets in total after slow start where the reference %s cuts "
      "%.0f; from %.3f s to "
      "%.3f s its cwnd is a median %.0f%% of the reference's.",
      marks, spec, MedianErr(x.e, best), cut_best / x.mss,
      x.e.choices[reference].spec, cut_ref / x.mss, f.start_s, f.end_s,
      100 * Median(ratio));
  f.evidence.push_back(
      absl::StrFormat("%s fits with median error %.1f%%, %s with %.1f%%", spec,
                      MedianErr(x.e, best), x.e.choices[reference].spec,
                      MedianErr(x.e, reference)));
  f.evidence.push_back("window plot: both replays on the same ACKs and marks");
  x.out->findings.push_back(std::move(f));
}

void BelowBdpUnexplained(const Context& x, int best) {
  const std::optional<size_t> exit = SlowStartExit(x, best);
  const size_t from = exit.value_or(x.s.size());
  const Stretch below = x.s.Longest(
      [&](size_t i) {
        const std::optional<double> cap = x.s.captured(i);
        if (!cap.has_value()) return -1;
        return *cap < kBelowBdp * x.bdp ? 1 : 0;
      },
      from);
  if (!below.found || below.span_s() < x.min_stretch_s) {
    x.out->notes.push_back(
        "below_bdp_unexplained: the captured cwnd was not below 80% of the BDP "
        "for a lasting "
        "stretch after slow start");
    return;
  }
  // Does any replayed controller stay as low there?
  std::vector<std::string> reproducing;
  for (size_t c = 0; c < x.e.choices.size(); ++c) {
    std::vector<double> cwnd;
    for (size_t i = below.first; i <= below.last; ++i)
      cwnd.push_back(x.s.at(c, i).cwnd_bytes);
    if (Median(cwnd) < kBelowBdp * x.bdp)
      reproducing.push_back(x.e.choices[c].spec);
  }
  if (!reproducing.empty()) {
    x.out->notes.push_back(
        absl::StrFormat("below_bdp_unexplained: cwnd stayed below the BDP from "
                        "%.3f s to %.3f s, which the "
                        "replay of %s reproduces",
                        below.start_s, below.end_s, reproducing.front()));
    return;
  }
  std::vector<double> captured;
  for (size_t i = below.first; i <= below.last; ++i) {
    if (x.s.captured(i)) captured.push_back(*x.s.captured(i));
  }
  Finding f;
  f.kind = "below_bdp_unexplained";
  f.severity = Severity::kCritical;
  f.start_s = below.start_s;
  f.end_s = below.end_s;
  f.message = absl::StrFormat(
      "From %.3f s to %.3f s the sender was cwnd-limited with cwnd at a median "
      "%s packets, below "
      "the %s-packet BDP, and no replayed reference controller stays that low "
      "on the same ACKs: "
      "something the models do not capture (an implementation difference, a "
      "cap such as "
      "snd_cwnd_clamp or a delay-based heuristic) held the window down.",
      f.start_s, f.end_s, Pkts(Median(captured), x.mss), Pkts(x.bdp, x.mss));
  f.evidence.push_back(
      absl::StrCat("captured cwnd: ", x.e.replay->source_description));
  f.evidence.push_back(absl::StrFormat(
      "%d replayed controllers, all above 80%% of the BDP there",
      x.e.choices.size()));
  x.out->findings.push_back(std::move(f));
}

}  // namespace

int BestFittingClaimed(const ReplayEvidence& e) {
  int best = -1;
  for (size_t c = 0; c < e.choices.size(); ++c) {
    if (e.choices[c].role != ReplayRole::kClaimed) continue;
    if (best < 0 || MedianErr(e, c) < MedianErr(e, best))
      best = static_cast<int>(c);
  }
  return best;
}

ReplayFindings FindFromReplay(const ReplayEvidence& e, const PathEstimates& est,
                              const FlowObserver& obs, uint32_t packet_bytes,
                              double flow_duration_s) {
  ReplayFindings out;
  Context x{e, Samples(e), est, obs, 1448, 0, 0, 0, 0, &out};
  x.mss = std::max<uint32_t>(packet_bytes, 1);
  x.bdp = est.bdp_bytes;
  x.duration_s = flow_duration_s;
  std::vector<double> srtt;
  if (!e.replay->controllers.empty()) {
    for (const SeriesSample& s : e.replay->controllers[0].series.samples) {
      if (s.srtt_us > 0) srtt.push_back(s.srtt_us * 1e-6);
    }
  }
  x.typical_srtt_s = srtt.empty() ? est.base_rtt_s : Median(srtt);
  x.min_stretch_s = std::max(kMinStretchRtts * x.typical_srtt_s,
                             kMinStretchShare * x.duration_s);
  const int best = BestFittingClaimed(e);
  if (best < 0 || x.s.size() == 0) {
    out.notes.push_back(
        "no replay to compare: the checks that need one did not run");
    return out;
  }
  out.notes.push_back(absl::StrFormat(
      "best-fitting claimed controller: %s (median error %.1f%%); a stretch "
      "counts when it lasts "
      "%.0f RTTs of %.2f ms and %.0f%% of the flow (%.3f s)",
      e.choices[best].spec, MedianErr(e, best), kMinStretchRtts,
      x.typical_srtt_s * 1e3, 100 * kMinStretchShare, x.min_stretch_s));
  ModelDivergence(x, best);
  if (x.bdp < kMinBdpPackets * x.mss) {
    out.notes.push_back(
        absl::StrFormat("slow_start_exit_early, rtt_scaling_slow_growth, "
                        "ce_overreaction, below_bdp_unexplained: "
                        "not checked, the BDP (%.1f packets) is under %.0f "
                        "packets, too small to be below",
                        x.bdp / x.mss, kMinBdpPackets));
    MtuNormalizationGap(x, best, packet_bytes);
    return out;
  }
  SlowStartExitEarly(x, best);
  RttScalingSlowGrowth(x);
  MtuNormalizationGap(x, best, packet_bytes);
  CeOverreaction(x, best);
  BelowBdpUnexplained(x, best);
  return out;
}

}  // namespace ccreplay
