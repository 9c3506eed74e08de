#include "reports/rules/bbr_ack_aggregation_limited.h"

#include <algorithm>
#include <cmath>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "reports/percentile.h"
#include "reports/rules/bbr_counterfactual.h"
#include "reports/rules/rule_helpers.h"

namespace ccreplay {
namespace {

// Once the pipe is full a BBR sender is paced, not cwnd-limited (cwnd is
// twice the BDP plus the allowance): waiting on cwnd this share of the
// time is five times what PROBE_RTT's 200 ms in 10 s costs (2 %).
constexpr double kMinCwndLimitedShare = 0.1;
// Delivering below this share of its own bandwidth estimate costs
// throughput the model believed the path had.
constexpr double kMaxDeliveredShare = 0.9;
// An ACK silence: no ACK for this many min RTTs while the flow was busy
// (ACK clocking at a busy bottleneck never pauses a round trip).
constexpr double kSilenceMinRtts = 2;
// ACKs closer than a quarter of one packet's time at the estimated rate
// come faster than the bottleneck could clock them out: one burst.
constexpr double kBurstGapPackets = 0.25;

// An ACK silence and the burst of ACKs that ended it: what the burst
// acknowledged, what the estimated rate would have delivered over the
// silence, and the allowance the model held when it began.
struct Silence {
  double start_s = 0;
  double silence_s = 0;
  double burst_packets = 0;
  double rate_packets = 0;
  uint32_t extra_acked_packets = 0;
};

// How long the sender waited on a full cwnd between ACK i - 1 and ACK i:
// when the flight at ACK i (rs->prior_in_flight) had filled, within one
// packet, the cwnd ACK i - 1 left, the span less the time the room left
// after ACK i - 1 took to fill at the pacing rate then.
double WaitedOnCwndS(const RuleContext& x, const BbrStateTrace& t, size_t i) {
  const std::vector<BbrStateRecord>& r = t.records;
  const BbrStateRecord& prev = r[i - 1];
  const double mss = std::max<uint32_t>(t.mss_bytes, 1);
  const double cwnd_packets = prev.cwnd_bytes / mss;
  if (r[i].prior_in_flight_packets + 1 < cwnd_packets) return 0;
  const double acked = i >= 2 ? static_cast<double>(prev.delivered_packets -
                                                    r[i - 2].delivered_packets)
                              : 0;
  const double in_flight = std::max(0.0, prev.prior_in_flight_packets - acked);
  // tcp_bbr.c bbr_rate_bytes_per_sec(): gain x bw, less the 1 % margin.
  const double pacing_pps =
      prev.pacing_gain / 256.0 * prev.bw_bps * 0.99 / (8 * mss);
  const double fill_s =
      pacing_pps > 0 ? std::max(0.0, cwnd_packets - in_flight) / pacing_pps : 0;
  const double dt = BbrRecordTime(x, r[i]) - BbrRecordTime(x, prev);
  return std::max(0.0, dt - fill_s);
}

// The share of the time from record `from` on that the sender waited on
// a full cwnd.
double CwndLimitedShare(const RuleContext& x, const BbrStateTrace& t,
                        size_t from) {
  const std::vector<BbrStateRecord>& r = t.records;
  double waited_s = 0;
  for (size_t i = std::max<size_t>(from, 1); i < r.size(); ++i) {
    waited_s += WaitedOnCwndS(x, t, i);
  }
  const double total_s = BbrRecordTime(x, r.back()) - BbrRecordTime(x, r[from]);
  return total_s > 0 ? waited_s / total_s : 0;
}

// The ACK silences of `t` from record `from` on.
std::vector<Silence> AckSilences(const RuleContext& x, const BbrStateTrace& t,
                                 size_t from) {
  std::vector<Silence> silences;
  const std::vector<BbrStateRecord>& r = t.records;
  const double packet_bits = 8.0 * std::max<uint32_t>(t.mss_bytes, 1);
  for (size_t i = std::max<size_t>(from, 1); i < r.size(); ++i) {
    const BbrStateRecord& before = r[i - 1];
    const double pkts_per_s = before.bw_bps / packet_bits;
    const double silence_s = BbrRecordTime(x, r[i]) - BbrRecordTime(x, before);
    if (!before.min_rtt_us.has_value() || !(pkts_per_s > 0) ||
        silence_s < kSilenceMinRtts * *before.min_rtt_us * 1e-6) {
      continue;
    }
    size_t end = i + 1;
    const double gap_s = kBurstGapPackets / pkts_per_s;
    while (end < r.size() &&
           BbrRecordTime(x, r[end]) - BbrRecordTime(x, r[end - 1]) < gap_s) {
      ++end;
    }
    Silence s;
    s.start_s = BbrRecordTime(x, before);
    s.silence_s = silence_s;
    s.burst_packets = static_cast<double>(r[end - 1].delivered_packets -
                                          before.delivered_packets);
    s.rate_packets = pkts_per_s * silence_s;
    s.extra_acked_packets = before.extra_acked_packets;
    silences.push_back(s);
    i = end - 1;
  }
  return silences;
}

// What the flow did after the pipe was full.
struct AfterFullBw {
  double from_s = 0, to_s = 0;
  double cwnd_limited_share = 0;
  double delivered_bps = 0;
  double median_bw_bps = 0;
  std::vector<Silence> silences;
  double median_silence_s = 0, longest_silence_s = 0;
  double median_burst = 0, median_rate_packets = 0, median_extra_acked = 0;
  double median_period_s = 0;  // between silences' starts; 0: one silence
};

AfterFullBw Measure(const RuleContext& x, size_t full) {
  const std::vector<BbrStateRecord>& r = x.bbr->records;
  AfterFullBw a;
  a.from_s = BbrRecordTime(x, r[full]);
  a.to_s = BbrRecordTime(x, r.back());
  a.cwnd_limited_share = CwndLimitedShare(x, *x.bbr, full);
  if (a.to_s > a.from_s) {
    a.delivered_bps = 8.0 * x.bbr->mss_bytes *
                      (r.back().delivered_packets - r[full].delivered_packets) /
                      (a.to_s - a.from_s);
  }
  std::vector<double> bw;
  for (size_t i = full; i < r.size(); ++i) bw.push_back(r[i].bw_bps);
  a.median_bw_bps = Median(bw);
  a.silences = AckSilences(x, *x.bbr, full);
  std::vector<double> silence, burst, rate, extra;
  for (const Silence& s : a.silences) {
    silence.push_back(s.silence_s);
    burst.push_back(s.burst_packets);
    rate.push_back(s.rate_packets);
    extra.push_back(s.extra_acked_packets);
  }
  if (!silence.empty()) {
    a.median_silence_s = Median(silence);
    a.longest_silence_s = *std::max_element(silence.begin(), silence.end());
    a.median_burst = Median(burst);
    a.median_rate_packets = Median(rate);
    a.median_extra_acked = Median(extra);
  }
  std::vector<double> period;
  for (size_t i = 1; i < a.silences.size(); ++i)
    period.push_back(a.silences[i].start_s - a.silences[i - 1].start_s);
  if (!period.empty()) a.median_period_s = Median(period);
  return a;
}

Finding AggregationFinding(const std::string& spec, const AfterFullBw& a) {
  Finding f;
  f.kind = "bbr_ack_aggregation_limited";
  f.severity = Severity::kWarning;
  f.start_s = a.from_s;
  f.end_s = a.to_s;
  f.message = absl::StrFormat(
      "From %.3f s, when the pipe was full, %s waited on a full cwnd %.0f%% "
      "of the time and the flow delivered %.2f Mb/s, %.0f%% of its own "
      "bandwidth estimate (median %.2f Mb/s): the ACKs stopped %d times, for "
      "a median %.1f ms (longest %.1f ms), and each burst that ended a "
      "silence acknowledged a median %.0f packets where the estimated rate "
      "would have delivered %.0f; the ACK-aggregation allowance extra_acked "
      "was a median %.0f packets when they began, too small for cwnd (2 BDP "
      "+ extra_acked) to last through them.",
      a.from_s, spec, 100 * a.cwnd_limited_share, a.delivered_bps / 1e6,
      100 * a.delivered_bps / a.median_bw_bps, a.median_bw_bps / 1e6,
      static_cast<int>(a.silences.size()), 1e3 * a.median_silence_s,
      1e3 * a.longest_silence_s, a.median_burst, a.median_rate_packets,
      a.median_extra_acked);
  f.evidence.push_back(absl::StrFormat(
      "the replay of %s, ACK by ACK: extra_acked is the largest excess of "
      "5-10 rounds, at most cwnd per sample and 100 ms of bandwidth "
      "(tcp_bbr.c bbr_update_ack_aggregation())",
      spec));
  f.evidence.push_back(absl::StrFormat(
      "a silence: no ACK for %.0f min RTTs; waiting on a full cwnd: the "
      "flight when an ACK came was within a packet of the cwnd before it, "
      "from the time the room left then took to fill at the pacing rate",
      kSilenceMinRtts));
  return f;
}

// The closed-loop counterfactual: the fitted path with the receiver's ACKs
// held for the median silence in every median period between silences
// (FlowConfig::ack_hold_ns), with `spec` and with an allowance that lasts
// through a silence: extra_acked never aged out between silences
// (bbr_extra_acked_win_rtts of 32 or more: the kernel's 5-bit round
// counter stops at 31) and capped at the silence's length of bandwidth
// instead of 100 ms (bbr_extra_acked_max_us). nullopt without a fitted
// path or two silences.
std::optional<std::string> ClosedLoop(const RuleContext& x,
                                      const std::string& spec,
                                      const AfterFullBw& a) {
  if (!x.evidence->path.has_value() || a.median_period_s <= 0) {
    return std::nullopt;
  }
  FittedPath path = *x.evidence->path;
  // The rate is the model's median estimate: the diagnosis' bottleneck
  // estimate counts the bursts that end the silences (a 50 Mbit/s path
  // measured 139 Mb/s), and the buffer, fitted as a delay at that rate,
  // scales with it.
  if (a.median_bw_bps > 0 && path.rate_bps > 0) {
    path.buffer_bytes = static_cast<uint64_t>(
        static_cast<double>(path.buffer_bytes) * a.median_bw_bps /
        static_cast<double>(path.rate_bps));
    path.rate_bps = static_cast<int64_t>(a.median_bw_bps);
  }
  path.ack_hold_ns = static_cast<int64_t>(a.median_silence_s * 1e9);
  path.ack_hold_period_ns = static_cast<int64_t>(a.median_period_s * 1e9);
  const int max_ms = static_cast<int>(std::ceil(a.median_silence_s * 1e3));
  const std::optional<BbrCounterfactual> cf = RunBbrCounterfactual(
      path, spec,
      {{"extra_acked_win", "32"}, {"extra_acked_max_ms", absl::StrCat(max_ms)}},
      x.packet_bytes);
  if (!cf.has_value()) return std::nullopt;
  return DescribeBbrCounterfactual(
      *cf, absl::StrFormat("an ACK-aggregation allowance kept between "
                           "silences and capped at %d ms of bandwidth",
                           max_ms));
}

}  // namespace

void BbrAckAggregationLimitedRule::Check(const RuleContext& x,
                                         RuleOutput* out) const {
  const int c = BbrControllerIndex(x);
  if (c < 0) return;  // Not a BBR flow: the BBR rules stay silent.
  const std::string& spec = x.evidence->replay->controllers[c].spec;
  const std::vector<BbrStateRecord>& r = x.bbr->records;
  const auto full = std::find_if(
      r.begin(), r.end(), [](const auto& s) { return s.full_bw_reached; });
  if (full == r.end() || full + 1 == r.end()) {
    out->notes.push_back(absl::StrCat("bbr_ack_aggregation_limited: ", spec,
                                      " never filled the pipe"));
    return;
  }
  const AfterFullBw a = Measure(x, full - r.begin());
  // The silences cut the bursts short: the sender ran out of cwnd.
  const bool fires =
      a.cwnd_limited_share >= kMinCwndLimitedShare && a.median_bw_bps > 0 &&
      a.delivered_bps < kMaxDeliveredShare * a.median_bw_bps &&
      !a.silences.empty() && a.median_burst < a.median_rate_packets;
  if (!fires) {
    out->notes.push_back(absl::StrFormat(
        "bbr_ack_aggregation_limited: after the pipe was full (%.3f s) the "
        "sender waited on a full cwnd %.0f%% of the time (a finding from "
        "%.0f%%), "
        "delivering %.0f%% of the bandwidth estimate; %d ACK silences of a "
        "median %.1f ms, ended by bursts of a median %.0f packets against "
        "%.0f at the estimated rate (extra_acked a median %.0f)",
        a.from_s, 100 * a.cwnd_limited_share, 100 * kMinCwndLimitedShare,
        a.median_bw_bps > 0 ? 100 * a.delivered_bps / a.median_bw_bps : 0.0,
        static_cast<int>(a.silences.size()), 1e3 * a.median_silence_s,
        a.median_burst, a.median_rate_packets, a.median_extra_acked));
    return;
  }
  Finding f = AggregationFinding(spec, a);
  if (std::optional<std::string> cf = ClosedLoop(x, spec, a)) {
    f.evidence.push_back(std::move(*cf));
  }
  out->findings.push_back(std::move(f));
}

}  // namespace ccreplay
