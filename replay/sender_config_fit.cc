#include "replay/sender_config_fit.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <numeric>
#include <set>
#include <utility>

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"
#include "cc/registry.h"
#include "parsers/host_state_reader.h"
#include "parsers/pcap_reader.h"

namespace ccreplay {
namespace {

// What the capture shows of the sender: slow-start departure gaps (see
// DepartureGaps), each scaled by the sender's srtt at the time, which the
// flow's own timeline (fed the same segments first) keeps; and the sizes
// of its new-data segments (SegmentSizes).
class EvidenceCounter : public SegmentConsumer {
 public:
  EvidenceCounter(const Flow& flow, uint32_t index, int sender_side)
      : flow_(flow),
        index_(index),
        sender_(sender_side),
        srtt_ns_(flow.handshake_rtt_ns),
        timeline_(index, sender_side,
                  [this](const TimelineEvent& e) { OnTimelineEvent(e); }) {
    timeline_.UseFirstPass(flow);
  }

  void OnSegment(const TcpSegment& s) override {
    timeline_.OnSegment(s);  // An ACK's RTT sample before what it releases.
    const int r = 1 - sender_;
    if (s.src == flow_.address[r] && s.src_port == flow_.port[r] &&
        s.dst == flow_.address[sender_] && s.dst_port == flow_.port[sender_]) {
      if (started_ && (s.flags & kTcpAck) && Before(highest_ack_, s.ack))
        highest_ack_ = s.ack;
      if ((s.flags & kTcpAck) && !(s.flags & kTcpSyn) && s.payload_bytes == 0)
        last_ack_ns_ = s.time_ns;
      return;
    }
    if (s.payload_bytes == 0 || s.src != flow_.address[sender_] ||
        s.src_port != flow_.port[sender_] ||
        s.dst_port != flow_.port[1 - sender_]) {
      return;
    }
    const uint32_t end = s.seq + s.payload_bytes;
    // In slow start the sender has data queued; before and after, an
    // answer can wait for the application.
    if (started_ && !done_) {
      CountAnswer(s.time_ns);
    } else {
      last_ack_ns_.reset();
    }
    CountSize(s, end);
    if (done_) return;
    if (started_ && !Before(snd_nxt_, end)) {  // Sent before: slow start over.
      done_ = true;
      return;
    }
    mss_ = std::max(mss_, s.payload_bytes);
    if (started_ && srtt_ns_ > 0) CountGap(s.time_ns);
    if (!started_) highest_ack_ = s.seq;
    started_ = true;
    snd_nxt_ = end;
    last_ns_ = s.time_ns;
  }
  void Restart() override {
    timeline_.Restart();
    started_ = done_ = sized_ = false;
    gaps_.clear();
    last_ack_ns_.reset();
    answers_ns_.clear();
    mss_ = 1;
    srtt_ns_ = flow_.handshake_rtt_ns;
    sizes_ = SegmentSizes();
  }

  CaptureEvidence Result() {
    timeline_.Finish();
    CaptureEvidence e;
    const Vantage vantage = timeline_.Stats(index_).vantage;
    e.gaps = CountedGaps(vantage);
    e.sizes = sizes_;
    e.sizes.sender_side = vantage == Vantage::kSender;
    return e;
  }

