// `ccreplay experiment NAME`: the two reference experiments of the
// simulator (replay/sim/mtu_experiment.h, replay/sim/prague_experiment.h).
#include <algorithm>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <string>
#include <utility>
#include <vector>

#include "absl/flags/declare.h"
#include "absl/flags/flag.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "absl/strings/string_view.h"
#include "cli/commands.h"
#include "cli/common_flags.h"
#include "cli/exit_codes.h"
#include "replay/sim/mtu_experiment.h"
#include "replay/sim/path_profile.h"
#include "replay/sim/prague_experiment.h"
#include "replay/sim/sender_jitter.h"
#include "reports/sim_report.h"

// cli/simulate_command.cc
ABSL_DECLARE_FLAG(std::string, profile);
ABSL_DECLARE_FLAG(uint64_t, seed);
ABSL_DECLARE_FLAG(std::string, sender_jitter);
ABSL_DECLARE_FLAG(bool, byte_fit_admission);
ABSL_DECLARE_FLAG(int, tso_burst_shift);
ABSL_DECLARE_FLAG(double, nic_rate);

ABSL_FLAG(std::vector<std::string>, controllers,
          std::vector<std::string>({"reno", "cubic"}),
          "experiment mtu-normalization: the controllers compared.");
ABSL_FLAG(int, start_offsets, 10,
          "experiment mtu-normalization: start offsets per flow order (runs "
          "per profile and setting = 2 x this).");
ABSL_FLAG(int, runs, 0,
          "experiment mtu-normalization: runs per profile and setting, an "
          "even number (half as many start offsets, in both flow orders); 0 "
          "keeps 2 x --start_offsets.");
ABSL_FLAG(std::string, in_service, "dequeue_at_start",
          "experiment mtu-normalization: the packet in service leaves the "
          "buffer when its transmission starts (dequeue_at_start, quicly's "
          "t/simulator.c) or when its last bit has left (until_last_bit, "
          "ccreplay simulate's model).");
ABSL_FLAG(std::string, delivery, "at_start",
          "experiment mtu-normalization: the packet moves on to the receiver "
          "when its transmission starts (at_start, quicly's t/simulator.c) "
          "or when its last bit has left (at_last_bit, ccreplay simulate's "
          "model).");
ABSL_FLAG(absl::Duration, small_flow_extra_rtt, absl::ZeroDuration(),
          "experiment mtu-normalization: added to the 1280-byte flow's base "
          "RTT (25us), a probe of how much the result rests on the two "
          "flows' loop timing (drop-tail phase effects); 0: the path's.");
ABSL_FLAG(std::string, recovery_acks, "on_new_gap",
          "experiment mtu-normalization: while data is missing the receiver "
          "ACKs at once only the packet that reveals a gap (on_new_gap, "
          "quicly's record_receipt) or every packet (every_packet_while_hole, "
          "ccreplay simulate's model).");
ABSL_FLAG(absl::Duration, timer_granularity, absl::ZeroDuration(),
          "experiment mtu-normalization: the receivers' ACK timers run on a "
          "clock of this tick, as quicly's simulator (1ms: an immediate ACK "
          "leaves at the tick it is due in + 0.1 ms at the earliest, a "
          "delayed one 25 ms after that tick + 0.1 ms); 0 (default): ACKs "
          "leave when due.");
ABSL_FLAG(absl::Duration, sender_clock, absl::ZeroDuration(),
          "experiment mtu-normalization: the senders' RTT samples, smoothed "
          "RTT and their controllers' time in whole ticks of this size, as "
          "quicly's (1ms: quicly_rtt_update() on integer ms, at least 1 ms); "
          "0 (default): exact.");
ABSL_FLAG(
    absl::Duration, max_sim_time, absl::Hours(1),
    "experiment mtu-normalization: cap on simulated time per run (default "
    "1h).");
ABSL_FLAG(int, transition_rounds, -1,
          "experiment prague-rtt-scaling: override every version's "
          "transition (rounds before RTT scaling starts); -1 keeps each "
          "version's own.");
ABSL_FLAG(std::vector<std::string>, versions,
          std::vector<std::string>({"prague:v05", "prague:v06", "prague:v07"}),
          "experiment prague-rtt-scaling: the Prague profiles run.");
ABSL_FLAG(std::vector<std::string>, gro_segments,
          std::vector<std::string>({"1", "2", "4", "8", "16"}),
          "experiment prague-rtt-scaling: receivers that ACK every N "
          "segments (GRO coalescing), one row each.");
