#include "reports/unfairness.h"

#include <algorithm>
#include <cmath>
#include <utility>

#include "absl/container/flat_hash_map.h"
#include "absl/status/statusor.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "cc/congestion_controller.h"
#include "cc/registry.h"
#include "reports/percentile.h"

namespace ccreplay {
namespace {

// A growth gap below this fraction is within the measurement's error (the
// slope of cwnd^2 is within 3 % of the simulator's growth on its exports,
// reports/sim_diagnosis_test.cc), so it names no packet-size cause.
constexpr double kGrowthGapTolerance = 0.05;
// Minimum RTTs within this fraction of each other are the same path delay
// (they differ by the service time of each flow's packet and ACK holds).
constexpr double kRttTolerance = 0.10;
// Closed-loop runs per counterfactual, each with its own seed and sender
// jitter (reports/fitted_simulation.h): a single run's ratio moves by
// tenths with a 2 % change of the buffer (drop-tail phase effects), and
// the 24-run ratio by 0.03-0.09 with a 1e-4 change of the rate, with no
// trend (unfairness_test.cc). So the runs are spread over kPredictionPaths
// paths the capture cannot tell apart from the fitted one
// (PathsWithinUncertainty), kRunsPerPath on each: the mean over them is
// the prediction, the paths' own ratios its spread. One run a path: path
// and seed each add variance, and for a given number of runs the mean's
// is least with one seed per path. 64 runs: a single run's ratio has an
// sd of about 0.10 on issue 19's exports, so the mean's standard error is
// 0.013 (unfairness_test.cc; 24 gave 0.02, which the 0.03 bound cannot
// rest on). It costs 2.1x the 24 runs of one path (docs/diagnosis.md).
constexpr int kPredictionPaths = 64;
constexpr int kRunsPerPath = 1;
// A flow that started this share of the common interval after the other
// is a late comer: its first epochs (slow start, the first reduction) fall
// inside the interval being compared.
constexpr double kLateComerShare = 0.05;
// A counterfactual that moves the ratio by less than this changes nothing
// the simulation can resolve.
constexpr double kCounterfactualTolerance = 0.02;

// Cumulative bytes delivered at time `t`, linear between samples.
double DeliveredAt(const std::vector<std::pair<double, uint64_t>>& series,
                   double t) {
  if (series.empty() || t <= series.front().first) return 0;
  if (t >= series.back().first) return series.back().second;
  const auto after = std::lower_bound(series.begin(), series.end(), t,
                                      [](const std::pair<double, uint64_t>& s,
                                         double v) { return s.first < v; });
  const auto before = after - 1;
  const double span = after->first - before->first;
  const double w = span > 0 ? (t - before->first) / span : 1;
  return before->second + w * (after->second - before->second);
}

std::string SpecFamily(const std::string& spec) {
  absl::StatusOr<ControllerSpec> parsed = ControllerSpec::Parse(spec);
  if (!parsed.ok()) return spec;
  // Stack profiles name their algorithm in the variant: "ngtcp2:cubic".
  if (parsed->family == "ngtcp2" || parsed->family == "quicly") {
    return parsed->variant;
  }
  return parsed->family;
}

// The exponent k of a loss-based controller's RTT unfairness, throughput
// ∝ RTT^-k at equal loss: Reno's window does not depend on the RTT
// (Mathis et al. 1997, throughput = MSS / (RTT sqrt(2p/3))), so k = 1 at
// independent losses (up to 2 at synchronized ones); CUBIC's average
// window grows as RTT^(3/4) / p^(3/4) (RFC 9438 section 5.1, from its
// RTT-independent growth, section 1), so k = 1/4. nullopt: not modelled
// (BBR, model-based, is meant to be RTT-fair in rate).
std::optional<double> RttExponent(const std::string& spec) {
  const std::string family = SpecFamily(spec);
  if (family == "cubic" || family == "cuback") return 0.25;
  if (family == "reno" || family == "dctcp" || family == "prague") return 1;
  return std::nullopt;
}

// Whether `spec` counts its congestion-avoidance growth in its own
// packets, unless normalized: the AIMD families RttExponent models (Reno,
// RFC 5681 section 3.1; CUBIC, RFC 9438 section 4.2: W in segments; DCTCP
// and Prague on Reno's increase), the stack profiles' included.
bool GrowsPerPacket(const std::string& spec) {
  return RttExponent(spec).has_value();
}

// Says that the claimed controller, not the capture, decided whether `f`
// normalizes.
std::string ClaimDecided(const CompetitorFacts& f) {
  return absl::StrCat(
      "; the captured growth does not tell normalization on from off, so "
      "this is the claimed controller ",
      f.controller, "'s setting, not a measurement");
}

// Named when the lesser flow sends the smaller packets and its captured
// cwnd grows like its controller without MTU normalization: growth counted
// in its own packets, not in 1462-byte ones (RFC 7141 section 2.3).
std::optional<UnfairnessCause> PacketSizeCause(const CompetitorFacts& lesser,
                                               const CompetitorFacts& greater) {
  if (lesser.packet_bytes >= greater.packet_bytes ||
      lesser.normalize_bytes.has_value() || !lesser.ca_growth_bytes_per_rtt ||
      !greater.ca_growth_bytes_per_rtt ||
      !(*greater.ca_growth_bytes_per_rtt > 0)) {
    return std::nullopt;
  }
  const double g = *lesser.ca_growth_bytes_per_rtt;
  const double growth_ratio = g / *greater.ca_growth_bytes_per_rtt;
  UnfairnessCause c;
  c.kind = "packet_size";
  // Mathis et al. 1997 (CCR 27(3)): an AIMD window growing g bytes per RTT
  // between congestion events q per byte averages sqrt(8g / (3q)), so at
  // equal q the throughputs are in the ratio sqrt(g_lesser / g_greater).
  c.explained_ratio = std::min(1.0, std::sqrt(growth_ratio));
  c.message = absl::StrFormat(
      "in congestion avoidance it grew %.0f B per RTT against %s's %.0f B "
      "(growth counted in its %d-byte packets: no MTU normalization, RFC "
      "7141 section 2.3%s), which alone predicts %.2f (throughput ∝ "
      "sqrt(growth per RTT / congestion events per byte), Mathis et al. "
      "1997, at equal congestion events)",
      g, greater.label, *greater.ca_growth_bytes_per_rtt, lesser.packet_bytes,
      lesser.normalization_claimed ? ClaimDecided(lesser) : "",
      c.explained_ratio);
  return c;
}

// The queue both flows' inputs state, when they state the same one.
// Whether it admits an arrival when its bytes fit (bfifo), not by packet
// count: SameQueueCountingBytes.
std::optional<BundleQueue> StatedQueue(const CompetitorFacts& a,
                                       const CompetitorFacts& b) {
  if (!a.queue.has_value() || !b.queue.has_value() ||
      a.queue->qdisc != b.queue->qdisc || a.queue->limit != b.queue->limit) {
    return std::nullopt;
  }
  return a.queue;
}

bool SameQueueCountingBytes(const CompetitorFacts& a,
                            const CompetitorFacts& b) {
  const std::optional<BundleQueue> q = StatedQueue(a, b);
  return q.has_value() && q->counts_bytes();
}

// The fitted buffer's delay at the fitted rate.
double QueueS(const FittedPath& path) {
  return path.rate_bps > 0 ? path.buffer_bytes * 8.0 / path.rate_bps : 0;
}

// Whether the flows' minimum RTTs differ by more than kRttTolerance and by
// more than the shared queue's delay: on a link the other flow keeps busy,
// a flow's minimum includes the other's packets ahead of it, up to the
// queue (`queue_s`; 0 when no path was fitted).
bool DifferentRtts(const CompetitorFacts& a, const CompetitorFacts& b,
                   double queue_s) {
  if (!a.min_rtt_ms || !b.min_rtt_ms) return false;
  const double lo = std::min(*a.min_rtt_ms, *b.min_rtt_ms);
  const double diff_ms = std::fabs(*a.min_rtt_ms - *b.min_rtt_ms);
  return diff_ms > kRttTolerance * lo && diff_ms > queue_s * 1e3;
}

std::optional<UnfairnessCause> RttCause(const CompetitorFacts& lesser,
                                        const CompetitorFacts& greater,
                                        double queue_s) {
  const std::optional<double> k = RttExponent(lesser.controller);
  if (!DifferentRtts(lesser, greater, queue_s) || !k.has_value() ||
      !(*lesser.min_rtt_ms > *greater.min_rtt_ms)) {
    return std::nullopt;
  }
  const double rtt_ratio = *lesser.min_rtt_ms / *greater.min_rtt_ms;
  UnfairnessCause c;
  c.kind = "rtt";
  c.explained_ratio = std::pow(rtt_ratio, -*k);
  c.message = absl::StrFormat(
      "its minimum RTT was %.1f ms against %.1f ms; %s's throughput scales "
      "as RTT^-%.2g at equal loss, which alone predicts %.2f",
      *lesser.min_rtt_ms, *greater.min_rtt_ms, SpecFamily(lesser.controller),
      *k, c.explained_ratio);
  return c;
}

// The flow as the fitted simulation runs it: its start `late_s` after the
// run's, its own base RTT when the two flows' differ.
SimulatedFlow AsSimulated(const CompetitorFacts& f, double late_s,
                          bool own_rtt) {
  SimulatedFlow s;
  s.spec = f.controller;
  s.packet_bytes = f.packet_bytes;
  s.normalize_bytes = f.normalize_bytes;
  s.start_ns = static_cast<int64_t>(late_s * 1e9);
  if (own_rtt && f.min_rtt_ms.has_value()) {
    s.base_rtt_ns = static_cast<int64_t>(*f.min_rtt_ms * 1e6);
  }
  return s;
}

// How long after the other `f` started, when it is a late comer: later by
// more than kLateComerShare of the common interval, or by half the other's
// minimum RTT or more (a start within one observation bin of the other's
// is the same start). In slow start the window doubles every round trip
// (RFC 5681 section 3.1), so a flow that starts half an RTT later meets
// the first losses with 1/sqrt(2) of the other's window; whether that
// lasts is the start_order counterfactual's to say.
double LateBy(const CompetitorFacts& f, const CompetitorFacts& other) {
  const double interval_s =
      std::min(f.end_s, other.end_s) - std::max(f.start_s, other.start_s);
  const double late_s = f.start_s - other.start_s;
  const double half_rtt_s = other.min_rtt_ms.value_or(0) * 1e-3 / 2;
  const bool late = late_s > kLateComerShare * interval_s ||
                    (half_rtt_s > 0 && late_s >= half_rtt_s);
  return late ? late_s : 0;
}

// `flow` sending packets of `packet_bytes`, its spec's mss= (a stack
// profile's packet size, e.g. "ngtcp2:cubic,mss=1280") set to match.
std::optional<SimulatedFlow> WithPacketBytes(const SimulatedFlow& flow,
                                             uint32_t packet_bytes) {
  SimulatedFlow resized = flow;
  resized.packet_bytes = packet_bytes;
  absl::StatusOr<ControllerSpec> spec = ControllerSpec::Parse(flow.spec);
  if (!spec.ok()) return std::nullopt;
  if (spec->Value("mss").has_value()) {
    absl::StatusOr<ControllerSpec> with =
        spec->With("mss", absl::StrCat(packet_bytes));
    if (!with.ok()) return std::nullopt;
    resized.spec = with->ToString();
  }
  return resized;
}

// The lesser's throughput over the greater's on `paths`; the flows are
// simulated in the caller's order (`lesser_first`), so that each keeps its
// seed.
std::optional<PredictedRatio> Ratio(const std::vector<FittedPath>& paths,
                                    const SimulatedFlow& l,
                                    const SimulatedFlow& g, bool lesser_first) {
  // Over the whole common interval, as share_ratio is measured.
  absl::StatusOr<RatioOverPaths> r =
      lesser_first
          ? SimulatedThroughputRatioOverPaths(paths, l, g, 0, kRunsPerPath)
          : SimulatedThroughputRatioOverPaths(paths, g, l, 0, kRunsPerPath);
  if (!r.ok() || !std::isfinite(r->mean) || !(r->mean > 0) || !(r->low > 0) ||
      !std::isfinite(r->high)) {
    return std::nullopt;
  }
  PredictedRatio p;
  p.paths = r->paths;
  p.mean = lesser_first ? r->mean : 1 / r->mean;
  p.low = lesser_first ? r->low : 1 / r->high;
  p.high = lesser_first ? r->high : 1 / r->low;
  return p;
}

// Controllers whose window is set by loss alone (RFC 5681, RFC 9438,
// RFC 9002's NewReno), the ones a BBR flow's standing queue does not slow.
bool IsLossBased(const std::string& spec) {
  const std::string family = SpecFamily(spec);
  return family == "reno" || family == "cubic" || family == "cuback" ||
         family == "rfc9002";
}

// The RTT samples of `f` within [from_s, to_s], less `min_rtt_ms`.
void AddQueueDelays(const CompetitorFacts& f, double from_s, double to_s,
                    double min_rtt_ms, std::vector<double>* out) {
  for (const auto& [t, rtt_ms] : f.rtt_ms) {
    if (t > from_s && t <= to_s) out->push_back(rtt_ms - min_rtt_ms);
  }
}

std::string StandingQueueMessage(const StandingQueue& q, double from_s,
                                 double to_s) {
  // BBR v1 (Linux 6.18 net/ipv4/tcp_bbr.c): cwnd is bbr_cwnd_gain (2) x
  // its BDP estimate and its bandwidth is a max filter of delivery rates,
  // so loss does not slow it; a loss-based flow grows until the buffer
  // overflows. Neither drains the queue the other keeps.
  return absl::StrFormat(
      "%s (%s) and %s (%s) kept a standing queue from %.3f s to %.3f s: "
      "their RTT stayed a median %.1f ms above the %.1f ms minimum (10th-90th "
      "percentile %.1f-%.1f ms, over %d intervals); %s took %.0f%% of the "
      "pair's throughput, %s %.0f%%. BBR keeps up to twice its estimated BDP "
      "in flight and does not slow down on loss (tcp_bbr.c), while a "
      "loss-based flow grows until the buffer overflows, so neither lets the "
      "queue drain",
      q.bbr_label, q.bbr_controller, q.loss_based_label,
      q.loss_based_controller, from_s, to_s, q.median_ms, q.min_rtt_ms,
      q.p10_ms, q.p90_ms, static_cast<int>(q.bins), q.bbr_label,
      100 * q.bbr_share, q.loss_based_label, 100 * q.loss_based_share);
}

// Two fits of one path: each parameter is known no better than either
// fit says, nor than half their disagreement where both measure the same
// thing (base RTT, the buffer's queueing delay, the receiver's ACK hold).
// Not the rate: each fit's is the rate its own flow saw, which a flow that
// shared the link kept below the link's.
// A figure of the fit `f` that left out `service_ns` of service at its
// rate, read at the link's rate `rate_bps`: a flow that shared the link
// fitted its own share as the rate, and so its service times too long.
// On issue 19's two-flow exports the flows' own fits read the 40 ms hold
// as 35-37 ms at 1 Mb/s and the 100 ms base RTT as 98.0 ms at 2 Mb/s; at
// the link's rate, 40.0 and 100.0 (unfairness_test.cc).
int64_t AtRate(int64_t value_ns, int64_t service_ns, const FittedPath& f,
               int64_t rate_bps) {
  if (!(f.rate_bps > 0) || !(rate_bps > 0)) return value_ns;
  const double share =
      std::min(1.0, static_cast<double>(f.rate_bps) / rate_bps);
  return value_ns + std::llround(service_ns * (1 - share));
}

int64_t HoldAtRate(const FittedPath& f, int64_t rate_bps) {
  if (!f.delayed_ack_measured) return f.delayed_ack_ns;
  return ClampDelayedAckNs(
      AtRate(f.delayed_ack_ns, f.delayed_ack_service_ns, f, rate_bps));
}

int64_t BaseRttAtRate(const FittedPath& f, int64_t rate_bps) {
  return AtRate(f.base_rtt_ns, f.base_rtt_service_ns, f, rate_bps);
}

FitUncertainty SharedUncertainty(const FittedPath& a, const FittedPath& b,
                                 int64_t rate_bps) {
  auto half_gap = [](double x, double y) { return std::fabs(x - y) / 2; };
  FitUncertainty u;
  u.rate_fraction =
      std::max(a.uncertainty.rate_fraction, b.uncertainty.rate_fraction);
  u.base_rtt_ns = static_cast<int64_t>(std::max(
      {static_cast<double>(a.uncertainty.base_rtt_ns),
       static_cast<double>(b.uncertainty.base_rtt_ns),
       half_gap(BaseRttAtRate(a, rate_bps), BaseRttAtRate(b, rate_bps))}));
  u.buffer_delay_ns = static_cast<int64_t>(
      std::max({static_cast<double>(a.uncertainty.buffer_delay_ns),
                static_cast<double>(b.uncertainty.buffer_delay_ns),
                half_gap(QueueS(a), QueueS(b)) * 1e9}));
  const bool both_holds = a.delayed_ack_measured && b.delayed_ack_measured;
  u.delayed_ack_ns = static_cast<int64_t>(std::max(
      {static_cast<double>(a.uncertainty.delayed_ack_ns),
       static_cast<double>(b.uncertainty.delayed_ack_ns),
       both_holds ? half_gap(HoldAtRate(a, rate_bps), HoldAtRate(b, rate_bps))
                  : 0.0}));
  return u;
}

}  // namespace

std::optional<StandingQueue> BbrQueueAgainstLossBased(
    const CompetitorFacts& a, const CompetitorFacts& b) {
  const bool a_bbr = SpecFamily(a.controller) == "bbr";
  const CompetitorFacts& bbr = a_bbr ? a : b;
  const CompetitorFacts& other = a_bbr ? b : a;
  if (SpecFamily(bbr.controller) != "bbr" || !IsLossBased(other.controller) ||
      !bbr.min_rtt_ms || !other.min_rtt_ms || !bbr.throughput_bps ||
      !other.throughput_bps) {
    return std::nullopt;
  }
  const double total_bps = *bbr.throughput_bps + *other.throughput_bps;
  const double from_s = std::max(a.start_s, b.start_s);
  const double to_s = std::min(a.end_s, b.end_s);
  StandingQueue q;
  q.min_rtt_ms = std::min(*bbr.min_rtt_ms, *other.min_rtt_ms);
  std::vector<double> delays;
  AddQueueDelays(bbr, from_s, to_s, q.min_rtt_ms, &delays);
  AddQueueDelays(other, from_s, to_s, q.min_rtt_ms, &delays);
  if (delays.empty() || !(total_bps > 0)) return std::nullopt;
  q.bbr_label = bbr.label;
  q.loss_based_label = other.label;
  q.bbr_controller = bbr.controller;
  q.loss_based_controller = other.controller;
  q.bins = delays.size();
  q.median_ms = Median(delays);
  q.p10_ms = Percentile(delays, 0.1);
  q.p90_ms = Percentile(delays, 0.9);
  q.bbr_share = *bbr.throughput_bps / total_bps;
  q.loss_based_share = *other.throughput_bps / total_bps;
  q.message = StandingQueueMessage(q, from_s, to_s);
  return q;
}

double CommonIntervalThroughput(CompetitorFacts& a, CompetitorFacts& b) {
  const double from = std::max(a.start_s, b.start_s);
  const double to = std::min(a.end_s, b.end_s);
  if (!(to > from)) return 0;
  for (CompetitorFacts* f : {&a, &b}) {
    f->throughput_bps =
        (DeliveredAt(f->delivered, to) - DeliveredAt(f->delivered, from)) * 8 /
        (to - from);
  }
  return to - from;
}

std::optional<FittedPath> SharedFittedPath(
    const CompetitorFacts& a, const CompetitorFacts& b,
    const std::optional<FittedPath>& a_path,
    const std::optional<FittedPath>& b_path) {
  const AdmissionPolicy admission = SameQueueCountingBytes(a, b)
                                        ? AdmissionPolicy::kByteFit
                                        : AdmissionPolicy::kPacketSizeNeutral;
  if (!a_path.has_value() || !b_path.has_value()) {
    std::optional<FittedPath> one = a_path.has_value() ? a_path : b_path;
    if (one.has_value()) one->admission = admission;
    return one;
  }
  FittedPath p = *a_path;
  p.rate_bps = std::max({a_path->rate_bps, b_path->rate_bps,
                         static_cast<int64_t>(a.throughput_bps.value_or(0) +
                                              b.throughput_bps.value_or(0))});
  // Each fit's base RTT is its propagation delay (its minimum less its
  // packet's service time, here at the link's rate, or its handshake's
  // round trip); a flow that never saw the queue empty (the other kept it
  // busy) shows more than the other. The shared fit is at the link's rate
  // already: nothing of it is rescaled again.
  p.base_rtt_ns = std::min(BaseRttAtRate(*a_path, p.rate_bps),
                           BaseRttAtRate(*b_path, p.rate_bps));
  p.base_rtt_service_ns = 0;
  // Each fit's buffer is the queue its flow saw when the buffer overflowed
  // (reports/fitted_simulation.h FitPath), turned into bytes at its own
  // rate; both saw the same queue, which drains at the shared rate. The
  // smaller delay: on issue 19's twelve exports it is within 9 % of the
  // simulator's buffer (0.91-1.00; the larger: up to 1.21; the flows'
  // joint pipe less the BDP: 0.88-1.02), on the lab's two-MSS bundle 0.94
  // (unfairness_test.cc).
  const double queue_s = std::min(QueueS(*a_path), QueueS(*b_path));
  p.buffer_bytes = static_cast<uint64_t>(queue_s * p.rate_bps / 8);
  // The longer hold, each read at the link's rate: a receiver whose timer
  // rarely fired shows almost none.
  p.delayed_ack_ns = std::max(HoldAtRate(*a_path, p.rate_bps),
                              HoldAtRate(*b_path, p.rate_bps));
  p.delayed_ack_service_ns = 0;
  p.delayed_ack_measured =
      a_path->delayed_ack_measured || b_path->delayed_ack_measured;
  // Both flows' whole span, as their share ratio is measured: a single
  // flow's fit stops at a minute, which weighs the start twice as much in
  // a two-minute capture. Capped by packets only.
  const double span_s =
      std::max(a.end_s, b.end_s) - std::min(a.start_s, b.start_s);
  p.duration_ns = static_cast<int64_t>(
      std::min(span_s, MaxSimulatedPacketSeconds(p.rate_bps)) * 1e9);
  p.uncertainty = SharedUncertainty(*a_path, *b_path, p.rate_bps);
  p.admission = admission;
  return p;
}

namespace {

// The closed-loop counterfactuals on the fitted path, each the lesser's
// throughput over the greater's.
struct Counterfactuals {
  std::optional<PredictedRatio> as_is;
  // The small-packet flow normalized to 1462 bytes (RFC 7141 section 2.3,
  // quicly PR #686): as_is when it normalizes already.
  std::optional<PredictedRatio> normalized;
  std::optional<PredictedRatio> same_controller;  // lesser runs greater's
  std::optional<PredictedRatio> same_start;       // lesser starts with greater
  // The lesser sends the greater's packet size.
  std::optional<PredictedRatio> same_size;
  // A byte-fit queue admitting as one that counts packets would.
  std::optional<PredictedRatio> packet_count_admission;
};

// With `size_unnamed` (the growth named no packet-size cause: not
// measured), also the lesser at the greater's packet size, when it sends
// smaller packets with a controller that counts its growth in them.
Counterfactuals RunCounterfactuals(const CompetitorFacts& lesser,
                                   const CompetitorFacts& greater,
                                   const FittedPath& fitted, bool lesser_first,
                                   bool size_unnamed) {
  const std::vector<FittedPath> paths =
      PathsWithinUncertainty(fitted, kPredictionPaths);
  const bool own_rtt = DifferentRtts(lesser, greater, QueueS(fitted));
  const SimulatedFlow l = AsSimulated(lesser, LateBy(lesser, greater), own_rtt);
  const SimulatedFlow g =
      AsSimulated(greater, LateBy(greater, lesser), own_rtt);
  Counterfactuals c;
  c.as_is = Ratio(paths, l, g, lesser_first);
  if (lesser.packet_bytes != greater.packet_bytes) {
    SimulatedFlow nl = l, ng = g;
    SimulatedFlow& small = lesser.packet_bytes < greater.packet_bytes ? nl : ng;
    const bool already = small.normalize_bytes.has_value();
    small.normalize_bytes = kReferenceMtuBytes;
    c.normalized = already ? c.as_is : Ratio(paths, nl, ng, lesser_first);
  }
  if (SpecFamily(lesser.controller) != SpecFamily(greater.controller)) {
    SimulatedFlow swapped = g;
    swapped.packet_bytes = l.packet_bytes;
    swapped.start_ns = l.start_ns;
    swapped.base_rtt_ns = l.base_rtt_ns;
    c.same_controller = Ratio(paths, swapped, g, lesser_first);
  }
  if (l.start_ns > 0) {
    SimulatedFlow together = l;
    together.start_ns = g.start_ns;
    c.same_start = Ratio(paths, together, g, lesser_first);
  }
  if (fitted.admission == AdmissionPolicy::kByteFit &&
      lesser.packet_bytes != greater.packet_bytes) {
    std::vector<FittedPath> neutral = paths;
    for (FittedPath& p : neutral)
      p.admission = AdmissionPolicy::kPacketSizeNeutral;
    c.packet_count_admission = Ratio(neutral, l, g, lesser_first);
  }
  if (size_unnamed && lesser.packet_bytes < greater.packet_bytes &&
      !lesser.normalize_bytes.has_value() &&
      GrowsPerPacket(lesser.controller)) {
    if (std::optional<SimulatedFlow> resized =
            WithPacketBytes(l, greater.packet_bytes)) {
      c.same_size = Ratio(paths, *resized, g, lesser_first);
    }
  }
  return c;
}

// A cause proven by a counterfactual: the ratio as it ran over the ratio
// without the cause, when that differs by more than the tolerance.
std::optional<UnfairnessCause> CounterfactualCause(
    const std::string& kind, const std::optional<PredictedRatio>& as_is,
    const std::optional<PredictedRatio>& without, const std::string& what) {
  if (!as_is.has_value() || !without.has_value()) return std::nullopt;
  const double explained = as_is->mean / without->mean;
  if (!(explained < 1 - kCounterfactualTolerance)) return std::nullopt;
  UnfairnessCause c;
  c.kind = kind;
  c.explained_ratio = explained;
  c.message = absl::StrFormat(
      "%s, the fitted simulation gives %.2f instead of %.2f, so this alone "
      "accounts for a factor of %.2f",
      what, without->mean, as_is->mean, explained);
  return c;
}

// The causes with a counterfactual: packet size (when the growth did not
// name it), controller mix and start order.
void AddSimulatedCauses(const CompetitorFacts& lesser,
                        const CompetitorFacts& greater,
                        const Counterfactuals& c,
                        std::vector<UnfairnessCause>* causes) {
  if (std::optional<UnfairnessCause> size = CounterfactualCause(
          "packet_size", c.as_is, c.same_size,
          absl::StrFormat(
              "it sent %d-byte packets against %s's %d, and %s counts its "
              "window's growth in its own packets (no MTU normalization, "
              "RFC 7141 section 2.3); with %d-byte packets",
              lesser.packet_bytes, greater.label, greater.packet_bytes,
              lesser.controller, greater.packet_bytes));
      size.has_value()) {
    causes->push_back(*std::move(size));
  }
  if (std::optional<UnfairnessCause> mix = CounterfactualCause(
          "controller", c.as_is, c.same_controller,
          absl::StrCat("it ran ", lesser.controller, " against ",
                       greater.controller, "; with ", greater.controller,
                       " on both"))) {
    causes->push_back(*std::move(mix));
  }
  if (std::optional<UnfairnessCause> late = CounterfactualCause(
          "start_order", c.as_is, c.same_start,
          absl::StrFormat("it started %.2f s after %s; started together",
                          LateBy(lesser, greater), greater.label))) {
    causes->push_back(*std::move(late));
  }
  if (std::optional<UnfairnessCause> admission = CounterfactualCause(
          "admission", c.as_is, c.packet_count_admission,
          absl::StrFormat(
              "the bottleneck's queue admitted %d-byte packets "
              "where %d-byte ones did not fit (byte-fit, RFC "
              "7141 section 4.2.1.2); admitting every arrival as "
              "a full-size packet (packet-size neutral, as a "
              "packet-count limit is)",
              std::min(lesser.packet_bytes, greater.packet_bytes),
              std::max(lesser.packet_bytes, greater.packet_bytes)))) {
    causes->push_back(*std::move(admission));
  }
}

// "0.86 (0.75-0.95, 10th-90th percentile of 64 paths the capture cannot
// tell apart)".
std::string Prediction(const PredictedRatio& p) {
  if (p.paths < 2) return absl::StrFormat("%.2f", p.mean);
  return absl::StrFormat(
      "%.2f (%.2f-%.2f, 10th-90th percentile of %d paths the capture cannot "
      "tell apart)",
      p.mean, p.low, p.high, p.paths);
}

// What the queue's admission did, where the inputs state the queue (a
// lab bundle's meta.json). A capture sees drops, not which arrival the
// queue refused for its size.
std::string AdmissionSentence(const UnfairnessAttribution& u) {
  if (!u.queue.has_value()) {
    return "The queue's admission policy is not visible in the capture.";
  }
  const BundleQueue& q = *u.queue;
  if (!q.counts_bytes()) {
    return absl::StrFormat(
        "The bottleneck's queue (%s, %d packets, as the input states it) "
        "admits by packet count, neutral to packet size.",
        q.qdisc, q.limit);
  }
  std::string s = absl::StrFormat(
      "The bottleneck's queue (%s, %d bytes, as the input states it) "
      "admits an arrival when its bytes fit, which favours small packets "
      "(RFC 7141 section 4.2.1.2)",
      q.qdisc, q.limit);
  const bool named = std::any_of(
      u.causes.begin(), u.causes.end(),
      [](const UnfairnessCause& c) { return c.kind == "admission"; });
  if (u.predicted_ratio_packet_count_admission.has_value() && !named &&
      u.predicted_ratio_as_is.has_value()) {
    absl::StrAppend(
        &s, absl::StrFormat(
                "; admitting every arrival as a full-size packet (packet-size "
                "neutral, as a packet-count limit is), the fitted simulation "
                "gives %.2f instead of %.2f",
                u.predicted_ratio_packet_count_admission->mean,
                u.predicted_ratio_as_is->mean));
  }
  return absl::StrCat(s, ".");
}

std::string AttributionMessage(const CompetitorFacts& lesser,
                               const CompetitorFacts& greater,
                               const UnfairnessAttribution& u) {
  std::string m = absl::StrFormat(
      "%s, with %d-byte packets, got %.2f of %s's throughput", lesser.label,
      lesser.packet_bytes, u.share_ratio, greater.label);
  if (u.causes.empty()) {
    absl::StrAppend(&m,
                    "; no cause found among packet size, RTT, "
                    "controller and start order");
  }
  for (const UnfairnessCause& c : u.causes)
    absl::StrAppend(&m, "; ", c.message);
  if (u.predicted_ratio_as_is.has_value()) {
    absl::StrAppend(&m,
                    "; the fitted simulation of both flows as they ran "
                    "gives ",
                    Prediction(*u.predicted_ratio_as_is));
  }
  const CompetitorFacts& small =
      lesser.packet_bytes < greater.packet_bytes ? lesser : greater;
  if (u.predicted_ratio_normalized.has_value() &&
      !small.normalize_bytes.has_value()) {
    absl::StrAppend(&m, "; with normalization the fitted simulation predicts ",
                    Prediction(*u.predicted_ratio_normalized));
  } else if (u.predicted_ratio_normalized.has_value()) {
    absl::StrAppend(&m, "; ", small.label, "'s growth is normalized already",
                    small.normalization_claimed ? ClaimDecided(small) : "");
  }
  if (u.standing_queue.has_value()) {
    absl::StrAppend(&m, "; ", u.standing_queue->message);
  }
  absl::StrAppend(&m, ". ", AdmissionSentence(u));
  return m;
}

}  // namespace

UnfairnessAttribution AttributeUnfairness(const CompetitorFacts& a,
                                          const CompetitorFacts& b,
                                          const std::optional<FittedPath>& path,
                                          bool simulate) {
  const double ta = a.throughput_bps.value_or(0);
  const double tb = b.throughput_bps.value_or(0);
  const bool a_less = ta < tb;
  const CompetitorFacts& lesser = a_less ? a : b;
  const CompetitorFacts& greater = a_less ? b : a;
  UnfairnessAttribution u;
  u.lesser = lesser.flow_index;
  u.greater = greater.flow_index;
  const double tg = std::max(ta, tb);
  u.share_ratio = tg > 0 ? std::min(ta, tb) / tg : 0;
  if (std::optional<UnfairnessCause> c = PacketSizeCause(lesser, greater))
    u.causes.push_back(*std::move(c));
  const double queue_s = path.has_value() ? QueueS(*path) : 0;
  if (std::optional<UnfairnessCause> c = RttCause(lesser, greater, queue_s))
    u.causes.push_back(*std::move(c));
  if (simulate && path.has_value()) {
    const bool size_unnamed = std::none_of(
        u.causes.begin(), u.causes.end(),
        [](const UnfairnessCause& c) { return c.kind == "packet_size"; });
    const Counterfactuals c =
        RunCounterfactuals(lesser, greater, *path, a_less, size_unnamed);
    u.predicted_ratio_as_is = c.as_is;
    u.predicted_ratio_normalized = c.normalized;
    u.predicted_ratio_packet_count_admission = c.packet_count_admission;
    AddSimulatedCauses(lesser, greater, c, &u.causes);
  }
  u.queue = StatedQueue(a, b);
  u.standing_queue = BbrQueueAgainstLossBased(a, b);
  u.message = AttributionMessage(lesser, greater, u);
  return u;
}

}  // namespace ccreplay
