// `ccreplay simulate`: closed-loop what-if runs on a modelled bottleneck
// (replay/sim/). Flags become a SimulationConfig; results are printed.
#include <chrono>
#include <cstdio>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "absl/flags/flag.h"
#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "cc/registry.h"
#include "cli/commands.h"
#include "cli/common_flags.h"
#include "cli/exit_codes.h"
#include "lab/lab_config.h"
#include "replay/sim/path_profile.h"
#include "replay/sim/pcap_export.h"
#include "replay/sim/sender_jitter.h"
#include "replay/sim/simulation.h"
#include "reports/sim_report.h"

ABSL_FLAG(std::string, profile, "",
          "simulate: a named path (rate, base RTT, buffer): DSL, Home_WiFi, "
          "Public, Corporate_WiFi, LTE, 5G, LEO, GEO, DoCoMo@Office, "
          "au@Office, WiFi@Office, DoCoMo@mall, congested, bdp20, bdp40. "
          "--rate, --delay and --buffer override its values.");
ABSL_FLAG(std::string, buffer, "",
          "simulate: bottleneck buffer: Np (packets of the largest size), "
          "NB/NkB/NMB (bytes) or Ns/Nms (time at the rate). Default 1 BDP.");
ABSL_FLAG(bool, byte_fit_admission, false,
          "simulate: admit a packet whenever it fits (byte-fit tail drop) "
          "instead of packet-size-neutral tail drop (RFC 7141 4.2.1.2).");
ABSL_FLAG(double, ce_threshold_ms, -1,
          "simulate: mark ECT packets CE when their sojourn time exceeds this "
          "(like tc fq ce_threshold); -1 off.");
ABSL_FLAG(int64_t, ce_backlog_bytes, -1,
          "simulate: mark ECT packets CE on arrival when the backlog exceeds "
          "this many bytes (DCTCP step, RFC 8257 3.1); -1 off.");
ABSL_FLAG(int, ack_every, 2,
          "simulate: the receivers ACK every N segments (1, 2, ... 16).");
ABSL_FLAG(double, delayed_ack_ms, 40,
          "simulate: delayed-ACK timer (Linux TCP_DELACK_MIN is 40 ms).");
ABSL_FLAG(bool, pacing, false, "simulate: pace the senders.");
ABSL_FLAG(std::string, start_ms, "0",
          "simulate: start time of each flow in ms, comma-separated (the "
          "last value repeats).");
ABSL_FLAG(std::string, ecn_feedback, "auto",
          "simulate: auto (AccECN for prague, DCTCP for dctcp, RFC 3168 for "
          "others when the path marks), none, rfc3168, dctcp or accecn.");
ABSL_FLAG(double, random_loss, 0,
          "simulate: probability of losing a packet after the bottleneck.");
ABSL_FLAG(uint64_t, seed, 1,
          "simulate, experiment mtu-normalization: seed of the random loss "
          "and the sender jitter.");
ABSL_FLAG(std::string, sender_jitter, "",
          "simulate, experiment mtu-normalization: a random delay per packet "
          "at each sender, uniform in [0, bound], flow order kept, against "
          "drop-tail phase effects (Floyd and Jacobson 1992): off, service "
          "(one bottleneck service time of the largest packet) or a duration "
          "(50us). Default: off for simulate, service for the experiment.");
ABSL_FLAG(std::string, rwnd, "",
          "simulate: the receivers' advertised window: Np (packets of the "
          "flow's size), NB, NkB or NMB. Default: unlimited.");
ABSL_FLAG(double, sample_ms, 0,
          "simulate: series sampling period (default duration / 1000).");
ABSL_FLAG(std::string, pcap, "",
          "simulate: write the data senders' view as a pcap (raw IPv4/TCP "
          "headers, AccECN or RFC 3168 feedback) to this file.");