ABSL_FLAG(absl::Duration, flush_timer, absl::Microseconds(50),
          "experiment prague-rtt-scaling: the receiver's ACK flush timer "
          "(GRO's gro_flush_timeout).");
ABSL_FLAG(bool, ce_per_skb, false,
          "experiment prague-rtt-scaling: CE by sojourn decided once per TSO "
          "skb, as sch_fq marks a GSO skb whole.");
ABSL_FLAG(std::string, preset, "",
          "experiment prague-rtt-scaling: a named setting (gro_flush: v0.5, "
          "ACK every 16, 500 us flush, TSO shift 12, 10 Gb/s NIC, 4 s; "
          "docs/experiments.md) in place of --versions, --gro_segments, "
          "--flush_timer, --tso_burst_shift, --nic_rate and --duration.");
ABSL_FLAG(int, threads, 0, "worker threads (0: one per core).");

namespace ccreplay {
namespace {

double SecondsSince(std::chrono::steady_clock::time_point start) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - start)
      .count();
}

int ReportError(const absl::Status& status) {
  std::fprintf(stderr, "ccreplay experiment: %s\n",
               std::string(status.message()).c_str());
  return status.code() == absl::StatusCode::kInvalidArgument ||
                 status.code() == absl::StatusCode::kNotFound
             ? kExitUsage
             : ExitCodeForStatus(status);
}

// Stores a parsed flag value in `out`, or passes the parse error on.
template <typename T>
absl::Status Store(absl::StatusOr<T> parsed, T* out) {
  if (!parsed.ok()) return parsed.status();
  *out = *std::move(parsed);
  return absl::OkStatus();
}

// A duration flag that must not be negative, in nanoseconds.
absl::StatusOr<int64_t> NonNegativeNs(absl::Duration value,
                                      absl::string_view flag) {
  if (value < absl::ZeroDuration()) {
    return absl::InvalidArgumentError(
        absl::StrCat("--", flag, " must not be negative"));
  }
  return absl::ToInt64Nanoseconds(value);
}

// The experiment's options from the flags.
absl::StatusOr<MtuExperimentOptions> MtuOptionsFromFlags() {
  MtuExperimentOptions options;
  options.controllers = absl::GetFlag(FLAGS_controllers);
  options.start_offsets = absl::GetFlag(FLAGS_start_offsets);
  if (const int runs = absl::GetFlag(FLAGS_runs); runs != 0) {
    if (runs < 0 || runs % 2 != 0) {
      return absl::InvalidArgumentError(
          "--runs must be a positive even number (both flow orders)");
    }
    options.start_offsets = runs / 2;
  }
  for (absl::Status status :
       {Store(ParseInServiceAccounting(absl::GetFlag(FLAGS_in_service)),
              &options.in_service),
        Store(ParseBottleneckDelivery(absl::GetFlag(FLAGS_delivery)),
              &options.delivery),
        Store(ParseRecoveryAcks(absl::GetFlag(FLAGS_recovery_acks)),
              &options.recovery_acks),
        Store(NonNegativeNs(absl::GetFlag(FLAGS_small_flow_extra_rtt),
                            "small_flow_extra_rtt"),
              &options.small_flow_extra_rtt_ns),
        Store(NonNegativeNs(absl::GetFlag(FLAGS_timer_granularity),
                            "timer_granularity"),
              &options.timer_granularity_ns),
        Store(NonNegativeNs(absl::GetFlag(FLAGS_sender_clock), "sender_clock"),
              &options.sender_clock_ns)}) {
    if (!status.ok()) return status;
  }
  if (absl::GetFlag(FLAGS_byte_fit_admission))
    options.admission = AdmissionPolicy::kByteFit;
  options.max_simulated_s =
      absl::ToDoubleSeconds(absl::GetFlag(FLAGS_max_sim_time));
  options.threads = absl::GetFlag(FLAGS_threads);
  options.seed = absl::GetFlag(FLAGS_seed);
  if (!absl::GetFlag(FLAGS_sender_jitter).empty()) {
    absl::StatusOr<SenderJitterSpec> jitter =
        ParseSenderJitter(absl::GetFlag(FLAGS_sender_jitter));
    if (!jitter.ok()) return jitter.status();
    options.sender_jitter = *jitter;
  }
  if (!absl::GetFlag(FLAGS_profile).empty()) {
    options.profiles.clear();
    for (absl::string_view name :
         absl::StrSplit(absl::GetFlag(FLAGS_profile), ',')) {
      absl::StatusOr<PathProfile> profile = FindPathProfile(name);
      if (!profile.ok()) return profile.status();
      options.profiles.push_back(*profile);
    }
  }
  return options;
}

