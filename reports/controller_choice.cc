#include "reports/controller_choice.h"

#include <algorithm>

#include "absl/strings/ascii.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "cc/congestion_controller.h"

namespace ccreplay {
namespace {

// The TCP Prague variants a flow may run: each version's module defaults;
// v0.5 with RTT scaling in force from the first round after slow start
// (prague_rtt_transition=0: the setting under which the simulator
// reproduces the May-2020 under-utilization, docs/experiments.md "Experiment
// 2"); and v0.5/v0.6 with prague_rtt_scaling=0, a module setting of those
// versions (v0.7 has only the RATE law, so its unscaled replay stays a
// counterfactual).
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
  // Linux's tcp_bbr.c (BBRv1); QUIC stacks' BBRs are their own.
  if (name == "bbr" && !quic) return {"bbr:linux"};
  if (name == "prague") return PragueCandidates();
  return {};
}

// Whether `claimed` has a spec equal to `wanted`.
bool Claims(const std::vector<std::string>& claimed,
            const ControllerSpec& wanted) {
  return std::any_of(claimed.begin(), claimed.end(), [&](const std::string& t) {
    absl::StatusOr<ControllerSpec> spec = ControllerSpec::Parse(t);
    return spec.ok() && *spec == wanted;
  });
}

// Each claimed Prague profile that scales, without scaling, unless that is
// replayed already. A spec that does not parse gets no counterfactual (its
// own replay reports the error).
void AddRttScalingOff(const std::vector<std::string>& claimed,
                      ControllerChoice& choice) {
  for (const std::string& text : claimed) {
    absl::StatusOr<ControllerSpec> spec = ControllerSpec::Parse(text);
    if (!spec.ok() || spec->family != "prague" || spec->Sets("rtt_scaling")) {
      continue;
    }
    // Every Prague profile takes rtt_scaling=.
    const std::string off = RttScalingOffSpec(*spec).value().ToString();
    const bool replayed =
        std::any_of(choice.controllers.begin(), choice.controllers.end(),
                    [&](const ReplayChoice& c) { return c.spec == off; });
    if (!replayed) {
      choice.controllers.push_back({off, ReplayRole::kRttScalingOff, text});
    }
  }
}

// For packets small enough that normalization matters: each claimed
// profile that takes normalize= and does not set it, with it on.
void AddNormalizationOn(const ControllerChoiceFacts& facts,
                        std::vector<std::string>& claimed,
                        ControllerChoice& choice) {
  if (facts.packet_bytes == 0 ||
      facts.packet_bytes > kNormalizationGapPacketBytes) {
    return;
  }
  // Linux CUBIC has no normalization option; the RFC profile, which
  // quicly's CUBIC follows, has (cc/README.section.md): it is a candidate
  // too, so that the comparison can run.
  if (Claims(claimed, ControllerSpec{"cubic", "linux", {}}) &&
      !Claims(claimed, ControllerSpec{"cubic", "", {}})) {
    claimed.push_back("cubic");
    choice.controllers.push_back({"cubic", ReplayRole::kClaimed, ""});
  }
  for (const std::string& text : claimed) {
    absl::StatusOr<ControllerSpec> spec = ControllerSpec::Parse(text);
    if (!spec.ok() || !spec->Takes("normalize") || spec->Sets("normalize")) {
      continue;
    }
    choice.controllers.push_back(
        {spec->With("normalize", absl::StrCat(kReferenceMtuBytes))
             .value()
             .ToString(),
         ReplayRole::kNormalizationOn, text});
  }
}

}  // namespace

absl::StatusOr<ControllerSpec> RttScalingOffSpec(const ControllerSpec& spec) {
  return spec.Without("transition").With("rtt_scaling", "none");
}

ControllerChoice ChooseControllers(const ControllerChoiceFacts& facts,
                                   const std::vector<std::string>& user_specs) {
  ControllerChoice choice;
  std::vector<std::string> claimed = user_specs;
  choice.named = true;
  if (!claimed.empty()) {
    choice.reason = absl::StrCat("controllers given with --cc: ",
                                 absl::StrJoin(claimed, ", "));
  } else if (!facts.stack_profile_spec.empty()) {
    claimed = {facts.stack_profile_spec};
    choice.reason = facts.stack_profile_reason;
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
    choice.named = false;
    choice.reason =
        absl::StrCat("AccECN with ECT(1) data (", facts.ect1_packets,
                     " packets): an L4S sender (RFC 9331 section 4.1), "
                     "replayed as each TCP Prague profile and setting (",
                     absl::StrJoin(claimed, "; "), ")");
  } else {
    claimed = facts.quic
                  ? std::vector<std::string>{"reno", "cubic"}
                  : std::vector<std::string>{"reno:linux", "cubic:linux"};
    choice.named = false;
    choice.reason = absl::StrCat(
        facts.stack_name.empty() ? "no input names the controller"
                                 : absl::StrCat("no reference profile for \"",
                                                facts.stack_name, "\""),
        ": replayed as ", absl::StrJoin(claimed, " and "),
        ", the usual defaults");
  }
  for (const std::string& spec : claimed)
    choice.controllers.push_back({spec, ReplayRole::kClaimed, ""});
  AddRttScalingOff(claimed, choice);
  AddNormalizationOn(facts, claimed, choice);
  return choice;
}

}  // namespace ccreplay
