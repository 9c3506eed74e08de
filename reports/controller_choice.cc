#include "reports/controller_choice.h"

#include <algorithm>

#include "absl/strings/ascii.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_split.h"
#include "cc/congestion_controller.h"

namespace ccreplay {
namespace {

// Profiles that take `normalize=` (cc/README.section.md). The profile is
// the spec up to its first option: "cubic:mss=1280" is "cubic".
bool TakesNormalize(const std::string& spec) {
  std::string profile = spec.substr(0, spec.find(','));
  const size_t colon = profile.find(':');
  if (colon != std::string::npos &&
      absl::StrContains(profile.substr(colon), "=")) {
    profile = profile.substr(0, colon);
  }
  for (const char* name :
       {"reno", "reno:linux", "cubic", "prague:v05", "prague:v06"}) {
    if (profile == name) return true;
  }
  return false;
}

// The TCP Prague variants a flow may run: each version's module defaults;
// v0.5 with RTT scaling in force from the first round after slow start
// (prague_rtt_transition=0: the setting under which the simulator
// reproduces the May-2020 under-utilization, reference/prague-and-dctcp.md
// section 6.2, README "Experiment 2"); and v0.5/v0.6 with
// prague_rtt_scaling=0, a module setting of those versions (v0.7 has only
// the RATE law, so its unscaled replay stays a counterfactual).
std::vector<std::string> PragueCandidates() {
  return {"prague:v05",
          "prague:v05,transition=0",
          "prague:v05,rtt_scaling=none",
          "prague:v06",
          "prague:v06,rtt_scaling=none",
          "prague:v07"};
}

std::vector<std::string> ClaimedFromName(const std::string& raw, bool quic) {
  const std::string name = absl::AsciiStrToLower(raw);
  // Linux names its modules tcp_<name>; ss prints the bare name. QUIC
  // stacks implement the RFC algorithms, so the RFC profiles fit them.
  if (name == "reno" || name == "newreno")
    return {quic ? "reno" : "reno:linux"};
  if (name == "cubic") return {quic ? "cubic" : "cubic:linux"};
  if (name == "dctcp") return {"dctcp"};
  if (name == "prague") return PragueCandidates();
  return {};
}

}  // namespace

std::string WithOption(const std::string& spec, const std::string& option) {
  return absl::StrCat(spec, absl::StrContains(spec, ':') ? "," : ":", option);
}

std::string RttScalingOffSpec(const std::string& spec) {
  std::vector<std::string> kept;
  for (absl::string_view part : absl::StrSplit(spec, ',')) {
    if (!absl::StartsWith(part, "transition=")) kept.emplace_back(part);
  }
  return WithOption(absl::StrJoin(kept, ","), "rtt_scaling=none");
}

ControllerChoice ChooseControllers(const ControllerChoiceFacts& facts,
                                   const std::vector<std::string>& user_specs) {
  ControllerChoice choice;
  std::vector<std::string> claimed = user_specs;
  if (!claimed.empty()) {
    choice.reason = absl::StrCat("controllers given with --cc: ",
                                 absl::StrJoin(claimed, ", "));
  } else if (!(claimed = ClaimedFromName(facts.stack_name, facts.quic))
                  .empty()) {
    choice.reason =
        absl::StrCat("the stack names its controller \"", facts.stack_name,
                     "\": replayed as ", absl::StrJoin(claimed, ", "));
  } else if (facts.ecn == EcnMode::kAccEcn &&
             facts.ect1_packets > facts.ect0_packets) {
    // ECT(1) data with AccECN feedback is an L4S sender (RFC 9331 section
    // 4.1); among Linux's, TCP Prague. Its version and module settings
    // are unknown: each candidate.
    claimed = PragueCandidates();
    choice.reason =
        absl::StrCat("AccECN with ECT(1) data (", facts.ect1_packets,
                     " packets): an L4S sender (RFC 9331 section 4.1), "
                     "replayed as each TCP Prague profile and setting (",
                     absl::StrJoin(claimed, "; "), ")");
  } else {
    claimed = facts.quic
                  ? std::vector<std::string>{"reno", "cubic"}
                  : std::vector<std::string>{"reno:linux", "cubic:linux"};
    choice.reason = absl::StrCat(
        facts.stack_name.empty() ? "no input names the controller"
                                 : absl::StrCat("no reference profile for \"",
                                                facts.stack_name, "\""),
        ": replayed as ", absl::StrJoin(claimed, " and "),
        ", the usual defaults");
  }
  for (const std::string& spec : claimed)
    choice.controllers.push_back({spec, ReplayRole::kClaimed, ""});
  for (const std::string& spec : claimed) {
    if (!absl::StartsWith(spec, "prague") ||
        absl::StrContains(spec, "rtt_scaling")) {
      continue;
    }
    const std::string off = RttScalingOffSpec(spec);
    const bool replayed =
        std::any_of(choice.controllers.begin(), choice.controllers.end(),
                    [&](const ReplayChoice& c) { return c.spec == off; });
    if (!replayed) {
      choice.controllers.push_back({off, ReplayRole::kRttScalingOff, spec});
    }
  }
  if (facts.packet_bytes > 0 &&
      facts.packet_bytes <= kNormalizationGapPacketBytes) {
    // Linux CUBIC has no normalization option; the RFC profile, which
    // quicly's CUBIC follows, has (cc/README.section.md): it is a candidate
    // too, so that the comparison can run.
    if (std::find(claimed.begin(), claimed.end(), "cubic:linux") !=
            claimed.end() &&
        std::find(claimed.begin(), claimed.end(), "cubic") == claimed.end()) {
      claimed.push_back("cubic");
      choice.controllers.push_back({"cubic", ReplayRole::kClaimed, ""});
    }
    for (const std::string& spec : claimed) {
      if (!TakesNormalize(spec) || absl::StrContains(spec, "normalize"))
        continue;
      choice.controllers.push_back(
          {WithOption(spec, absl::StrCat("normalize=", kReferenceMtuBytes)),
           ReplayRole::kNormalizationOn, spec});
    }
  }
  return choice;
}

}  // namespace ccreplay
