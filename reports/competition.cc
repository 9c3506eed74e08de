#include "reports/competition.h"

#include <algorithm>
#include <cmath>
#include <iterator>
#include <limits>
#include <numeric>

#include "absl/algorithm/container.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"
#include "reports/decimate.h"
#include "reports/html_report.h"
#include "reports/unfairness.h"

namespace ccreplay {

std::string FlowLabel(uint32_t id) {
  if (id < 26) return std::string(1, static_cast<char>('A' + id));
  return absl::StrCat("F", id + 1);
}

std::optional<double> JainIndex(absl::Span<const double> x) {
  double sum = 0, sum_sq = 0;
  for (double v : x) {
    sum += v;
    sum_sq += v * v;
  }
  if (x.empty() || !(sum_sq > 0)) return std::nullopt;
  return sum * sum / (x.size() * sum_sq);
}

namespace {

// The flows of `ids` grouped by overlapping active spans.
std::vector<CompetitorGrouping> GroupByOverlap(
    absl::Span<const ActiveSpan> spans, std::vector<uint32_t> ids) {
  // By start; a flow joins the current group when it starts before the
  // group's last end (the union of overlapping intervals).
  std::stable_sort(ids.begin(), ids.end(), [&spans](uint32_t a, uint32_t b) {
    return spans[a].start_s < spans[b].start_s;
  });
  std::vector<CompetitorGrouping> groups;
  double group_end = -std::numeric_limits<double>::infinity();
  for (uint32_t id : ids) {
    if (groups.empty() || !(spans[id].start_s < group_end)) {
      groups.push_back({{}, "overlap only", std::nullopt});
      group_end = spans[id].end_s;
    }
    groups.back().flow_ids.push_back(id);
    group_end = std::max(group_end, spans[id].end_s);
  }
  return groups;
}

}  // namespace

std::vector<CompetitorGrouping> GroupCompetitors(
    absl::Span<const ActiveSpan> spans, const SbdResult* sbd) {
  std::vector<CompetitorGrouping> groups;
  std::vector<bool> placed(spans.size(), false);
  if (sbd != nullptr) {
    for (const SbdGroup& g : sbd->groups) {
      const bool several = g.flow_ids.size() > 1;
      groups.push_back(
          {g.flow_ids, "rfc8382",
           several ? std::optional<double>(g.confidence) : std::nullopt});
      for (uint32_t id : g.flow_ids) placed[id] = true;
    }
    for (const SbdFlowStats& f : sbd->flows) {
      if (f.evaluations == 0 || placed[f.flow_id]) continue;
      groups.push_back({{f.flow_id}, "rfc8382", std::nullopt});
      placed[f.flow_id] = true;
    }
  }
  std::vector<uint32_t> rest;
  for (uint32_t id = 0; id < spans.size(); ++id)
    if (!placed[id]) rest.push_back(id);
  for (CompetitorGrouping& g : GroupByOverlap(spans, rest))
    groups.push_back(std::move(g));
  for (CompetitorGrouping& g : groups)
    std::sort(g.flow_ids.begin(), g.flow_ids.end());
  std::sort(groups.begin(), groups.end(),
            [](const CompetitorGrouping& a, const CompetitorGrouping& b) {
              return a.flow_ids[0] < b.flow_ids[0];
            });
  return groups;
}

namespace {

// Bins of the shared view: at most this many over the longest flow, few
// enough that every bin is drawn (kPlotColumns)...
constexpr double kSharedBins = 500;
// ...and each at least this many of the largest base RTT among the flows:
// a flow's throughput over less than a few RTTs is its ACK clock's and its
// window's sawtooth, not its share of the path.
constexpr double kBinRtts = 4;

constexpr const char* kFlowColors[] = {"#4e79a7", "#f28e2b", "#59a14f",
                                       "#e15759", "#9467bd", "#76b7b2",
                                       "#edc948", "#b07aa1"};

const char* FlowColor(uint32_t id) {
  return kFlowColors[id % (sizeof(kFlowColors) / sizeof(kFlowColors[0]))];
}

// A flow placed on the shared axis.
struct PlacedFlow {
  const CompetitorRun* flow = nullptr;
  double offset_s = 0;  // Its observer's time zero on the shared axis.
  std::string clock;
  ActiveSpan active;
  uint64_t delivered_bytes = 0;
};

// The first and last bin in which `obs` delivered data, as a span from
// `offset_s`; an empty span at offset_s when it delivered none.
ActiveSpan ActiveSpanOf(const FlowObserver& obs, double offset_s) {
  const std::vector<ObservationBin>& bins = obs.bins();
  size_t first = bins.size(), last = 0;
  for (size_t i = 0; i < bins.size(); ++i) {
    if (bins[i].delivered_bytes == 0) continue;
    first = std::min(first, i);
    last = i;
  }
  if (first == bins.size()) return {offset_s, offset_s};
  const double w = obs.bin_width_s();
  return {offset_s + first * w, offset_s + (last + 1) * w};
}

// Time zero of the shared axis is the earliest start on an absolute
// clock (a capture's Unix time, a qlog's reference_time); a flow whose
// input states no absolute time starts at zero.
std::vector<PlacedFlow> PlaceOnSharedAxis(
    absl::Span<const CompetitorRun> flows,
    std::optional<int64_t>* start_unix_ns) {
  std::optional<int64_t> earliest;
  for (const CompetitorRun& f : flows) {
    if (!f.run.clock_epoch_ns.has_value()) continue;
    const int64_t t = *f.run.clock_epoch_ns + f.run.start_ns;
    earliest = earliest.has_value() ? std::min(*earliest, t) : t;
  }
  *start_unix_ns = earliest;
  std::vector<PlacedFlow> placed;
  for (const CompetitorRun& f : flows) {
    PlacedFlow p;
    p.flow = &f;
    p.clock = f.run.clock;
    if (f.run.clock_epoch_ns.has_value()) {
      p.offset_s = (*f.run.clock_epoch_ns + f.run.start_ns - *earliest) * 1e-9;
    } else if (earliest.has_value()) {
      p.clock = "first event (no reference time)";
    }
    p.active = ActiveSpanOf(*f.run.observer, p.offset_s);
    for (const ObservationBin& b : f.run.observer->bins())
      p.delivered_bytes += b.delivered_bytes;
    placed.push_back(p);
  }
  return placed;
}

// The flows' shared-bottleneck series on Unix time, their ids the flows'
// indices. A flow whose input states no absolute time is left out (its
// delay cannot be put beside the others'), and so is one whose series was
// summed per base interval on a clock other than Unix time (an interval
// index cannot be shifted by a fraction of T).
std::vector<SbdFlowSeries> SbdSeriesOnUnixTime(
    absl::Span<const CompetitorRun> flows) {
  std::vector<SbdFlowSeries> out;
  for (uint32_t id = 0; id < flows.size(); ++id) {
    const DiagnoseRun& run = flows[id].run;
    if (!run.clock_epoch_ns.has_value()) continue;
    const int64_t shift_us = *run.clock_epoch_ns / 1000;
    if (!run.sbd.intervals.empty() && shift_us != 0) continue;
    SbdFlowSeries s = run.sbd;
    s.flow_id = id;
    for (DelaySample& d : s.delays) d.time_us += shift_us;
    for (int64_t& t : s.packet_times_us) t += shift_us;
    for (int64_t& t : s.loss_times_us) t += shift_us;
    out.push_back(std::move(s));
  }
  return out;
}

// Per flow what shared-bottleneck detection made of it, for the method.
std::vector<std::string> SbdLines(const SbdResult& sbd) {
  std::vector<std::string> lines;
  for (const SbdFlowStats& f : sbd.flows) {
    const auto num = [](const std::optional<double>& v) {
      return v.has_value() ? absl::StrFormat("%.3f", *v) : std::string("n/a");
    };
    lines.push_back(absl::StrFormat(
        "RFC 8382 on %s: %s (evaluated at %d instants, congested at %d; "
        "skew_est %s, var_est %s ms, freq_est %s, pkt_loss %s)",
        FlowLabel(f.flow_id),
        f.congested ? std::string("crosses a bottleneck")
                    : absl::StrCat("not grouped: ", f.why_not),
        f.evaluations, f.congested_evaluations, num(f.skew_est),
        num(f.var_est_ms), num(f.freq_est), num(f.pkt_loss)));
  }
  return lines;
}

// The bytes `p` delivered in [lo, hi) on the shared axis, each observer
// bin's bytes counted in proportion to its overlap with the interval.
double DeliveredBetween(const PlacedFlow& p, double lo, double hi) {
  const FlowObserver& obs = *p.flow->run.observer;
  const double w = obs.bin_width_s();
  double bytes = 0;
  for (size_t i = 0; i < obs.bins().size(); ++i) {
    const double a = p.offset_s + i * w;
    const double overlap = std::min(hi, a + w) - std::max(lo, a);
    if (overlap > 0) bytes += obs.bins()[i].delivered_bytes * overlap / w;
  }
  return bytes;
}

// `p`'s bytes per shared bin of `bin_s` from 0, `n` bins: each observer
// bin's bytes split over the shared bins it overlaps.
std::vector<double> DeliveredPerBin(const PlacedFlow& p, double bin_s,
                                    size_t n) {
  std::vector<double> out(n, 0.0);
  const FlowObserver& obs = *p.flow->run.observer;
  const double w = obs.bin_width_s();
  for (size_t i = 0; i < obs.bins().size(); ++i) {
    const uint64_t bytes = obs.bins()[i].delivered_bytes;
    if (bytes == 0) continue;
    const double a = p.offset_s + i * w;
    for (size_t k = static_cast<size_t>(std::max(0.0, a / bin_s));
         k < n && k * bin_s < a + w; ++k) {
      const double overlap =
          std::min(a + w, (k + 1) * bin_s) - std::max(a, k * bin_s);
      if (overlap > 0) out[k] += bytes * overlap / w;
    }
  }
  return out;
}

bool ActiveAt(const PlacedFlow& p, double t) {
  return t >= p.active.start_s && t < p.active.end_s;
}

PlotSeries Series(std::string name, const char* color, SeriesStyle style) {
  PlotSeries s;
  s.name = std::move(name);
  s.color = color;
  s.style = style;
  return s;
}

// The shared bins: per flow its bytes, and the axis.
struct SharedBins {
  double bin_s = 0;
  size_t count = 0;
  std::vector<std::vector<double>> bytes;  // [flow][bin]
};

// The shared bins from 0 to the last flow's end, their width by kSharedBins
// and kBinRtts.
SharedBins BinFlows(const std::vector<PlacedFlow>& placed) {
  double end_s = 0, width = 0;
  for (const PlacedFlow& p : placed) {
    const FlowObserver& obs = *p.flow->run.observer;
    end_s = std::max(end_s, p.offset_s + obs.bins().size() * obs.bin_width_s());
    width = std::max(
        {width, obs.bin_width_s(), kBinRtts * obs.min_rtt_us() * 1e-6});
  }
  SharedBins b;
  b.bin_s = std::max(width, end_s / kSharedBins);
  b.count = static_cast<size_t>(std::ceil(end_s / b.bin_s));
  for (const PlacedFlow& p : placed)
    b.bytes.push_back(DeliveredPerBin(p, b.bin_s, b.count));
  return b;
}

// Per flow its throughput; per flow its share of its group's; per group
// of two or more Jain's index over the flows active in the bin.
std::vector<Plot> ThroughputPlots(const std::vector<PlacedFlow>& placed,
                                  const std::vector<CompetitorGrouping>& groups,
                                  const SharedBins& b) {
  Plot rate{
      "plot-throughput", "Throughput of each flow", "Mb/s", {}, {}, false};
  Plot share{"plot-share",
             "Each flow's share of its group's throughput",
             "share (0–1)",
             {},
             {},
             false};
  Plot jain{"plot-jain",
            "Jain's fairness index within each group",
            "index (1/n–1)",
            {},
            {},
            false};
  for (uint32_t id = 0; id < placed.size(); ++id) {
    rate.series.push_back(
        Series(FlowLabel(id), FlowColor(id), SeriesStyle::kStep));
    share.series.push_back(
        Series(FlowLabel(id), FlowColor(id), SeriesStyle::kStep));
  }
  for (size_t g = 0; g < groups.size(); ++g) {
    const std::vector<uint32_t>& ids = groups[g].flow_ids;
    PlotSeries j = Series(absl::StrCat("group ", g + 1), FlowColor(ids[0]),
                          SeriesStyle::kStep);
    for (size_t k = 0; k < b.count; ++k) {
      const double t = k * b.bin_s, mid = t + b.bin_s / 2;
      std::vector<double> x;
      for (uint32_t id : ids) {
        if (!ActiveAt(placed[id], mid)) continue;
        x.push_back(b.bytes[id][k]);
        rate.series[id].t_s.push_back(t);
        rate.series[id].y.push_back(b.bytes[id][k] * 8 / b.bin_s / 1e6);
      }
      const double total = std::accumulate(x.begin(), x.end(), 0.0);
      for (uint32_t id : ids) {
        if (!ActiveAt(placed[id], mid) || !(total > 0)) continue;
        share.series[id].t_s.push_back(t);
        share.series[id].y.push_back(b.bytes[id][k] / total);
      }
      const std::optional<double> index = JainIndex(x);
      if (x.size() >= 2 && index.has_value()) {
        j.t_s.push_back(t);
        j.y.push_back(*index);
      }
    }
    if (ids.size() >= 2) jain.series.push_back(j);
  }
  std::vector<Plot> plots = {rate, share};
  if (!jain.series.empty()) plots.push_back(jain);
  return plots;
}

// `p`'s captured cwnd from its diagnosis's window plot (in packets of its
// packet size), else its flight per observer bin, in KB on the shared axis.
PlotSeries CwndSeries(const PlacedFlow& p, uint32_t id) {
  const DiagnoseRun& run = p.flow->run;
  for (const Plot& plot : run.diagnosis.page.plots) {
    if (plot.id != "plot-cwnd" || plot.series.empty() ||
        !absl::StartsWith(plot.series[0].name, "captured cwnd")) {
      continue;
    }
    PlotSeries s = Series(absl::StrCat(FlowLabel(id), " cwnd"), FlowColor(id),
                          SeriesStyle::kStep);
    for (size_t i = 0; i < plot.series[0].t_s.size(); ++i) {
      s.t_s.push_back(p.offset_s + plot.series[0].t_s[i]);
      s.y.push_back(plot.series[0].y[i] * run.packet_bytes / 1e3);
    }
    return s;
  }
  PlotSeries s = Series(absl::StrCat(FlowLabel(id), " flight"), FlowColor(id),
                        SeriesStyle::kStep);
  const FlowObserver& obs = *run.observer;
  for (size_t i = 0; i < obs.bins().size(); ++i) {
    const ObservationBin& b = obs.bins()[i];
    if (b.acks == 0) continue;
    s.t_s.push_back(p.offset_s + i * obs.bin_width_s());
    s.y.push_back(b.max_pipe_bytes / 1e3);
  }
  return s;
}

// `p`'s mean RTT sample per observer bin, ms on the shared axis.
PlotSeries RttSeries(const PlacedFlow& p, uint32_t id) {
  PlotSeries s = Series(FlowLabel(id), FlowColor(id), SeriesStyle::kLine);
  const FlowObserver& obs = *p.flow->run.observer;
  for (size_t i = 0; i < obs.bins().size(); ++i) {
    const ObservationBin& b = obs.bins()[i];
    if (!b.has_rtt()) continue;
    s.t_s.push_back(p.offset_s + i * obs.bin_width_s());
    s.y.push_back(static_cast<double>(b.rtt_sum_us) / b.rtt_samples / 1e3);
  }
  return s;
}

std::vector<Plot> SharedPlots(const std::vector<PlacedFlow>& placed,
                              const std::vector<CompetitorGrouping>& groups,
                              const SharedBins& bins) {
  std::vector<Plot> plots = ThroughputPlots(placed, groups, bins);
  Plot cwnd{"plot-cwnds", "Each flow's cwnd (captured; else its flight)",
            "KB",         {},
            {},           false};
  Plot rtt{"plot-rtts", "Each flow's RTT (mean sample per interval)",
           "ms",        {},
           {},          false};
  for (uint32_t id = 0; id < placed.size(); ++id) {
    cwnd.series.push_back(CwndSeries(placed[id], id));
    rtt.series.push_back(RttSeries(placed[id], id));
  }
  plots.push_back(cwnd);
  plots.push_back(rtt);
  return plots;
}

// `p` as reports/unfairness.h sees it, on the shared axis, labelled as on
// the page, its throughput the share's: the delivered bytes over the
// group's common interval (DeliveredBetween), one figure for the share and
// the attribution.
CompetitorFacts FactsOnSharedAxis(uint32_t id, const PlacedFlow& p,
                                  const proto::FlowShare& share) {
  const DiagnoseRun& run = p.flow->run;
  CompetitorFacts f = run.competitor;
  // The facts are on the observer's clock (its start_ns at time zero of
  // its bins); the flow's bins start at offset_s on the shared axis.
  const double shift_s = p.offset_s - run.observer->start_ns() * 1e-9;
  f.start_s += shift_s;
  f.end_s += shift_s;
  for (auto& sample : f.delivered) sample.first += shift_s;
  for (auto& sample : f.rtt_ms) sample.first += shift_s;
  f.flow_index = id;
  f.label = absl::StrCat("flow ", FlowLabel(id));
  f.throughput_bps = share.throughput_bps();
  return f;
}

// A prediction's mean, lowest and highest path, and its paths.
void SetPrediction(const std::optional<PredictedRatio>& p,
                   void (proto::PairAttribution::*set_mean)(double),
                   void (proto::PairAttribution::*set_low)(double),
                   void (proto::PairAttribution::*set_high)(double),
                   proto::PairAttribution* pair) {
  if (!p.has_value() || !std::isfinite(p->mean)) return;
  (pair->*set_mean)(p->mean);
  if (std::isfinite(p->low) && std::isfinite(p->high)) {
    (pair->*set_low)(p->low);
    (pair->*set_high)(p->high);
  }
  pair->set_predicted_paths(p->paths);
}

// Two flows of a group compared over its common interval: the causes of
// the gap (reports/unfairness.h), with the closed-loop counterfactuals on
// their shared fitted path when `simulate`.
proto::PairAttribution AttributePair(const proto::FlowShare& a,
                                     const proto::FlowShare& b,
                                     const std::vector<PlacedFlow>& placed,
                                     bool simulate) {
  const PlacedFlow& pa = placed[a.flow_id()];
  const PlacedFlow& pb = placed[b.flow_id()];
  const CompetitorFacts fa = FactsOnSharedAxis(a.flow_id(), pa, a);
  const CompetitorFacts fb = FactsOnSharedAxis(b.flow_id(), pb, b);
  const std::optional<FittedPath> path =
      SharedFittedPath(fa, fb, pa.flow->run.diagnosis.fitted_path,
                       pb.flow->run.diagnosis.fitted_path);
  const UnfairnessAttribution u = AttributeUnfairness(fa, fb, path, simulate);
  proto::PairAttribution pair;
  pair.set_lesser_flow_id(u.lesser);
  pair.set_greater_flow_id(u.greater);
  pair.set_share_ratio(u.share_ratio);
  for (const UnfairnessCause& c : u.causes) {
    proto::UnfairnessCause* cause = pair.add_causes();
    cause->set_kind(c.kind);
    if (std::isfinite(c.explained_ratio))
      cause->set_explained_ratio(c.explained_ratio);
    cause->set_message(c.message);
  }
  SetPrediction(u.predicted_ratio_as_is,
                &proto::PairAttribution::set_predicted_ratio_as_is,
                &proto::PairAttribution::set_predicted_ratio_as_is_low,
                &proto::PairAttribution::set_predicted_ratio_as_is_high, &pair);
  SetPrediction(u.predicted_ratio_normalized,
                &proto::PairAttribution::set_predicted_ratio_normalized,
                &proto::PairAttribution::set_predicted_ratio_normalized_low,
                &proto::PairAttribution::set_predicted_ratio_normalized_high,
                &pair);
  SetPrediction(
      u.predicted_ratio_packet_count_admission,
      &proto::PairAttribution::set_predicted_ratio_packet_count_admission,
      &proto::PairAttribution::set_predicted_ratio_packet_count_admission_low,
      &proto::PairAttribution::set_predicted_ratio_packet_count_admission_high,
      &pair);
  if (u.queue.has_value()) {
    pair.set_queue_qdisc(u.queue->qdisc);
    pair.set_queue_limit(u.queue->limit);
  }
  if (u.standing_queue.has_value()) {
    pair.set_standing_queue_median_ms(u.standing_queue->median_ms);
    pair.set_standing_queue_p90_ms(u.standing_queue->p90_ms);
  }
  pair.set_message(u.message);
  return pair;
}

// A group's common interval, shares, Jain's index and pairs.
proto::CompetitorGroup GroupProto(const CompetitorGrouping& grouping,
                                  const std::vector<PlacedFlow>& placed,
                                  bool simulate) {
  proto::CompetitorGroup g;
  for (uint32_t id : grouping.flow_ids) g.add_flow_ids(id);
  g.set_method(grouping.method);
  if (grouping.confidence.has_value()) g.set_confidence(*grouping.confidence);
  double lo = -std::numeric_limits<double>::infinity();
  double hi = std::numeric_limits<double>::infinity();
  for (uint32_t id : grouping.flow_ids) {
    lo = std::max(lo, placed[id].active.start_s);
    hi = std::min(hi, placed[id].active.end_s);
  }
  if (!(hi > lo)) return g;
  g.set_common_start_s(lo);
  g.set_common_end_s(hi);
  std::vector<double> rates;
  for (uint32_t id : grouping.flow_ids) {
    proto::FlowShare* s = g.add_shares();
    s->set_flow_id(id);
    s->set_delivered_bytes(DeliveredBetween(placed[id], lo, hi));
    s->set_throughput_bps(s->delivered_bytes() * 8 / (hi - lo));
    rates.push_back(s->throughput_bps());
  }
  const double total = std::accumulate(rates.begin(), rates.end(), 0.0);
  for (proto::FlowShare& s : *g.mutable_shares())
    s.set_share(total > 0 ? s.throughput_bps() / total : 0);
  if (std::optional<double> jain = JainIndex(rates)) g.set_jain_index(*jain);
  for (int i = 0; i < g.shares_size(); ++i)
    for (int j = i + 1; j < g.shares_size(); ++j)
      *g.add_pairs() =
          AttributePair(g.shares(i), g.shares(j), placed, simulate);
  return g;
}

proto::CompetingFlow FlowProto(uint32_t id, const PlacedFlow& p) {
  proto::CompetingFlow f;
  f.set_id(id);
  f.set_input(p.flow->input);
  f.set_label(FlowLabel(id));
  f.set_start_s(p.offset_s);
  f.set_clock(p.clock);
  f.set_delivered_bytes(p.delivered_bytes);
  f.set_packet_bytes(p.flow->run.packet_bytes);
  *f.mutable_diagnosis() = p.flow->run.diagnosis.result;
  return f;
}

// The plots as drawn: each series decimated over the page's axis.
void AddPlotData(const ReportPage& page, proto::MultiFlowDiagnosis* r) {
  for (const Plot& plot : page.plots) {
    proto::SharedPlot* p = r->add_plots();
    p->set_id(plot.id);
    p->set_title(plot.title);
    p->set_y_label(plot.y_label);
    for (const PlotSeries& s : plot.series) {
      const Decimated d =
          DecimateMinMax(s.t_s, s.y, page.start_s, page.end_s, kPlotColumns);
      proto::PlotSeriesData* data = p->add_series();
      data->set_name(s.name);
      data->set_step(s.style == SeriesStyle::kStep);
      for (double t : d.t) data->add_t(std::round(t * 1e6) / 1e6);
      for (double y : d.y) data->add_y(y);
    }
  }
}

// "A 53.4 % (10.69 Mb/s), B 46.6 % (9.31 Mb/s)".
std::string SharesText(const proto::CompetitorGroup& g) {
  std::vector<std::string> parts;
  for (const proto::FlowShare& s : g.shares()) {
    parts.push_back(absl::StrFormat("%s %.1f %% (%.2f Mb/s)",
                                    FlowLabel(s.flow_id()), 100 * s.share(),
                                    s.throughput_bps() / 1e6));
  }
  return absl::StrJoin(parts, ", ");
}

// One sentence per group.
std::string GroupSentence(const proto::CompetitorGroup& g) {
  std::vector<std::string> labels;
  for (uint32_t id : g.flow_ids()) labels.push_back(FlowLabel(id));
  if (g.flow_ids_size() == 1) {
    return g.method() == "rfc8382"
               ? absl::StrCat(labels[0],
                              " shared no bottleneck with another flow (RFC "
                              "8382).")
               : absl::StrCat(labels[0], " overlapped no other flow.");
  }
  if (!g.has_common_start_s()) {
    return absl::StrCat(absl::StrJoin(labels, ", "),
                        " overlapped, but never all sent at once.");
  }
  const std::string how =
      g.method() == "rfc8382"
          ? absl::StrFormat(
                "shared bottleneck detected (RFC 8382%s)",
                g.has_confidence()
                    ? absl::StrFormat(", confidence %.2f", g.confidence())
                    : "")
          : std::string(
                "grouped as they sent at the same time; a shared "
                "bottleneck was not measured");
  return absl::StrFormat(
      "%s competed from %.3f s to %.3f s: %s; Jain's index %s (1 = equal "
      "shares); %s.",
      absl::StrJoin(labels, ", "), g.common_start_s(), g.common_end_s(),
      SharesText(g),
      g.has_jain_index() ? absl::StrFormat("%.3f", g.jain_index())
                         : std::string("n/a"),
      how);
}

// "B/A 0.947; causes: packet_size 0.97; fitted simulation: 0.93 as they
// ran, 0.99 with normalization".
std::string PairBrief(const proto::PairAttribution& pair) {
  std::vector<std::string> causes;
  for (const proto::UnfairnessCause& c : pair.causes()) {
    causes.push_back(
        c.has_explained_ratio()
            ? absl::StrFormat("%s %.2f", c.kind(), c.explained_ratio())
            : c.kind());
  }
  std::string text = absl::StrFormat(
      "%s/%s %.3f; causes: %s", FlowLabel(pair.lesser_flow_id()),
      FlowLabel(pair.greater_flow_id()), pair.share_ratio(),
      causes.empty() ? std::string("none found") : absl::StrJoin(causes, ", "));
  if (pair.has_predicted_ratio_as_is() ||
      pair.has_predicted_ratio_normalized()) {
    const auto num = [](bool has, double v) {
      return has ? absl::StrFormat("%.2f", v) : std::string("n/a");
    };
    absl::StrAppend(
        &text, "; fitted simulation: ",
        num(pair.has_predicted_ratio_as_is(), pair.predicted_ratio_as_is()),
        " as they ran, ",
        num(pair.has_predicted_ratio_normalized(),
            pair.predicted_ratio_normalized()),
        " with normalization");
  }
  return text;
}

// "Flows A and C, B and C share no bottleneck: not compared." for the
// flows of different groups; empty with one group.
std::string NotComparedSentence(const proto::MultiFlowDiagnosis& r) {
  std::vector<std::string> pairs;
  for (int i = 0; i < r.groups_size(); ++i)
    for (int j = i + 1; j < r.groups_size(); ++j)
      for (uint32_t x : r.groups(i).flow_ids())
        for (uint32_t y : r.groups(j).flow_ids())
          pairs.push_back(absl::StrCat(FlowLabel(std::min(x, y)), " and ",
                                       FlowLabel(std::max(x, y))));
  if (pairs.empty()) return "";
  return absl::StrCat("Flows ", absl::StrJoin(pairs, ", "),
                      " share no bottleneck: not compared.");
}

// The compared pairs as findings over their group's common interval.
std::vector<Finding> PairFindings(const proto::MultiFlowDiagnosis& r) {
  std::vector<Finding> findings;
  for (const proto::CompetitorGroup& g : r.groups()) {
    for (const proto::PairAttribution& pair : g.pairs()) {
      Finding f;
      f.kind = "unequal_share";
      f.severity =
          pair.share_ratio() < 0.9 ? Severity::kWarning : Severity::kInfo;
      f.start_s = g.common_start_s();
      f.end_s = g.common_end_s();
      f.message = pair.message();
      for (const proto::UnfairnessCause& c : pair.causes())
        f.evidence.push_back(absl::StrCat(c.kind(), ": ", c.message()));
      f.evidence.push_back(PairBrief(pair));
      findings.push_back(f);
    }
  }
  return findings;
}

std::vector<std::pair<std::string, std::string>> FlowRows(
    const proto::MultiFlowDiagnosis& r) {
  std::vector<std::pair<std::string, std::string>> rows;
  for (const proto::CompetingFlow& f : r.flows()) {
    rows.emplace_back(
        f.label(),
        absl::StrFormat("%s → %s (%s): starts at %.3f s (%s); %.3f MB "
                        "delivered; packets up to %u B",
                        f.diagnosis().sender(), f.diagnosis().receiver(),
                        f.input(), f.start_s(), f.clock(),
                        f.delivered_bytes() / 1e6, f.packet_bytes()));
  }
  for (int g = 0; g < r.groups_size(); ++g) {
    const proto::CompetitorGroup& group = r.groups(g);
    if (!group.has_jain_index() || group.flow_ids_size() < 2) continue;
    rows.emplace_back(absl::StrCat("group ", g + 1),
                      absl::StrFormat("%s; Jain's index %.3f",
                                      SharesText(group), group.jain_index()));
    for (const proto::PairAttribution& pair : group.pairs())
      rows.emplace_back(absl::StrCat("group ", g + 1, " pair"),
                        PairBrief(pair));
  }
  return rows;
}

std::vector<std::string> MethodLines(const proto::MultiFlowDiagnosis& r) {
  return {
      "Each flow was diagnosed on its own, as `ccreplay diagnose --flow` "
      "would (its section below); the shared view reuses each diagnosis's "
      "observed timeline, so it reads no input again.",
      absl::StrFormat(
          "Time axis: seconds from the earliest flow's start on an absolute "
          "clock (a capture's packet times, a qlog's reference_time); a "
          "flow whose input states no absolute time starts at 0. %s",
          r.has_start_unix_s()
              ? absl::StrFormat("Time 0 is Unix time %.6f s.", r.start_unix_s())
              : std::string("No input states an absolute time.")),
      absl::StrFormat(
          "Throughput and shares are counted in bins of %.3f s (at least "
          "4 base RTTs of the slowest flow; data delivered: cumulative ACK + "
          "SACKed bytes for TCP, bytes_acked for "
          "QUIC); a flow is active from its first to its last delivery.",
          r.bin_s()),
      "Common interval of a group: when all its flows were active; shares "
      "and Jain's index ((sum x)^2 / (n sum x^2), R. Jain, D. Chiu, W. Hawe, "
      "DEC-TR-301, 1984) are over it.",
      "Pairs of a group: the lesser flow's throughput over the greater's "
      "on the common interval (the shares' figure), and its causes: packet "
      "size (each flow's congestion-avoidance growth in bytes per RTT from "
      "its captured cwnd; throughput ∝ sqrt(growth), Mathis et al. 1997), "
      "RTT (throughput ∝ RTT^-k of its controller), and, by closed-loop "
      "simulation of both flows on the path fitted to both (unless "
      "--nosimulate), controller mix, start order and the ratio with the "
      "small-packet flow's growth normalized to 1462 bytes. Flows of "
      "different groups are not compared.",
      "Groups: by RFC 8382 shared-bottleneck detection (skewness, "
      "variability and oscillation of each flow's RTT, and its loss and CE "
      "rate, on a common 350 ms grid of Unix time) where it could evaluate "
      "the flows; else the flows active at the same time, without a shared "
      "bottleneck measured (\"overlap only\")."};
}

// The summary for the terminal.
std::string SummaryText(const proto::MultiFlowDiagnosis& r,
                        const std::string& verdict) {
  std::string text =
      absl::StrFormat("%d flow%s, %d group%s\n\n%s\n", r.flows_size(),
                      r.flows_size() == 1 ? "" : "s", r.groups_size(),
                      r.groups_size() == 1 ? "" : "s", verdict);
  for (const proto::CompetitorGroup& g : r.groups()) {
    for (const proto::PairAttribution& pair : g.pairs()) {
      absl::StrAppend(&text, "  ", pair.message(), "\n    ", PairBrief(pair),
                      "\n");
    }
  }
  for (const proto::CompetingFlow& f : r.flows()) {
    absl::StrAppend(&text, "\n", f.label(), "  ", f.diagnosis().sender(), " → ",
                    f.diagnosis().receiver(), "\n   ", f.diagnosis().verdict(),
                    "\n");
  }
  return text;
}

}  // namespace

MultiFlowReport CompareFlows(absl::Span<const CompetitorRun> flows,
                             bool simulate) {
  MultiFlowReport report;
  proto::MultiFlowDiagnosis& r = report.result;
  std::optional<int64_t> start_unix_ns;
  const std::vector<PlacedFlow> placed =
      PlaceOnSharedAxis(flows, &start_unix_ns);
  if (start_unix_ns.has_value()) r.set_start_unix_s(*start_unix_ns * 1e-9);
  std::vector<ActiveSpan> spans;
  for (const PlacedFlow& p : placed) spans.push_back(p.active);
  const std::vector<SbdFlowSeries> sbd_series = SbdSeriesOnUnixTime(flows);
  std::optional<SbdResult> sbd;
  if (sbd_series.size() >= 2) sbd = DetectSharedBottlenecks(sbd_series);
  const std::vector<CompetitorGrouping> groups =
      GroupCompetitors(spans, sbd.has_value() ? &*sbd : nullptr);
  const SharedBins bins = BinFlows(placed);
  r.set_bin_s(bins.bin_s);
  for (const CompetitorRun& f : flows) {
    if (std::find(r.inputs().begin(), r.inputs().end(), f.input) ==
        r.inputs().end()) {
      r.add_inputs(f.input);
    }
  }
  for (uint32_t id = 0; id < placed.size(); ++id)
    *r.add_flows() = FlowProto(id, placed[id]);
  for (const CompetitorGrouping& g : groups)
    *r.add_groups() = GroupProto(g, placed, simulate);
  ReportPage& page = report.shared;
  page.title = absl::StrCat(flows.size(), " flows compared");
  std::vector<std::string> sentences;
  for (const proto::CompetitorGroup& g : r.groups())
    sentences.push_back(GroupSentence(g));
  if (std::string apart = NotComparedSentence(r); !apart.empty())
    sentences.push_back(std::move(apart));
  if (absl::c_any_of(placed, [](const PlacedFlow& p) {
        return !p.flow->run.clock_epoch_ns.has_value();
      })) {
    sentences.push_back(
        "Some input states no absolute time: its flow is placed at its first "
        "event, so its overlap with the others is assumed, not seen.");
  }
  page.verdict = absl::StrJoin(sentences, " ");
  page.findings = PairFindings(r);
  page.plots = SharedPlots(placed, groups, bins);
  page.summary = FlowRows(r);
  page.method = MethodLines(r);
  if (sbd.has_value())
    absl::c_move(SbdLines(*sbd), std::back_inserter(page.method));
  page.time_axis = "time in seconds on the shared axis";
  page.summary_heading = "Flows";
  page.start_s = 0;
  page.end_s = bins.count * bins.bin_s;
  AddPlotData(page, &r);
  report.summary_text = SummaryText(r, page.verdict);
  return report;
}

}  // namespace ccreplay
