// `ccreplay simulate`: closed-loop what-if runs on a modelled bottleneck
// (replay/sim/). Flags become a SimulationConfig; results are printed.
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "absl/flags/flag.h"
#include "absl/strings/str_cat.h"
#include "cc/registry.h"
#include "cli/commands.h"
#include "cli/common_flags.h"
#include "cli/exit_codes.h"
#include "replay/sim/path_profile.h"
#include "replay/sim/pcap_export.h"
#include "replay/sim/sender_jitter.h"
#include "replay/sim/simulation.h"
#include "replay/sim/units.h"
#include "reports/sim_report.h"

ABSL_FLAG(std::string, profile, "",
          "a named path (rate, base RTT, buffer): DSL, Home_WiFi, Public, "
          "Corporate_WiFi, LTE, 5G, LEO, GEO, DoCoMo@Office, au@Office, "
          "WiFi@Office, DoCoMo@mall, congested, bdp20, bdp40. --rate, --delay "
          "and --buffer override its values.");
ABSL_FLAG(std::optional<ccreplay::BufferSize>, buffer, std::nullopt,
          "bottleneck buffer: Np (packets of the largest size), NB/NkB/NMB "
          "(bytes, SI) or a time at the rate (50ms). Default: the profile's, "
          "else 1 BDP.");
ABSL_FLAG(bool, byte_fit_admission, false,
          "admit a packet whenever it fits (byte-fit tail drop) instead of "
          "packet-size-neutral tail drop (RFC 7141 4.2.1.2).");
ABSL_FLAG(std::optional<absl::Duration>, ce_threshold, std::nullopt,
          "mark ECT packets CE when their sojourn time exceeds this (5ms; "
          "like tc fq ce_threshold). Default: no sojourn marking.");
ABSL_FLAG(int64_t, ce_backlog_bytes, -1,
          "mark ECT packets CE on arrival when the backlog exceeds this many "
          "bytes (DCTCP step, RFC 8257 3.1); -1 off.");
ABSL_FLAG(int, ack_every, 2,
          "the receivers ACK every N segments (1, 2, ... 16; default 2).");
ABSL_FLAG(absl::Duration, delayed_ack, absl::Milliseconds(40),
          "delayed-ACK timer (default 40ms, Linux TCP_DELACK_MIN).");
ABSL_FLAG(absl::Duration, ack_hold, absl::ZeroDuration(),
          "ACK aggregation on the return path (Wi-Fi, cellular): the ACKs "
          "sent in the first TIME of every --ack_hold_period leave together "
          "when it ends (default 0: off).");
ABSL_FLAG(absl::Duration, ack_hold_period, absl::ZeroDuration(),
          "the period of --ack_hold (default: --ack_hold itself, one ACK "
          "burst per hold).");
ABSL_FLAG(bool, pacing, false, "pace the senders.");
ABSL_FLAG(int, tso_burst_shift, 0,
          "paced senders send TSO bursts of 2^-N s of the pacing rate (10: "
          "tcp_tso_autosize, 12: Prague v0.5's own); 0: off.");
ABSL_FLAG(double, nic_rate, 0,
          "the senders' NIC line rate in bit/s (1e10: back-to-back packets "
          "1.16 us apart); 0: no NIC serialization.");
ABSL_FLAG(std::vector<std::string>, start, {"0"},
          "start time of each flow, comma-separated durations (0,10ms; the "
          "last value repeats; default 0).");
ABSL_FLAG(std::string, ecn_feedback, "auto",
          "auto (AccECN for prague, DCTCP for dctcp, RFC 3168 for others when "
          "the path marks), none, rfc3168, dctcp or accecn.");
ABSL_FLAG(std::optional<ccreplay::BitRate>, policer_rate, std::nullopt,
          "a token-bucket policer before the buffer at this rate (10mbit): "
          "packets above its bucket are dropped (RFC 2697's committed "
          "bucket, tc act_police rate/burst). Needs --policer_burst.");
ABSL_FLAG(std::optional<ccreplay::BufferSize>, policer_burst, std::nullopt,
          "the policer's bucket: NB/NkB/NMB, Np or a time at the policer's "
          "rate (20ms).");
ABSL_FLAG(std::vector<std::string>, rate_step, {},
          "the bottleneck rate changes once: TIME,RATE (1s,50mbit).");
