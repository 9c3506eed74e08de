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
#include "cc/linux_bbr.h"
#include "cc/linux_bbr_v3.h"
#include "cc/linux_cubic.h"
#include "cc/linux_dctcp.h"
#include "cc/linux_reno.h"
#include "cc/ngtcp2_cubic.h"
#include "cc/ngtcp2_reno.h"
#include "cc/prague_sender.h"
#include "cc/quicly_cuback.h"
#include "cc/quicly_cubic.h"
#include "cc/quicly_cubic_legacy.h"
#include "cc/quicly_pico.h"
#include "cc/quicly_reno.h"
#include "cc/reno_sender.h"
#include "cc/rfc9002_newreno.h"

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
  auto limited = values.find("limited");
  if (limited != values.end()) {
    if (limited->second != "capture" && limited->second != "flight") {
      return BadValue("limited", limited->second, "capture or flight");
    }
    options.cwnd_limit_from_flight = limited->second == "flight";
  }
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

// Options of the Linux controllers: the base ones and `limited`.
std::vector<std::pair<std::string, std::string>> LinuxOptions(bool normalize) {
  std::vector<std::pair<std::string, std::string>> options =
      BaseOptions(normalize);
  options.push_back({"limited", "capture"});
  return options;
}

// Options of the quicly profiles. mss defaults to quicly's own transport
// parameter max_udp_payload_size (1472, lib/defaults.c), from which it
// computes the initial window; the trace's packet size replaces it for
// growth. normalize defaults to on (1462): normalize_cc_mtu is "enabled in
// the default contexts" (include/quicly.h @ 01aa5e7c).
std::vector<std::pair<std::string, std::string>> QuiclyOptions(bool normalize) {
  std::vector<std::pair<std::string, std::string>> options = {{"mss", "1472"},
                                                              {"iw", "10"}};
  if (normalize) {
    options.push_back({"normalize", absl::StrCat(kReferenceMtuBytes)});
  }
  return options;
}

constexpr absl::string_view kQuiclyNewSource =
    "h2o/quicly @ 01aa5e7c lib/cc-pico.c (after PRs #678, #686)";

absl::StatusOr<bool> ParseSwitch(const OptionValues& values,
                                 absl::string_view name) {
  const std::string& text = values.at(std::string(name));
  if (text != "0" && text != "1") return BadValue(name, text, "0 or 1");
  return text == "1";
}

// Options of the RFC profiles: `hystart` (RFC 9406 HyStart++) added to
// `base`.
std::vector<std::pair<std::string, std::string>> RfcOptions(
    std::vector<std::pair<std::string, std::string>> base) {
  base.push_back({"hystart", "0"});
  return base;
}