 private:
  // Sequence order modulo 2^32 (RFC 793 section 3.3).
  static bool Before(uint32_t a, uint32_t b) {
    return static_cast<int32_t>(a - b) < 0;
  }
  void OnTimelineEvent(const TimelineEvent& e) {
    if (e.type != TimelineEvent::Type::kAck) return;
    if (e.srtt_us > 0) srtt_ns_ = e.srtt_us * 1000;
    if (e.mss_bytes > 0) sizes_.mss_bytes = e.mss_bytes;
  }
  // A segment of new data, once an ACK has given the sender's MSS.
  void CountSize(const TcpSegment& s, uint32_t end) {
    if (sized_ && !Before(sized_nxt_, end)) return;
    sized_ = true;
    sized_nxt_ = end;
    if (sizes_.mss_bytes == 0) return;
    ++sizes_.data_segments;
    sizes_.largest_bytes = std::max(sizes_.largest_bytes, s.payload_bytes);
    if (s.payload_bytes > sizes_.mss_bytes) ++sizes_.super_segments;
    // IPv4 or IPv6 header, TCP's 20 bytes and the timestamps option
    // (RFC 7323 section 3: 10 bytes, padded to 12).
    sizes_.header_bytes = (s.src.family == 6 ? 40 : 20) + 20 +
                          (s.options.has_timestamps ? 12 : 0);
  }
  void CountGap(int64_t now_ns) {
    const int64_t gap_ns = now_ns - last_ns_;
    // An idle pause (the application, or the end of the data) is no gap.
    if (gap_ns > srtt_ns_ / 2) return;
    const double flight_packets =
        std::max(1.0, static_cast<double>(snd_nxt_ - highest_ack_) / mss_);
    gaps_.push_back({gap_ns, srtt_ns_ / (2.0 * flight_packets)});
  }
  // The time from the last pure ACK to this data segment. A negative one
  // (the capture's order, not the sender's) bounds nothing but zero.
  void CountAnswer(int64_t now_ns) {
    if (!last_ack_ns_.has_value()) return;
    const int64_t answer_ns = std::max<int64_t>(0, now_ns - *last_ack_ns_);
    last_ack_ns_.reset();
    // As for a gap, a pause over srtt / 2 is the application's, not the
    // host's.
    if (answer_ns <= srtt_ns_ / 2) answers_ns_.push_back(answer_ns);
  }
  DepartureGaps CountedGaps(Vantage vantage) {
    DepartureGaps g;
    g.gaps = gaps_.size();
    g.vantage = vantage;
    if (!answers_ns_.empty()) {
      const auto mid = answers_ns_.begin() + answers_ns_.size() / 2;
      std::nth_element(answers_ns_.begin(), mid, answers_ns_.end());
      g.median_answer_ns = *mid;
    }
    const double floor_ns =
        kPairPerAnswer * static_cast<double>(g.median_answer_ns.value_or(0));
    uint64_t back_to_back = 0;
    for (const Gap& gap : gaps_) {
      const double tenth_ns = kBackToBackRatio * gap.paced_gap_ns;
      if (tenth_ns < floor_ns) continue;
      ++g.resolved_gaps;
      if (gap.gap_ns < tenth_ns) ++back_to_back;
    }
    if (!g.at_sender() || g.resolved_gaps < kMinGaps) return g;
    const double f = static_cast<double>(back_to_back) / g.resolved_gaps;
    g.back_to_back_fraction = f;
    if (std::abs(f - kPacedBelow) > std::sqrt(f * (1 - f) / g.resolved_gaps))
      g.paced = f < kPacedBelow;
    return g;
  }

