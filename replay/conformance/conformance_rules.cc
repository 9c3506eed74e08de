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
// DCTCP halves on loss as Reno does (RFC 8257 section 3.5).
double Beta(const RuleInputs& in) {
  return in.profile.family == ConformanceFamily::kCubic ? kBetaCubic
                                                        : kBetaReno;
}
// A DCTCP sender's reaction to CE is its own rule (CheckDctcpReduction):
// the rules of a loss reduction skip those events.
bool IsLossReduction(const RuleInputs& in, const ConformanceAck& a) {
  return a.congestion_event &&
         !(a.ecn_event && in.profile.family == ConformanceFamily::kDctcp);
}
// QUIC logs no max datagram size: it is at least the largest packet, and
// may be up to 1472 (the IPv4 UDP payload at MTU 1500) without packets
// that large; the bounds that grow with it take the largest plausible.
uint64_t MaxDatagramBound(const RuleInputs& in, const ConformanceAck& a) {
  return IsQuic(in) ? std::max<uint64_t>(a.mss_bytes, kQuicMaxDatagramBytes)
                    : a.mss_bytes;
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

namespace {

// QUIC's recovery period (RFC 9002 section 7.3.2): from a congestion event
// until a packet sent after it began is acknowledged.
class RecoveryPeriod {
 public:
  void Start(const ConformanceAck& event, int64_t clock_step_us) {
    // The send order, where known, says it exactly.
    ends_at_order_ = event.event_send_order;
    // Else at least one min RTT, less the log's clock step. A logged min
    // RTT of 0 is a sample under the clock step, not a missing one: no
    // step of the log can be shown to fall inside that period. (A bound
    // only: packets sent after a loss can see less than the min RTT so
    // far, the queue draining.)
    until_us_ = ends_at_order_
                    ? std::numeric_limits<int64_t>::min()
                    : event.time_us + std::max<int64_t>(
                                          0, event.min_rtt_us - clock_step_us);
  }
  // Whether step `a`, not an event's own, is inside the period.
  bool Contains(const ConformanceAck& a) {
    if (ends_at_order_ && a.newest_send_order &&
        *a.newest_send_order >= *ends_at_order_) {
      ends_at_order_.reset();
    }
    return ends_at_order_.has_value() || a.time_us < until_us_;
  }

 private:
  std::optional<uint64_t> ends_at_order_;
  int64_t until_us_ = std::numeric_limits<int64_t>::min();
};

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
  RecoveryPeriod recovery;
  int64_t settle_until_us = std::numeric_limits<int64_t>::min();
  uint64_t ssthresh = std::numeric_limits<uint64_t>::max();
  bool ssthresh_pending = false;
  for (size_t i = 0; i < acks.size(); ++i) {
    const ConformanceAck& a = acks[i];
    StepRegime& r = regimes[i];
    r.before = a.cwnd_before_bytes;
    if (i + 1 < acks.size()) r.after = acks[i + 1].cwnd_before_bytes;
    r.in_recovery = recovery.Contains(a);
    r.settling = a.congestion_event || a.time_us < settle_until_us;
    if (a.congestion_event) {
      recovery.Start(a, clock_step_us);
      settle_until_us = a.time_us + settle_rtts * RttOf(a, true);
      ssthresh_pending = true;
    } else if (ssthresh_pending && !r.settling && r.before) {
      // The window recovery left is the new slow-start threshold (RFC 9002
      // section 7.3.2; after a timeout, slow start climbs back to it).
      ssthresh = *r.before;
      ssthresh_pending = false;
    }
    // The sender's own ssthresh, where it logs one (an undo may restore
    // an earlier one, even an unset one: ngtcp2_cc_cubic_cc_on_spurious_
    // congestion(), lib/ngtcp2_cc.c, 0.12.1), decides outside the recovery
    // period: a sender whose recovery left cwnd below it (Linux's PRR)
    // slow-starts back to it (RFC 5681 section 3.1); tcp_probe logs it.
    // Without one, the inferred threshold once the event has settled.
    r.slow_start =
        r.before &&
        (a.ssthresh_before_bytes.has_value()
             ? !r.in_recovery &&
                   *r.before + a.mss_bytes / 2 < *a.ssthresh_before_bytes
             : !ssthresh_pending && *r.before + a.mss_bytes / 2 < ssthresh);
  }
  return regimes;
}

bool RisesOnSpuriousEvidence(absl::Span<const ConformanceAck> acks, size_t j) {
  if (j + 1 >= acks.size() || !acks[j].spurious_evidence) return false;
  const std::optional<uint64_t> before = acks[j].cwnd_before_bytes;
  const std::optional<uint64_t> after = acks[j + 1].cwnd_before_bytes;
  return before && after && *after > *before;
}

std::vector<UndoneEvent> FindUndoneEvents(absl::Span<const ConformanceAck> acks,
                                          ConformanceTransport transport) {
  std::vector<UndoneEvent> undone;
  // RFC 9002 defines no response to a spurious loss, but a stack may undo
  // its reduction as TCP does (ngtcp2_cc_cubic_cc_on_spurious_congestion(),
  // lib/ngtcp2_cc.c, 0.12.1); a qlog in whole milliseconds may not show
  // the reduction before the restore.
  const bool quic = transport == ConformanceTransport::kQuic;
  for (size_t e = 0; e < acks.size(); ++e) {
    const ConformanceAck& a = acks[e];
    if (!a.congestion_event || !a.cwnd_before_bytes) continue;
    const int64_t until_us =
        a.time_us + (quic ? kSettleRttsQuic : kSettleRttsTcp) * RttOf(a, true);
    bool reduced = quic;
    for (size_t j = e + 1; j < acks.size() && acks[j].time_us <= until_us;
         ++j) {
      if (acks[j].congestion_event) break;
      const std::optional<uint64_t> cwnd = acks[j].cwnd_before_bytes;
      if (!cwnd) continue;
      if (*cwnd < *a.cwnd_before_bytes) reduced = true;
      // The restoring step follows the ACK that proved the retransmission
      // spurious (a captured cwnd shows the state before each ACK): a
      // controller that only grew back fast is not undoing.
      if (reduced && *cwnd >= *a.cwnd_before_bytes) {
        if (acks[j - 1].spurious_evidence || acks[j].spurious_evidence) {
          undone.push_back({e, j});
        }
        break;
      }
    }
  }
  if (!quic) return undone;
  // ngtcp2 restores the state it saved at the congestion event with the
  // largest cwnd since its last undo, whichever event that was, even on a
  // spurious loss that reduced nothing (ngtcp2_cc_cubic_cc_congestion_event()
  // and _on_spurious_congestion(), lib/ngtcp2_cc.c, 0.12.1): a rise on an
  // ACK with spurious evidence is a restore, not growth.
  for (size_t j = 0; j + 1 < acks.size(); ++j) {
    if (RisesOnSpuriousEvidence(acks, j) &&
        std::none_of(undone.begin(), undone.end(), [j](const UndoneEvent& u) {
          return u.restore == j + 1;
        })) {
      undone.push_back({j, j});
    }
  }
  return undone;
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
  const uint64_t mds = MaxDatagramBound(in, *first);
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

namespace {

// The end of the settling span of congestion event `e`.
int64_t SettleUntilUs(const RuleInputs& in, size_t e) {
  return in.acks[e].time_us + (IsQuic(in) ? kSettleRttsQuic : kSettleRttsTcp) *
                                  RttOf(in.acks[e], true);
}

// The step at or after congestion event `e`, within the settling span and
// before the next event, that made the reduction; nullopt when cwnd did
// not fall.
std::optional<size_t> ReductionStep(const RuleInputs& in, size_t e) {
  const int64_t until_us = SettleUntilUs(in, e);
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

// The highest cwnd logged from congestion event `e` to the step that
// reduced it: the sender may grow on the ACKs it processes before it
// declares the loss.
uint64_t CwndAtEvent(const RuleInputs& in, size_t e, size_t step) {
  uint64_t before = 0;
  for (size_t j = e; j <= step; ++j) {
    before = std::max({before, in.regimes[j].before.value_or(0),
                       in.acks[j].cwnd_peak_after_bytes.value_or(0)});
  }
  return before;
}

// QUIC: the most the ACKs of event step `e` may have grown cwnd before the
// loss they revealed cut it. A qlog in whole milliseconds merges several
// ACKs into one step, and ngtcp2 grows cwnd for an ACK's packets before it
// declares the losses that ACK reveals (ngtcp2_rtb_recv_ack():
// rtb_on_pkt_acked() before rtb_detect_lost_pkt(), lib/ngtcp2_rtb.c,
// 0.12.1): in slow start by every byte acked (RFC 9002 section 7.3.1), in
// congestion avoidance by at most half of them (CUBIC's 1.5x clamp, RFC
// 9438 section 4.2) or a datagram per window (RFC 9002 section 7.3.3).
uint64_t GrowthBeforeCut(const RuleInputs& in, size_t e) {
  const ConformanceAck& a = in.acks[e];
  const StepRegime& r = in.regimes[e];
  if (!IsQuic(in) || !r.before || *r.before == 0) return 0;
  // The event's own step is never classed slow start: the state before it
  // is the logged ssthresh's, else the previous step's.
  const bool slow_start =
      a.ssthresh_before_bytes
          ? *r.before + a.mss_bytes / 2 < *a.ssthresh_before_bytes
          : e == 0 || in.regimes[e - 1].slow_start;
  if (slow_start) return a.bytes_acked;
  if (in.profile.family == ConformanceFamily::kCubic) {
    return a.bytes_acked / 2;
  }
  return a.bytes_acked * a.mss_bytes / *r.before;
}

}  // namespace

void CheckReduction(const RuleInputs& in,
                    std::vector<ConformanceViolation>* out) {
  for (size_t e = 0; e < in.acks.size(); ++e) {
    const ConformanceAck& a = in.acks[e];
    if (!IsLossReduction(in, a)) continue;
    const std::optional<size_t> step = ReductionStep(in, e);
    if (!step) continue;
    const uint64_t before = CwndAtEvent(in, e, *step);
    const uint64_t seen = *in.regimes[*step].after;
    // Two datagrams of slack: the log's rounding, and growth between the
    // last cwnd logged and the reduction.
    const uint64_t slack = 2 * static_cast<uint64_t>(a.mss_bytes);
    const uint64_t target = static_cast<uint64_t>(Beta(in) * before);
    const uint64_t highest =
        static_cast<uint64_t>(Beta(in) * (before + GrowthBeforeCut(in, e)));
    // QUIC reduces to exactly beta * cwnd, not below the minimum window
    // of two datagrams (RFC 9002 sections 7.2, 7.3.2) unless a timeout or
    // persistent congestion (section 7.6.2) took it there. TCP's PRR may
    // go below ssthresh while the pipe is low (RFC 6937 section 3).
    const bool too_shallow = seen > highest + slack;
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

namespace {

// The step whose cwnd-before is what the recovery period of event `e`
// left: QUIC's period lasts at least a min RTT (ClassifySteps), TCP's
// reduction is done once its settling span is over (PRR ends with cwnd
// at ssthresh, RFC 6937 section 3). nullopt when another congestion event
// or a timeout comes first, or the trace ends.
std::optional<size_t> PeriodEndStep(const RuleInputs& in, size_t e) {
  const int64_t settle_until_us = SettleUntilUs(in, e);
  for (size_t j = e + 1; j < in.acks.size(); ++j) {
    if (in.acks[j].congestion_event || in.acks[j].timeout) return std::nullopt;
    const bool over = IsQuic(in) ? !in.regimes[j].in_recovery
                                 : in.acks[j].time_us >= settle_until_us;
    if (over) return j;
  }
  return std::nullopt;
}

}  // namespace

void CheckSecondReduction(const RuleInputs& in,
                          std::vector<ConformanceViolation>* out) {
  // One reduction per recovery period: RFC 9002 section 7.3.2 (a loss or
  // CE of a packet sent before the period began does not reduce again),
  // RFC 6582 section 3.2 step 4 and RFC 5681 section 3.2 for TCP (the
  // recovery exits with cwnd at ssthresh = beta * FlightSize). A second
  // cut leaves beta^2 of the window, two datagrams of slack below beta.
  for (size_t e = 0; e < in.acks.size(); ++e) {
    const ConformanceAck& a = in.acks[e];
    if (!IsLossReduction(in, a) || a.timeout) continue;
    const std::optional<size_t> step = ReductionStep(in, e);
    const std::optional<size_t> end = PeriodEndStep(in, e);
    if (!step || !end || *end <= *step || !in.regimes[*end].before) continue;
    const uint64_t slack = 2 * static_cast<uint64_t>(a.mss_bytes);
    const uint64_t target =
        static_cast<uint64_t>(Beta(in) * CwndAtEvent(in, e, *step));
    const uint64_t seen = *in.regimes[*end].before;
    // At the minimum window (RFC 9002 section 7.2) a cut cannot be told.
    if (seen + slack >= target || seen <= 2 * slack) continue;
    out->push_back(Make(
        kRuleSecondReduction,
        IsQuic(in) ? "RFC 9002 section 7.3.2" : "RFC 6582 section 3.2", a,
        in.acks[*end], *end - e + 1, target, seen,
        absl::StrCat("cwnd reduced again inside the recovery period: below ",
                     Beta(in),
                     " of the cwnd before it when the period ended")));
  }
}

namespace {

// RFC 9002 section 7.6.1: kPersistentCongestionThreshold and
// kGranularity (section 6.1.2). The peer's max_ack_delay is no part of a
// qlog's recovery events: RFC 9000 section 18.2's default stands in.
constexpr int64_t kPersistentCongestionThreshold = 3;
constexpr int64_t kGranularityUs = 1000;
constexpr int64_t kDefaultMaxAckDelayUs = 25'000;
// Probes a PTO sends (RFC 9002 section 6.2.4): what may be acked when
// everything else sent in the silence was lost.
constexpr uint64_t kPtoProbeDatagrams = 2;

// Whether ACK i declares persistent congestion (RFC 9002 section 7.6.2):
// an RTT sample before, then no ACK for longer than the persistent
// congestion duration while data was in flight, and ACK i declares loss
// while acknowledging no more than the probes, so every packet sent in the
// silence but those was lost.
bool DeclaresPersistentCongestion(const RuleInputs& in, size_t i) {
  const ConformanceAck& a = in.acks[i];
  if (i == 0 || !a.congestion_event) return false;
  const ConformanceAck& prev = in.acks[i - 1];
  if (prev.srtt_us <= 0 || prev.flight_before_bytes <= prev.bytes_acked) {
    return false;
  }
  const int64_t duration_us =
      (prev.srtt_us + std::max(4 * prev.rttvar_us, kGranularityUs) +
       kDefaultMaxAckDelayUs) *
      kPersistentCongestionThreshold;
  return a.time_us - prev.time_us > duration_us &&
         a.bytes_acked <= kPtoProbeDatagrams * MaxDatagramBound(in, a);
}

}  // namespace

void CheckPersistentCongestion(const RuleInputs& in,
                               std::vector<ConformanceViolation>* out) {
  // TCP's retransmission timeout (RFC 5681 section 3.1) is not told apart
  // from a fast retransmit reliably enough from a capture to judge the
  // loss window; the rule is QUIC's.
  if (!IsQuic(in)) return;
  for (size_t i = 0; i < in.acks.size(); ++i) {
    if (!DeclaresPersistentCongestion(in, i)) continue;
    const ConformanceAck& a = in.acks[i];
    // The collapse is at this ACK or a step logged in the same srtt.
    std::optional<uint64_t> lowest;
    for (size_t j = i;
         j < in.acks.size() && in.acks[j].time_us <= a.time_us + RttOf(a, true);
         ++j) {
      const std::optional<uint64_t>& after = in.regimes[j].after;
      if (after && (!lowest || *after < *lowest)) lowest = after;
    }
    if (!lowest) continue;
    // kMinimumWindow = 2 * max_datagram_size (RFC 9002 sections 7.2,
    // 7.6.2), with a datagram for the log's rounding.
    const uint64_t minimum = 2 * MaxDatagramBound(in, a);
    if (*lowest <= minimum + a.mss_bytes) continue;
    out->push_back(Make(kRulePersistentCongestion, "RFC 9002 section 7.6.2",
                        in.acks[i - 1], a, 2, minimum, *lowest,
                        "cwnd not reduced to the minimum window after "
                        "persistent congestion"));
  }
}

namespace {

// RFC 9438 section 4.2 (C, in segments per second cubed) and section 4.3
// (alpha_cubic = 3 (1 - beta) / (1 + beta), about 0.53 for beta = 0.7).
constexpr double kCubicC = 0.4;
constexpr double kAlphaCubic = 3 * (1 - kBetaCubic) / (1 + kBetaCubic);

// W_cubic(t) = C (t - K)^3 + W_max, K = cbrt((W_max - cwnd_epoch) / C)
// (RFC 9438 section 4.2, equations 1-2), in bytes for segments of `mss`.
double WCubicBytes(double w_max, double epoch, double mss, double t_s) {
  const double k_s = std::cbrt(std::max(0.0, w_max - epoch) / mss / kCubicC);
  return kCubicC * std::pow(t_s - k_s, 3) * mss + w_max;
}

// The first step after the reduction `step` outside the recovery period
// and slow start, before the next congestion event: where congestion
// avoidance begins.
std::optional<size_t> CongestionAvoidanceStart(const RuleInputs& in,
                                               size_t step) {
  for (size_t j = step + 1; j < in.acks.size(); ++j) {
    if (in.acks[j].congestion_event) return std::nullopt;
    const StepRegime& r = in.regimes[j];
    if (r.before && !r.in_recovery && !r.slow_start) return j;
  }
  return std::nullopt;
}

// The congestion-avoidance steps after the reduction `step` of event `e`,
// up to the next event, against RFC 9438's bound: cwnd never passes its
// target, W_cubic(t + RTT) (section 4.2; the 1.5 cwnd clamp only lowers
// it), or the Reno-friendly W_est when that is higher (section 4.3). t is
// taken from the event, not from the later start of congestion avoidance,
// and W_max both as it was and as fast convergence lowers it (section
// 4.7): both only raise the bound, so a stack's choice cannot trip it.
void CheckCubicEpoch(const RuleInputs& in, size_t e, size_t step,
                     std::vector<ConformanceViolation>* out) {
  const ConformanceAck& a = in.acks[e];
  const double mss = static_cast<double>(MaxDatagramBound(in, a));
  const double w_max = static_cast<double>(CwndAtEvent(in, e, step));
  const double epoch = static_cast<double>(*in.regimes[step].after);
  // cwnd_epoch is the cwnd where congestion avoidance begins (RFC 9438
  // section 4.2), higher than the reduction's when the sender slow-started
  // back to ssthresh first; the higher epoch only raises the bound.
  const std::optional<size_t> ca = CongestionAvoidanceStart(in, step);
  const double epoch_ca =
      ca ? std::max(epoch, static_cast<double>(*in.regimes[*ca].before))
         : epoch;
  const double w_max_converged = w_max * (1 + kBetaCubic) / 2;
  double w_est = epoch;
  for (size_t j = step + 1; j < in.acks.size() && !in.acks[j].congestion_event;
       ++j) {
    const ConformanceAck& b = in.acks[j];
    const StepRegime& r = in.regimes[j];
    if (!r.before || !r.after || *r.before == 0) continue;
    // A rise on spurious evidence restores an earlier state (an undo,
    // FindUndoneEvents()): the epoch is over.
    if (RisesOnSpuriousEvidence(in.acks, j)) break;
    // alpha_cubic until W_est reaches the cwnd before the event, then 1.
    w_est += (w_est >= w_max ? 1.0 : kAlphaCubic) * mss *
             static_cast<double>(b.bytes_acked) / *r.before;
    if (r.slow_start) continue;
    const double t_s = (b.time_us - a.time_us + RttOf(b, true)) / 1e6;
    const double bound =
        std::max({WCubicBytes(w_max, epoch, mss, t_s),
                  WCubicBytes(w_max_converged, epoch, mss, t_s),
                  WCubicBytes(w_max, epoch_ca, mss, t_s),
                  WCubicBytes(w_max_converged, epoch_ca, mss, t_s), w_est}) +
        2 * mss;
    if (*r.after <= bound) continue;
    out->push_back(Make(kRuleCubicGrowth, "RFC 9438 sections 4.2-4.3", b, b, 1,
                        static_cast<uint64_t>(bound), *r.after,
                        "cwnd above max(W_cubic(t + RTT), W_est) plus two "
                        "segments, t from the congestion event"));
  }
}

// Fills `target` from congestion avoidance's first step `ca` to the next
// congestion event with the larger of W_cubic(t) (`w_max`, `epoch`, t from
// `ca`) and W_est, growing by alpha_cubic from `epoch`.
void FillCubicTargets(const RuleInputs& in, size_t ca, double w_max,
                      double epoch, double mss, std::vector<double>* target) {
  double w_est = epoch;
  for (size_t j = ca; j < in.acks.size() && !in.acks[j].congestion_event; ++j) {
    const StepRegime& r = in.regimes[j];
    if (!r.before || *r.before == 0) continue;
    const double t_s = (in.acks[j].time_us - in.acks[ca].time_us) / 1e6;
    (*target)[j] = std::max(WCubicBytes(w_max, epoch, mss, t_s), w_est);
    w_est += kAlphaCubic * mss * static_cast<double>(in.acks[j].bytes_acked) /
             *r.before;
  }
}

// Per step, the lowest target a conformant CUBIC could grow toward
// (RFC 9438 sections 4.2-4.3), 0 where none is known (after a timeout):
// the larger of W_cubic(t) and W_est, each at its lowest over the stack's
// choices. After a loss reduction: W_max as fast convergence lowers it
// (section 4.7), cwnd_epoch the reduction's window (the lowest candidate,
// the largest K), t from the start of congestion avoidance (the latest
// start), and W_est growing by alpha_cubic from there. Before the first
// one (HyStart's exit, or ssthresh reached): no W_max above cwnd_epoch, so
// K = 0 and W_cubic(t) = cwnd_epoch + C t^3 (Linux bictcp_update() with
// last_max_cwnd <= cwnd).
std::vector<double> CubicLowestTargets(const RuleInputs& in) {
  std::vector<double> target(in.acks.size(), 0);
  for (size_t j = 0; j < in.acks.size() && !in.acks[j].congestion_event; ++j) {
    const StepRegime& r = in.regimes[j];
    if (!r.before || r.slow_start || r.in_recovery || r.settling) continue;
    const double epoch = static_cast<double>(*r.before);
    FillCubicTargets(in, j, epoch, epoch,
                     static_cast<double>(MaxDatagramBound(in, in.acks[j])),
                     &target);
    break;
  }
  for (size_t e = 0; e < in.acks.size(); ++e) {
    if (!IsLossReduction(in, in.acks[e]) || in.acks[e].timeout) continue;
    const std::optional<size_t> step = ReductionStep(in, e);
    if (!step || !in.regimes[*step].after) continue;
    const std::optional<size_t> ca = CongestionAvoidanceStart(in, *step);
    if (!ca) continue;
    FillCubicTargets(in, *ca, CwndAtEvent(in, e, *step) * (1 + kBetaCubic) / 2,
                     static_cast<double>(*in.regimes[*step].after),
                     static_cast<double>(MaxDatagramBound(in, in.acks[e])),
                     &target);
  }
  return target;
}

}  // namespace

void CheckCubicGrowth(const RuleInputs& in,
                      std::vector<ConformanceViolation>* out) {
  if (in.profile.family != ConformanceFamily::kCubic) return;
  for (size_t e = 0; e < in.acks.size(); ++e) {
    // After a timeout the sender slow-starts first (RFC 9438 section 4.8).
    if (!IsLossReduction(in, in.acks[e]) || in.acks[e].timeout) continue;
    const std::optional<size_t> step = ReductionStep(in, e);
    if (step && in.regimes[*step].after) CheckCubicEpoch(in, e, *step, out);
  }
}

void CheckCwndStalled(const RuleInputs& in,
                      std::vector<ConformanceViolation>* out) {
  std::vector<bool> breaks;
  const std::vector<AckedWindow> windows = AckedWindows(in, false, &breaks);
  // CUBIC holds cwnd while its target is not above it (RFC 9438 section
  // 4.2: near W_max, or above the curve after a Reno-friendly climb): a
  // stall counts only where even its lowest target demands growth (not
  // after a timeout: no target known).
  const bool cubic = in.profile.family == ConformanceFamily::kCubic;
  const std::vector<double> lowest_target =
      cubic ? CubicLowestTargets(in) : std::vector<double>();
  const auto demands_growth = [&](const AckedWindow& w) {
    return lowest_target.empty() ||
           lowest_target[w.last] >
               static_cast<double>(w.start_cwnd) + in.acks[w.first].mss_bytes;
  };
  int run = 0;
  for (size_t k = 0; k < windows.size(); ++k) {
    const AckedWindow& w = windows[k];
    if (breaks[k]) run = 0;
    run =
        (w.cwnd_limited && w.increase <= 0 && demands_growth(w)) ? run + 1 : 0;
    if (run < kStalledWindows) continue;
    const AckedWindow& first = windows[k + 1 - kStalledWindows];
    const ConformanceAck& a = in.acks[first.first];
    // RFC 9002 section 7.3.3 / RFC 5681 section 3.1: a cwnd-limited sender
    // in congestion avoidance grows by a datagram per window acked; CUBIC
    // toward its target.
    out->push_back(Make(kRuleCwndStalled,
                        cubic ? "RFC 9438 sections 4.2-4.3"
                              : (IsQuic(in) ? "RFC 9002 section 7.3.3"
                                            : "RFC 5681 section 3.1"),
                        a, in.acks[w.last], w.last - first.first + 1,
                        first.start_cwnd + a.mss_bytes, w.start_cwnd,
                        "no growth over four cwnd-limited windows of ACKs"));
    run = 0;
  }
}

namespace {

// The PRR bound over the steps of one TCP recovery from event `e` (RFC
// 6937 section 3, as Linux's tcp_cwnd_reduction(), net/ipv4/tcp_input.c,
// 6.18): cwnd = pipe + sndcnt, sndcnt = ceil(prr_delivered * ssthresh /
// RecoverFS) - prr_out while pipe > ssthresh, else at most ssthresh -
// pipe; at least one segment when nothing was sent yet. prr_out is not
// logged: the growth of the flight between ACKs is a lower bound of what
// was sent, so the bound is an upper one. Checked until the ACKs have
// delivered RecoverFS (the data outstanding at the loss: recovery is over,
// RFC 6582 section 3.2), another event, or the settling span ends.
void CheckPrrEpisode(const RuleInputs& in, size_t e,
                     std::vector<ConformanceViolation>* out) {
  const ConformanceAck& a = in.acks[e];
  const double recover_fs = static_cast<double>(CwndAtEvent(in, e, e));
  if (recover_fs <= 0) return;
  // A DCTCP CE reduction's ssthresh depends on its alpha: RecoverFS bounds
  // it from above.
  const bool dctcp_ce =
      a.ecn_event && in.profile.family == ConformanceFamily::kDctcp;
  const double ssthresh = dctcp_ce ? recover_fs : Beta(in) * recover_fs;
  const double mss = a.mss_bytes;
  double delivered = 0;
  double sent_lower = 0;
  double pipe_before = 0;  // Pipe after the previous step.
  const int64_t until_us = SettleUntilUs(in, e);
  for (size_t j = e; j < in.acks.size() && in.acks[j].time_us <= until_us;
       ++j) {
    const ConformanceAck& b = in.acks[j];
    if (j != e && (b.congestion_event || b.timeout)) return;
    const double flight = static_cast<double>(b.flight_before_bytes);
    if (j != e) sent_lower += std::max(0.0, flight - pipe_before);
    delivered += b.bytes_acked;
    const double pipe = std::max(0.0, flight - b.bytes_acked);
    pipe_before = pipe;
    const std::optional<uint64_t>& after = in.regimes[j].after;
    const double sndcnt =
        std::max(std::ceil(delivered * ssthresh / recover_fs) - sent_lower,
                 sent_lower > 0 ? 0.0 : mss);
    // Only a cwnd above what every loss marking allows is a violation: the
    // bound takes the largest pipe the capture admits (RACK with a raised
    // reordering window marks fewer holes lost than RFC 6675's DupThresh).
    const double pipe_max =
        std::max(pipe, static_cast<double>(b.pipe_max_after_bytes.value_or(0)));
    // A segment of slack: segment rounding and tcp_probe's alignment.
    const double bound = std::max(ssthresh, pipe_max + sndcnt) + mss;
    if (after && *after > bound) {
      out->push_back(Make(kRulePrrBound, "RFC 6937 section 3", b, b, 1,
                          static_cast<uint64_t>(bound), *after,
                          "cwnd in recovery above pipe + PRR's sndcnt (plus "
                          "a segment)"));
    }
    if (delivered >= recover_fs) return;
  }
}

}  // namespace

void CheckPrrBound(const RuleInputs& in,
                   std::vector<ConformanceViolation>* out) {
  if (IsQuic(in)) return;
  for (size_t e = 0; e < in.acks.size(); ++e) {
    if (in.acks[e].congestion_event && !in.acks[e].timeout) {
      CheckPrrEpisode(in, e, out);
    }
  }
}

namespace {

// RFC 8257 section 3.3: the gain g (Linux dctcp_shift_g = 4); alpha's
// initial value as Linux's default dctcp_alpha_on_init = 1024 / 1024
// (net/ipv4/tcp_dctcp.c, 6.18).
constexpr double kDctcpG = 1.0 / 16;
constexpr double kDctcpInitialAlpha = 1.0;

// Alpha in force at each step: alpha <- (1 - g) alpha + g F once per window
// of data, F the fraction of its bytes echoed CE (RFC 8257 section 3.3); a
// window ends when the bytes acked since it began reach what was in flight
// then (snd_una >= next_seq, Linux tcp_dctcp.c).
std::vector<double> DctcpAlphas(const RuleInputs& in) {
  std::vector<double> alphas(in.acks.size());
  double alpha = kDctcpInitialAlpha;
  uint64_t window = 0, acked = 0, ce = 0;
  for (size_t i = 0; i < in.acks.size(); ++i) {
    const ConformanceAck& a = in.acks[i];
    if (window == 0) {
      window = std::max<uint64_t>(
          {a.flight_before_bytes, in.regimes[i].before.value_or(0), 1});
    }
    acked += a.bytes_acked;
    ce += std::min(a.ce_bytes, a.bytes_acked);
    if (acked >= window) {
      alpha = (1 - kDctcpG) * alpha +
              kDctcpG * static_cast<double>(ce) / static_cast<double>(acked);
      window = acked = ce = 0;
    }
    alphas[i] = alpha;
  }
  return alphas;
}

}  // namespace

void CheckDctcpReduction(const RuleInputs& in,
                         std::vector<ConformanceViolation>* out) {
  if (in.profile.family != ConformanceFamily::kDctcp) return;
  const std::vector<double> alphas = DctcpAlphas(in);
  for (size_t e = 0; e < in.acks.size(); ++e) {
    const ConformanceAck& a = in.acks[e];
    if (!a.congestion_event || !a.ecn_event) continue;
    // cwnd <- cwnd (1 - alpha / 2), at most once per window (RFC 8257
    // section 3.3): the lowest cwnd over the window of data after the ECE.
    const uint64_t prior = CwndAtEvent(in, e, e);
    std::optional<uint64_t> lowest;
    uint64_t acked = 0;
    for (size_t j = e; j < in.acks.size() && acked < prior; ++j) {
      if (j != e && in.acks[j].congestion_event) break;
      acked += in.acks[j].bytes_acked;
      const std::optional<uint64_t>& after = in.regimes[j].after;
      if (after && (!lowest || *after < *lowest)) lowest = after;
    }
    if (!lowest || acked < prior) continue;
    const double expected = prior * (1 - alphas[e] / 2);
    // Alpha's windows start where the sender's may not: g of the cwnd,
    // and two segments of rounding.
    const double tolerance = kDctcpG * prior + 2.0 * a.mss_bytes;
    if (std::abs(*lowest - expected) <= tolerance) continue;
    out->push_back(
        Make(kRuleDctcpReduction, "RFC 8257 section 3.3", a, a, 1,
             static_cast<uint64_t>(expected), *lowest,
             *lowest < expected
                 ? "cwnd cut by more than alpha/2 in one window of data (more "
                   "than one reduction per window?)"
                 : "cwnd cut by less than alpha/2 on ECE"));
  }
}

}  // namespace ccreplay