namespace ccreplay {
namespace {

constexpr int64_t kMs = 1'000'000;

int UsageError(const std::string& message) {
  std::fprintf(stderr, "ccreplay simulate: %s\n", message.c_str());
  return kExitUsage;
}

absl::StatusOr<uint64_t> BufferBytes(const std::string& text, int64_t rate_bps,
                                     uint32_t largest_packet_bytes) {
  double value = 0;
  if (absl::EndsWith(text, "ms") &&
      absl::SimpleAtod(text.substr(0, text.size() - 2), &value)) {
    return static_cast<uint64_t>(rate_bps / 8.0 * value / 1000);
  }
  if (absl::EndsWith(text, "s") && !absl::EndsWith(text, "B") &&
      absl::SimpleAtod(text.substr(0, text.size() - 1), &value)) {
    return static_cast<uint64_t>(rate_bps / 8.0 * value);
  }
  absl::StatusOr<lab::QueueSpec> queue = lab::ParseQueue(text);
  if (!queue.ok()) {
    return absl::InvalidArgumentError(absl::StrCat(
        "bad --buffer '", text, "': expected Np, NB, NkB, Ns or Nms"));
  }
  return queue->in_packets
             ? static_cast<uint64_t>(queue->limit) * largest_packet_bytes
             : static_cast<uint64_t>(queue->limit);
}

absl::StatusOr<SimulationConfig> ConfigFromFlags(int64_t& duration_ns) {
  SimulationConfig config;
  std::string buffer = absl::GetFlag(FLAGS_buffer);
  const std::string profile_name = absl::GetFlag(FLAGS_profile);
  if (!profile_name.empty()) {
    absl::StatusOr<PathProfile> profile = FindPathProfile(profile_name);
    if (!profile.ok()) return profile.status();
    config.rate_bps = profile->rate_bps;
    config.base_rtt_ns = profile->base_rtt_us * 1000;
    if (buffer.empty()) buffer = absl::StrCat(profile->buffer_s, "s");
  }
  if (!absl::GetFlag(FLAGS_rate).empty()) {
    absl::StatusOr<int64_t> rate =
        lab::ParseRateBitsPerSecond(absl::GetFlag(FLAGS_rate));
    if (!rate.ok()) return rate.status();
    config.rate_bps = *rate;
  }
  if (absl::GetFlag(FLAGS_delay) > 0) {
    config.base_rtt_ns = static_cast<int64_t>(absl::GetFlag(FLAGS_delay) * kMs);
  }
  if (config.rate_bps <= 0 || config.base_rtt_ns <= 0) {
    return absl::InvalidArgumentError(
        "give --profile, or --rate and --delay (base RTT in ms)");
  }
  const std::string cc =
      absl::GetFlag(FLAGS_cc).empty() ? "cubic" : absl::GetFlag(FLAGS_cc);
  const uint32_t default_bytes =
      absl::GetFlag(FLAGS_mss) > 0 ? absl::GetFlag(FLAGS_mss) : 1448;
  std::vector<int64_t> starts_ns;
  for (absl::string_view item :
       absl::StrSplit(absl::GetFlag(FLAGS_start_ms), ',')) {
    double ms = 0;
    if (!absl::SimpleAtod(item, &ms) || ms < 0) {
      return absl::InvalidArgumentError(
          absl::StrCat("bad --start_ms value '", item, "'"));
    }
    starts_ns.push_back(static_cast<int64_t>(ms * kMs));
  }
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
  std::optional<lab::QueueSpec> rwnd;
  if (!absl::GetFlag(FLAGS_rwnd).empty()) {
    absl::StatusOr<lab::QueueSpec> parsed =
        lab::ParseQueue(absl::GetFlag(FLAGS_rwnd));
    if (!parsed.ok()) {
      return absl::InvalidArgumentError(
          absl::StrCat("bad --rwnd '", absl::GetFlag(FLAGS_rwnd),
                       "': expected Np, NB, NkB or NMB"));
    }
    rwnd = *parsed;
  }
  uint32_t largest = 0;
  for (const std::string& spec : *specs) {
    FlowConfig flow;
    flow.cc_spec = spec;
    absl::StatusOr<uint32_t> packet_bytes =
        SpecPacketBytes(spec, default_bytes);
    if (!packet_bytes.ok()) return packet_bytes.status();
    flow.packet_bytes = *packet_bytes;
    if (rwnd.has_value()) {
      const auto limit = static_cast<uint64_t>(rwnd->limit);
      flow.receive_window_bytes =
          rwnd->in_packets ? limit * flow.packet_bytes : limit;
    }
    flow.pacing = absl::GetFlag(FLAGS_pacing);
    flow.start_ns =
        starts_ns[std::min(config.flows.size(), starts_ns.size() - 1)];
    flow.feedback = feedback;
    flow.ack_every = static_cast<uint32_t>(absl::GetFlag(FLAGS_ack_every));
    flow.delayed_ack_ns =
        static_cast<int64_t>(absl::GetFlag(FLAGS_delayed_ack_ms) * kMs);
    largest = std::max(largest, flow.packet_bytes);
    config.flows.push_back(flow);
  }
  if (buffer.empty()) {
    config.buffer_bytes = static_cast<uint64_t>(
        config.rate_bps / 8.0 * static_cast<double>(config.base_rtt_ns) * 1e-9);
  } else {
    absl::StatusOr<uint64_t> bytes =
        BufferBytes(buffer, config.rate_bps, largest);
    if (!bytes.ok()) return bytes.status();
    config.buffer_bytes = *bytes;
  }
  config.admission = absl::GetFlag(FLAGS_byte_fit_admission)
                         ? AdmissionPolicy::kByteFit
                         : AdmissionPolicy::kPacketSizeNeutral;
  if (absl::GetFlag(FLAGS_ce_threshold_ms) >= 0) {
    config.ce_sojourn_threshold_ns =
        static_cast<int64_t>(absl::GetFlag(FLAGS_ce_threshold_ms) * kMs);
  }
  config.ce_backlog_threshold_bytes = absl::GetFlag(FLAGS_ce_backlog_bytes);
  config.random_loss = absl::GetFlag(FLAGS_random_loss);
  config.seed = absl::GetFlag(FLAGS_seed);
  if (!absl::GetFlag(FLAGS_sender_jitter).empty()) {
    absl::StatusOr<SenderJitterSpec> jitter =
        ParseSenderJitter(absl::GetFlag(FLAGS_sender_jitter));
    if (!jitter.ok()) return jitter.status();
    config.sender_jitter = *jitter;
  }
  const double duration_s =
      absl::GetFlag(FLAGS_duration) > 0 ? absl::GetFlag(FLAGS_duration) : 10;
  duration_ns = static_cast<int64_t>(duration_s * 1e9);
  const double sample_ms = absl::GetFlag(FLAGS_sample_ms);
  config.sample_interval_ns = sample_ms > 0
                                  ? static_cast<int64_t>(sample_ms * kMs)
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
      std::fprintf(stderr, "ccreplay simulate: %s\n",
                   std::string(made.status().message()).c_str());
      return ExitCodeForStatus(made.status());
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
      std::fprintf(stderr, "ccreplay simulate: %s\n",
                   std::string(finished.message()).c_str());
      return ExitCodeForStatus(finished);
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
