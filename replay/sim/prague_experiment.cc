#include "replay/sim/prague_experiment.h"

#include <limits>
#include <memory>

#include "absl/strings/str_cat.h"
#include "cc/registry.h"
#include "replay/sim/parallel_runs.h"
#include "replay/sim/simulation.h"

namespace ccreplay {

SimulationConfig PragueRunConfig(const PragueExperimentOptions& options,
                                 const std::string& spec, uint32_t ack_every) {
  SimulationConfig config;
  config.rate_bps = options.rate_bps;
  config.base_rtt_ns = options.base_rtt_ns;
  config.buffer_bytes = static_cast<uint64_t>(
      static_cast<double>(options.rate_bps) / 8 * options.buffer_s);
  config.ce_sojourn_threshold_ns = options.ce_sojourn_threshold_ns;
  config.ce_per_skb = options.ce_per_skb;
  FlowConfig flow;
  flow.cc_spec = spec;
  flow.packet_bytes = options.packet_bytes;
  flow.pacing = true;
  flow.feedback = EcnFeedback::kAccEcn;
  flow.ack_every = ack_every;
  flow.delayed_ack_ns = options.flush_timer_ns;
  flow.tso_burst_shift = options.tso_burst_shift;
  flow.nic_rate_bps = options.nic_rate_bps;
  config.flows.push_back(flow);
  return config;
}

PragueExperimentOptions GroFlushPreset() {
  PragueExperimentOptions options;
  options.profiles = {"prague:v05"};
  options.ack_every = {16};
  options.flush_timer_ns = 500'000;
  options.tso_burst_shift = 12;
  options.nic_rate_bps = 10'000'000'000;
  options.duration_ns = 4'000'000'000;
  return options;
}

namespace {

struct Run {
  PragueRow row;
  uint64_t packets = 0;
};

// The profile as reported: the version, with the transition override.
absl::StatusOr<std::string> ProfileLabel(const PragueExperimentOptions& options,
                                         const std::string& version) {
  if (options.transition_rounds < 0) return version;
  absl::StatusOr<ControllerSpec> spec = ControllerSpec::Parse(version);
  if (!spec.ok()) return spec.status();
  absl::StatusOr<ControllerSpec> label =
      spec->With("transition", absl::StrCat(options.transition_rounds));
  if (!label.ok()) return label.status();
  return label->ToString();
}

absl::StatusOr<std::string> SpecFor(const std::string& profile,
                                    bool rtt_scaling) {
  if (rtt_scaling) return profile;
  absl::StatusOr<ControllerSpec> spec = ControllerSpec::Parse(profile);
  if (!spec.ok()) return spec.status();
  absl::StatusOr<ControllerSpec> off = spec->With("rtt_scaling", "none");
  if (!off.ok()) return off.status();
  return off->ToString();
}

}  // namespace

absl::StatusOr<PragueExperimentResult> RunPragueExperiment(
    const PragueExperimentOptions& options) {
  const size_t acks = options.ack_every.size();
  const size_t total = options.profiles.size() * 2 * acks;
  // Validate every configuration before starting the threads.
  for (const std::string& version : options.profiles) {
    absl::StatusOr<std::string> label = ProfileLabel(options, version);
    if (!label.ok()) return label.status();
    for (bool scaling : {true, false}) {
      absl::StatusOr<std::string> spec = SpecFor(*label, scaling);
      if (!spec.ok()) return spec.status();
      for (uint32_t ack_every : options.ack_every) {
        absl::StatusOr<std::unique_ptr<Simulation>> sim =
            Simulation::Create(PragueRunConfig(options, *spec, ack_every));
        if (!sim.ok()) return sim.status();
      }
    }
  }
  const std::vector<Run> runs =
      RunParallel<Run>(total, options.threads, [&](size_t i) {
        Run run;
        // Labels and specs were checked before the threads started.
        run.row.profile =
            *ProfileLabel(options, options.profiles[i / (2 * acks)]);
        run.row.rtt_scaling = (i / acks) % 2 == 0;
        run.row.ack_every = options.ack_every[i % acks];
        std::unique_ptr<Simulation> sim = *Simulation::Create(PragueRunConfig(
            options, *SpecFor(run.row.profile, run.row.rtt_scaling),
            run.row.ack_every));
        const int64_t half_ns = options.duration_ns / 2;
        sim->RunUntil(half_ns);
        const uint64_t half_bytes = sim->flow_stats(0).egress_bytes;
        sim->RunUntil(options.duration_ns);
        const FlowStats stats = sim->flow_stats(0);
        const double rate_bytes_per_ns =
            static_cast<double>(options.rate_bps) / 8e9;
        run.row.utilization =
            static_cast<double>(stats.egress_bytes) /
            (rate_bytes_per_ns * static_cast<double>(options.duration_ns));
        run.row.utilization_second_half =
            static_cast<double>(stats.egress_bytes - half_bytes) /
            (rate_bytes_per_ns *
             static_cast<double>(options.duration_ns - half_ns));
        const uint64_t min_cwnd = stats.sender.min_cwnd_after_slow_start_bytes;
        run.row.min_cwnd_after_ss_segments =
            min_cwnd == std::numeric_limits<uint64_t>::max()
                ? -1
                : static_cast<int64_t>(min_cwnd / options.packet_bytes);
        run.packets = stats.sender.packets_sent;
        return run;
      });
  PragueExperimentResult out;
  for (const Run& run : runs) {
    out.rows.push_back(run.row);
    out.packets_simulated += run.packets;
  }
  return out;
}

}  // namespace ccreplay
