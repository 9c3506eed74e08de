#include "lab/lab_config.h"

#include <algorithm>

#include "absl/status/status.h"
#include "absl/strings/ascii.h"
#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"

namespace ccreplay::lab {
namespace {

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
    case TransferTool::kNgtcp2:
      return "ngtcp2";
  }
  return "?";
}

absl::string_view PacingModeName(PacingMode mode) {
  switch (mode) {
    case PacingMode::kAuto:
      return "auto";
    case PacingMode::kOn:
      return "on";
    case PacingMode::kOff:
      return "off";
  }
  return "?";
}

absl::StatusOr<int64_t> ParseMarkStepBytes(absl::string_view text) {
  if (text == "none") return 0;
  if (!absl::StartsWith(text, "step:")) {
    return absl::InvalidArgumentError(
        absl::StrCat("bad marker '", text, "': expected none or step:K_BYTES"));
  }
  // A bare number is bytes, as the K_BYTES of the syntax says.
  absl::string_view threshold = text.substr(5);
  int64_t bytes = 0;
  if (absl::SimpleAtoi(threshold, &bytes) && bytes > 0) return bytes;
  absl::StatusOr<BufferSize> size = ParseBufferSize(threshold);
  if (!size.ok() || size->unit != BufferSize::Unit::kBytes) {
    return absl::InvalidArgumentError(
        absl::StrCat("bad marker '", text,
                     "': expected step:K_BYTES (step:60000, step:60kB)"));
  }
  return size->count;
}

namespace {

// One KEY=VALUE of a flow spec into `flow`; the error says what is wrong
// with it (ParseFlowSpec names the flow).
absl::Status ParseFlowKey(absl::string_view key, absl::string_view value,
                          FlowSpec& flow) {
  if (key == "mss") {
    if (!absl::SimpleAtoi(value, &flow.mss_bytes) || flow.mss_bytes < 88 ||
        flow.mss_bytes > 65495) {
      return absl::InvalidArgumentError(
          "mss must be 88..65495 bytes (TCP_MIN_MSS .. IP max)");
    }
  } else if (key == "rate") {
    absl::StatusOr<BitRate> rate = ParseBitRate(value);
    if (!rate.ok()) return rate.status();
    flow.app_rate_bits_per_s = rate->bits_per_second;
  } else if (key == "rate_for") {
    absl::StatusOr<absl::Duration> phase = ParseDurationWithUnit(value);
    if (!phase.ok() || *phase <= absl::ZeroDuration()) {
      return absl::InvalidArgumentError(
          "rate_for must be a time with its unit (2s)");
    }
    flow.app_rate_for = *phase;
  } else if (key == "max_udp_payload") {
    // RFC 9000 section 14: QUIC datagrams carry at least 1200 bytes of
    // UDP payload; 1472 fills the lab's 1500-byte IPv4 MTU.
    if (!absl::SimpleAtoi(value, &flow.max_udp_payload_bytes) ||
        flow.max_udp_payload_bytes < 1200 ||
        flow.max_udp_payload_bytes > 1472) {
      return absl::InvalidArgumentError(
          "max_udp_payload must be 1200..1472 bytes (QUIC minimum .. IPv4 "
          "MTU 1500)");
    }
  } else if (key == "rcvbuf") {
    // SOCK_MIN_RCVBUF is about 2 kB (include/net/sock.h); above 64 MB the
    // window would not bind any path the lab builds.
    if (!absl::SimpleAtoi(value, &flow.rcvbuf_bytes) ||
        flow.rcvbuf_bytes < 4096 || flow.rcvbuf_bytes > (64 << 20)) {
      return absl::InvalidArgumentError("rcvbuf must be 4096..67108864 bytes");
    }
  } else if (key == "path") {
    if (value != "1" && value != "2") {
      return absl::InvalidArgumentError("path must be 1 or 2");
    }
    flow.path = value == "1" ? 1 : 2;
  } else {
    return absl::InvalidArgumentError(
        absl::StrCat("unknown key '", key,
                     "' (expected mss=, rate=, rate_for=, path=, rcvbuf= or "
                     "max_udp_payload=)"));
  }
  return absl::OkStatus();
}

}  // namespace

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
    absl::Status status = ParseFlowKey(kv.first, kv.second, flow);
    if (!status.ok()) {
      return absl::InvalidArgumentError(
          absl::StrCat("bad flow '", text, "': ", status.message()));
    }
  }
  if (flow.app_rate_for > absl::ZeroDuration() &&
      flow.app_rate_bits_per_s == 0) {
    return absl::InvalidArgumentError(
        absl::StrCat("bad flow '", text,
                     "': rate_for= is how long rate= holds: give rate="));
  }
  return flow;
}

