#include "replay/sender_config_fit.h"

#include <algorithm>
#include <limits>
#include <utility>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"
#include "cc/registry.h"
#include "parsers/pcap_reader.h"

namespace ccreplay {
namespace {

// Slow start as the capture shows it: new data before the first
// retransmission. Each gap is scaled by the pacing gap of a window the
// size of the flight (see DepartureGaps).
class GapCounter : public SegmentConsumer {
 public:
  GapCounter(const Flow& flow, int64_t srtt_ns)
      : flow_(flow), sender_(flow.sender_side()), srtt_ns_(srtt_ns) {}

  void OnSegment(const TcpSegment& s) override {
    const int r = 1 - sender_;
    if (s.src == flow_.address[r] && s.src_port == flow_.port[r] &&
        s.dst == flow_.address[sender_] && s.dst_port == flow_.port[sender_]) {
      if (started_ && (s.flags & kTcpAck) && Before(highest_ack_, s.ack))
        highest_ack_ = s.ack;
      return;
    }
    if (done_ || s.payload_bytes == 0 || s.src != flow_.address[sender_] ||
        s.src_port != flow_.port[sender_] ||
        s.dst_port != flow_.port[1 - sender_]) {
      return;
    }
    const uint32_t end = s.seq + s.payload_bytes;
    if (started_ && !Before(snd_nxt_, end)) {  // Sent before: slow start over.
      done_ = true;
      return;
    }
    mss_ = std::max(mss_, s.payload_bytes);
    if (started_ && srtt_ns_ > 0) Count(s.time_ns);
    if (!started_) highest_ack_ = s.seq;
    started_ = true;
    snd_nxt_ = end;
    last_ns_ = s.time_ns;
  }
  void Restart() override {
    started_ = done_ = false;
    gaps_ = back_to_back_ = 0;
    mss_ = 1;
  }

  DepartureGaps Result() const {
    DepartureGaps g;
    g.gaps = gaps_;
    if (gaps_ >= kMinGaps) {
      g.back_to_back_fraction = static_cast<double>(back_to_back_) / gaps_;
      g.paced = *g.back_to_back_fraction < kPacedBelow;
    }
    return g;
  }

 private:
  // Sequence order modulo 2^32 (RFC 793 section 3.3).
  static bool Before(uint32_t a, uint32_t b) {
    return static_cast<int32_t>(a - b) < 0;
  }
  void Count(int64_t now_ns) {
    const int64_t gap_ns = now_ns - last_ns_;
    // An idle pause (the application, or the end of the data) is no gap.
    if (gap_ns > srtt_ns_ / 2) return;
    const double flight_packets =
        std::max(1.0, static_cast<double>(snd_nxt_ - highest_ack_) / mss_);
    const double ratio = gap_ns * 2.0 * flight_packets / srtt_ns_;
    ++gaps_;
    if (ratio < kBackToBackRatio) ++back_to_back_;
  }

