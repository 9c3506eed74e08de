#include "replay/sim/path_profile.h"

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"

namespace ccreplay {

const std::vector<PathProfile>& PathProfiles() {
  // quicly t/simulator-plot.rb NETWORKS (MASTER @ 27ade866, unchanged in
  // later versions): rtt -> -d, queue -> -q (seconds), bw -> -b. The
  // "@Office"/"@mall" queues are written there as max RTT - min RTT.
  static const auto* const kProfiles = new std::vector<PathProfile>{
      {"DSL", 30'000'000, 30'000, 0.05},
      {"Home_WiFi", 100'000'000, 25'000, 0.015},
      {"Public", 20'000'000, 40'000, 0.2},
      {"Corporate_WiFi", 500'000'000, 10'000, 0.02},
      {"LTE", 30'000'000, 60'000, 0.12},
      {"5G", 100'000'000, 40'000, 0.08},
      {"LEO", 50'000'000, 40'000, 0.08},
      {"GEO", 50'000'000, 600'000, 0.6},
      {"DoCoMo@Office", 140'000'000, 28'000, 0.217},
      {"au@Office", 440'000'000, 20'000, 0.233},
      {"WiFi@Office", 710'000'000, 4'000, 0.011},
      {"DoCoMo@mall", 38'000'000, 41'000, 0.300},
      {"congested", 1'000'000, 200'000, 0.4},
      {"bdp20", 1'000'000, 100'000, 0.1},
      {"bdp40", 2'000'000, 100'000, 0.1},
  };
  return *kProfiles;
}

absl::StatusOr<PathProfile> FindPathProfile(absl::string_view name) {
  std::vector<absl::string_view> names;
  for (const PathProfile& profile : PathProfiles()) {
    if (profile.name == name) return profile;
    names.push_back(profile.name);
  }
  return absl::NotFoundError(
      absl::StrCat("unknown path profile '", name,
                   "'; available: ", absl::StrJoin(names, ", ")));
}

}  // namespace ccreplay
