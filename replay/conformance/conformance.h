// A per-ACK conformance check of a sender's captured congestion window
// against the rules of the controller family it claims: RFC 9002 section 7
// (QUIC), RFC 5681 / RFC 6928 / RFC 3465 / RFC 6937 (TCP), RFC 9438
// (CUBIC's reduction, W_cubic, W_est and growth clamp), RFC 8257 (DCTCP).
// Each rule is one small function over the
// ACK steps (conformance_rules.cc); this file holds the input, the result
// and the table of deviations a stack documents.
//
// A step is one ACK: the captured cwnd just before it, what it delivered,
// the flight before it, and whether a congestion event (loss, CE) was
// declared while it was processed. The cwnd after step i is the cwnd
// before step i + 1.
#ifndef CCREPLAY_REPLAY_CONFORMANCE_CONFORMANCE_H_
#define CCREPLAY_REPLAY_CONFORMANCE_CONFORMANCE_H_

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "absl/strings/string_view.h"
#include "absl/types/span.h"

namespace ccreplay {

struct ConformanceAck {
  int64_t time_us = 0;
  uint64_t bytes_acked = 0;  // Newly acknowledged (or SACKed).
  uint64_t packets_acked = 0;
  uint64_t flight_before_bytes = 0;
  uint32_t mss_bytes = 0;  // Max datagram size (QUIC) or SMSS (TCP).
  int64_t min_rtt_us = 0;
  int64_t srtt_us = 0;
  int64_t rttvar_us = 0;  // RFC 9002 section 5.3 / RFC 6298; 0: unknown.
  // The sender was cwnd-limited before this ACK (replay/ack_timeline.h).
  bool cwnd_limited = false;
  // The captured cwnd just before this ACK; nullopt when none yet.
  std::optional<uint64_t> cwnd_before_bytes;
  // The ssthresh the sender logged with that cwnd (a qlog's), or
  // kNoSsthreshBytes while unset; nullopt when the log does not show it,
  // and the rules infer it from the window recovery left.
  std::optional<uint64_t> ssthresh_before_bytes;
  // The highest cwnd logged between this ACK and the next (a log may show
  // growth and a reduction in between); nullopt when not known.
  std::optional<uint64_t> cwnd_peak_after_bytes;
  // A new congestion event (loss or CE) was declared while this ACK was
  // processed; `timeout` when by a retransmission timeout.
  bool congestion_event = false;
  bool timeout = false;
  // QUIC: with congestion_event, the packets sent before it was declared
  // (a packet of send order >= this was sent in its recovery period); and
  // the send order of the newest packet this step acknowledged. nullopt
  // for TCP.
  std::optional<uint64_t> event_send_order;
  std::optional<uint64_t> newest_send_order;
  // The congestion event was ECN feedback (ECE, a CE count increase), not
  // a loss.
  bool ecn_event = false;
  // Bytes this ACK acknowledged that the receiver echoed as CE-marked
  // (every byte of a DCTCP ECE ACK, RFC 8257 section 3.2; CE packets times
  // the MSS under AccECN or QUIC).
  uint64_t ce_bytes = 0;
  // The ACK showed a retransmission was spurious (a D-SACK, RFC 2883, or
  // the timestamp echo of the original, RFC 3522): what lets a TCP sender
  // undo a reduction.
  bool spurious_evidence = false;
  // TCP: the largest pipe after this ACK that any loss marking gives,
  // outstanding minus SACKed (Linux tcp_packets_in_flight() =
  // packets_out - sacked_out - lost_out + retrans_out, with lost_out >=
  // retrans_out as a retransmitted segment stays marked lost,
  // net/ipv4/tcp_output.c / include/net/tcp.h, 6.18). RFC 6675's IsLost
  // (DupThresh 3) and RFC 8985's RACK mark different holes lost: with its
  // reordering window raised, RACK marks fewer, and a sender's pipe is then
  // above RFC 6675's. nullopt when not known.
  std::optional<uint64_t> pipe_max_after_bytes;
};

enum class ConformanceTransport { kQuic, kTcp };
enum class ConformanceFamily { kReno, kCubic, kDctcp };

struct ConformanceProfile {
  ConformanceTransport transport = ConformanceTransport::kQuic;
  ConformanceFamily family = ConformanceFamily::kReno;
  // The stack whose documented deviations apply ("ngtcp2", "linux");
  // empty: none known, every departure is a violation.
  std::string stack;
};

// The rule identifiers, as reports and JSON spell them.
inline constexpr absl::string_view kRuleInitialWindow = "initial_window";
inline constexpr absl::string_view kRuleSlowStartIncrease =
    "slow_start_increase";
inline constexpr absl::string_view kRuleCongestionAvoidanceIncrease =
    "congestion_avoidance_increase";
inline constexpr absl::string_view kRuleReduction = "reduction";
inline constexpr absl::string_view kRuleIncreaseInRecovery =
    "increase_in_recovery";
inline constexpr absl::string_view kRuleFlightAboveCwnd = "flight_above_cwnd";
inline constexpr absl::string_view kRuleIncreaseNotCwndLimited =
    "increase_not_cwnd_limited";
inline constexpr absl::string_view kRuleCwndStalled = "cwnd_stalled";
inline constexpr absl::string_view kRuleSecondReduction =
    "second_reduction_in_recovery";
inline constexpr absl::string_view kRulePersistentCongestion =
    "persistent_congestion";
inline constexpr absl::string_view kRuleCubicGrowth = "cubic_growth";
inline constexpr absl::string_view kRulePrrBound = "prr_bound";
inline constexpr absl::string_view kRuleDctcpReduction = "dctcp_reduction";

// One group of consecutive steps that break the same rule.
struct ConformanceViolation {
  std::string rule;
  std::string rfc_section;  // e.g. "RFC 9002 section 7.3.1"
  int64_t start_us = 0;
  int64_t end_us = 0;
  uint64_t acks = 0;
  // At the worst step of the group: what the rule allows (a bound) and
  // what the captured cwnd showed, both in bytes.
  uint64_t expected_bytes = 0;
  uint64_t seen_bytes = 0;
  std::string description;  // What the bound is, in words.
  // Set when the stack documents this behaviour: not a violation.
  std::string documented_deviation;
};

struct ConformanceResult {
  uint64_t acks_checked = 0;  // Steps with a captured cwnd before and after.
  std::vector<ConformanceViolation> violations;  // By start time.
  // Groups that are not documented deviations.
  uint64_t violation_count() const;
};

// A behaviour a stack documents that departs from the RFC rule `rule`.
struct KnownDeviation {
  absl::string_view stack;
  absl::string_view rule;
  absl::string_view description;  // With the stack's file cited.
};
// Every documented deviation, keyed by stack and rule.
absl::Span<const KnownDeviation> KnownDeviations();

// Runs every rule of `profile` over the steps (ascending by time).
// `initial_cwnd_bytes`: the first cwnd the sender logged, before any ACK
// (a QUIC timeline starts after the handshake's ACKs grew it); nullopt:
// the first step's.
ConformanceResult CheckConformance(
    absl::Span<const ConformanceAck> acks, const ConformanceProfile& profile,
    std::optional<uint64_t> initial_cwnd_bytes = std::nullopt);

absl::string_view ConformanceFamilyName(ConformanceFamily family);
absl::string_view ConformanceTransportName(ConformanceTransport transport);

}  // namespace ccreplay

#endif  // CCREPLAY_REPLAY_CONFORMANCE_CONFORMANCE_H_
