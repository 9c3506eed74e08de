// Which reference controllers `diagnose` replays a flow through: the one
// the flow claims to run (what the stack named, else what its ECN use
// implies), and the counterfactuals that test a cause (Prague without RTT
// scaling, MTU normalization on for packets smaller than the reference).
#ifndef CCREPLAY_REPORTS_CONTROLLER_CHOICE_H_
#define CCREPLAY_REPORTS_CONTROLLER_CHOICE_H_

#include <cstdint>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "cc/registry.h"
#include "parsers/flow_table.h"

namespace ccreplay {

enum class ReplayRole {
  kClaimed,          // What the flow (probably) runs.
  kRttScalingOff,    // A claimed Prague profile with rtt_scaling=none,
                     // when that is not itself a candidate.
  kNormalizationOn,  // A claimed controller with normalize=1462.
};

struct ReplayChoice {
  std::string spec;
  ReplayRole role = ReplayRole::kClaimed;
  // For counterfactuals: the claimed spec it varies.
  std::string base_spec;
};

struct ControllerChoiceFacts {
  // The controller the stack named (ss `cubic`, a lab bundle's meta.json, ...);
  // empty when no input said.
  std::string stack_name;
  // The stack's own profile when the log names a stack that has one
  // (replay/stack_profile.h): replayed as the claimed controller, before
  // the stack's name is looked at; empty spec when none.
  std::string stack_profile_spec;
  std::string stack_profile_reason;
  bool quic = false;
  EcnMode ecn = EcnMode::kNone;
  uint64_t ect0_packets = 0;
  uint64_t ect1_packets = 0;
  // The flow's largest data packet payload (TCP MSS, QUIC UDP payload).
  uint32_t packet_bytes = 0;
};

// Packets at most this large get the normalization counterfactual: below
// it the growth gap to the 1462-byte reference is over 4 %.
inline constexpr uint32_t kNormalizationGapPacketBytes = 1400;

struct ControllerChoice {
  std::vector<ReplayChoice> controllers;
  // An input named the claimed controllers (--cc or the stack's own
  // name); false when they are guesses (the usual defaults, or from the
  // ECN codepoints).
  bool named = false;
  // Why these, for "How this was computed".
  std::string reason;
};

// `user_specs` (from --cc), when not empty, replace the claimed set; the
// counterfactuals are added either way.
ControllerChoice ChooseControllers(const ControllerChoiceFacts& facts,
                                   const std::vector<std::string>& user_specs);

// The spec without RTT scaling: rtt_scaling=none, and no transition=
// (without scaling the transition changes nothing): "prague:v05,
// transition=0" -> "prague:v05,rtt_scaling=none". InvalidArgument for a
// profile without rtt_scaling= (not Prague).
absl::StatusOr<ControllerSpec> RttScalingOffSpec(const ControllerSpec& spec);

}  // namespace ccreplay

#endif  // CCREPLAY_REPORTS_CONTROLLER_CHOICE_H_
