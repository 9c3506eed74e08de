#include "cc/registry.h"

#include <algorithm>
#include <cstdint>
#include <functional>

#include "absl/container/flat_hash_map.h"
#include "absl/status/status.h"
#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_split.h"
#include "absl/time/time.h"
#include "cc/cubic_sender.h"
#include "cc/linux_cubic.h"
#include "cc/linux_dctcp.h"
#include "cc/linux_reno.h"
#include "cc/prague_sender.h"
#include "cc/reno_sender.h"

namespace ccreplay {
namespace {

using OptionValues = absl::flat_hash_map<std::string, std::string>;
using Factory =
    std::function<absl::StatusOr<std::unique_ptr<CongestionController>>(
        const OptionValues&)>;

struct ProfileDef {
  ControllerProfile profile;
  Factory make;
};

absl::Status BadValue(absl::string_view option, absl::string_view value,
                      absl::string_view expected) {
  return absl::InvalidArgumentError(absl::StrCat("bad value '", value,
                                                 "' for option '", option,
                                                 "': expected ", expected));
}

absl::StatusOr<uint32_t> ParseCount(const OptionValues& values,
                                    absl::string_view name, uint32_t min) {
  const std::string& text = values.at(std::string(name));
  uint32_t value = 0;
  if (!absl::SimpleAtoi(text, &value) || value < min) {
    return BadValue(name, text, absl::StrCat("an integer >= ", min));
  }
  return value;
}

absl::StatusOr<ControllerOptions> ParseBase(const OptionValues& values) {
  ControllerOptions options;
  absl::StatusOr<uint32_t> mss = ParseCount(values, "mss", 1);
  if (!mss.ok()) return mss.status();
  options.mss_bytes = *mss;
  absl::StatusOr<uint32_t> iw = ParseCount(values, "iw", 1);
  if (!iw.ok()) return iw.status();
  options.initial_window_segments = *iw;
  auto it = values.find("normalize");
  if (it != values.end() && it->second != "off") {
    uint32_t reference = 0;
    if (!absl::SimpleAtoi(it->second, &reference) || reference == 0) {
      return BadValue("normalize", it->second,
                      "'off' or a reference size in bytes, e.g. 1462");
    }
    options.normalize_bytes = reference;
  }
  return options;
}

absl::StatusOr<int64_t> ParseDurationUs(const OptionValues& values,
                                        absl::string_view name) {
  const std::string& text = values.at(std::string(name));
  absl::Duration duration;
  if (!absl::ParseDuration(text, &duration) ||
      duration <= absl::ZeroDuration()) {
    return BadValue(name, text, "a positive duration such as 10ms or 400us");
  }
  return absl::ToInt64Microseconds(duration);
}

// Options every profile has, with their defaults.
std::vector<std::pair<std::string, std::string>> BaseOptions(bool normalize) {
  std::vector<std::pair<std::string, std::string>> options = {{"mss", "1448"},
                                                              {"iw", "10"}};
  if (normalize) options.push_back({"normalize", "off"});
  return options;
}

template <typename T>
absl::StatusOr<std::unique_ptr<CongestionController>> MakeSimple(
    const OptionValues& values) {
  absl::StatusOr<ControllerOptions> base = ParseBase(values);
  if (!base.ok()) return base.status();
  return std::make_unique<T>(*base);
}

ProfileDef PragueDef(PragueVersion version, absl::string_view spec,
                     absl::string_view description, absl::string_view source) {
  const PragueOptions defaults = DefaultPragueOptions(version);
  const bool v07 = version == PragueVersion::kV07;
  ControllerProfile profile{std::string(spec), std::string(description),
                            std::string(source), BaseOptions(!v07)};
  profile.options.push_back({"rtt_scaling", "rate"});
  profile.options.push_back(
      {"target", absl::StrCat(defaults.target_us / 1000, "ms")});
  profile.options.push_back(
      {"transition", absl::StrCat(defaults.transition_rounds)});
  Factory make = [version, v07](const OptionValues& values)
      -> absl::StatusOr<std::unique_ptr<CongestionController>> {
    PragueOptions options = DefaultPragueOptions(version);
    absl::StatusOr<ControllerOptions> base = ParseBase(values);
    if (!base.ok()) return base.status();
    options.base = *base;
    const std::string& scaling = values.at("rtt_scaling");
    const absl::flat_hash_map<std::string, RttScaling> kModes = {
        {"none", RttScaling::kNone},
        {"rate", RttScaling::kRate},
        {"scalable", RttScaling::kScalable},
        {"additive", RttScaling::kAdditive}};
    auto mode = kModes.find(scaling);
    if (mode == kModes.end() || (v07 && mode->second != RttScaling::kNone &&
                                 mode->second != RttScaling::kRate)) {
      return BadValue(
          "rtt_scaling", scaling,
          v07 ? "none or rate" : "none, rate, scalable or additive");
    }
    options.rtt_scaling = mode->second;
    absl::StatusOr<int64_t> target = ParseDurationUs(values, "target");
    if (!target.ok()) return target.status();
    options.target_us = *target;
    absl::StatusOr<uint32_t> transition = ParseCount(values, "transition", 0);
    if (!transition.ok()) return transition.status();
    options.transition_rounds = *transition;
    return std::make_unique<PragueSender>(options);
  };
  return {profile, make};
}

const std::vector<ProfileDef>& Profiles() {
  static const auto* const kProfiles = new std::vector<ProfileDef>{
      {{"reno", "Reno with RFC 5681 byte counting (+1 MSS per cwnd acked)",
        "RFC 5681 section 3, RFC 3465 section 2.1, RFC 3168 section 6.1.2",
        BaseOptions(true)},
       MakeSimple<RenoSender>},
      {{"reno:linux",
        "Linux Reno: segment counting as tcp_reno_cong_avoid(), what ss shows",
        "Linux 6.x net/ipv4/tcp_cong.c tcp_reno_cong_avoid/tcp_slow_start",
        BaseOptions(true)},
       MakeSimple<LinuxReno>},
      {{"cubic",
        "CUBIC as specified: W_cubic, K, Reno-friendly W_est, 1.5x clamp, "
        "fast convergence, beta 0.7, C 0.4",
        "RFC 9438 section 4", BaseOptions(true)},
       MakeSimple<CubicSender>},
      {{"cubic:linux",
        "Linux CUBIC: fixed-point cube root, HyStart (ACK train + delay), "
        "per-ACK TCP friendliness, beta 717/1024",
        "Linux 6.x net/ipv4/tcp_cubic.c (module version 2.3)",
        [] {
          auto options = BaseOptions(false);
          options.push_back({"hz", "1000"});
          options.push_back({"hystart", "1"});
          return options;
        }()},
       [](const OptionValues& values)
           -> absl::StatusOr<std::unique_ptr<CongestionController>> {
         LinuxCubicOptions options;
         absl::StatusOr<ControllerOptions> base = ParseBase(values);
         if (!base.ok()) return base.status();
         options.base = *base;
         absl::StatusOr<uint32_t> hz = ParseCount(values, "hz", 1);
         if (!hz.ok()) return hz.status();
         options.hz = *hz;
         const std::string& hystart = values.at("hystart");
         if (hystart != "0" && hystart != "1") {
           return BadValue("hystart", hystart, "0 or 1");
         }
         options.hystart = hystart == "1";
         return std::make_unique<LinuxCubic>(options);
       }},
      {{"dctcp",
        "DCTCP: alpha EWMA g=1/16 from 1, cut cwnd*alpha/2 once per window",
        "Linux net/ipv4/tcp_dctcp.c (torvalds/linux @ 01581a21), RFC 8257",
        BaseOptions(false)},
       MakeSimple<LinuxDctcp>},
      PragueDef(PragueVersion::kV05, "prague:v05",
                "TCP Prague 2020: T=10ms, 100 rounds, cwnd_cnt backlog",
                "L4STeam/l4steam.github.io @ 0125ddd7 tcp_prague.c "
                "(MODULE_VERSION 0.5)"),
      PragueDef(PragueVersion::kV06, "prague:v06",
                "TCP Prague 2020-2023: T=25ms, 500 rounds, cwnd_cnt backlog",
                "ij1/linux-accecn @ 06e9a045 net/ipv4/tcp_prague.c "
                "(MODULE_VERSION 0.6)"),
      PragueDef(PragueVersion::kV07, "prague:v07",
                "TCP Prague 2024: T=25ms, 4 rounds, frac_cwnd, alpha from 0",
                "L4STeam/linux @ 893e1479 net/ipv4/tcp_prague.c "
                "(MODULE_VERSION 0.7), window mode"),
  };
  return *kProfiles;
}

std::string ProfileNames() {
  std::vector<absl::string_view> names;
  for (const ProfileDef& def : Profiles()) names.push_back(def.profile.spec);
  return absl::StrJoin(names, ", ");
}

}  // namespace

const std::vector<ControllerProfile>& ListControllerProfiles() {
  static const auto* const kList = [] {
    auto* list = new std::vector<ControllerProfile>;
    for (const ProfileDef& def : Profiles()) list->push_back(def.profile);
    return list;
  }();
  return *kList;
}

namespace {

// A spec split into its profile and option values (defaults filled in).
struct ParsedSpec {
  const ProfileDef* def = nullptr;
  OptionValues values;
  std::vector<std::string> given;  // Option names the spec itself sets.
};

absl::StatusOr<ParsedSpec> ParseSpec(absl::string_view spec) {
  // "name", "name:version", "name,options" or "name:version,options".
  const size_t name_end = std::min(spec.find(':'), spec.find(','));
  const absl::string_view name = spec.substr(0, name_end);
  const absl::string_view rest =
      name_end == absl::string_view::npos ? "" : spec.substr(name_end + 1);
  std::vector<absl::string_view> items;
  if (!rest.empty()) items = absl::StrSplit(rest, ',');
  std::string profile_spec(name);
  size_t first_option = 0;
  const bool has_version =
      name_end != absl::string_view::npos && spec[name_end] == ':';
  if (has_version && !items.empty() && !absl::StrContains(items[0], '=')) {
    absl::StrAppend(&profile_spec, ":", items[0]);
    first_option = 1;
  }
  ParsedSpec parsed;
  for (const ProfileDef& candidate : Profiles()) {
    if (candidate.profile.spec == profile_spec) parsed.def = &candidate;
  }
  if (parsed.def == nullptr) {
    return absl::InvalidArgumentError(
        absl::StrCat("unknown controller '", profile_spec, "' in '", spec,
                     "'; available: ", ProfileNames()));
  }
  const ControllerProfile& profile = parsed.def->profile;
  for (const auto& [option, default_value] : profile.options) {
    parsed.values[option] = default_value;
  }
  for (size_t i = first_option; i < items.size(); ++i) {
    std::pair<absl::string_view, absl::string_view> kv =
        absl::StrSplit(items[i], absl::MaxSplits('=', 1));
    if (!parsed.values.contains(kv.first) ||
        !absl::StrContains(items[i], '=')) {
      std::vector<absl::string_view> names;
      for (const auto& option : profile.options) names.push_back(option.first);
      return absl::InvalidArgumentError(absl::StrCat(
          "unknown option '", items[i], "' for ", profile.spec, " in '", spec,
          "'; options: ", absl::StrJoin(names, ", ")));
    }
    parsed.values[kv.first] = std::string(kv.second);
    parsed.given.emplace_back(kv.first);
  }
  return parsed;
}

}  // namespace

absl::StatusOr<std::optional<uint32_t>> SpecMssBytes(absl::string_view spec) {
  absl::StatusOr<ParsedSpec> parsed = ParseSpec(spec);
  if (!parsed.ok()) return parsed.status();
  if (std::find(parsed->given.begin(), parsed->given.end(), "mss") ==
      parsed->given.end()) {
    return std::nullopt;
  }
  absl::StatusOr<uint32_t> mss = ParseCount(parsed->values, "mss", 1);
  if (!mss.ok()) {
    return absl::InvalidArgumentError(absl::StrCat(
        "in controller spec '", spec, "': ", mss.status().message()));
  }
  return *mss;
}

absl::StatusOr<std::unique_ptr<CongestionController>> MakeController(
    absl::string_view spec) {
  absl::StatusOr<ParsedSpec> parsed = ParseSpec(spec);
  if (!parsed.ok()) return parsed.status();
  const ProfileDef* def = parsed->def;
  const OptionValues& values = parsed->values;
  absl::StatusOr<std::unique_ptr<CongestionController>> controller =
      def->make(values);
  if (!controller.ok()) {
    return absl::InvalidArgumentError(absl::StrCat(
        "in controller spec '", spec, "': ", controller.status().message()));
  }
  return controller;
}

absl::StatusOr<std::vector<std::string>> ParseControllerList(
    absl::string_view text) {
  std::vector<std::string> specs;
  for (absl::string_view item : absl::StrSplit(text, ',')) {
    if (item.empty()) {
      return absl::InvalidArgumentError(
          absl::StrCat("empty item in controller list '", text, "'"));
    }
    if (absl::StrContains(item, '=') && !absl::StrContains(item, ':')) {
      if (specs.empty()) {
        return absl::InvalidArgumentError(absl::StrCat(
            "option '", item, "' has no controller before it in '", text, "'"));
      }
      absl::StrAppend(&specs.back(), ",", item);
    } else {
      specs.emplace_back(item);
    }
  }
  return specs;
}

}  // namespace ccreplay
