#include "replay/conformance/conformance_rules.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <string>

#include "absl/strings/str_cat.h"

namespace ccreplay {
namespace {

// A QUIC reduction is immediate (RFC 9002 section 7.3.2) and its recovery
// period ends a round later: growth rules skip two smoothed RTTs after a
// congestion event. TCP's PRR spreads the reduction over the recovery
// (RFC 6937 section 3), which lasts until the data outstanding at the loss
// is acked, longer when retransmissions are lost: four.
constexpr int64_t kSettleRttsQuic = 2;
constexpr int64_t kSettleRttsTcp = 4;
// Without an RTT sample yet, this stands in for it.
constexpr int64_t kDefaultRttUs = 100'000;
// Windows without growth, cwnd-limited throughout, that make a stall:
// CUBIC's Reno-friendly region alone grows about half a segment per RTT
// (RFC 9438 section 4.3, alpha_cubic = 3(1 - beta)/(1 + beta)), so four
// windows without any growth is no plateau of the curve.
constexpr int kStalledWindows = 4;
// CUBIC's multiplicative decrease (RFC 9438 section 4.6) and NewReno's
// kLossReductionFactor (RFC 9002 appendix B.2; RFC 5681 section 3.1).
constexpr double kBetaCubic = 0.7;
constexpr double kBetaReno = 0.5;
constexpr uint64_t kQuicMaxDatagramBytes = 1472;

bool IsQuic(const RuleInputs& in) {
  return in.profile.transport == ConformanceTransport::kQuic;
}
double Beta(const RuleInputs& in) {
  return in.profile.family == ConformanceFamily::kCubic ? kBetaCubic
                                                        : kBetaReno;
}
int64_t RttOf(const ConformanceAck& a, bool smoothed) {
  const int64_t rtt = smoothed ? a.srtt_us : a.min_rtt_us;
  return rtt > 0 ? rtt : kDefaultRttUs;
}

ConformanceViolation Make(absl::string_view rule, std::string section,
                          const ConformanceAck& first,
                          const ConformanceAck& last, uint64_t acks,
                          uint64_t expected, uint64_t seen,
                          std::string description) {
  ConformanceViolation v;
  v.rule = std::string(rule);
  v.rfc_section = std::move(section);
  v.start_us = first.time_us;
  v.end_us = last.time_us;
  v.acks = acks;
  v.expected_bytes = expected;
  v.seen_bytes = seen;
  v.description = std::move(description);
  return v;
}

// A window of congestion-avoidance steps that acked at least the cwnd it
// began with (one round's worth of ACKs, RFC 9002 section 7.3.3).
struct AckedWindow {
  size_t first = 0;
  size_t last = 0;
  uint64_t start_cwnd = 0;
  uint64_t acked = 0;
  int64_t increase = 0;
  bool cwnd_limited = true;  // At every step.
  bool under_half = true;    // Flight below half the cwnd at every step.
};

// Consecutive windows over steps outside settling (and slow start, unless
// `with_slow_start`); a skipped step ends the run (`run_breaks` marks the
// first window of each run).
std::vector<AckedWindow> AckedWindows(const RuleInputs& in,
                                      bool with_slow_start,
                                      std::vector<bool>* run_breaks) {
  std::vector<AckedWindow> windows;
  std::optional<AckedWindow> open;
  bool broken = true;
  for (size_t i = 0; i < in.acks.size(); ++i) {
    const StepRegime& r = in.regimes[i];
    if (r.settling || (r.slow_start && !with_slow_start) || !r.before ||
        !r.after) {
      open.reset();
      broken = true;
      continue;
    }
    if (!open) open = AckedWindow{i, i, *r.before, 0, 0, true, true};
    open->last = i;
    open->acked += in.acks[i].bytes_acked;
    open->cwnd_limited = open->cwnd_limited && in.acks[i].cwnd_limited;
    open->under_half =
        open->under_half && 2 * in.acks[i].flight_before_bytes < *r.before;
    if (open->acked >= open->start_cwnd) {
      open->increase = static_cast<int64_t>(*r.after) -
                       static_cast<int64_t>(open->start_cwnd);
      windows.push_back(*open);
      run_breaks->push_back(broken);
      broken = false;
      open.reset();
    }
  }
  return windows;
}

}  // namespace

std::vector<StepRegime> ClassifySteps(absl::Span<const ConformanceAck> acks,
                                      ConformanceTransport transport) {
  const int64_t settle_rtts = transport == ConformanceTransport::kQuic
                                  ? kSettleRttsQuic
                                  : kSettleRttsTcp;
  std::vector<StepRegime> regimes(acks.size());
  // The log's clock step: a qlog in whole milliseconds (as ngtcp2 writes
  // it) cannot place a step inside a recovery period shorter than that.
  const bool whole_ms = std::all_of(
      acks.begin(), acks.end(),
      [](const ConformanceAck& a) { return a.time_us % 1000 == 0; });
  const int64_t clock_step_us = whole_ms ? 1000 : 1;
  int64_t recovery_until_us = std::numeric_limits<int64_t>::min();
  int64_t settle_until_us = std::numeric_limits<int64_t>::min();
  uint64_t ssthresh = std::numeric_limits<uint64_t>::max();
  bool ssthresh_pending = false;
  for (size_t i = 0; i < acks.size(); ++i) {
    const ConformanceAck& a = acks[i];
    StepRegime& r = regimes[i];
    r.before = a.cwnd_before_bytes;
    if (i + 1 < acks.size()) r.after = acks[i + 1].cwnd_before_bytes;
    r.in_recovery = a.time_us < recovery_until_us;
    r.settling = a.congestion_event || a.time_us < settle_until_us;
    if (a.congestion_event) {
      // Recovery lasts at least one min RTT (RFC 9002 section 7.3.2: until
      // a packet sent after it began is acked). A logged min RTT of 0 is a
      // sample under the clock step, not a missing one: no step of the log
      // can be shown to fall inside that period.
      recovery_until_us =
          a.time_us + std::max<int64_t>(0, a.min_rtt_us - clock_step_us);
      settle_until_us = a.time_us + settle_rtts * RttOf(a, true);
      ssthresh_pending = true;
    } else if (ssthresh_pending && !r.settling && r.before) {
      // The window recovery left is the new slow-start threshold (RFC 9002
      // section 7.3.2; after a timeout, slow start climbs back to it).
      ssthresh = *r.before;
      ssthresh_pending = false;
    }
    r.slow_start =
        !ssthresh_pending && r.before && *r.before + a.mss_bytes / 2 < ssthresh;
    if (ssthresh_pending) r.slow_start = false;
  }
  return regimes;
}

void CheckInitialWindow(const RuleInputs& in,
                        std::vector<ConformanceViolation>* out) {
  const auto first =
      std::find_if(in.acks.begin(), in.acks.end(), [](const ConformanceAck& a) {
        return a.cwnd_before_bytes.has_value() && a.mss_bytes > 0;
      });
  if (first == in.acks.end()) return;
  const uint64_t initial =
      in.initial_cwnd_bytes.value_or(*first->cwnd_before_bytes);
  // QUIC logs no max datagram size: it is at least the largest packet, and
  // may be up to 1472 (the IPv4 UDP payload at MTU 1500) without packets
  // that large; the cap grows with it, so the largest plausible one is
  // taken.
  const uint64_t mds =
      IsQuic(in) ? std::max<uint64_t>(first->mss_bytes, kQuicMaxDatagramBytes)
                 : first->mss_bytes;
  // RFC 9002 section 7.2: min(10 * max_datagram_size, max(14720,
  // 2 * max_datagram_size)); RFC 6928 section 2: min(10 * MSS,
  // max(2 * MSS, 14600)).
  const uint64_t floor_bytes = IsQuic(in) ? 14720 : 14600;
  const uint64_t cap = std::min(10 * mds, std::max(floor_bytes, 2 * mds));
  if (initial > cap) {
    out->push_back(
        Make(kRuleInitialWindow,
             IsQuic(in) ? "RFC 9002 section 7.2" : "RFC 6928 section 2", *first,
             *first, 1, cap, initial, "initial window above the cap"));
  }
}

void CheckSlowStartIncrease(const RuleInputs& in,
                            std::vector<ConformanceViolation>* out) {
  // A QUIC timeline leaves out the handshake spaces' ACKs
  // (replay/quic_timeline.h), whose growth falls on the first application
  // ACKs: the rule starts once the sender has filled its window.
  size_t i = 0;
  while (IsQuic(in) && i < in.acks.size() && !in.acks[i].cwnd_limited) ++i;
  for (; i < in.acks.size(); ++i) {
    const ConformanceAck& a = in.acks[i];
    const StepRegime& r = in.regimes[i];
    if (!r.slow_start || r.settling || !r.before || !r.after ||
        *r.after <= *r.before || a.mss_bytes == 0) {
      continue;
    }
    // QUIC: by at most the bytes acked (RFC 9002 section 7.3.1). TCP: by at
    // most L = 2 segments per ACK (RFC 3465 section 2.3), whole segments.
    const uint64_t segments = std::max<uint64_t>(
        a.packets_acked, (a.bytes_acked + a.mss_bytes - 1) / a.mss_bytes);
    const uint64_t allowed =
        IsQuic(in) ? a.bytes_acked
                   : std::min<uint64_t>(segments, 2) * a.mss_bytes;
    const uint64_t increase = *r.after - *r.before;
    if (increase > allowed) {
      out->push_back(
          Make(kRuleSlowStartIncrease,
               IsQuic(in) ? "RFC 9002 section 7.3.1" : "RFC 3465 section 2.3",
               a, a, 1, allowed, increase,
               "slow-start increase per ACK above what it "
               "acknowledged"));
    }
  }
}

void CheckCongestionAvoidanceIncrease(const RuleInputs& in,
                                      std::vector<ConformanceViolation>* out) {
  std::vector<bool> breaks;
  for (const AckedWindow& w : AckedWindows(in, false, &breaks)) {
    const ConformanceAck& a = in.acks[w.first];
    const double rounds =
        std::max(1.0, static_cast<double>(w.acked) / w.start_cwnd);
    // Reno: one max datagram per cwnd acked (RFC 9002 section 7.3.3, RFC
    // 5681 section 3.1), with half a datagram for where the window's edges
    // fall. CUBIC: its target is clamped to 1.5 cwnd per RTT (RFC 9438
    // section 4.2), so half a window per round, plus a datagram.
    const bool cubic = in.profile.family == ConformanceFamily::kCubic;
    const double allowed = cubic ? 0.5 * w.start_cwnd * rounds + a.mss_bytes
                                 : 1.5 * a.mss_bytes * rounds;
    if (w.increase > allowed) {
      out->push_back(Make(
          kRuleCongestionAvoidanceIncrease,
          cubic ? "RFC 9438 section 4.2"
                : (IsQuic(in) ? "RFC 9002 section 7.3.3"
                              : "RFC 5681 section 3.1"),
          a, in.acks[w.last], w.last - w.first + 1,
          static_cast<uint64_t>(allowed), static_cast<uint64_t>(w.increase),
          cubic ? "congestion-avoidance increase per window acked above "
                  "CUBIC's 1.5x clamp"
                : "congestion-avoidance increase per window acked above "
                  "one max datagram"));
    }
  }
}

void CheckCwndStalled(const RuleInputs& in,
                      std::vector<ConformanceViolation>* out) {
  std::vector<bool> breaks;
  const std::vector<AckedWindow> windows = AckedWindows(in, false, &breaks);
  int run = 0;
  for (size_t k = 0; k < windows.size(); ++k) {
    const AckedWindow& w = windows[k];
    if (breaks[k]) run = 0;
    run = (w.cwnd_limited && w.increase <= 0) ? run + 1 : 0;
    if (run < kStalledWindows) continue;
    const AckedWindow& first = windows[k + 1 - kStalledWindows];
    const ConformanceAck& a = in.acks[first.first];
    // RFC 9002 section 7.3.3 / RFC 5681 section 3.1: a cwnd-limited sender
    // in congestion avoidance grows by a datagram per window acked.
    out->push_back(
        Make(kRuleCwndStalled,
             IsQuic(in) ? "RFC 9002 section 7.3.3" : "RFC 5681 section 3.1", a,
             in.acks[w.last], w.last - first.first + 1,
             first.start_cwnd + a.mss_bytes, w.start_cwnd,
             "no growth over four cwnd-limited windows of ACKs"));
    run = 0;
  }
}

// The step at or after congestion event `e`, within the settling span and
// before the next event, that made the reduction; nullopt when cwnd did
// not fall.
std::optional<size_t> ReductionStep(const RuleInputs& in, size_t e) {
  const int64_t until_us =
      in.acks[e].time_us +
      (IsQuic(in) ? kSettleRttsQuic : kSettleRttsTcp) * RttOf(in.acks[e], true);
  std::optional<size_t> lowest;
  for (size_t j = e; j < in.acks.size() && in.acks[j].time_us <= until_us;
       ++j) {
    if (j != e && in.acks[j].congestion_event) break;
    const StepRegime& r = in.regimes[j];
    if (!r.before || !r.after || *r.after >= *r.before) continue;
    // QUIC: the first reduction. TCP: the lowest, where PRR ends.
    if (IsQuic(in)) return j;
    if (!lowest || *r.after < *in.regimes[*lowest].after) lowest = j;
  }
  return lowest;
}

void CheckReduction(const RuleInputs& in,
                    std::vector<ConformanceViolation>* out) {
  for (size_t e = 0; e < in.acks.size(); ++e) {
    const ConformanceAck& a = in.acks[e];
    if (!a.congestion_event) continue;
    const std::optional<size_t> step = ReductionStep(in, e);
    if (!step) continue;
    // The highest cwnd logged from the event to the reduction: the sender
    // may grow on the ACKs it processes before it declares the loss.
    uint64_t before = 0;
    for (size_t j = e; j <= *step; ++j) {
      before = std::max({before, in.regimes[j].before.value_or(0),
                         in.acks[j].cwnd_peak_after_bytes.value_or(0)});
    }
    const uint64_t seen = *in.regimes[*step].after;
    // Two datagrams of slack: the log's rounding, and growth between the
    // last cwnd logged and the reduction.
    const uint64_t slack = 2 * static_cast<uint64_t>(a.mss_bytes);
    const uint64_t target = static_cast<uint64_t>(Beta(in) * before);
    // QUIC reduces to exactly beta * cwnd, not below the minimum window
    // of two datagrams (RFC 9002 sections 7.2, 7.3.2) unless a timeout or
    // persistent congestion (section 7.6.2) took it there. TCP's PRR may
    // go below ssthresh while the pipe is low (RFC 6937 section 3).
    const bool too_shallow = seen > target + slack;
    const bool too_deep =
        IsQuic(in) && !a.timeout && seen > 2 * slack && seen + slack < target;
    if (!too_shallow && !too_deep) continue;
    out->push_back(Make(
        kRuleReduction,
        in.profile.family == ConformanceFamily::kCubic
            ? "RFC 9438 section 4.6"
            : (IsQuic(in) ? "RFC 9002 section 7.3.2" : "RFC 5681 section 3.1"),
        a, in.acks[*step], *step - e + 1, target, seen,
        absl::StrCat("cwnd after a congestion event not ", Beta(in),
                     " of the cwnd before it")));
  }
}

void CheckIncreaseInRecovery(const RuleInputs& in,
                             std::vector<ConformanceViolation>* out) {
  // TCP's PRR grows cwnd back toward ssthresh inside recovery (RFC 6937
  // section 3, PRR-SSRB): the rule is QUIC's (RFC 9002 section 7.3.2).
  if (!IsQuic(in)) return;
  for (size_t i = 0; i < in.acks.size(); ++i) {
    const StepRegime& r = in.regimes[i];
    if (!r.in_recovery || in.acks[i].congestion_event || !r.before ||
        !r.after || *r.after <= *r.before) {
      continue;
    }
    out->push_back(Make(kRuleIncreaseInRecovery, "RFC 9002 section 7.3.2",
                        in.acks[i], in.acks[i], 1, *r.before, *r.after,
                        "cwnd increased during a recovery period"));
  }
}

void CheckFlightAboveCwnd(const RuleInputs& in,
                          std::vector<ConformanceViolation>* out) {
  for (size_t i = 0; i < in.acks.size(); ++i) {
    const ConformanceAck& a = in.acks[i];
    const StepRegime& r = in.regimes[i];
    // One datagram may go beyond cwnd on entering recovery or as a probe
    // (RFC 9002 section 7); the flight before an ACK was sent under the
    // cwnd the previous ACK left.
    // A qlog's clock ticks in whole milliseconds: what the sender sent on
    // this ACK's own growth may be ordered before it, so its bytes count.
    if (r.settling || !r.before) continue;
    const uint64_t allowed =
        *r.before + a.mss_bytes + (IsQuic(in) ? a.bytes_acked : 0);
    if (a.flight_before_bytes <= allowed) continue;
    out->push_back(
        Make(kRuleFlightAboveCwnd,
             IsQuic(in) ? "RFC 9002 section 7" : "RFC 5681 section 3.1", a, a,
             1, *r.before + a.mss_bytes, a.flight_before_bytes,
             "bytes in flight above cwnd (plus one datagram)"));
  }
}

void CheckIncreaseNotCwndLimited(const RuleInputs& in,
                                 std::vector<ConformanceViolation>* out) {
  // RFC 9002 section 7.8 (RFC 7661 for TCP): no growth while the window is
  // underused and sending is not pacing-limited. Pacing is not logged, so
  // a whole window of ACKs must find less than half the cwnd in flight (a
  // paced sender fills most of it over a round), the slack Linux's
  // slow-start rule gives too (tcp_is_cwnd_limited(): cwnd < 2 *
  // max_packets_out, 6.18).
  std::vector<bool> breaks;
  for (const AckedWindow& w : AckedWindows(in, true, &breaks)) {
    if (!w.under_half || w.increase <= 0) continue;
    out->push_back(
        Make(kRuleIncreaseNotCwndLimited,
             IsQuic(in) ? "RFC 9002 section 7.8" : "RFC 7661 section 4.3",
             in.acks[w.first], in.acks[w.last], w.last - w.first + 1,
             w.start_cwnd, w.start_cwnd + w.increase,
             "cwnd increased over a window of ACKs with less "
             "than half of it in flight"));
  }
}

}  // namespace ccreplay