namespace {

absl::StatusOr<EcnMode> ParseEcnMode(const std::string& ecn) {
  if (ecn == "off") return EcnMode::kOff;
  if (ecn == "rfc3168") return EcnMode::kRfc3168;
  if (ecn == "accecn") return EcnMode::kAccEcn;
  return absl::InvalidArgumentError(
      absl::StrCat("bad --ecn '", ecn, "': expected off, rfc3168 or accecn"));
}

absl::StatusOr<TransferTool> ParseTransferTool(const std::string& transfer) {
  if (transfer == "auto") return TransferTool::kAuto;
  if (transfer == "iperf3") return TransferTool::kIperf3;
  if (transfer == "builtin") return TransferTool::kBuiltin;
  if (transfer == "ngtcp2") return TransferTool::kNgtcp2;
  return absl::InvalidArgumentError(
      absl::StrCat("bad --transfer '", transfer,
                   "': expected auto, iperf3, builtin or ngtcp2"));
}

absl::StatusOr<PacingMode> ParsePacingMode(const std::string& paced,
                                           TransferTool tool) {
  PacingMode mode;
  if (paced == "auto") {
    mode = PacingMode::kAuto;
  } else if (paced == "on") {
    mode = PacingMode::kOn;
  } else if (paced == "off") {
    mode = PacingMode::kOff;
  } else {
    return absl::InvalidArgumentError(
        absl::StrCat("bad --paced '", paced, "': expected auto, on or off"));
  }
  if (mode != PacingMode::kAuto && tool == TransferTool::kNgtcp2) {
    return absl::InvalidArgumentError(
        "--paced is for TCP sockets: ngtcp2 paces in user space");
  }
  return mode;
}

// What each transfer tool can do with a flow: ngtcp2's examples know four
// controllers and neither TCP_MAXSEG nor a rate limit; the TCP tools send
// no QUIC datagrams.
absl::Status CheckFlowForTool(const FlowSpec& flow, TransferTool tool) {
  if (flow.app_rate_for > absl::ZeroDuration() &&
      tool != TransferTool::kBuiltin) {
    return absl::InvalidArgumentError(
        "rate_for= needs --transfer builtin (iperf3's -b holds for the whole "
        "run)");
  }
  if (flow.rcvbuf_bytes != 0 && tool != TransferTool::kBuiltin) {
    return absl::InvalidArgumentError(
        "rcvbuf= needs --transfer builtin (the receiver the lab runs)");
  }
  if (tool != TransferTool::kNgtcp2) {
    if (flow.max_udp_payload_bytes == 0) return absl::OkStatus();
    return absl::InvalidArgumentError(
        "max_udp_payload= is for QUIC flows: it needs --transfer ngtcp2");
  }
  if (flow.cc != "reno" && flow.cc != "cubic" && flow.cc != "bbr" &&
      flow.cc != "bbr2") {
    return absl::InvalidArgumentError(
        absl::StrCat("--transfer ngtcp2: controller '", flow.cc,
                     "' is not one of ngtcp2's (reno, cubic, bbr, bbr2)"));
  }
  if (flow.mss_bytes != 0 || flow.app_rate_bits_per_s != 0) {
    return absl::InvalidArgumentError(
        "--transfer ngtcp2: mss= and rate= are TCP options (use "
        "max_udp_payload=)");
  }
  // The second path is chosen by the receiver's address, and gtlsclient
  // sends from the address its route picks (B.1).
  if (flow.path != 1) {
    return absl::InvalidArgumentError(
        "--transfer ngtcp2: path=2 is for TCP flows only");
  }
  return absl::OkStatus();
}

// One bottleneck's rate, queue and delay; `suffix` ("" or "2") names the
// flags in errors.
absl::StatusOr<PathSpec> ParsePath(BitRate rate, const BufferSize& queue,
                                   absl::Duration delay,
                                   absl::string_view suffix) {
  PathSpec path;
  path.rate_bits_per_s = rate.bits_per_second;
  // pfifo counts packets, bfifo bytes (tc-pfifo(8)).
  path.queue.in_packets = queue.unit == BufferSize::Unit::kPackets;
  path.queue.limit =
      path.queue.in_packets
          ? queue.count
          : static_cast<int64_t>(queue.Bytes(rate, /*packet_bytes=*/0));
  if (path.queue.limit <= 0) {
    return absl::InvalidArgumentError(
        absl::StrCat("--queue", suffix, " must hold at least one byte"));
  }
  if (delay < absl::ZeroDuration() || delay > absl::Seconds(10)) {
    return absl::InvalidArgumentError(
        absl::StrCat("--delay", suffix, " must be 0..10s"));
  }
  path.delay_ms = absl::ToDoubleMilliseconds(delay);
  return path;
}

// The bottleneck: rate, queue, CE marking, delay. Needs config->ecn.
absl::Status ParseBottleneck(const LabFlagValues& flags, LabConfig* config) {
  absl::StatusOr<PathSpec> path =
      ParsePath(flags.rate, flags.queue, flags.delay, "");
  if (!path.ok()) return path.status();
  config->rate_bits_per_s = path->rate_bits_per_s;
  config->queue = path->queue;
  config->delay_ms = path->delay_ms;
  absl::StatusOr<int64_t> mark = ParseMarkStepBytes(flags.mark);
  if (!mark.ok()) return mark.status();
  config->mark_step_bytes = *mark;
  if (config->mark_step_bytes > 0 && config->ecn == EcnMode::kOff) {
    return absl::InvalidArgumentError(
        "--mark step:K marks CE on ECT packets only: it needs --ecn rfc3168 or "
        "accecn");
  }
  return absl::OkStatus();
}

// The second bottleneck, when a flow has path=2: --rate2/--queue2/--delay2,
// each defaulting to the first's flag. Needs config->flows.
absl::Status ParseSecondPath(const LabFlagValues& flags, LabConfig* config) {
  const bool used =
      std::any_of(config->flows.begin(), config->flows.end(),
                  [](const FlowSpec& flow) { return flow.path == 2; });
  if (!used) {
    if (flags.rate2 || flags.queue2 || flags.delay2) {
      return absl::InvalidArgumentError(
          "--rate2/--queue2/--delay2 shape the second bottleneck: give a flow "
          "path=2 (--flows cubic:path=2)");
    }
    return absl::OkStatus();
  }
  // The step marker's virtual queue drains at --rate: one bottleneck only.
  if (config->mark_step_bytes > 0) {
    return absl::InvalidArgumentError(
        "--mark marks the first bottleneck only: not with a path=2 flow");
  }
  absl::StatusOr<PathSpec> path = ParsePath(
      flags.rate2.value_or(flags.rate), flags.queue2.value_or(flags.queue),
      flags.delay2.value_or(flags.delay), "2");
  if (!path.ok()) return path.status();
  config->second_path = *path;
  return absl::OkStatus();
}

// The flows: one of --cc without --flow, else one per --flow. Needs
// config->cc and config->transfer.
absl::Status ParseFlows(const LabFlagValues& flags, LabConfig* config) {
  if (flags.mss_bytes != 0 &&
      (flags.mss_bytes < 88 || flags.mss_bytes > 65495)) {
    return absl::InvalidArgumentError(
        "--mss must be 88..65495 bytes (TCP_MIN_MSS .. IP max)");
  }
  if (flags.flows.empty()) {
    config->flows.push_back(FlowSpec{config->cc, flags.mss_bytes, 0});
  }
  for (const std::string& text : flags.flows) {
    absl::StatusOr<FlowSpec> flow = ParseFlowSpec(text);
    if (!flow.ok()) return flow.status();
    if (flow->mss_bytes == 0) flow->mss_bytes = flags.mss_bytes;
    config->flows.push_back(*flow);
  }
  if (config->flows.size() > 8) {
    return absl::InvalidArgumentError("at most 8 flows per lab run");
  }
  for (const FlowSpec& flow : config->flows) {
    absl::Status status = CheckFlowForTool(flow, config->transfer);
    if (!status.ok()) return status;
  }
  return absl::OkStatus();
}

// --reorder and --reorder_delay.
absl::Status ParseReorder(const LabFlagValues& flags, LabConfig* config) {
  if (!(flags.reorder_percent >= 0 && flags.reorder_percent <= 50)) {
    return absl::InvalidArgumentError("--reorder must be 0..50 (percent)");
  }
  if (flags.reorder_delay <= absl::ZeroDuration() ||
      flags.reorder_delay > absl::Seconds(1)) {
    return absl::InvalidArgumentError("--reorder_delay must be in (0, 1s]");
  }
  config->reorder_percent = flags.reorder_percent;
  config->reorder_delay = flags.reorder_delay;
  return absl::OkStatus();
}

}  // namespace

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
  absl::StatusOr<EcnMode> ecn = ParseEcnMode(flags.ecn);
  if (!ecn.ok()) return ecn.status();
  config.ecn = *ecn;
  absl::Status status = ParseBottleneck(flags, &config);
  if (!status.ok()) return status;
  if (flags.duration <= absl::ZeroDuration() ||
      flags.duration > absl::Hours(1)) {
    return absl::InvalidArgumentError("--duration must be in (0, 1h]");
  }
  config.duration_s = absl::ToDoubleSeconds(flags.duration);
  absl::StatusOr<TransferTool> transfer = ParseTransferTool(flags.transfer);
  if (!transfer.ok()) return transfer.status();
  config.transfer = *transfer;
  absl::StatusOr<PacingMode> paced = ParsePacingMode(flags.paced, *transfer);
  if (!paced.ok()) return paced.status();
  config.paced = *paced;
  status = ParseFlows(flags, &config);
  if (!status.ok()) return status;
  status = ParseSecondPath(flags, &config);
  if (!status.ok()) return status;
  status = ParseReorder(flags, &config);
  if (!status.ok()) return status;
  return config;
}

}  // namespace ccreplay::lab
