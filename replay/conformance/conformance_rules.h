// The rules of replay/conformance/conformance.h, one function each, over
// steps annotated with the regime the sender was in (ClassifySteps).
// Internal to the checker; tests call CheckConformance().
#ifndef CCREPLAY_REPLAY_CONFORMANCE_CONFORMANCE_RULES_H_
#define CCREPLAY_REPLAY_CONFORMANCE_CONFORMANCE_RULES_H_

#include <cstdint>
#include <optional>
#include <vector>

#include "absl/types/span.h"
#include "replay/conformance/conformance.h"

namespace ccreplay {

// What each step was, inferred from the captured cwnd and the events.
struct StepRegime {
  // The captured cwnd before and after the step (after: before the next).
  std::optional<uint64_t> before;
  std::optional<uint64_t> after;
  // Within a minimum RTT, less the log's clock step, after a congestion
  // event (QUIC's recovery period cannot end sooner: it ends when a packet
  // sent after it began is acked, RFC 9002 section 7.3.2), not counting the
  // event's own step.
  bool in_recovery = false;
  // Within two (QUIC) or four (TCP) smoothed RTTs after a congestion event,
  // or the event's own step: the reduction is still settling, growth rules
  // skip it.
  bool settling = false;
  // Below the slow-start threshold inferred from the last reduction.
  bool slow_start = true;
};

struct RuleInputs {
  absl::Span<const ConformanceAck> acks;
  std::vector<StepRegime> regimes;  // One per ack.
  ConformanceProfile profile;
  std::optional<uint64_t> initial_cwnd_bytes;  // CheckConformance()'s.
};

std::vector<StepRegime> ClassifySteps(absl::Span<const ConformanceAck> acks,
                                      ConformanceTransport transport);

// A congestion event the sender undid: within the event's settling span,
// on the ACK after one with spurious evidence, the captured cwnd came back
// to at least what it was before the event (Linux tcp_undo_cwnd_reduction()
// restores max(cwnd, prior_cwnd) on D-SACK or timestamp evidence of a
// spurious retransmission, net/ipv4/tcp_input.c, 6.18; RFC 9438 section
// 4.9 and RFC 4015 allow it; ngtcp2 when a packet it declared lost is
// acknowledged, the QUIC timeline's spurious evidence). The rules treat
// such an event as never declared and skip the steps from it to the
// restoring one. QUIC: also a step with spurious evidence after which cwnd
// rose, as {step, step}: a restore whose event the log cannot name.
struct UndoneEvent {
  size_t event = 0;    // The ACK that declared it.
  size_t restore = 0;  // The first ACK whose cwnd-before is restored.
};
// Whether cwnd rose after step `j`, an ACK with spurious evidence: a
// restore (an undo), not growth.
bool RisesOnSpuriousEvidence(absl::Span<const ConformanceAck> acks, size_t j);

std::vector<UndoneEvent> FindUndoneEvents(absl::Span<const ConformanceAck> acks,
                                          ConformanceTransport transport);

// Each appends its violations (ungrouped; CheckConformance groups them).
void CheckInitialWindow(const RuleInputs& in,
                        std::vector<ConformanceViolation>* out);
void CheckSlowStartIncrease(const RuleInputs& in,
                            std::vector<ConformanceViolation>* out);
void CheckCongestionAvoidanceIncrease(const RuleInputs& in,
                                      std::vector<ConformanceViolation>* out);
void CheckCwndStalled(const RuleInputs& in,
                      std::vector<ConformanceViolation>* out);
void CheckReduction(const RuleInputs& in,
                    std::vector<ConformanceViolation>* out);
void CheckIncreaseInRecovery(const RuleInputs& in,
                             std::vector<ConformanceViolation>* out);
void CheckFlightAboveCwnd(const RuleInputs& in,
                          std::vector<ConformanceViolation>* out);
void CheckIncreaseNotCwndLimited(const RuleInputs& in,
                                 std::vector<ConformanceViolation>* out);
void CheckSecondReduction(const RuleInputs& in,
                          std::vector<ConformanceViolation>* out);
void CheckPersistentCongestion(const RuleInputs& in,
                               std::vector<ConformanceViolation>* out);
void CheckCubicGrowth(const RuleInputs& in,
                      std::vector<ConformanceViolation>* out);
void CheckPrrBound(const RuleInputs& in,
                   std::vector<ConformanceViolation>* out);
void CheckDctcpReduction(const RuleInputs& in,
                         std::vector<ConformanceViolation>* out);

}  // namespace ccreplay

#endif  // CCREPLAY_REPLAY_CONFORMANCE_CONFORMANCE_RULES_H_
