#include "reports/rules/mtu_normalization_gap.h"

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
#include "reports/ca_growth.h"
#include "reports/rules/rule_helpers.h"

namespace ccreplay {
namespace {

// Congestion avoidance must be where the flow spends its time: at least
// 1/kMinCaFraction of the samples (a fifth), else its growth is a few
// epochs' noise.
constexpr size_t kMinCaFraction = 5;

// The first sample of `best` in congestion avoidance, when the replay
// spends enough of the flow there.
std::optional<size_t> FirstCongestionAvoidance(const RuleContext& x, int best) {
  size_t ca = 0;
  std::optional<size_t> first_ca;
  for (size_t i = 0; i < x.samples.size(); ++i) {
    if (x.samples.at(best, i).phase == Phase::kCongestionAvoidance) {
      ++ca;
      if (!first_ca) first_ca = i;
    }
  }
  if (ca < x.samples.size() / kMinCaFraction) return std::nullopt;
  return first_ca;
}

// The closed loop: this flow against a 1462-byte flow of the same
// controller, without and with normalization; nullopt when a run failed.
std::optional<std::string> ThroughputRatioEvidence(const RuleContext& x,
                                                   const std::string& spec,
                                                   const std::string& on_spec) {
  const FittedPath& path = *x.evidence->path;
  const auto flow = [](const std::string& flow_spec, uint32_t bytes) {
    SimulatedFlow f;
    f.spec = flow_spec;
    f.packet_bytes = bytes;
    return f;
  };
  absl::StatusOr<double> without = SimulatedThroughputRatio(
      path, flow(spec, x.packet_bytes), flow(spec, kReferenceMtuBytes));
  absl::StatusOr<double> with = SimulatedThroughputRatio(
      path, flow(on_spec, x.packet_bytes), flow(on_spec, kReferenceMtuBytes));
  if (!without.ok() || !with.ok()) return std::nullopt;
  return absl::StrFormat(
      "closed-loop simulation of the fitted path (%s), "
      "this flow against a 1462-byte flow of "
      "the same controller: throughput ratio %.3f without "
      "normalization, %.3f with",
      path.Describe(), *without, *with);
}

Finding GapFinding(const RuleContext& x, int on, size_t first_ca,
                   const CaGrowth& g, const std::string& growth) {
  const std::string& spec = x.evidence->choices[x.best].spec;
  const std::string& on_spec = x.evidence->choices[on].spec;
  Finding f;
  f.kind = "mtu_normalization_gap";
  f.severity = Severity::kWarning;
  f.start_s = x.samples.t(first_ca);
  f.end_s = x.duration_s;
  f.message = absl::StrFormat(
      "In congestion avoidance (from %.3f s) the %d-byte packets' cwnd grows "
      "like %s without MTU normalization: %.0f bytes per RTT (its replay "
      "%.0f) where normalize=1462 would give %.0f on the same ACKs, %.1f%% "
      "more (RFC 7141 section 2.3; with normalization Reno grows 1462 bytes "
      "per RTT whatever the packet size, quicly PR #686).",
      f.start_s, x.packet_bytes, spec, g.captured, g.off, g.on,
      100 * (g.on / g.captured - 1));
  f.evidence.push_back(growth);
  f.evidence.push_back(
      absl::StrFormat("median error against the captured cwnd: %s %s, %s %s",
                      spec, MedianErrorText(*x.evidence, x.best), on_spec,
                      MedianErrorText(*x.evidence, on)));
  if (x.evidence->path.has_value()) {
    std::optional<std::string> ratio =
        ThroughputRatioEvidence(x, spec, on_spec);
    if (ratio.has_value()) f.evidence.push_back(*std::move(ratio));
  }
  return f;
}

}  // namespace

// The gates in turn, each with its note.
// long: each gate carries its own note.
void MtuNormalizationGapRule::Check(const RuleContext& x,
                                    RuleOutput* out) const {
  const int best = x.best;
  const uint32_t packet_bytes = x.packet_bytes;
  if (packet_bytes > kNormalizationGapPacketBytes) {
    out->notes.push_back(absl::StrFormat(
        "mtu_normalization_gap: packets of %d bytes are within %.0f%% of the "
        "1462-byte reference",
        packet_bytes,
        100.0 *
            (kReferenceMtuBytes - std::min(packet_bytes, kReferenceMtuBytes)) /
            kReferenceMtuBytes));
    return;
  }
  const std::string& spec = x.evidence->choices[best].spec;
  const int on = FindSpec(*x.evidence, ReplayRole::kNormalizationOn, spec);
  if (on < 0) {
    out->notes.push_back(
        absl::StrCat("mtu_normalization_gap: ", spec,
                     " has no normalization option to compare with"));
    return;
  }
  const std::optional<size_t> first_ca = FirstCongestionAvoidance(x, best);
  if (!first_ca) {
    out->notes.push_back(
        "mtu_normalization_gap: too little congestion avoidance to measure");
    return;
  }
  // Which growth the captured cwnd follows: the replay without
  // normalization or the one with it.
  const CaGrowth g = MeasureCaGrowth(x.samples, best, on);
  if (!(g.captured > 0) || !(g.off > 0) || !(g.on > 0)) {
    out->notes.push_back(
        "mtu_normalization_gap: no congestion-avoidance epoch with the "
        "captured cwnd to measure its growth");
    return;
  }
  const std::string& on_spec = x.evidence->choices[on].spec;
  const std::string growth = absl::StrFormat(
      "congestion-avoidance growth per RTT (slope of cwnd^2 against bytes "
      "delivered, halved): captured %.0f bytes, replay of %s %.0f, of %s "
      "%.0f",
      g.captured, spec, g.off, on_spec, g.on);
  // Two signals must agree: the growth, and which replay fits the
  // captured cwnd better overall (median error).
  const bool grows_unnormalized = g.NearerUnnormalized();
  const bool fits_unnormalized =
      MedianErrorPct(*x.evidence, best) <= MedianErrorPct(*x.evidence, on);
  if (!grows_unnormalized || !fits_unnormalized) {
    out->notes.push_back(absl::StrFormat(
        "mtu_normalization_gap: %s (the flow may normalize already); %s; "
        "median error %s %s, %s %s",
        grows_unnormalized
            ? "the normalized replay fits the captured cwnd better"
            : "the captured growth is nearer the normalized replay's",
        growth, spec, MedianErrorText(*x.evidence, best), on_spec,
        MedianErrorText(*x.evidence, on)));
    return;
  }
  out->findings.push_back(GapFinding(x, on, *first_ca, g, growth));
}

}  // namespace ccreplay