int RunMtu() {
  absl::StatusOr<MtuExperimentOptions> options = MtuOptionsFromFlags();
  if (!options.ok()) return ReportError(options.status());
  const auto start = std::chrono::steady_clock::now();
  absl::StatusOr<MtuExperimentResult> result = RunMtuExperiment(*options);
  if (!result.ok()) return ReportError(result.status());
  const double wall_s = SecondsSince(start);
  std::fprintf(
      stderr,
      "ccreplay experiment: %d runs, %llu packets in %.1f s of wall "
      "time (%.2f M packets/s)\n",
      result->runs, static_cast<unsigned long long>(result->packets_simulated),
      wall_s, static_cast<double>(result->packets_simulated) / wall_s / 1e6);
  const std::string out = absl::GetFlag(FLAGS_json)
                              ? MtuExperimentJson(*result)
                              : MtuExperimentTable(*result);
  std::fwrite(out.data(), 1, out.size(), stdout);
  return kExitOk;
}

// The experiment's options from the flags, or from --preset.
absl::StatusOr<PragueExperimentOptions> PragueOptionsFromFlags() {
  const std::string preset = absl::GetFlag(FLAGS_preset);
  PragueExperimentOptions options;
  if (preset == "gro_flush") {
    options = GroFlushPreset();
  } else if (!preset.empty()) {
    return absl::InvalidArgumentError(
        absl::StrCat("unknown --preset ", preset, " (gro_flush)"));
  } else {
    options.profiles = absl::GetFlag(FLAGS_versions);
    options.ack_every.clear();
    for (const std::string& n : absl::GetFlag(FLAGS_gro_segments)) {
      uint32_t every = 0;
      if (!absl::SimpleAtoi(n, &every) || every == 0) {
        return absl::InvalidArgumentError(
            "--gro_segments takes positive integers");
      }
      options.ack_every.push_back(every);
    }
    options.flush_timer_ns =
        absl::ToInt64Nanoseconds(absl::GetFlag(FLAGS_flush_timer));
    options.tso_burst_shift = static_cast<uint32_t>(
        std::max(0, absl::GetFlag(FLAGS_tso_burst_shift)));
    options.nic_rate_bps = static_cast<int64_t>(absl::GetFlag(FLAGS_nic_rate));
    options.ce_per_skb = absl::GetFlag(FLAGS_ce_per_skb);
    if (const std::optional<absl::Duration> duration =
            absl::GetFlag(FLAGS_duration)) {
      options.duration_ns = absl::ToInt64Nanoseconds(*duration);
    }
  }
  options.threads = absl::GetFlag(FLAGS_threads);
  options.transition_rounds = absl::GetFlag(FLAGS_transition_rounds);
  return options;
}

int RunPrague() {
  absl::StatusOr<PragueExperimentOptions> parsed = PragueOptionsFromFlags();
  if (!parsed.ok()) return ReportError(parsed.status());
  const PragueExperimentOptions& options = *parsed;
  const auto start = std::chrono::steady_clock::now();
  absl::StatusOr<PragueExperimentResult> result = RunPragueExperiment(options);
  if (!result.ok()) return ReportError(result.status());
  const double wall_s = SecondsSince(start);
  std::fprintf(stderr,
               "ccreplay experiment: %zu runs, %llu packets in %.1f s of wall "
               "time (%.2f M packets/s)\n",
               result->rows.size(),
               static_cast<unsigned long long>(result->packets_simulated),
               wall_s,
               static_cast<double>(result->packets_simulated) / wall_s / 1e6);
  const std::string out = absl::GetFlag(FLAGS_json)
                              ? PragueExperimentJson(*result)
                              : PragueExperimentTable(*result);
  std::fwrite(out.data(), 1, out.size(), stdout);
  return kExitOk;
}

}  // namespace

int RunExperiment(const Args& args) {
  if (args.size() == 1 && args[0] == "mtu-normalization") return RunMtu();
  if (args.size() == 1 && args[0] == "prague-rtt-scaling") return RunPrague();
  std::fprintf(stderr,
               "usage: ccreplay experiment mtu-normalization|"
               "prague-rtt-scaling [--json]  (see --help)\n");
  return kExitUsage;
}

}  // namespace ccreplay
