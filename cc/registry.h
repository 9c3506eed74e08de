// Controllers by name: the one string a user types.
//
//   spec    := name [":" item ("," item)*]
//   item    := variant | option "=" value
// e.g. `reno`, `reno:linux`, `cubic:mss=1280,normalize=off`, `dctcp`,
// `prague:v05,rtt_scaling=none`, `prague:v06,target=10ms,transition=100`.
// A variant (a bare word) picks the profile and may only come first.
#ifndef CCREPLAY_CC_REGISTRY_H_
#define CCREPLAY_CC_REGISTRY_H_

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "cc/congestion_controller.h"

namespace ccreplay {

struct ControllerProfile {
  std::string spec;         // e.g. "prague:v05"
  std::string description;  // one line
  std::string source;       // RFC section or kernel file and version
  // Option name and its default, as typed in a spec.
  std::vector<std::pair<std::string, std::string>> options;
};

// Every profile MakeController() accepts, in a stable order.
const std::vector<ControllerProfile>& ListControllerProfiles();

// A spec, typed: the profile (family and variant) and the options the spec
// itself sets, in the order it sets them. "prague:v05,rtt_scaling=none" is
// {"prague", "v05", {{"rtt_scaling", "none"}}}; "reno,mss=1280" is
// {"reno", "", {{"mss", "1280"}}}.
struct ControllerSpec {
  std::string family;   // "reno", "cubic", "dctcp", "prague".
  std::string variant;  // "linux", "v05", ...; empty for the plain profile.
  std::vector<std::pair<std::string, std::string>> options;

  // Parses the grammar above. InvalidArgument, naming the bad part, for an
  // unknown profile, an option the profile does not take, an item without
  // `=`, or an empty name, item or value. Option values are checked by
  // MakeController(), which knows what each means.
  static absl::StatusOr<ControllerSpec> Parse(absl::string_view text);

  // The profile's name as ListControllerProfiles() spells it: "prague:v05".
  std::string ProfileName() const;
  // Whether this profile has `option` in its option table (false for an
  // unknown profile).
  bool Takes(absl::string_view option) const;
  // Whether the spec itself sets `option`.
  bool Sets(absl::string_view option) const;
  // The value the spec sets, else the profile's default; nullopt when the
  // profile does not take `option`.
  std::optional<std::string> Value(absl::string_view option) const;
  // A copy with `option` set to `value` (replacing a value already set, in
  // its place). InvalidArgument when the profile does not take `option`.
  absl::StatusOr<ControllerSpec> With(absl::string_view option,
                                      absl::string_view value) const;
  // A copy that leaves `option` at the profile's default.
  ControllerSpec Without(absl::string_view option) const;
  // Canonical text that Parse() reads back to an equal spec: the profile
  // name, then the options joined by ',' after ':' (no variant) or ','
  // (variant): "reno:normalize=1462", "prague:v05,rtt_scaling=none".
  std::string ToString() const;

  // Equal when the profile and the options set are; the order of the
  // options does not matter.
  friend bool operator==(const ControllerSpec& a, const ControllerSpec& b);
  friend bool operator!=(const ControllerSpec& a, const ControllerSpec& b) {
    return !(a == b);
  }
};

// Builds the controller a spec names. Unknown profiles or options, or bad
// values give InvalidArgument listing what exists.
absl::StatusOr<std::unique_ptr<CongestionController>> MakeController(
    const ControllerSpec& spec);
// Parses `spec` and forwards.
absl::StatusOr<std::unique_ptr<CongestionController>> MakeController(
    absl::string_view spec);

// The MSS a spec sets itself with `mss=` (nullopt when it leaves the
// default), checked as MakeController() checks it.
absl::StatusOr<std::optional<uint32_t>> SpecMssBytes(
    const ControllerSpec& spec);

// Splits a --cc list into specs. Commas separate specs and also a spec's
// items, so an item `option=value` without ':' continues the spec before
// it: "cubic,prague:v05,rtt_scaling=none,reno:linux" is three specs.
// InvalidArgument for an empty list or item, or an option with no spec
// before it. The specs themselves are checked by ControllerSpec::Parse().
absl::StatusOr<std::vector<std::string>> ParseControllerList(
    absl::string_view text);

}  // namespace ccreplay

#endif  // CCREPLAY_CC_REGISTRY_H_