// The RFC profiles: the base options and `hystart`.
template <typename T>
absl::StatusOr<std::unique_ptr<CongestionController>> MakeRfc(
    const OptionValues& values) {
  absl::StatusOr<ControllerOptions> base = ParseBase(values);
  if (!base.ok()) return base.status();
  absl::StatusOr<bool> hystart = ParseSwitch(values, "hystart");
  if (!hystart.ok()) return hystart.status();
  base->hystart_plus_plus = *hystart;
  return std::make_unique<T>(*base);
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

absl::StatusOr<std::unique_ptr<CongestionController>> MakeLinuxCubic(
    const OptionValues& values) {
  LinuxCubicOptions options;
  absl::StatusOr<ControllerOptions> base = ParseBase(values);
  if (!base.ok()) return base.status();
  options.base = *base;
  absl::StatusOr<uint32_t> hz = ParseCount(values, "hz", 1);
  if (!hz.ok()) return hz.status();
  options.hz = *hz;
  absl::StatusOr<bool> hystart = ParseSwitch(values, "hystart");
  if (!hystart.ok()) return hystart.status();
  options.hystart = *hystart;
  absl::StatusOr<bool> paced = ParseSwitch(values, "paced");
  if (!paced.ok()) return paced.status();
  options.paced = *paced;
  absl::StatusOr<uint32_t> gso = ParseCount(values, "gso", 1);
  if (!gso.ok()) return gso.status();
  options.gso_max_size_bytes = *gso;
  const std::string& offset = values.at("mono_offset_us");
  if (offset != "off") {
    uint32_t offset_us = 0;
    if (!absl::SimpleAtoi(offset, &offset_us) || offset_us >= 1000000) {
      return BadValue("mono_offset_us", offset,
                      "off or an integer below 1000000 (µs)");
    }
    options.mono_offset_us = offset_us;
  }
  return std::make_unique<LinuxCubic>(options);
}

// ngtcp2's profiles take only `mss=`: its max_tx_udp_payload_size, which
// also sets the initial window (cc/ngtcp2_sender.h).
template <typename T>
absl::StatusOr<std::unique_ptr<CongestionController>> MakeNgtcp2(
    const OptionValues& values) {
  absl::StatusOr<uint32_t> mss = ParseCount(values, "mss", 1);
  if (!mss.ok()) return mss.status();
  return std::make_unique<T>(*mss);
}

absl::StatusOr<std::unique_ptr<CongestionController>> MakeLinuxBbr(
    const OptionValues& values) {
  LinuxBbrOptions options;
  absl::StatusOr<ControllerOptions> base = ParseBase(values);
  if (!base.ok()) return base.status();
  options.base = *base;
  absl::StatusOr<uint32_t> phase = ParseCount(values, "phase", 0);
  if (!phase.ok()) return phase.status();
  if (*phase == 1 || *phase >= LinuxBbr::kCycleLength) {
    return BadValue("phase", values.at("phase"),
                    "0 or 2..7 (the kernel never starts PROBE_BW in phase 1)");
  }
  options.start_phase = *phase;
  // Counterfactuals' knobs (LinuxBbrOptions): tcp_bbr.c's constants.
  absl::StatusOr<uint32_t> probe_rtt_ms = ParseCount(values, "probe_rtt_ms", 0);
  if (!probe_rtt_ms.ok()) return probe_rtt_ms.status();
  options.probe_rtt_mode_us = int64_t{*probe_rtt_ms} * 1000;
  absl::StatusOr<uint32_t> full_bw_cnt = ParseCount(values, "full_bw_cnt", 1);
  if (!full_bw_cnt.ok()) return full_bw_cnt.status();
  options.full_bw_cnt = *full_bw_cnt;
  absl::StatusOr<uint32_t> win = ParseCount(values, "extra_acked_win", 1);
  if (!win.ok()) return win.status();
  options.extra_acked_win_rounds = *win;
  absl::StatusOr<uint32_t> max_ms = ParseCount(values, "extra_acked_max_ms", 0);
  if (!max_ms.ok()) return max_ms.status();
  if (*max_ms > 4000) {
    return BadValue("extra_acked_max_ms", values.at("extra_acked_max_ms"),
                    "at most 4000 (bw x time must fit the kernel's u32)");
  }
  options.extra_acked_max_us = *max_ms * 1000;
  return std::make_unique<LinuxBbr>(options);
}

absl::StatusOr<std::unique_ptr<CongestionController>> MakeLinuxBbrV3(
    const OptionValues& values) {
  LinuxBbrV3Options options;
  absl::StatusOr<ControllerOptions> base = ParseBase(values);
  if (!base.ok()) return base.status();
  options.base = *base;
  absl::StatusOr<bool> ecn_low = ParseSwitch(values, "ecn_low");
  if (!ecn_low.ok()) return ecn_low.status();
  options.ecn_low = *ecn_low;
  return std::make_unique<LinuxBbrV3>(options);
}

// The reference and Linux TCP profiles, in the order `controllers` lists
// them.
// long: the table, one entry each.
std::vector<ProfileDef> TcpProfiles() {
  return {
      {{"reno", "Reno with RFC 5681 byte counting (+1 MSS per cwnd acked)",
        "RFC 5681 section 3, RFC 3465 section 2.1, RFC 3168 section 6.1.2",
        RfcOptions(BaseOptions(true))},
       MakeRfc<RenoSender>},
      {{"reno:linux",
        "Linux Reno: segment counting as tcp_reno_cong_avoid(), what ss shows",
        "Linux 6.18 net/ipv4/tcp_cong.c tcp_reno_cong_avoid/tcp_slow_start",
        LinuxOptions(true)},
       MakeSimple<LinuxReno>},
      {{"cubic",
        "CUBIC as specified: W_cubic, K, Reno-friendly W_est, 1.5x clamp, "
        "fast convergence, beta 0.7, C 0.4",
        "RFC 9438 section 4", RfcOptions(BaseOptions(true))},
       MakeRfc<CubicSender>},
      {{"cubic:linux",
        "Linux CUBIC: fixed-point cube root, HyStart (ACK train + delay), "
        "per-ACK TCP friendliness, beta 717/1024",
        "Linux 6.18 net/ipv4/tcp_cubic.c (module version 2.3)",
        [] {
          auto options = BaseOptions(false);
          options.push_back({"hz", "1000"});
          options.push_back({"hystart", "1"});
          options.push_back({"paced", "0"});
          options.push_back({"gso", "65536"});
          options.push_back({"mono_offset_us", "off"});
          options.push_back({"limited", "capture"});
          return options;
        }()},
       MakeLinuxCubic},
      {{"dctcp",
        "DCTCP: alpha EWMA g=1/16 from 1, cut cwnd*alpha/2 once per window",
        "Linux net/ipv4/tcp_dctcp.c (torvalds/linux @ 01581a21), RFC 8257",
        LinuxOptions(false)},
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
}

// The QUIC profiles (RFC 9002, quicly's, ngtcp2's) and BBR, in the order
// `controllers` lists them after TcpProfiles().
// long: the table, one entry each.
std::vector<ProfileDef> StackProfiles() {
  return {
      {{"rfc9002:newreno",
        "QUIC NewReno: IW min(10 mds, max(14720, 2 mds)), beta 0.5, one "
        "reduction per recovery period, persistent congestion to 2 mds",
        "RFC 9002 section 7 and appendix B",
        RfcOptions({{"mss", "1200"}, {"iw", "10"}})},
       MakeRfc<Rfc9002NewReno>},
      {{"quicly:reno",
        "quicly Reno: +1 MTU per cwnd (normalized: cwnd*mtu/1462) acked, "
        "beta 0.5 for loss and CE",
        std::string(kQuiclyNewSource), QuiclyOptions(true)},
       MakeSimple<QuiclyReno>},
      {{"quicly:cubic",
        "quicly CUBIC: RFC 9438 with K=0 after slow start, W_est in whole "
        "MTUs, beta 0.7 (0.85 on CE), clock only while cwnd-limited",
        std::string(kQuiclyNewSource), QuiclyOptions(true)},
       MakeSimple<QuiclyCubic>},
      {{"quicly:cuback",
        "quicly Cuback: CUBIC's curves indexed by bytes acked (bandwidth at "
        "the last congestion event), +1 MTU per computed interval",
        std::string(kQuiclyNewSource), QuiclyOptions(true)},
       MakeSimple<QuiclyCuback>},
      {{"quicly:pico",
        "quicly Pico: Reno byte counting at a CUBIC-like RTT-aware "
        "interval, beta 0.7 (0.85 on CE); not normalized",
        std::string(kQuiclyNewSource), QuiclyOptions(false)},
       MakeSimple<QuiclyPico>},
      {{"quicly:cubic-legacy",
        "quicly CUBIC before PR #678: RFC 8312 time-based W_est, per-ACK "
        "MTU steps, beta 0.7; not normalized",
        "h2o/quicly @ b11d3634 lib/cc-cubic.c (last changed bd1b26e2)",
        QuiclyOptions(false)},
       MakeSimple<QuiclyCubicLegacy>},
      {{"ngtcp2:reno",
        "ngtcp2's Reno: per-packet byte counting, halving, growth capped "
        "at 2.89x the delivery-rate BDP",
        "ngtcp2 0.12.1 (Debian 12) lib/ngtcp2_cc.c ngtcp2_cc_reno_cc_*",
        {{"mss", "1452"}}},
       MakeNgtcp2<Ngtcp2Reno>},
      {{"ngtcp2:cubic",
        "ngtcp2's CUBIC: integer K in seconds, W_est with alpha 1, "
        "HyStart++ without CSS, growth capped at 2.89x the delivery-rate BDP",
        "ngtcp2 0.12.1 (Debian 12) lib/ngtcp2_cc.c ngtcp2_cc_cubic_cc_*",
        {{"mss", "1452"}}},
       MakeNgtcp2<Ngtcp2Cubic>},
      {{"bbr:linux",
        "Linux BBR v1: max bw over 10 rounds, min RTT over 10 s, STARTUP/"
        "DRAIN/PROBE_BW/PROBE_RTT, cwnd = gain x BDP + extra_acked + quanta",
        "Linux 6.18 net/ipv4/tcp_bbr.c (read at torvalds/linux 02dc96ef), "
        "lib/win_minmax.c; long-term (policer) mode with tp->lost from the "
        "replay's loss marking",
        [] {
          auto options = BaseOptions(false);
          options.push_back({"phase", "2"});
          options.push_back({"probe_rtt_ms", "200"});
          options.push_back({"full_bw_cnt", "3"});
          options.push_back({"extra_acked_win", "5"});
          options.push_back({"extra_acked_max_ms", "100"});
          return options;
        }()},
       MakeLinuxBbr},
      {{"bbr:v3",
        "BBRv3: bw_hi/bw_lo, inflight_hi/inflight_lo, loss (> 2 % per round: "
        "x0.7) and ECN response, PROBE_BW DOWN/CRUISE/REFILL/UP",
        "google/bbr v3 net/ipv4/tcp_bbr.c (read at 001a430b), "
        "draft-ietf-ccwg-bbr; probe wait fixed at 2.5 s, no per-skb loss "
        "hook",
        [] {
          auto options = BaseOptions(false);
          options.push_back({"ecn_low", "0"});
          return options;
        }()},
       MakeLinuxBbrV3},
  };
}

const std::vector<ProfileDef>& Profiles() {
  static const auto* const kProfiles = [] {
    auto* all = new std::vector<ProfileDef>(TcpProfiles());
    for (ProfileDef& def : StackProfiles()) all->push_back(std::move(def));
    return all;
  }();
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

const ProfileDef* FindProfile(absl::string_view name) {
  for (const ProfileDef& def : Profiles()) {
    if (def.profile.spec == name) return &def;
  }
  return nullptr;
}

bool TakesOption(const ControllerProfile& profile, absl::string_view option) {
  return std::any_of(profile.options.begin(), profile.options.end(),
                     [&](const auto& entry) { return entry.first == option; });
}

// The profile of `spec`, with every option it sets in that profile's table;
// `text` is what the error messages quote.
absl::StatusOr<const ProfileDef*> CheckSpec(const ControllerSpec& spec,
                                            absl::string_view text) {
  const ProfileDef* def = FindProfile(spec.ProfileName());
  if (def == nullptr) {
    return absl::InvalidArgumentError(
        absl::StrCat("unknown controller '", spec.ProfileName(), "' in '", text,
                     "'; available: ", ProfileNames()));
  }
  for (const auto& [option, value] : spec.options) {
    if (TakesOption(def->profile, option)) continue;
    std::vector<absl::string_view> names;
    for (const auto& entry : def->profile.options) names.push_back(entry.first);
    return absl::InvalidArgumentError(absl::StrCat(
        "unknown option '", option, "' for ", def->profile.spec, " in '", text,
        "'; options: ", absl::StrJoin(names, ", ")));
  }
  return def;
}

// Sets `option` in `options`, in place when already set.
void SetOption(std::vector<std::pair<std::string, std::string>>& options,
               absl::string_view option, absl::string_view value) {
  for (auto& entry : options) {
    if (entry.first == option) {
      entry.second = std::string(value);
      return;
    }
  }
  options.emplace_back(option, value);
}

}  // namespace

absl::StatusOr<ControllerSpec> ControllerSpec::Parse(absl::string_view text) {
  // "name", "name:variant", "name,options" or "name:variant,options"; the
  // first item after ':' is an option when it has '=' ("reno:mss=1280").
  const size_t name_end = std::min(text.find(':'), text.find(','));
  ControllerSpec spec;
  spec.family = std::string(text.substr(0, name_end));
  if (spec.family.empty()) {
    return absl::InvalidArgumentError(
        absl::StrCat("no controller name in '", text, "'"));
  }
  std::vector<absl::string_view> items;
  if (name_end != absl::string_view::npos) {
    items = absl::StrSplit(text.substr(name_end + 1), ',');
  }
  if (std::find(items.begin(), items.end(), "") != items.end()) {
    return absl::InvalidArgumentError(
        absl::StrCat("empty item in controller spec '", text, "'"));
  }
  size_t first_option = 0;
  if (name_end != absl::string_view::npos && text[name_end] == ':' &&
      !absl::StrContains(items[0], '=')) {
    spec.variant = std::string(items[0]);
    first_option = 1;
  }
  absl::StatusOr<const ProfileDef*> def = CheckSpec(spec, text);
  if (!def.ok()) return def.status();
  for (size_t i = first_option; i < items.size(); ++i) {
    const std::pair<absl::string_view, absl::string_view> kv =
        absl::StrSplit(items[i], absl::MaxSplits('=', 1));
    if (!absl::StrContains(items[i], '=')) {
      return absl::InvalidArgumentError(absl::StrCat(
          "'", items[i], "' in '", text,
          "' is not option=value (a variant comes first, after ':')"));
    }
    if (kv.second.empty()) {
      return absl::InvalidArgumentError(
          absl::StrCat("option '", kv.first, "' has no value in '", text, "'"));
    }
    SetOption(spec.options, kv.first, kv.second);
  }
  def = CheckSpec(spec, text);
  if (!def.ok()) return def.status();
  return spec;
}

std::string ControllerSpec::ProfileName() const {
  return variant.empty() ? family : absl::StrCat(family, ":", variant);
}

bool ControllerSpec::Takes(absl::string_view option) const {
  const ProfileDef* def = FindProfile(ProfileName());
  return def != nullptr && TakesOption(def->profile, option);
}

bool ControllerSpec::Sets(absl::string_view option) const {
  return std::any_of(options.begin(), options.end(),
                     [&](const auto& entry) { return entry.first == option; });
}

std::optional<std::string> ControllerSpec::Value(
    absl::string_view option) const {
  for (const auto& [name, value] : options) {
    if (name == option) return value;
  }
  const ProfileDef* def = FindProfile(ProfileName());
  if (def == nullptr) return std::nullopt;
  for (const auto& [name, value] : def->profile.options) {
    if (name == option) return value;
  }
  return std::nullopt;
}

absl::StatusOr<ControllerSpec> ControllerSpec::With(
    absl::string_view option, absl::string_view value) const {
  ControllerSpec copy = *this;
  SetOption(copy.options, option, value);
  absl::StatusOr<const ProfileDef*> def = CheckSpec(copy, copy.ToString());
  if (!def.ok()) return def.status();
  return copy;
}

ControllerSpec ControllerSpec::Without(absl::string_view option) const {
  ControllerSpec copy = *this;
  copy.options.erase(
      std::remove_if(copy.options.begin(), copy.options.end(),
                     [&](const auto& entry) { return entry.first == option; }),
      copy.options.end());
  return copy;
}

std::string ControllerSpec::ToString() const {
  std::string text = ProfileName();
  if (options.empty()) return text;
  absl::StrAppend(&text, variant.empty() ? ":" : ",",
                  absl::StrJoin(options, ",", absl::PairFormatter("=")));
  return text;
}

bool operator==(const ControllerSpec& a, const ControllerSpec& b) {
  auto sorted = [](std::vector<std::pair<std::string, std::string>> options) {
    std::sort(options.begin(), options.end());
    return options;
  };
  return a.family == b.family && a.variant == b.variant &&
         sorted(a.options) == sorted(b.options);
}

absl::StatusOr<std::optional<uint32_t>> SpecMssBytes(
    const ControllerSpec& spec) {
  if (!spec.Sets("mss")) return std::nullopt;
  const OptionValues values = {{"mss", *spec.Value("mss")}};
  absl::StatusOr<uint32_t> mss = ParseCount(values, "mss", 1);
  if (!mss.ok()) {
    return absl::InvalidArgumentError(
        absl::StrCat("in controller spec '", spec.ToString(),
                     "': ", mss.status().message()));
  }
  return *mss;
}

absl::StatusOr<std::unique_ptr<CongestionController>> MakeController(
    const ControllerSpec& spec) {
  const std::string text = spec.ToString();
  absl::StatusOr<const ProfileDef*> def = CheckSpec(spec, text);
  if (!def.ok()) return def.status();
  OptionValues values;
  for (const auto& [option, value] : (*def)->profile.options) {
    values[option] = value;
  }
  for (const auto& [option, value] : spec.options) values[option] = value;
  absl::StatusOr<std::unique_ptr<CongestionController>> controller =
      (*def)->make(values);
  if (!controller.ok()) {
    return absl::InvalidArgumentError(absl::StrCat(
        "in controller spec '", text, "': ", controller.status().message()));
  }
  return controller;
}

absl::StatusOr<std::unique_ptr<CongestionController>> MakeController(
    absl::string_view spec) {
  absl::StatusOr<ControllerSpec> parsed = ControllerSpec::Parse(spec);
  if (!parsed.ok()) return parsed.status();
  return MakeController(*parsed);
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
