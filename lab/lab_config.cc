#include "lab/lab_config.h"

#include <cmath>

#include "absl/status/status.h"
#include "absl/strings/ascii.h"
#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"

namespace ccreplay::lab {
namespace {

struct Unit {
  absl::string_view suffix;
  int64_t multiplier;
};

// Splits "50mbit" into 50 and "mbit" and applies the first unit whose suffix
// matches (units are listed longest first so "kbit" wins over "bit").
absl::StatusOr<int64_t> ParseWithUnits(absl::string_view what,
                                       absl::string_view text,
                                       std::initializer_list<Unit> units) {
  for (const Unit& unit : units) {
    if (!absl::EndsWith(text, unit.suffix)) continue;
    absl::string_view number = text.substr(0, text.size() - unit.suffix.size());
    double value = 0;
    if (number.empty() || !absl::SimpleAtod(number, &value) ||
        !std::isfinite(value) || value <= 0) {
      break;
    }
    return static_cast<int64_t>(std::llround(value * unit.multiplier));
  }
  std::string accepted;
  for (const Unit& unit : units) absl::StrAppend(&accepted, " N", unit.suffix);
  return absl::InvalidArgumentError(
      absl::StrCat("bad ", what, " '", text,
                   "': expected a positive number and one of", accepted));
}

bool IsControllerName(absl::string_view name) {
  if (name.empty() || name.size() > 15) return false;  // TCP_CA_NAME_MAX 16
  for (char c : name) {
    if (!absl::ascii_isalnum(c) && c != '_' && c != '-') return false;
  }
  return true;
}

}  // namespace

absl::string_view EcnModeName(EcnMode mode) {
  switch (mode) {
    case EcnMode::kOff:
      return "off";
    case EcnMode::kRfc3168:
      return "rfc3168";
    case EcnMode::kAccEcn:
      return "accecn";
  }
  return "?";
}

int TcpEcnSysctl(EcnMode mode) {
  switch (mode) {
    case EcnMode::kOff:
      return 0;
    case EcnMode::kRfc3168:
      return 1;
    case EcnMode::kAccEcn:
      // Newer kernels: 3 = request AccECN on outgoing connections, accept
      // on incoming. The 6.18 build this was made on rejects 3..5.
      return 3;
  }
  return 0;
}

absl::string_view TransferToolName(TransferTool tool) {
  switch (tool) {
    case TransferTool::kAuto:
      return "auto";
    case TransferTool::kIperf3:
      return "iperf3";
    case TransferTool::kBuiltin:
      return "builtin";
  }
  return "?";
}

absl::StatusOr<int64_t> ParseRateBitsPerSecond(absl::string_view text) {
  return ParseWithUnits("rate", text,
                        {{"gbit", 1'000'000'000},
                         {"mbit", 1'000'000},
                         {"kbit", 1'000},
                         {"bit", 1}});
}

absl::StatusOr<QueueSpec> ParseQueue(absl::string_view text) {
  if (absl::EndsWith(text, "p")) {
    int64_t packets = 0;
    if (!absl::SimpleAtoi(text.substr(0, text.size() - 1), &packets) ||
        packets <= 0) {
      return absl::InvalidArgumentError(absl::StrCat(
          "bad queue '", text, "': expected Np (packets) or NkB/NMB/NB"));
    }
    return QueueSpec{true, packets};
  }
  absl::StatusOr<int64_t> bytes = ParseWithUnits(
      "queue", text, {{"MB", 1'000'000}, {"kB", 1'000}, {"B", 1}});
  if (!bytes.ok()) return bytes.status();
  return QueueSpec{false, *bytes};
}

absl::StatusOr<int64_t> ParseMarkStepBytes(absl::string_view text) {
  if (text == "none") return 0;
  if (!absl::StartsWith(text, "step:")) {
    return absl::InvalidArgumentError(
        absl::StrCat("bad marker '", text, "': expected none or step:K_BYTES"));
  }
  return ParseWithUnits("step threshold", text.substr(5),
                        {{"MB", 1'000'000}, {"kB", 1'000}, {"B", 1}, {"", 1}});
}

absl::StatusOr<FlowSpec> ParseFlowSpec(absl::string_view text) {
  std::vector<absl::string_view> parts = absl::StrSplit(text, ':');
  FlowSpec flow;
  flow.cc = std::string(parts[0]);
  if (!IsControllerName(flow.cc)) {
    return absl::InvalidArgumentError(absl::StrCat(
        "bad flow '", text, "': '", parts[0], "' is not a controller name"));
  }
  for (size_t i = 1; i < parts.size(); ++i) {
    std::pair<absl::string_view, absl::string_view> kv =
        absl::StrSplit(parts[i], '=');
    if (kv.first == "mss") {
      if (!absl::SimpleAtoi(kv.second, &flow.mss_bytes) ||
          flow.mss_bytes < 88 || flow.mss_bytes > 65495) {
        return absl::InvalidArgumentError(absl::StrCat(
            "bad flow '", text,
            "': mss must be 88..65495 bytes (TCP_MIN_MSS .. IP max)"));
      }
    } else if (kv.first == "rate") {
      absl::StatusOr<int64_t> rate = ParseRateBitsPerSecond(kv.second);
      if (!rate.ok()) {
        return absl::InvalidArgumentError(
            absl::StrCat("bad flow '", text, "': ", rate.status().message()));
      }
      flow.app_rate_bits_per_s = *rate;
    } else {
      return absl::InvalidArgumentError(
          absl::StrCat("bad flow '", text, "': unknown key '", kv.first,
                       "' (expected mss= or rate=)"));
    }
  }
  return flow;
}

absl::StatusOr<LabConfig> ParseLabConfig(const LabFlagValues& flags) {
  LabConfig config;
  if (flags.output_dir.empty()) {
    return absl::InvalidArgumentError(
        "lab needs an output directory: -o BUNDLE_DIR");
  }
  config.output_dir = flags.output_dir;
  if (!IsControllerName(flags.cc)) {
    return absl::InvalidArgumentError(
        absl::StrCat("bad --cc '", flags.cc, "': not a controller name"));
  }
  config.cc = flags.cc;
  if (flags.ecn == "off") {
    config.ecn = EcnMode::kOff;
  } else if (flags.ecn == "rfc3168") {
    config.ecn = EcnMode::kRfc3168;
  } else if (flags.ecn == "accecn") {
    config.ecn = EcnMode::kAccEcn;
  } else {
    return absl::InvalidArgumentError(absl::StrCat(
        "bad --ecn '", flags.ecn, "': expected off, rfc3168 or accecn"));
  }
  absl::StatusOr<int64_t> rate = ParseRateBitsPerSecond(flags.rate);
  if (!rate.ok()) return rate.status();
  config.rate_bits_per_s = *rate;
  absl::StatusOr<QueueSpec> queue = ParseQueue(flags.queue);
  if (!queue.ok()) return queue.status();
  config.queue = *queue;
  absl::StatusOr<int64_t> mark = ParseMarkStepBytes(flags.mark);
  if (!mark.ok()) return mark.status();
  config.mark_step_bytes = *mark;
  if (config.mark_step_bytes > 0 && config.ecn == EcnMode::kOff) {
    return absl::InvalidArgumentError(
        "--mark step:K marks CE on ECT packets only: it needs --ecn rfc3168 or "
        "accecn");
  }
  if (!(flags.delay_ms >= 0 && flags.delay_ms <= 10'000)) {
    return absl::InvalidArgumentError("--delay must be 0..10000 ms");
  }
  config.delay_ms = flags.delay_ms;
  if (!(flags.duration_s > 0 && flags.duration_s <= 3600)) {
    return absl::InvalidArgumentError(
        "--duration must be in (0, 3600] seconds");
  }
  config.duration_s = flags.duration_s;
  if (flags.transfer == "auto") {
    config.transfer = TransferTool::kAuto;
  } else if (flags.transfer == "iperf3") {
    config.transfer = TransferTool::kIperf3;
  } else if (flags.transfer == "builtin") {
    config.transfer = TransferTool::kBuiltin;
  } else {
    return absl::InvalidArgumentError(
        absl::StrCat("bad --transfer '", flags.transfer,
                     "': expected auto, iperf3 or builtin"));
  }
  if (flags.mss_bytes != 0 &&
      (flags.mss_bytes < 88 || flags.mss_bytes > 65495)) {
    return absl::InvalidArgumentError(
        "--mss must be 88..65495 bytes (TCP_MIN_MSS .. IP max)");
  }
  if (flags.flows.empty()) {
    config.flows.push_back(FlowSpec{config.cc, flags.mss_bytes, 0});
  }
  for (const std::string& text : flags.flows) {
    absl::StatusOr<FlowSpec> flow = ParseFlowSpec(text);
    if (!flow.ok()) return flow.status();
    if (flow->mss_bytes == 0) flow->mss_bytes = flags.mss_bytes;
    config.flows.push_back(*flow);
  }
  if (config.flows.size() > 8) {
    return absl::InvalidArgumentError("at most 8 flows per lab run");
  }
  return config;
}

}  // namespace ccreplay::lab