  const Flow& flow_;
  int sender_;
  int64_t srtt_ns_;
  bool started_ = false;
  bool done_ = false;
  uint32_t snd_nxt_ = 0;
  uint32_t highest_ack_ = 0;
  uint32_t mss_ = 1;
  int64_t last_ns_ = 0;
  uint64_t gaps_ = 0;
  uint64_t back_to_back_ = 0;
};

// The values a candidate takes for an option the fit varies.
std::vector<std::string> CandidateValues(const std::string& option) {
  if (option == "paced") return {"0", "1"};
  // On a tie the first is kept: the Kconfig default HZ_250
  // (kernel/Kconfig.hz) and the default gso_max_size, GSO_LEGACY_MAX_SIZE
  // (include/linux/netdevice.h, 6.18).
  if (option == "hz") return {"250", "1000"};
  return {"65536", "1500"};
}

std::optional<std::string> RecordedValue(const RecordedSenderConfig& r,
                                         const std::string& option) {
  if (option == "paced" && r.paced.has_value()) return *r.paced ? "1" : "0";
  if (option == "hz" && r.config_hz.has_value())
    return absl::StrCat(*r.config_hz);
  if (option == "gso" && r.gso_max_size_bytes.has_value())
    return absl::StrCat(*r.gso_max_size_bytes);
  return std::nullopt;
}

// A spec being fitted: the fixed settings, the options still open and
// the candidates they span.
struct Plan {
  ControllerSpec fixed;
  SenderConfigFit fit;
  std::vector<std::string> open;  // Options varied.
  std::vector<ControllerSpec> candidates;
  size_t first = 0;  // Index of its first candidate in the shared replay.
};

// Given, recorded and default settings; the rest open.
Plan MakePlan(const ControllerSpec& spec, const RecordedSenderConfig& r) {
  Plan p;
  p.fixed = spec;
  p.fit.given_spec = spec.ToString();
  for (const char* option : {"paced", "hz", "gso", "limited"}) {
    if (spec.Sets(option)) {
      p.fit.settings.push_back({option, *spec.Value(option), "given", {}});
      continue;
    }
    std::optional<std::string> value =
        std::string(option) == "limited" ? "flight" : RecordedValue(r, option);
    const char* source =
        std::string(option) == "limited" ? "default" : "recorded";
    if (value.has_value()) {
      // A setting the profile does not take (reno:linux has no paced=) is
      // reported, not applied.
      if (spec.Takes(option)) p.fixed = *p.fixed.With(option, *value);
      p.fit.settings.push_back({option, *value, source, {}});
    } else if (spec.Takes(option)) {
      p.open.push_back(option);
    }
  }
  p.candidates = {p.fixed};
  for (const std::string& option : p.open) {
    std::vector<ControllerSpec> next;
    for (const ControllerSpec& c : p.candidates) {
      for (const std::string& v : CandidateValues(option))
        next.push_back(*c.With(option, v));
    }
    p.candidates = std::move(next);
  }
  return p;
}

// A candidate's errors in the order the fit ranks them: the 95th
// percentile, then the median; a missing figure ranks last.
std::pair<double, double> Rank(const ReplayedController& c) {
  constexpr double kNone = std::numeric_limits<double>::infinity();
  return {c.divergence.p95_abs_err_pct.value_or(kNone),
          c.divergence.median_abs_err_pct.value_or(kNone)};
}

// The index of the best-ranked candidate of `p`.
size_t BestCandidate(const std::vector<ReplayedController>& replayed,
                     const Plan& p) {
  size_t best = 0;
  for (size_t i = 1; i < p.candidates.size(); ++i) {
    if (Rank(replayed[p.first + i]) < Rank(replayed[p.first + best])) best = i;
  }
  return best;
}

// The best-ranked candidate, and for each open option the p95 margin to
// the best candidate with another value of it; pacing that ties goes to
// the departure gaps.
void PickByReplay(const std::vector<ReplayedController>& replayed,
                  const DepartureGaps& gaps, Plan& p) {
  constexpr double kNone = std::numeric_limits<double>::infinity();
  const size_t best = BestCandidate(replayed, p);
  ControllerSpec chosen = p.candidates[best];
  const double best_err = Rank(replayed[p.first + best]).first;
  for (const std::string& option : p.open) {
    double other = kNone;
    for (size_t i = 0; i < p.candidates.size(); ++i) {
      if (p.candidates[i].Value(option) != chosen.Value(option))
        other = std::min(other, Rank(replayed[p.first + i]).first);
    }
    FittedSetting s{option, *chosen.Value(option), "replay", std::nullopt};
    if (other != kNone && best_err != kNone) s.margin_pct = other - best_err;
    // A tie on pacing (HyStart never decided the slow start): the gaps.
    if (option == "paced" && s.margin_pct == 0.0 && gaps.paced.has_value()) {
      s = {option, *gaps.paced ? "1" : "0", "gaps", std::nullopt};
      chosen = *chosen.With(option, s.value);
    }
    p.fit.settings.push_back(std::move(s));
  }
  p.fixed = chosen;
}

// The errors of the chosen spec and of the given one, from the fit's pass.
void RecordErrors(const std::vector<ReplayedController>& replayed,
                  const Plan& p, SenderConfigFit& fit) {
  const std::string chosen = p.fixed.ToString();
  for (size_t i = 0; i < p.candidates.size(); ++i) {
    if (p.candidates[i].ToString() != chosen) continue;
    fit.median_abs_err_pct =
        replayed[p.first + i].divergence.median_abs_err_pct;
    fit.p95_abs_err_pct = replayed[p.first + i].divergence.p95_abs_err_pct;
  }
  const DivergenceSummary& given =
      replayed[p.first + p.candidates.size()].divergence;
  fit.given_median_abs_err_pct = given.median_abs_err_pct;
  fit.given_p95_abs_err_pct = given.p95_abs_err_pct;
}

// Without a replay to choose by: pacing from the gaps, the rest at the
// profile's default.
void PickWithoutReplay(const DepartureGaps& gaps, Plan& p) {
  for (const std::string& option : p.open) {
    if (option == "paced" && gaps.paced.has_value()) {
      const std::string v = *gaps.paced ? "1" : "0";
      p.fixed = *p.fixed.With(option, v);
      p.fit.settings.push_back({option, v, "gaps", std::nullopt});
    } else {
      p.fit.settings.push_back(
          {option, *p.fixed.Value(option), "default", std::nullopt});
    }
  }
}

// Pacing of a profile without paced= (reno:linux, dctcp), from the gaps,
// when nothing recorded it: reported only.
void ReportPacing(const DepartureGaps& gaps, Plan& p) {
  const bool has =
      std::any_of(p.fit.settings.begin(), p.fit.settings.end(),
                  [](const FittedSetting& s) { return s.option == "paced"; });
  if (has || p.fixed.Takes("paced") || !gaps.paced.has_value()) return;
  p.fit.settings.push_back(
      {"paced", *gaps.paced ? "1" : "0", "gaps", std::nullopt});
}

}  // namespace

absl::StatusOr<DepartureGaps> MeasureDepartureGaps(const TcpCaptureScan& scan) {
  const Flow& flow = scan.table.flows()[scan.selected.index];
  GapCounter counter(flow, flow.handshake_rtt_ns);
  absl::StatusOr<CaptureInfo> info =
      ReadCapture(scan.info.path, counter, scan.read_options);
  if (!info.ok()) return info.status();
  return counter.Result();
}

RecordedSenderConfig RecordedFromBundle(const proto::BundleSender& sender) {
  RecordedSenderConfig r;
  if (sender.has_gso_max_size_bytes() && sender.gso_max_size_bytes() > 0)
    r.gso_max_size_bytes = static_cast<uint32_t>(sender.gso_max_size_bytes());
  if (sender.has_config_hz() && sender.config_hz() > 0)
    r.config_hz = static_cast<uint32_t>(sender.config_hz());
  if (sender.has_paced()) {
    r.paced = sender.paced();
    r.paced_reason = "meta.json sender.paced";
  } else if (sender.has_controller_set_before_connect() &&
             sender.controller_set_before_connect()) {
    r.paced = false;
    r.paced_reason =
        "meta.json: controller set before connect(), so no default "
        "controller's init() paced the socket";
  }
  return r;
}

bool FitsSenderConfig(const std::string& spec) {
  absl::StatusOr<ControllerSpec> parsed = ControllerSpec::Parse(spec);
  return parsed.ok() && parsed->Takes("limited");
}

absl::StatusOr<std::vector<SenderConfigFit>> FitSenderConfig(
    const TcpCaptureScan& scan, const ReplayOptions& base,
    const std::vector<std::string>& specs, const RecordedSenderConfig& recorded,
    const DepartureGaps& gaps) {
  std::vector<Plan> plans;
  ReplayOptions options = base;
  options.specs.clear();
  // The fit's trial replays feed no caller's taps: the observer and the
  // conformance trace see the final replay's pass once.
  options.tap = nullptr;
  options.captured_tap = nullptr;
  for (const std::string& text : specs) {
    absl::StatusOr<ControllerSpec> spec = ControllerSpec::Parse(text);
    if (!spec.ok()) return spec.status();
    if (FitsSenderConfig(text)) {
      plans.push_back(MakePlan(*spec, recorded));
    } else {
      plans.emplace_back();
      plans.back().fixed = *spec;
      plans.back().fit.given_spec = text;
    }
    Plan& p = plans.back();
    p.first = options.specs.size();
    // Every candidate, then the spec as given: the fit must beat it.
    for (const ControllerSpec& c : p.candidates)
      options.specs.push_back(c.ToString());
    if (!p.candidates.empty()) options.specs.push_back(text);
  }
  std::vector<ReplayedController> replayed;
  if (!options.specs.empty() && !base.host_state_path.empty()) {
    absl::StatusOr<ReplayResult> r = ReplayTcpFlow(scan, options);
    if (!r.ok()) return r.status();
    replayed = std::move(r->controllers);
  }
  std::vector<SenderConfigFit> fits;
  for (Plan& p : plans) {
    if (!p.open.empty() && !replayed.empty()) {
      PickByReplay(replayed, gaps, p);
    } else {
      PickWithoutReplay(gaps, p);
    }
    if (!p.candidates.empty() && !replayed.empty())
      RecordErrors(replayed, p, p.fit);
    if (FitsSenderConfig(p.fit.given_spec)) ReportPacing(gaps, p);
    p.fit.replayed_spec = p.fixed.ToString();
    fits.push_back(std::move(p.fit));
  }
  return fits;
}

bool SenderConfigFit::NoWorseThanGiven() const {
  const auto worse = [](const std::optional<double>& fitted,
                        const std::optional<double>& given) {
    return given.has_value() && (!fitted.has_value() || *fitted > *given);
  };
  return !worse(median_abs_err_pct, given_median_abs_err_pct) &&
         !worse(p95_abs_err_pct, given_p95_abs_err_pct);
}

std::string DescribeFit(const SenderConfigFit& fit) {
  std::vector<std::string> parts;
  for (const FittedSetting& s : fit.settings) {
    std::string part = absl::StrCat(s.option, "=", s.value, " (", s.source);
    if (s.margin_pct.has_value()) {
      absl::StrAppend(&part,
                      absl::StrFormat(", next best +%.1f pp", *s.margin_pct));
    }
    parts.push_back(part + ")");
  }
  return absl::StrCat(fit.given_spec, " -> ", fit.replayed_spec, ": ",
                      absl::StrJoin(parts, ", "));
}

std::vector<std::string> SenderConfigReport::ReplayedSpecs() const {
  std::vector<std::string> specs;
  for (const SenderConfigFit& f : fits) specs.push_back(f.replayed_spec);
  return specs;
}

absl::StatusOr<SenderConfigReport> FitTcpSender(
    const TcpCaptureScan& scan, const ReplayOptions& base,
    const std::vector<std::string>& specs,
    const std::optional<proto::BundleSender>& bundle_sender) {
  SenderConfigReport report;
  if (std::none_of(specs.begin(), specs.end(), FitsSenderConfig)) {
    for (const std::string& s : specs) {
      SenderConfigFit& f = report.fits.emplace_back();
      f.given_spec = f.replayed_spec = s;
    }
    return report;
  }
  absl::StatusOr<DepartureGaps> gaps = MeasureDepartureGaps(scan);
  if (!gaps.ok()) return gaps.status();
  report.gaps = *gaps;
  const RecordedSenderConfig recorded = bundle_sender.has_value()
                                            ? RecordedFromBundle(*bundle_sender)
                                            : RecordedSenderConfig{};
  report.recorded_note = recorded.paced_reason;
  absl::StatusOr<std::vector<SenderConfigFit>> fits =
      FitSenderConfig(scan, base, specs, recorded, report.gaps);
  if (!fits.ok()) return fits.status();
  report.fits = *std::move(fits);
  return report;
}

std::vector<std::string> DescribeSenderConfig(const SenderConfigReport& r) {
  std::vector<std::string> lines;
  if (std::none_of(r.fits.begin(), r.fits.end(), [](const SenderConfigFit& f) {
        return !f.settings.empty();
      })) {
    return lines;
  }
  lines.push_back(
      r.gaps.back_to_back_fraction.has_value()
          ? absl::StrFormat(
                "sender pacing from the capture: %.1f%% of %d slow-start "
                "departure gaps back to back (under %.1f of srtt / (2 * "
                "flight)): %s",
                100 * *r.gaps.back_to_back_fraction, r.gaps.gaps,
                kBackToBackRatio, *r.gaps.paced ? "paced" : "unpaced")
          : absl::StrFormat(
                "sender pacing from the capture: n/a (%d slow-start gaps, "
                "or no handshake RTT)",
                r.gaps.gaps));
  if (!r.recorded_note.empty())
    lines.push_back(
        absl::StrCat("sender pacing as recorded: ", r.recorded_note));
  for (const SenderConfigFit& f : r.fits) {
    if (!f.settings.empty())
      lines.push_back(absl::StrCat("sender configuration ", DescribeFit(f)));
  }
  return lines;
}

}  // namespace ccreplay