ABSL_FLAG(double, random_loss, 0,
          "probability (0..1) of losing a packet after the bottleneck.");
ABSL_FLAG(uint64_t, seed, 1, "seed of the random loss and the sender jitter.");
ABSL_FLAG(std::string, sender_jitter, "",
          "a random delay per packet at each sender, uniform in [0, bound], "
          "flow order kept, against drop-tail phase effects (Floyd and "
          "Jacobson 1992): off, service (one bottleneck service time of the "
          "largest packet) or a duration (50us). Default: off (quicly's "
          "simulator has none).");
ABSL_FLAG(std::optional<ccreplay::BufferSize>, rwnd, std::nullopt,
          "the receivers' advertised window: Np (packets of the flow's size) "
          "or NB/NkB/NMB (bytes, SI). Default: unlimited.");
ABSL_FLAG(std::optional<absl::Duration>, sample_interval, std::nullopt,
          "series sampling period (10ms; default duration / 1000).");
ABSL_FLAG(std::string, pcap, "",
          "write the data senders' view as a pcap (raw IPv4/TCP headers, "
          "AccECN or RFC 3168 feedback) to this file.");

namespace ccreplay {
namespace {

int UsageError(const std::string& message) {
  std::fprintf(stderr, "ccreplay simulate: %s\n", message.c_str());
  return kExitUsage;
}

// The bottleneck: a profile, overridden by --rate and --delay. The buffer
// is resolved once the packet sizes are known.
absl::Status PathFromFlags(SimulationConfig& config,
                           std::optional<BufferSize>& buffer) {
  buffer = absl::GetFlag(FLAGS_buffer);
  const std::string profile_name = absl::GetFlag(FLAGS_profile);
  if (!profile_name.empty()) {
    absl::StatusOr<PathProfile> profile = FindPathProfile(profile_name);
    if (!profile.ok()) return profile.status();
    config.rate_bps = profile->rate_bps;
    config.base_rtt_ns = profile->base_rtt_us * 1000;
    if (!buffer.has_value()) {
      buffer = BufferSize{BufferSize::Unit::kTime, 0,
                          absl::Seconds(profile->buffer_s)};
    }
  }
  if (const std::optional<BitRate> rate = absl::GetFlag(FLAGS_rate)) {
    config.rate_bps = rate->bits_per_second;
  }
  if (const std::optional<absl::Duration> rtt = absl::GetFlag(FLAGS_delay)) {
    config.base_rtt_ns = absl::ToInt64Nanoseconds(*rtt);
  }
  if (config.rate_bps <= 0 || config.base_rtt_ns <= 0) {
    return absl::InvalidArgumentError(
        "give --profile, or --rate and --delay (base RTT, e.g. 40ms)");
  }
  // Default: one BDP, the base RTT at the rate.
  if (!buffer.has_value()) {
    buffer = BufferSize{BufferSize::Unit::kTime, 0,
                        absl::Nanoseconds(config.base_rtt_ns)};
  }
  return absl::OkStatus();
}

// The receiver's ACK timing and the return path's ACK hold.
void AckTimingFromFlags(FlowConfig& flow) {
  flow.ack_every = static_cast<uint32_t>(absl::GetFlag(FLAGS_ack_every));
  flow.delayed_ack_ns =
      absl::ToInt64Nanoseconds(absl::GetFlag(FLAGS_delayed_ack));
  flow.ack_hold_ns = absl::ToInt64Nanoseconds(absl::GetFlag(FLAGS_ack_hold));
  flow.ack_hold_period_ns =
      absl::GetFlag(FLAGS_ack_hold_period) > absl::ZeroDuration()
          ? absl::ToInt64Nanoseconds(absl::GetFlag(FLAGS_ack_hold_period))
          : flow.ack_hold_ns;
}

// One flow per --cc spec; the receivers' side (ACK ratio, feedback, rwnd)
// is the same for all.
absl::Status FlowsFromFlags(SimulationConfig& config) {
  const std::string cc =
      absl::GetFlag(FLAGS_cc).empty() ? "cubic" : absl::GetFlag(FLAGS_cc);
  const uint32_t default_bytes =
      absl::GetFlag(FLAGS_mss) > 0 ? absl::GetFlag(FLAGS_mss) : 1448;
  std::vector<int64_t> starts_ns;
  for (const std::string& item : absl::GetFlag(FLAGS_start)) {
    absl::StatusOr<absl::Duration> start = ParseDurationWithUnit(item);
    if (!start.ok()) {
      return absl::InvalidArgumentError(
          absl::StrCat("--start: ", start.status().message()));
    }
    starts_ns.push_back(absl::ToInt64Nanoseconds(*start));
  }
  if (starts_ns.empty()) starts_ns.push_back(0);
  std::optional<EcnFeedback> feedback;
  if (absl::GetFlag(FLAGS_ecn_feedback) != "auto") {
    absl::StatusOr<EcnFeedback> parsed =
        ParseEcnFeedback(absl::GetFlag(FLAGS_ecn_feedback));
    if (!parsed.ok()) return parsed.status();
    feedback = *parsed;
  }
  if (absl::GetFlag(FLAGS_ack_every) <= 0) {
    return absl::InvalidArgumentError("--ack_every must be positive");
  }
  absl::StatusOr<std::vector<std::string>> specs = ParseControllerList(cc);
  if (!specs.ok()) return specs.status();
  const std::optional<BufferSize> rwnd = absl::GetFlag(FLAGS_rwnd);
  if (rwnd.has_value() && rwnd->unit == BufferSize::Unit::kTime) {
    return absl::InvalidArgumentError(
        "--rwnd is a window: Np (packets) or NB, NkB, NMB (bytes), not a "
        "time");
  }
  for (const std::string& spec : *specs) {
    FlowConfig flow;
    flow.cc_spec = spec;
    absl::StatusOr<uint32_t> packet_bytes =
        SpecPacketBytes(spec, default_bytes);
    if (!packet_bytes.ok()) return packet_bytes.status();
    flow.packet_bytes = *packet_bytes;
    if (rwnd.has_value()) {
      flow.receive_window_bytes =
          rwnd->Bytes(BitRate{config.rate_bps}, flow.packet_bytes);
    }
    flow.pacing = absl::GetFlag(FLAGS_pacing);
    flow.start_ns =
        starts_ns[std::min(config.flows.size(), starts_ns.size() - 1)];
    flow.feedback = feedback;
    AckTimingFromFlags(flow);
    flow.tso_burst_shift = static_cast<uint32_t>(
        std::max(0, absl::GetFlag(FLAGS_tso_burst_shift)));
    flow.nic_rate_bps = static_cast<int64_t>(absl::GetFlag(FLAGS_nic_rate));
    config.flows.push_back(flow);
  }
  return absl::OkStatus();
}

// --policer_rate/--policer_burst and --rate_step, once the packet sizes
// (`largest`) are known.
absl::Status PolicerAndRateStepFromFlags(uint32_t largest,
                                         SimulationConfig& config) {
  const std::optional<BitRate> policer = absl::GetFlag(FLAGS_policer_rate);
  const std::optional<BufferSize> burst = absl::GetFlag(FLAGS_policer_burst);
  if (policer.has_value() != burst.has_value()) {
    return absl::InvalidArgumentError(
        "--policer_rate and --policer_burst go together");
  }
  if (policer.has_value()) {
    config.policer_rate_bps = policer->bits_per_second;
    config.policer_burst_bytes = burst->Bytes(*policer, largest);
  }
  const std::vector<std::string> step = absl::GetFlag(FLAGS_rate_step);
  if (step.empty()) return absl::OkStatus();
  absl::Duration at;
  absl::StatusOr<BitRate> rate =
      step.size() == 2 ? ParseBitRate(step[1])
                       : absl::InvalidArgumentError("--rate_step: TIME,RATE");
  if (!rate.ok()) return rate.status();
  if (!absl::ParseDuration(step[0], &at) || at < absl::ZeroDuration()) {
    return absl::InvalidArgumentError("--rate_step: TIME,RATE (1s,50mbit)");
  }
  config.rate_step_ns = absl::ToInt64Nanoseconds(at);
  config.rate_after_step_bps = rate->bits_per_second;
  return absl::OkStatus();
}

absl::StatusOr<SimulationConfig> ConfigFromFlags(int64_t& duration_ns) {
  SimulationConfig config;
  std::optional<BufferSize> buffer;
  absl::Status status = PathFromFlags(config, buffer);
  if (status.ok()) status = FlowsFromFlags(config);
  if (!status.ok()) return status;
  uint32_t largest = 0;
  for (const FlowConfig& flow : config.flows)
    largest = std::max(largest, flow.packet_bytes);
  config.buffer_bytes = buffer->Bytes(BitRate{config.rate_bps}, largest);
  config.admission = absl::GetFlag(FLAGS_byte_fit_admission)
                         ? AdmissionPolicy::kByteFit
                         : AdmissionPolicy::kPacketSizeNeutral;
  if (const std::optional<absl::Duration> threshold =
          absl::GetFlag(FLAGS_ce_threshold)) {
    config.ce_sojourn_threshold_ns = absl::ToInt64Nanoseconds(*threshold);
  }
  config.ce_backlog_threshold_bytes = absl::GetFlag(FLAGS_ce_backlog_bytes);
  status = PolicerAndRateStepFromFlags(largest, config);
  if (!status.ok()) return status;
  config.random_loss = absl::GetFlag(FLAGS_random_loss);
  config.seed = absl::GetFlag(FLAGS_seed);
  if (!absl::GetFlag(FLAGS_sender_jitter).empty()) {
    absl::StatusOr<SenderJitterSpec> jitter =
        ParseSenderJitter(absl::GetFlag(FLAGS_sender_jitter));
    if (!jitter.ok()) return jitter.status();
    config.sender_jitter = *jitter;
  }
  duration_ns = absl::ToInt64Nanoseconds(
      absl::GetFlag(FLAGS_duration).value_or(absl::Seconds(10)));
  if (duration_ns <= 0) return absl::InvalidArgumentError("--duration is 0");
  const std::optional<absl::Duration> sample =
      absl::GetFlag(FLAGS_sample_interval);
  config.sample_interval_ns =
      sample.has_value() && *sample > absl::ZeroDuration()
          ? absl::ToInt64Nanoseconds(*sample)
          : std::max<int64_t>(duration_ns / 1000, 1000);
  return config;
}

}  // namespace

int RunSimulate(const Args& args) {
  if (!args.empty()) return UsageError("no positional arguments (see --help)");
  int64_t duration_ns = 0;
  absl::StatusOr<SimulationConfig> config = ConfigFromFlags(duration_ns);
  if (!config.ok()) return UsageError(std::string(config.status().message()));
  std::unique_ptr<PcapExporter> exporter;
  if (!absl::GetFlag(FLAGS_pcap).empty()) {
    absl::StatusOr<std::unique_ptr<PcapExporter>> made =
        PcapExporter::Create(absl::GetFlag(FLAGS_pcap), *config);
    if (!made.ok()) {
      return ReportFailure("simulate", made.status());
    }
    exporter = std::move(*made);
  }
  absl::StatusOr<std::unique_ptr<Simulation>> sim =
      Simulation::Create(*config, exporter.get());
  if (!sim.ok()) return UsageError(std::string(sim.status().message()));
  const auto wall_start = std::chrono::steady_clock::now();
  (*sim)->RunUntil(duration_ns);
  const double wall_s = std::chrono::duration<double>(
                            std::chrono::steady_clock::now() - wall_start)
                            .count();
  if (exporter != nullptr) {
    absl::Status finished = exporter->Finish();
    if (!finished.ok()) {
      return ReportFailure("simulate", finished);
    }
  }
  const uint64_t packets = (*sim)->packets_sent();
  std::fprintf(stderr,
               "ccreplay simulate: %llu packets, %llu events in %.3f s of "
               "wall time (%.2f M packets/s)\n",
               static_cast<unsigned long long>(packets),
               static_cast<unsigned long long>((*sim)->events_processed()),
               wall_s, static_cast<double>(packets) / wall_s / 1e6);
  for (const std::string& warning : SimulationWarnings(**sim)) {
    std::fprintf(stderr, "ccreplay simulate: warning: %s\n", warning.c_str());
  }
  const std::string out =
      absl::GetFlag(FLAGS_json)  ? SimulationJson(**sim, duration_ns)
      : absl::GetFlag(FLAGS_csv) ? SimulationCsv(**sim)
                                 : SimulationTable(**sim, duration_ns);
  std::fwrite(out.data(), 1, out.size(), stdout);
  return kExitOk;
}

}  // namespace ccreplay