  const Flow& flow_;
  uint32_t index_;
  int sender_;
  int64_t srtt_ns_;
  AckTimelineBuilder timeline_;
  bool started_ = false;
  bool done_ = false;
  uint32_t snd_nxt_ = 0;
  uint32_t highest_ack_ = 0;
  uint32_t mss_ = 1;
  int64_t last_ns_ = 0;
  // A slow-start gap, and the paced gap srtt / (2 * flight) it is
  // measured against.
  struct Gap {
    int64_t gap_ns;
    double paced_gap_ns;
  };
  std::vector<Gap> gaps_;
  std::optional<int64_t> last_ack_ns_;
  std::vector<int64_t> answers_ns_;
  bool sized_ = false;
  uint32_t sized_nxt_ = 0;
  SegmentSizes sizes_;
};

}  // namespace

std::string GapsSilence(const DepartureGaps& g) {
  if (g.paced.has_value()) return "";
  if (g.vantage == Vantage::kUnknown) {
    return "the capture's vantage point is unknown (no handshake to place "
           "it), and anywhere after the sender the path re-spaces its "
           "departures";
  }
  if (!g.at_sender()) {
    return absl::StrCat("the capture is ",
                        g.vantage == Vantage::kMiddle
                            ? "in the middle of the path"
                            : "at the receiver",
                        ", not at the sender, and the path after the sender "
                        "re-spaces its departures");
  }
  if (g.back_to_back_fraction.has_value()) {
    return absl::StrFormat(
        "%.1f%% of %d slow-start gaps back to back, within a standard "
        "error of the %.0f%% threshold",
        100 * *g.back_to_back_fraction, g.resolved_gaps, 100 * kPacedBelow);
  }
  if (g.resolved_gaps < g.gaps && g.median_answer_ns.has_value()) {
    return absl::StrFormat(
        "%d of %d slow-start gaps could show a back-to-back pair, under %d: "
        "the sender's median answer to an ACK took %.0f us, so its host "
        "spaces a burst about %.0f us apart, more than a tenth of the paced "
        "gap srtt / (2 * flight) on the others: its own speed spaces a burst "
        "like pacing",
        g.resolved_gaps, g.gaps, kMinGaps, *g.median_answer_ns / 1e3,
        kPairPerAnswer * *g.median_answer_ns / 1e3);
  }
  return absl::StrFormat("%d slow-start gaps, under %d", g.gaps, kMinGaps);
}

namespace {

// The jiffy clock's phase: where cubic:linux's ticks fall on the capture's
// clock (mono_offset_us, Unix time less CLOCK_MONOTONIC, taken modulo a
// jiffy). A lab tcp_probe trace gives it from its clock pair; an ss log
// does not, and at HZ 250 a tick 2 ms off moves which ACK bictcp_update()
// recomputes cnt on: cubic_two_poff's second flow replayed against its ss
// log at the default phase, median 2.08 %; at its clock pair's, 0.03 %.
constexpr char kPhaseOption[] = "mono_offset_us";
// Phases tried: this many, a jiffy apart divided evenly (1 ms at HZ 250,
// about the ss log's millisecond resolution).
constexpr int kPhaseCandidates = 4;

// The values a candidate of `spec` takes for an option the fit varies.
std::vector<std::string> CandidateValues(const std::string& option,
                                         const ControllerSpec& spec) {
  if (option == kPhaseOption) {
    const std::optional<std::string> hz = spec.Value("hz");
    int hz_value = 0;
    if (!hz.has_value() || !absl::SimpleAtoi(*hz, &hz_value) || hz_value <= 0)
      return {"0"};
    std::vector<std::string> values;
    for (int k = 0; k < kPhaseCandidates; ++k)
      values.push_back(
          absl::StrCat(k * 1'000'000 / hz_value / kPhaseCandidates));
    return values;
  }
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

// The GSO size the capture's segment sizes show, or nullopt when they
// cannot (SegmentSizes).
std::optional<FittedSetting> GsoFromCapture(const SegmentSizes& z) {
  if (!z.sender_side || z.data_segments < kMinSizedSegments) return {};
  if (z.super_segments > 0) {
    return FittedSetting{
        "gso", "65536", "capture", std::nullopt,
        absl::StrFormat(
            "%d of %d data segments at the sender above the %d-byte MSS "
            "(up to %d bytes): TSO/GSO super-segments, so gso_max_size is "
            "at least that; taken as the default GSO_LEGACY_MAX_SIZE",
            z.super_segments, z.data_segments, z.mss_bytes, z.largest_bytes)};
  }
  const uint32_t mtu_bytes = z.mss_bytes + z.header_bytes;
  return FittedSetting{
      "gso", absl::StrCat(mtu_bytes), "capture", std::nullopt,
      absl::StrFormat("none of %d data segments at the sender above the "
                      "%d-byte MSS: no super-segment, so gso_max_size is "
                      "under two segments; taken as the MTU, %d bytes",
                      z.data_segments, z.mss_bytes, mtu_bytes)};
}

// HZ from the ss log's jiffy ticks, when they tell it.
std::optional<FittedSetting> HzFromSs(const std::optional<JiffyTicks>& j) {
  if (!j.has_value() || !j->hz.has_value()) return {};
  return FittedSetting{
      "hz", absl::StrCat(*j->hz), "ss", std::nullopt,
      absl::StrFormat("the ss log's %d distinct jiffy-derived millisecond "
                      "values (rto, ato, lastsnd, lastrcv, lastack, timer) "
                      "are all multiples of %d ms: a jiffy of 1000 / %d",
                      j->values, j->step_ms, *j->hz)};
}

// Pacing from the departure gaps, when they tell it.
std::optional<FittedSetting> PacingFromGaps(const DepartureGaps& g) {
  if (!g.paced.has_value()) return {};
  return FittedSetting{
      "paced", *g.paced ? "1" : "0", "gaps", std::nullopt,
      absl::StrFormat("%.1f%% of %d slow-start departure gaps back to back "
                      "(under %.1f of srtt / (2 * flight); paced below "
                      "%.0f%%)",
                      100 * *g.back_to_back_fraction, g.resolved_gaps,
                      kBackToBackRatio, 100 * kPacedBelow)};
}

// Why an option the fit could not decide is not determinable.
std::string UndeterminedReason(const std::string& option, bool replayed,
                               const DepartureGaps& gaps) {
  if (option == "paced") {
    return absl::StrCat("the departure gaps do not tell: ", GapsSilence(gaps),
                        replayed ? "; and the replays with either value "
                                   "do not tell them apart"
                                 : "; and there is no captured cwnd to "
                                   "replay against");
  }
  if (option == "gso") {
    return "the capture is not at the sender (where GRO or a middle point "
           "can merge segments), or holds too few data segments to show "
           "their sizes" +
           std::string(replayed ? ", and the replays with either value do "
                                  "not tell them apart"
                                : "");
  }
  if (option == kPhaseOption) {
    return "the jiffy clock's phase moves only which ACK cubic:linux's "
           "per-jiffy update falls on, and on this flow the replays with "
           "each phase do not tell them apart against the ss samples (the "
           "best one replayed)";
  }
  return replayed ? "HZ moves only cubic:linux's jiffy clock, and on this "
                    "flow the replays with either value do not tell them "
                    "apart"
                  : "HZ moves only cubic:linux's jiffy clock; no captured "
                    "cwnd to replay against";
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

// The setting for `option` that needs no replay: the recorded value, or
// limited's default, or the GSO size the segment sizes show.
std::optional<FittedSetting> SettledSetting(const std::string& option,
                                            const RecordedSenderConfig& r,
                                            const CaptureEvidence& e) {
  if (option == "limited")
    return FittedSetting{option, "flight", "default", std::nullopt, ""};
  if (std::optional<std::string> v = RecordedValue(r, option))
    return FittedSetting{option, *v, "recorded", std::nullopt, ""};
  if (option == "gso") return GsoFromCapture(e.sizes);
  if (option == "hz") return HzFromSs(e.jiffies);
  return std::nullopt;
}

// Given, recorded, default and capture-shown settings; the rest open.
Plan MakePlan(const ControllerSpec& spec, const RecordedSenderConfig& r,
              const CaptureEvidence& e) {
  Plan p;
  p.fixed = spec;
  p.fit.given_spec = spec.ToString();
  for (const char* option : {"paced", "hz", "gso", "limited"}) {
    if (spec.Sets(option)) {
      p.fit.settings.push_back({option, *spec.Value(option), "given", {}, ""});
    } else if (std::optional<FittedSetting> s = SettledSetting(option, r, e)) {
      // A setting the profile does not take (reno:linux has no paced=) is
      // reported, not applied.
      if (spec.Takes(option)) p.fixed = *p.fixed.With(option, s->value);
      p.fit.settings.push_back(*std::move(s));
    } else if (spec.Takes(option)) {
      p.open.push_back(option);
    }
  }
  // The phase, against an ss log only (a tcp_probe trace's clock pair
  // gives it; without a log nothing can), once HZ is settled.
  if (e.jiffies.has_value() && spec.Takes(kPhaseOption) &&
      !spec.Sets(kPhaseOption) && p.fixed.Sets("hz")) {
    p.open.push_back(kPhaseOption);
  }
  p.candidates = {p.fixed};
  for (const std::string& option : p.open) {
    std::vector<ControllerSpec> next;
    for (const ControllerSpec& c : p.candidates) {
      for (const std::string& v : CandidateValues(option, c))
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

// The best-ranked candidate with another value of an option than the
// chosen one, against the chosen one.
struct Rival {
  double margin_pct;      // Its p95 error less the chosen one's.
  uint64_t parting_runs;  // Its DivergenceSummary::parting_runs.
};

// `chosen`'s rival for `option`; nullopt when either has no figure.
std::optional<Rival> RivalOf(const std::vector<ReplayedController>& replayed,
                             const Plan& p, const ControllerSpec& chosen,
                             double best_err, const std::string& option) {
  constexpr double kNone = std::numeric_limits<double>::infinity();
  std::optional<size_t> rival;
  for (size_t i = 0; i < p.candidates.size(); ++i) {
    if (p.candidates[i].Value(option) == chosen.Value(option)) continue;
    if (!rival.has_value() ||
        Rank(replayed[p.first + i]) < Rank(replayed[p.first + *rival])) {
      rival = i;
    }
  }
  if (!rival.has_value() || best_err == kNone) return std::nullopt;
  const ReplayedController& r = replayed[p.first + *rival];
  if (Rank(r).first == kNone) return std::nullopt;
  return Rival{Rank(r).first - best_err, r.divergence.parting_runs};
}

// Whether the replay decides an option: the rival is kDecisiveMarginPct
// worse at the p95 and parts from the stack kDecisivePartingRatio times as
// often. The p95 alone is one segment on either side of a jiffy-boundary
// coincidence: cubic_80ms_small_pon (Linux 6.18, HZ 250) replayed with
// HZ 1000 at 0.03 % against 0.73 %, one segment at its cwnd of about 137,
// yet HZ 250 parted from tcp_probe 23 times (195 ACKs) and HZ 1000 26
// times (82 ACKs); where HZ 250 was right by the same p95 margin, HZ 1000
// parted 20-47 times and HZ 250 0-13 (docs/controllers.md).
bool Decides(const Rival& rival, uint64_t chosen_parting_runs) {
  return rival.margin_pct >= kDecisiveMarginPct &&
         static_cast<double>(rival.parting_runs) >=
             kDecisivePartingRatio * static_cast<double>(chosen_parting_runs);
}

// The replay of candidate `spec` of `p`; nullptr when it is none of them.
const ReplayedController* ReplayOf(
    const std::vector<ReplayedController>& replayed, const Plan& p,
    const ControllerSpec& spec) {
  const std::string text = spec.ToString();
  for (size_t i = 0; i < p.candidates.size(); ++i) {
    if (p.candidates[i].ToString() == text) return &replayed[p.first + i];
  }
  return nullptr;
}

// Why the replay leaves an option undecided: its best candidate does not
// track the kernel, or the rival is not far enough apart (Decides()).
std::string UndecidedByReplay(const std::string& option, bool tracks,
                              double best_median, double best_err,
                              const std::optional<Rival>& rival, uint64_t runs,
                              const DepartureGaps& gaps) {
  if (!tracks) {
    return absl::StrFormat(
        "the best replay does not track the kernel (median %.2f%%, p95 "
        "%.2f%%): no evidence",
        best_median, best_err);
  }
  std::string reason = UndeterminedReason(option, true, gaps);
  if (rival.has_value()) {
    absl::StrAppendFormat(
        &reason,
        " (p95 %.2f pp apart, parted from the stack %d times against the "
        "other value's %d: a decision needs %.1f pp and %.0f times as many)",
        rival->margin_pct, runs, rival->parting_runs, kDecisiveMarginPct,
        kDecisivePartingRatio);
  }
  return reason;
}

// The best-ranked candidate; each open option it Decides() is fitted by
// the replay. Otherwise pacing goes to the departure gaps, and what
// nothing tells is not determinable (the best candidate's value
// replayed).
void PickByReplay(const std::vector<ReplayedController>& replayed,
                  const DepartureGaps& gaps, Plan& p) {
  const size_t best = BestCandidate(replayed, p);
  ControllerSpec chosen = p.candidates[best];
  const auto [best_err, best_median] = Rank(replayed[p.first + best]);
  const bool tracks =
      best_median <= kTracksMedianPct && best_err <= kTracksP95Pct;
  for (const std::string& option : p.open) {
    const std::optional<Rival> rival =
        RivalOf(replayed, p, chosen, best_err, option);
    const ReplayedController* replay = ReplayOf(replayed, p, chosen);
    const uint64_t runs =
        replay != nullptr ? replay->divergence.parting_runs : 0;
    std::optional<double> margin;
    if (rival.has_value()) margin = rival->margin_pct;
    FittedSetting s{option, *chosen.Value(option), "replay", margin, ""};
    if (tracks && rival.has_value() && Decides(*rival, runs)) {
      s.reason = absl::StrFormat(
          "p95 per-ACK error %.2f%%, the other value's best %.2f%%; parted "
          "from the stack %d times, the other %d",
          best_err, best_err + rival->margin_pct, runs, rival->parting_runs);
    } else if (std::optional<FittedSetting> g =
                   option == "paced" ? PacingFromGaps(gaps) : std::nullopt) {
      s = *std::move(g);
      s.margin_pct = margin;
      chosen = *chosen.With(option, s.value);
    } else {
      s.source = FittedSetting::kNotDeterminable;
      s.reason = UndecidedByReplay(option, tracks, best_median, best_err, rival,
                                   runs, gaps);
    }
    p.fit.settings.push_back(std::move(s));
  }
  p.fixed = chosen;
}

// The errors of the chosen spec and of the given one, from the fit's pass.
void RecordErrors(const std::vector<ReplayedController>& replayed,
                  const Plan& p, SenderConfigFit& fit) {
  if (const ReplayedController* chosen = ReplayOf(replayed, p, p.fixed)) {
    fit.median_abs_err_pct = chosen->divergence.median_abs_err_pct;
    fit.p95_abs_err_pct = chosen->divergence.p95_abs_err_pct;
  }
  const DivergenceSummary& given =
      replayed[p.first + p.candidates.size()].divergence;
  fit.given_median_abs_err_pct = given.median_abs_err_pct;
  fit.given_p95_abs_err_pct = given.p95_abs_err_pct;
}

// Without a replay to choose by: pacing from the gaps, the rest not
// determinable at the profile's default.
void PickWithoutReplay(const DepartureGaps& gaps, Plan& p) {
  for (const std::string& option : p.open) {
    std::optional<FittedSetting> s =
        option == "paced" ? PacingFromGaps(gaps) : std::nullopt;
    if (s.has_value()) {
      p.fixed = *p.fixed.With(option, s->value);
    } else {  // The profile's default, left out of the spec.
      s = FittedSetting{option, *p.fixed.Value(option),
                        FittedSetting::kNotDeterminable, std::nullopt,
                        UndeterminedReason(option, false, gaps)};
    }
    p.fit.settings.push_back(*std::move(s));
  }
}

// Pacing and HZ of a profile without the option (reno:linux, dctcp),
// when nothing recorded them: reported only, pacing from the gaps.
void ReportUnmodelled(const DepartureGaps& gaps, Plan& p) {
  for (const char* option : {"paced", "hz"}) {
    const bool has = std::any_of(
        p.fit.settings.begin(), p.fit.settings.end(),
        [option](const FittedSetting& s) { return s.option == option; });
    if (has || p.fixed.Takes(option)) continue;
    std::optional<FittedSetting> s =
        std::string(option) == "paced" ? PacingFromGaps(gaps) : std::nullopt;
    if (!s.has_value()) {
      s = FittedSetting{
          option, "", FittedSetting::kNotDeterminable, std::nullopt,
          std::string(option) == "paced"
              ? absl::StrCat(
                    "the departure gaps do not tell: ", GapsSilence(gaps),
                    "; and this profile has no paced= to replay")
              : "this profile has no jiffy clock to replay, and nothing "
                "else in a capture shows HZ"};
    }
    p.fit.settings.push_back(*std::move(s));
  }
}

// The jiffy ticks of the flow's sender in the ss log at `path`; nullopt
// when there is none (no log, a tcp_probe trace, an unreadable log: the
// replay reports those).
std::optional<JiffyTicks> SsJiffies(const std::string& path,
                                    const FlowSummary& flow) {
  if (path.empty()) return std::nullopt;
  absl::StatusOr<HostStateLog> log = ReadHostState(path);
  if (!log.ok()) return std::nullopt;
  for (const HostTrace& trace : log->traces) {
    if (trace.source == HostStateSource::kSs && !trace.quic &&
        trace.local_endpoint == flow.sender &&
        trace.remote_endpoint == flow.receiver) {
      return JiffyTicksOf(trace.series);
    }
  }
  return std::nullopt;
}

}  // namespace

JiffyTicks JiffyTicksOf(const CapturedSeries& series) {
  std::set<int64_t> values;
  bool integral = true;
  for (const char* name : {"rto_ms", "ato_ms", "lastsnd_ms", "lastrcv_ms",
                           "lastack_ms", "timer.expire_ms"}) {
    auto it = series.other.find(name);
    if (it == series.other.end()) continue;
    for (const SeriesPoint& p : it->second) {
      const double ms = std::round(p.value);
      if (std::fabs(p.value - ms) > 1e-6) integral = false;
      if (ms > 0) values.insert(static_cast<int64_t>(ms));
    }
  }
  JiffyTicks j;
  j.values = values.size();
  if (!integral) return j;
  int64_t step = 0;
  for (int64_t v : values) step = std::gcd(step, v);
  j.step_ms = static_cast<uint64_t>(step);
  if (j.values < kMinJiffyValues) return j;
  // A step that is a multiple of both 4 and 10 fits HZ 100 and 250 alike.
  if (step % 10 == 0 && step % 4 != 0) j.hz = 100;
  if (step % 4 == 0 && step % 10 != 0) j.hz = 250;
  // HZ 300's jiffies_to_msecs() rounds 3.33 ms up: every value ends in 0,
  // 4 or 7 (include/linux/jiffies.h, HZ_TO_MSEC_*).
  if (step == 1 && std::any_of(values.begin(), values.end(), [](int64_t v) {
        return v % 10 != 0 && v % 10 != 4 && v % 10 != 7;
      })) {
    j.hz = 1000;
  }
  return j;
}

absl::StatusOr<CaptureEvidence> MeasureCaptureEvidence(
    const TcpCaptureScan& scan) {
  const Flow& flow = scan.table.flows()[scan.selected.index];
  EvidenceCounter counter(flow, scan.selected.index, scan.selected.sender_side);
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
    const CaptureEvidence& evidence) {
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
      plans.push_back(MakePlan(*spec, recorded, evidence));
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
      PickByReplay(replayed, evidence.gaps, p);
    } else {
      PickWithoutReplay(evidence.gaps, p);
    }
    if (!p.candidates.empty() && !replayed.empty())
      RecordErrors(replayed, p, p.fit);
    if (FitsSenderConfig(p.fit.given_spec)) ReportUnmodelled(evidence.gaps, p);
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

std::string DescribeSetting(const FittedSetting& s) {
  std::vector<std::string> notes;
  if (!s.determined() && !s.value.empty())
    notes.push_back(absl::StrCat("replayed with ", s.value));
  if (s.margin_pct.has_value())
    notes.push_back(absl::StrFormat("next best +%.2f pp", *s.margin_pct));
  if (!s.reason.empty()) notes.push_back(s.reason);
  if (!s.determined()) {
    return absl::StrCat(s.option, " not determinable (",
                        absl::StrJoin(notes, "; "), ")");
  }
  return absl::StrCat(s.option, "=", s.value, " (", s.source,
                      notes.empty() ? "" : ": ", absl::StrJoin(notes, "; "),
                      ")");
}

std::string DescribeFit(const SenderConfigFit& fit) {
  std::vector<std::string> parts;
  for (const FittedSetting& s : fit.settings)
    parts.push_back(DescribeSetting(s));
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
  absl::StatusOr<CaptureEvidence> evidence = MeasureCaptureEvidence(scan);
  if (!evidence.ok()) return evidence.status();
  report.evidence = *evidence;
  report.evidence.jiffies = SsJiffies(base.host_state_path, scan.summary);
  const RecordedSenderConfig recorded = bundle_sender.has_value()
                                            ? RecordedFromBundle(*bundle_sender)
                                            : RecordedSenderConfig{};
  report.recorded_note = recorded.paced_reason;
  absl::StatusOr<std::vector<SenderConfigFit>> fits =
      FitSenderConfig(scan, base, specs, recorded, report.evidence);
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
  const DepartureGaps& g = r.evidence.gaps;
  lines.push_back(
      g.paced.has_value()
          ? absl::StrFormat(
                "sender pacing from the capture: %.1f%% of %d slow-start "
                "departure gaps back to back (under %.1f of srtt / (2 * "
                "flight), srtt from the data's RTT samples): %s",
                100 * *g.back_to_back_fraction, g.resolved_gaps,
                kBackToBackRatio, *g.paced ? "paced" : "unpaced")
          : absl::StrCat("sender pacing from the capture: no verdict (",
                         GapsSilence(g), ")"));
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
