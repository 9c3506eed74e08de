// Named bottleneck profiles: the fifteen networks of quicly's
// t/simulator-plot.rb (NETWORKS; h2o/quicly @ 27ade866), so ccreplay's
// experiments run on the same paths.
#ifndef CCREPLAY_REPLAY_SIM_PATH_PROFILE_H_
#define CCREPLAY_REPLAY_SIM_PATH_PROFILE_H_

#include <cstdint>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"

namespace ccreplay {

struct PathProfile {
  std::string name;
  int64_t rate_bps = 0;     // bottleneck rate, bits per second
  int64_t base_rtt_us = 0;  // round-trip propagation delay
  // Buffer in seconds of the rate: capacity = floor(rate / 8 * buffer_s)
  // bytes of packet payload (no header overhead is modelled).
  double buffer_s = 0;

  uint64_t buffer_bytes() const {
    return static_cast<uint64_t>(static_cast<double>(rate_bps) / 8 * buffer_s);
  }
};

// All profiles, in the order of simulator-plot.rb.
const std::vector<PathProfile>& PathProfiles();

// NotFound listing the names when `name` is unknown (case-sensitive).
absl::StatusOr<PathProfile> FindPathProfile(absl::string_view name);

}  // namespace ccreplay

#endif  // CCREPLAY_REPLAY_SIM_PATH_PROFILE_H_
