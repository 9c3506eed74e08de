// The interface every diagnosis rule implements (one rule per file in
// reports/rules/, listed in reports/rules/registry.h): a kind, the inputs
// it needs, and a check that adds its finding, or says in a note why it
// did not fire (the report's "How this was computed").
#ifndef CCREPLAY_REPORTS_RULES_FINDING_RULE_H_
#define CCREPLAY_REPORTS_RULES_FINDING_RULE_H_

#include <string>
#include <vector>

#include "absl/strings/string_view.h"
#include "reports/evidence_quality.h"
#include "reports/report_model.h"
#include "reports/rules/rule_context.h"

namespace ccreplay {

// What a rule reads, beyond the timeline every rule has.
enum class RuleInput {
  kTimeline,  // The observed timeline and the path estimates only.
  kReplay,    // Also the replay (RuleContext::evidence, best).
  // Also a BDP of at least kMinBdpPackets packets: the rule compares cwnd
  // with the BDP, meaningless when the BDP is a packet or two.
  kReplayAndBdp,
};

// Fewer packets than this in a BDP make "below the BDP" meaningless.
inline constexpr double kMinBdpPackets = 4;

struct RuleOutput {
  std::vector<Finding> findings;
  std::vector<std::string> notes;  // Which checks ran, which could not.
};

class FindingRule {
 public:
  virtual ~FindingRule() = default;
  // The finding's kind, as in proto::Finding::kind.
  virtual absl::string_view kind() const = 0;
  virtual RuleInput input() const = 0;
  // What its findings rest on; the diagnosis holds them back, in one place
  // (TooWeakFor), when the flow's evidence does not meet it. The replay
  // rules compare the sender's congestion window (captured, or its flight
  // while cwnd-limited) with replays and the BDP; the timeline rules read
  // the limiter, the receive window and retransmissions.
  virtual EvidenceNeed evidence_need() const {
    return input() == RuleInput::kTimeline ? EvidenceNeed::kFlowLength
                                           : EvidenceNeed::kSenderWindow;
  }
  // Adds at most one finding to `out`; the rules that need the replay add
  // a note instead when they do not fire.
  virtual void Check(const RuleContext& context, RuleOutput* out) const = 0;
};

}  // namespace ccreplay

#endif  // CCREPLAY_REPORTS_RULES_FINDING_RULE_H_
