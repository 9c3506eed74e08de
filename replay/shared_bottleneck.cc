#include "replay/shared_bottleneck.h"

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <functional>
#include <numeric>
#include <utility>

#include "absl/strings/str_format.h"

namespace ccreplay {
namespace {

int64_t FloorDiv(int64_t a, int64_t b) {
  return a / b - ((a % b != 0) && ((a < 0) != (b < 0)));
}

// A flow's evaluations on the interval grid, from index `first` on.
struct FlowEvaluations {
  int64_t first = 0;
  std::vector<std::optional<SbdEvaluation>> at;
  int64_t samples = 0;
  std::string error;  // why the series could not be evaluated at all
};

// Sums over (k - width, k] of a dense per-interval array, by prefix sums.
class WindowSum {
 public:
  explicit WindowSum(const std::vector<double>& values) : prefix_(1, 0.0) {
    for (double v : values) prefix_.push_back(prefix_.back() + v);
  }
  double Over(size_t k, size_t width) const {
    const size_t begin = k + 1 >= width ? k + 1 - width : 0;
    return prefix_[k + 1] - prefix_[begin];
  }

 private:
  std::vector<double> prefix_;
};

// RFC 8382 section 3.2.3: 1 at each interval whose E_T(OWD) crosses
// mean_delay by more than p_v * var_est to the side opposite the previous
// significant excursion (the incremental form the RFC describes, with the
// last N flags in `crossing`).
std::vector<double> SignificantCrossings(const std::vector<SbdInterval>& dense,
                                         const WindowSum& num_ref,
                                         const WindowSum& var_base,
                                         const SbdParams& p) {
  std::vector<double> crossing(dense.size(), 0.0);
  int last_region = 0;
  for (size_t k = 0; k < dense.size(); ++k) {
    const SbdInterval& in = dense[k];
    const double n = num_ref.Over(k, p.m);
    if (!in.has_reference || in.num == 0 || n == 0) continue;
    const double band = p.p_v * var_base.Over(k, p.m) / n;
    const double mean_t = in.sum_us / in.num;
    const int region = mean_t > in.mean_delay_us + band   ? 1
                       : mean_t < in.mean_delay_us - band ? -1
                                                          : 0;
    if (region == 0) continue;
    if (last_region != 0 && region != last_region) crossing[k] = 1;
    last_region = region;
  }
  return crossing;
}

// RFC 8382 sections 3.2.1 to 3.2.4 at the end of every interval of one
// flow: skew_est and var_est over the last M intervals, freq_est and
// pkt_loss over the last N.
FlowEvaluations Evaluate(const std::vector<SbdInterval>& intervals,
                         const SbdParams& p) {
  FlowEvaluations out;
  if (intervals.empty()) return out;
  out.first = intervals.front().index;
  std::vector<SbdInterval> dense(intervals.back().index - out.first + 1);
  for (const SbdInterval& in : intervals) dense[in.index - out.first] = in;
  auto column = [&](const std::function<double(const SbdInterval&)>& f) {
    std::vector<double> v(dense.size());
    std::transform(dense.begin(), dense.end(), v.begin(), f);
    return WindowSum(v);
  };
  auto ref = [](const SbdInterval& i, double v) {
    return i.has_reference ? v : 0.0;
  };
  const WindowSum num = column([](const SbdInterval& i) { return i.num; });
  const WindowSum num_ref = column(
      [&](const SbdInterval& i) { return ref(i, static_cast<double>(i.num)); });
  const WindowSum skew =
      column([&](const SbdInterval& i) { return ref(i, i.skew_base); });
  const WindowSum var =
      column([&](const SbdInterval& i) { return ref(i, i.var_base_us); });
  const WindowSum packets =
      column([](const SbdInterval& i) { return i.packets; });
  const WindowSum losses =
      column([](const SbdInterval& i) { return i.losses; });
  const WindowSum crossings(SignificantCrossings(dense, num_ref, var, p));
  out.at.resize(dense.size());
  for (size_t k = 0; k < dense.size(); ++k) {
    out.samples += dense[k].num;
    const double n = num_ref.Over(k, p.m);
    if (k + 1 < static_cast<size_t>(p.m) || n == 0 ||
        num.Over(k, p.m) < p.min_samples) {
      continue;
    }
    SbdEvaluation e;
    e.index = out.first + static_cast<int64_t>(k);
    e.skew_est = skew.Over(k, p.m) / n;
    e.var_est_us = var.Over(k, p.m) / n;
    e.freq_est = crossings.Over(k, p.n) / p.n;
    const double sent = packets.Over(k, p.n);
    if (sent > 0) e.pkt_loss = std::min(1.0, losses.Over(k, p.n) / sent);
    out.at[k] = e;
  }
  return out;
}

// The series' intervals: summed here from the raw samples, or as the
// builder summed them.
FlowEvaluations EvaluateSeries(const SbdFlowSeries& s, const SbdParams& p) {
  if (p.t_us <= 0 || p.m < 1 || p.n < p.m) {
    FlowEvaluations out;
    out.error = absl::StrFormat(
        "the parameters need T > 0 and 1 <= M <= N (T = %d us, M = %d, N = "
        "%d)",
        p.t_us, p.m, p.n);
    return out;
  }
  if (!s.intervals.empty()) {
    if (s.intervals_t_us != p.t_us || s.intervals_m != p.m) {
      FlowEvaluations out;
      out.error = absl::StrFormat(
          "its samples were summed with T = %d ms, M = %d, not T = %d ms, M "
          "= %d",
          s.intervals_t_us / 1000, s.intervals_m, p.t_us / 1000, p.m);
      return out;
    }
    return Evaluate(s.intervals, p);
  }
  if (!std::is_sorted(s.delays.begin(), s.delays.end(),
                      [](const DelaySample& a, const DelaySample& b) {
                        return a.time_us < b.time_us;
                      })) {
    FlowEvaluations out;
    out.error = "its delay samples are not in time order";
    return out;
  }
  SbdIntervalAccumulator acc(p);
  for (const DelaySample& d : s.delays) acc.AddDelay(d.time_us, d.delay_us);
  for (int64_t t : s.packet_times_us) acc.AddPackets(t, 1);
  for (int64_t t : s.loss_times_us) acc.AddLosses(t, 1);
  return Evaluate(acc.Take(), p);
}

// Sorts `members` by `key`, largest first, and cuts the list where two
// neighbours differ by more than `threshold` (absolute, or relative to the
// larger of the two). RFC 8382 section 3.3.1 steps 2 to 4.
std::vector<std::vector<size_t>> SplitBy(
    std::vector<size_t> members, const std::function<double(size_t)>& key,
    double threshold, bool relative) {
  std::stable_sort(members.begin(), members.end(),
                   [&](size_t a, size_t b) { return key(a) > key(b); });
  std::vector<std::vector<size_t>> groups;
  for (size_t i = 0; i < members.size(); ++i) {
    const double diff = i == 0 ? 0 : key(members[i - 1]) - key(members[i]);
    const double limit =
        relative && i > 0 ? threshold * key(members[i - 1]) : threshold;
    if (i == 0 || diff > limit) groups.emplace_back();
    groups.back().push_back(members[i]);
  }
  return groups;
}

// RFC 8382 section 3.3.1: the congested flows of one instant divided by
// freq_est (p_f), then var_est (p_mad), then skew_est (p_s) or, when a
// member's pkt_loss exceeds p_l, by pkt_loss (p_d).
std::vector<std::vector<size_t>> GroupCongested(
    const std::vector<size_t>& congested,
    const std::vector<const SbdEvaluation*>& e, const SbdParams& p) {
  auto loss = [&](size_t f) { return e[f]->pkt_loss.value_or(0); };
  std::vector<std::vector<size_t>> out;
  for (auto& by_freq : SplitBy(
           congested, [&](size_t f) { return e[f]->freq_est; }, p.p_f, false)) {
    for (auto& by_var : SplitBy(
             by_freq, [&](size_t f) { return e[f]->var_est_us; }, p.p_mad,
             true)) {
      const bool lossy = std::any_of(by_var.begin(), by_var.end(),
                                     [&](size_t f) { return loss(f) > p.p_l; });
      auto last = lossy ? SplitBy(by_var, loss, p.p_d, true)
                        : SplitBy(
                              by_var, [&](size_t f) { return e[f]->skew_est; },
                              p.p_s, false);
      for (auto& g : last) out.push_back(std::move(g));
    }
  }
  return out;
}

// RFC 8382 section 3.3.1 step 1, with the hysteresis for a flow found
// congested at its previous evaluation.
bool IsCongested(const SbdEvaluation& e, bool previously, const SbdParams& p) {
  return e.skew_est < p.c_s || (e.skew_est < p.c_h && previously) ||
         e.pkt_loss.value_or(0) > p.p_l;
}

double Median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  const size_t h = v.size() / 2;
  return v.size() % 2 ? v[h] : (v[h - 1] + v[h]) / 2;
}

constexpr int kNotEvaluated = -2;
constexpr int kNotCongested = -1;

// Per instant (from `first`), per flow: the group id at that instant,
// kNotCongested or kNotEvaluated. Fills the flows' evaluation counts and
// medians.
struct Assignments {
  int64_t first = 0;
  std::vector<std::vector<int>> group;  // [instant][flow]
};

Assignments AssignInstants(const std::vector<FlowEvaluations>& evals,
                           const SbdParams& p,
                           std::vector<SbdFlowStats>& stats) {
  Assignments out;
  int64_t last = 0;
  bool any = false;
  for (const FlowEvaluations& f : evals) {
    if (f.at.empty()) continue;
    const int64_t end = f.first + static_cast<int64_t>(f.at.size()) - 1;
    out.first = any ? std::min(out.first, f.first) : f.first;
    last = any ? std::max(last, end) : end;
    any = true;
  }
  if (!any) return out;
  const size_t flows = evals.size();
  std::vector<bool> previously(flows, false);
  std::vector<std::vector<double>> skew(flows), var(flows), freq(flows),
      loss(flows);
  for (int64_t k = out.first; k <= last; ++k) {
    std::vector<int> row(flows, kNotEvaluated);
    std::vector<const SbdEvaluation*> e(flows, nullptr);
    std::vector<size_t> congested;
    for (size_t f = 0; f < flows; ++f) {
      const int64_t i = k - evals[f].first;
      if (i < 0 || i >= static_cast<int64_t>(evals[f].at.size()) ||
          !evals[f].at[i]) {
        continue;
      }
      e[f] = &*evals[f].at[i];
      previously[f] = IsCongested(*e[f], previously[f], p);
      row[f] = kNotCongested;
      if (previously[f]) congested.push_back(f);
      ++stats[f].evaluations;
      stats[f].congested_evaluations += previously[f];
      skew[f].push_back(e[f]->skew_est);
      var[f].push_back(e[f]->var_est_us / 1000);
      freq[f].push_back(e[f]->freq_est);
      if (e[f]->pkt_loss) loss[f].push_back(*e[f]->pkt_loss);
    }
    const auto groups = GroupCongested(congested, e, p);
    for (size_t g = 0; g < groups.size(); ++g) {
      for (size_t f : groups[g]) row[f] = static_cast<int>(g);
    }
    out.group.push_back(std::move(row));
  }
  for (size_t f = 0; f < flows; ++f) {
    if (skew[f].empty()) continue;
    stats[f].skew_est = Median(skew[f]);
    stats[f].var_est_ms = Median(var[f]);
    stats[f].freq_est = Median(freq[f]);
    if (!loss[f].empty()) stats[f].pkt_loss = Median(loss[f]);
  }
  return out;
}

// Among the instants at which every member was congested, the share at
// which they formed one group (a lone member: a group of its own).
double Confidence(const Assignments& a, const std::vector<size_t>& members) {
  int all_congested = 0;
  int together = 0;
  for (const std::vector<int>& row : a.group) {
    const int g = row[members[0]];
    if (std::any_of(members.begin(), members.end(),
                    [&](size_t f) { return row[f] < 0; })) {
      continue;
    }
    ++all_congested;
    const bool same = std::all_of(members.begin(), members.end(),
                                  [&](size_t f) { return row[f] == g; });
    const bool alone =
        members.size() > 1 || std::count(row.begin(), row.end(), g) == 1;
    together += same && alone;
  }
  return all_congested == 0 ? 0.0
                            : static_cast<double>(together) / all_congested;
}

size_t Root(std::vector<size_t>& parent, size_t f) {
  while (parent[f] != f) f = parent[f] = parent[parent[f]];
  return f;
}

// The groups by majority: two congested flows belong together when they
// were grouped together at more than half the instants both were
// congested; groups are the connected sets of that relation.
std::vector<SbdGroup> MajorityGroups(const Assignments& a,
                                     const std::vector<SbdFlowStats>& stats) {
  const size_t flows = stats.size();
  std::vector<size_t> parent(flows);
  std::iota(parent.begin(), parent.end(), 0);
  for (size_t i = 0; i < flows; ++i) {
    for (size_t j = i + 1; j < flows; ++j) {
      if (!stats[i].congested || !stats[j].congested) continue;
      if (Confidence(a, {i, j}) > 0.5)
        parent[Root(parent, j)] = Root(parent, i);
    }
  }
  std::vector<SbdGroup> groups;
  for (size_t root = 0; root < flows; ++root) {
    std::vector<size_t> members;
    for (size_t f = 0; f < flows; ++f) {
      if (stats[f].congested && Root(parent, f) == root) members.push_back(f);
    }
    if (members.empty()) continue;
    SbdGroup g;
    for (size_t f : members) g.flow_ids.push_back(stats[f].flow_id);
    g.confidence = Confidence(a, members);
    groups.push_back(std::move(g));
  }
  return groups;
}

std::string WhyNot(const SbdFlowStats& s, const FlowEvaluations& e,
                   const SbdParams& p) {
  if (!e.error.empty()) return e.error;
  if (s.evaluations == 0) {
    return absl::StrFormat(
        "too few delay samples (%d): needs %d base intervals of %d ms holding "
        "at least %d",
        e.samples, p.m, p.t_us / 1000, p.min_samples);
  }
  return absl::StrFormat(
      "congested at %d of %d evaluations: median skew_est %.3f not below "
      "c_s = %.2f, pkt_loss %s not above p_l = %.2f",
      s.congested_evaluations, s.evaluations, s.skew_est.value_or(0), p.c_s,
      s.pkt_loss ? absl::StrFormat("%.3f", *s.pkt_loss) : "n/a", p.p_l);
}

}  // namespace

