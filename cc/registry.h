// Controllers by name: the one string a user types.
//
//   spec    := name [":" item ("," item)*]
//   item    := variant | option "=" value
// e.g. `reno`, `reno:linux`, `cubic:mss=1280,normalize=off`, `dctcp`,
// `prague:v05,rtt_scaling=none`, `prague:v06,target=10ms,transition=100`.
// A variant (a bare word) picks the profile and may only come first.
#ifndef CCREPLAY_CC_REGISTRY_H_
#define CCREPLAY_CC_REGISTRY_H_

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

// Builds the controller a spec names. Unknown names, variants, options or
// bad values give InvalidArgument listing what exists.
absl::StatusOr<std::unique_ptr<CongestionController>> MakeController(
    absl::string_view spec);

// The MSS a spec sets itself with `mss=` (nullopt when it leaves the
// default), checked as MakeController() checks it.
absl::StatusOr<std::optional<uint32_t>> SpecMssBytes(absl::string_view spec);

// Splits a --cc list into specs. Commas separate specs and also a spec's
// items, so an item `option=value` without ':' continues the spec before
// it: "cubic,prague:v05,rtt_scaling=none,reno:linux" is three specs.
// InvalidArgument for an empty list or item, or an option with no spec
// before it. The specs themselves are checked by MakeController().
absl::StatusOr<std::vector<std::string>> ParseControllerList(
    absl::string_view text);

}  // namespace ccreplay

#endif  // CCREPLAY_CC_REGISTRY_H_