SbdIntervalAccumulator::SbdIntervalAccumulator(const SbdParams& params)
    : params_(params) {}

SbdInterval& SbdIntervalAccumulator::At(int64_t index) {
  SbdInterval& in = intervals_[index];
  in.index = index;
  return in;
}

void SbdIntervalAccumulator::CloseInterval() {
  const SbdInterval& in = intervals_.at(open_index_);
  previous_mean_us_ = in.sum_us / in.num;
  previous_means_us_.push_back(previous_mean_us_);
  if (previous_means_us_.size() > static_cast<size_t>(params_.m)) {
    previous_means_us_.erase(previous_means_us_.begin());
  }
}

// RFC 8382 section 3.2.1: skew_base_T counts the samples below mean_delay
// minus those above it, mean_delay being the mean of E_T(OWD) over the
// previous intervals (not the current one, so that it can be computed
// iteratively; kept in double, finer than the samples, so that rounding
// does not bias it). Section 3.2.2: var_base_T sums |OWD - E_T(OWD)|, E_T
// of the previous interval.
void SbdIntervalAccumulator::AddDelay(int64_t time_us, int64_t delay_us) {
  const int64_t index = FloorDiv(time_us, params_.t_us);
  if (!open_ || index != open_index_) {
    if (open_) CloseInterval();
    open_ = true;
    open_index_ = index;
    SbdInterval& in = At(index);
    in.has_reference = !previous_means_us_.empty();
    if (in.has_reference) {
      in.mean_delay_us = std::accumulate(previous_means_us_.begin(),
                                         previous_means_us_.end(), 0.0) /
                         previous_means_us_.size();
    }
  }
  SbdInterval& in = intervals_[index];
  const double d = static_cast<double>(delay_us);
  ++in.num;
  in.sum_us += d;
  if (in.has_reference) {
    in.skew_base += (d < in.mean_delay_us) - (d > in.mean_delay_us);
    in.var_base_us += std::abs(d - previous_mean_us_);
  }
}

void SbdIntervalAccumulator::AddPackets(int64_t time_us, int64_t count) {
  At(FloorDiv(time_us, params_.t_us)).packets += count;
}

void SbdIntervalAccumulator::AddLosses(int64_t time_us, int64_t count) {
  At(FloorDiv(time_us, params_.t_us)).losses += count;
}

std::vector<SbdInterval> SbdIntervalAccumulator::Take() {
  std::vector<SbdInterval> out;
  out.reserve(intervals_.size());
  for (auto& [index, in] : intervals_) out.push_back(in);
  intervals_.clear();
  open_ = false;
  previous_means_us_.clear();
  return out;
}

std::vector<SbdEvaluation> EvaluateSbdFlow(const SbdFlowSeries& flow,
                                           const SbdParams& params,
                                           std::string* why_not) {
  const FlowEvaluations e = EvaluateSeries(flow, params);
  if (why_not != nullptr) *why_not = e.error;
  std::vector<SbdEvaluation> out;
  for (const std::optional<SbdEvaluation>& at : e.at) {
    if (at) out.push_back(*at);
  }
  return out;
}

SbdResult DetectSharedBottlenecks(absl::Span<const SbdFlowSeries> flows,
                                  const SbdParams& params) {
  SbdResult result;
  std::vector<FlowEvaluations> evals;
  for (const SbdFlowSeries& s : flows) {
    evals.push_back(EvaluateSeries(s, params));
    result.flows.emplace_back();
    result.flows.back().flow_id = s.flow_id;
  }
  const Assignments a = AssignInstants(evals, params, result.flows);
  for (size_t f = 0; f < flows.size(); ++f) {
    SbdFlowStats& s = result.flows[f];
    s.congested = s.congested_evaluations * 2 > s.evaluations;
    if (!s.congested) s.why_not = WhyNot(s, evals[f], params);
  }
  result.groups = MajorityGroups(a, result.flows);
  return result;
}

SbdSeriesBuilder::SbdSeriesBuilder(uint32_t flow_id, const SbdParams& params,
                                   size_t max_raw_samples)
    : params_(params), max_raw_samples_(max_raw_samples) {
  series_.flow_id = flow_id;
}

size_t SbdSeriesBuilder::RawSize() const {
  return series_.delays.size() + series_.packet_times_us.size() +
         series_.loss_times_us.size();
}

void SbdSeriesBuilder::SwitchToIntervals() {
  accumulator_.emplace(params_);
  for (const DelaySample& d : series_.delays) {
    accumulator_->AddDelay(d.time_us, d.delay_us);
  }
  for (int64_t t : series_.packet_times_us) accumulator_->AddPackets(t, 1);
  for (int64_t t : series_.loss_times_us) accumulator_->AddLosses(t, 1);
  series_.delays = {};
  series_.packet_times_us = {};
  series_.loss_times_us = {};
}

void SbdSeriesBuilder::Add(const TimelineEvent& e) {
  if (e.flow_index != series_.flow_id) return;
  const int64_t time_us = e.time_ns / 1000;
  const bool retransmission = e.type == TimelineEvent::Type::kRetransmission;
  const int64_t delay_us = retransmission ? 0 : e.rtt_sample_us;
  // A retransmission is a packet sent and a loss; an ACK reports packets
  // delivered and the CE marks it fed back (AccECN counts them; an ECE
  // episode stands for at least one).
  const int64_t packets =
      retransmission ? 1 : static_cast<int64_t>(e.packets_delivered);
  const int64_t losses =
      retransmission ? 1
                     : std::max<int64_t>(e.ce_packets, e.congestion_episode);
  // Raw times, one per packet, only while they stay few: an ACK of
  // millions of packets (a capture gap, a corrupt ACK: diagnose_fuzzer
  // found one that took 2.5 s under the sanitizers) goes to the intervals
  // as a count.
  const uint64_t raw_after =
      RawSize() + (delay_us > 0 ? 1 : 0) +
      static_cast<uint64_t>(std::max<int64_t>(packets, 0)) +
      static_cast<uint64_t>(std::max<int64_t>(losses, 0));
  if (!accumulator_ && raw_after > max_raw_samples_) SwitchToIntervals();
  if (accumulator_) {
    if (delay_us > 0) accumulator_->AddDelay(time_us, delay_us);
    if (packets > 0) accumulator_->AddPackets(time_us, packets);
    if (losses > 0) accumulator_->AddLosses(time_us, losses);
    return;
  }
  if (delay_us > 0) series_.delays.push_back({time_us, delay_us});
  series_.packet_times_us.insert(series_.packet_times_us.end(), packets,
                                 time_us);
  series_.loss_times_us.insert(series_.loss_times_us.end(), losses, time_us);
}

SbdFlowSeries SbdSeriesBuilder::Take() {
  if (accumulator_) {
    series_.intervals = accumulator_->Take();
    series_.intervals_t_us = params_.t_us;
    series_.intervals_m = params_.m;
    accumulator_.reset();
  }
  SbdFlowSeries out = std::move(series_);
  series_ = SbdFlowSeries{};
  series_.flow_id = out.flow_id;
  return out;
}

}  // namespace ccreplay
