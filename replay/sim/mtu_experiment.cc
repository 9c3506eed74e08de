#include "replay/sim/mtu_experiment.h"

#include <algorithm>
#include <cmath>
#include <memory>

#include "absl/strings/str_cat.h"
#include "cc/registry.h"
#include "replay/sim/parallel_runs.h"
#include "replay/sim/simulation.h"

namespace ccreplay {
namespace {

constexpr int64_t kMaxAckDelayNs = 25'000'000;  // RFC 9000 section 18.2

struct RunResult {
  double ratio = 0;
  uint64_t small_bytes = 0;  // T1280 and T1462 over the measured window
  uint64_t large_bytes = 0;
  int min_periods = 0;
  bool capped = false;
  double simulated_s = 0;
  uint64_t packets = 0;
};

}  // namespace

absl::StatusOr<std::string> NormalizationSettingSpec(
    const std::string& controller, bool normalize, uint32_t reference_bytes) {
  absl::StatusOr<ControllerSpec> spec = ControllerSpec::Parse(controller);
  if (!spec.ok()) return spec.status();
  if (!spec->Takes("normalize")) return spec->ToString();
  // "off" explicitly: the quicly profiles default to normalize=1462.
  absl::StatusOr<ControllerSpec> setting = spec->With(
      "normalize", normalize ? absl::StrCat(reference_bytes) : "off");
  if (!setting.ok()) return setting.status();
  return setting->ToString();
}

namespace {

// The simulation of run `run`: the profile's path and the two flows, the
// run choosing which starts first and how much later the other starts.
SimulationConfig RunConfig(const MtuExperimentOptions& options,
                           const std::string& controller, bool normalize,
                           const PathProfile& profile, int run) {
  SimulationConfig config;
  config.rate_bps = profile.rate_bps;
  config.base_rtt_ns = profile.base_rtt_us * 1000;
  config.buffer_bytes = profile.buffer_bytes();
  config.sender_jitter = options.sender_jitter;
  config.in_service = options.in_service;
  config.admission = options.admission;
  config.delivery = options.delivery;
  config.seed = options.seed * 1'000'003 + static_cast<uint64_t>(run);
  const int offset = run % options.start_offsets;
  const bool small_first = run >= options.start_offsets;
  const int64_t offset_ns = config.base_rtt_ns * offset / options.start_offsets;
  // Both flows run the setting's spec, as quicly's normalize_cc_mtu is a
  // context-wide setting (a no-op for the 1462-byte flow). Checked by
  // RunMtuExperiment() before the runs start.
  const std::string spec =
      *NormalizationSettingSpec(controller, normalize, options.reference_bytes);
  FlowConfig large;
  large.cc_spec = spec;
  large.packet_bytes = options.large_packet_bytes;
  FlowConfig small;
  small.cc_spec = spec;
  small.packet_bytes = options.small_packet_bytes;
  for (FlowConfig* flow : {&large, &small}) {
    flow->ack_every = 2;
    flow->delayed_ack_ns = kMaxAckDelayNs;
    flow->recovery_acks = options.recovery_acks;
    flow->timer_granularity_ns = options.timer_granularity_ns;
    flow->sender_clock_ns = options.sender_clock_ns;
  }
  if (options.small_flow_extra_rtt_ns != 0) {
    small.base_rtt_ns = config.base_rtt_ns + options.small_flow_extra_rtt_ns;
  }
  (small_first ? large : small).start_ns = offset_ns;
  // Flow 0 is the 1462-byte flow, flow 1 the 1280-byte one.
  config.flows = {large, small};
  return config;
}

RunResult RunOne(const MtuExperimentOptions& options,
                 const std::string& controller, bool normalize,
                 const PathProfile& profile, int run) {
  const SimulationConfig config =
      RunConfig(options, controller, normalize, profile, run);
  std::unique_ptr<Simulation> sim = *Simulation::Create(config);

  const int64_t step_ns = std::max<int64_t>(config.base_rtt_ns, 1'000'000);
  const int64_t cap_ns = static_cast<int64_t>(options.max_simulated_s * 1e9);
  const uint64_t warm_episodes = 1 + options.warmup_periods;
  bool warm = false;
  uint64_t episodes_at_warm[2] = {0, 0};
  uint64_t bytes_at_warm[2] = {0, 0};
  RunResult result;
  int64_t t = 0;
  while (true) {
    t += step_ns;
    sim->RunUntil(t);
    const FlowStats a = sim->flow_stats(0), b = sim->flow_stats(1);
    const uint64_t ea = a.sender.congestion_episodes;
    const uint64_t eb = b.sender.congestion_episodes;
    if (!warm && std::min(ea, eb) >= warm_episodes) {
      warm = true;
      episodes_at_warm[0] = ea;
      episodes_at_warm[1] = eb;
      bytes_at_warm[0] = a.egress_bytes;
      bytes_at_warm[1] = b.egress_bytes;
    }
    // k episodes inside the window bound k - 1 complete periods.
    const uint64_t periods =
        warm ? std::min(ea - episodes_at_warm[0], eb - episodes_at_warm[1]) : 0;
    const bool done = warm && periods >= uint64_t(options.measured_periods) + 1;
    if (done || t >= cap_ns) {
      result.capped = !done;
      result.min_periods = periods > 0 ? static_cast<int>(periods) - 1 : 0;
      result.small_bytes = b.egress_bytes - bytes_at_warm[1];
      result.large_bytes = a.egress_bytes - bytes_at_warm[0];
      result.ratio = static_cast<double>(result.small_bytes) /
                     static_cast<double>(result.large_bytes);
      result.packets = a.sender.packets_sent + b.sender.packets_sent;
      break;
    }
  }
  result.simulated_s = static_cast<double>(t) * 1e-9;
  return result;
}

// Geometric mean and geometric standard deviation of `values`.
void GeometricStats(const std::vector<double>& values, double& mean,
                    double& gsd) {
  double sum = 0;
  for (double v : values) sum += std::log(v);
  const double mu = sum / static_cast<double>(values.size());
  double squares = 0;
  for (double v : values) squares += (std::log(v) - mu) * (std::log(v) - mu);
  mean = std::exp(mu);
  gsd = values.size() > 1
            ? std::exp(
                  std::sqrt(squares / static_cast<double>(values.size() - 1)))
            : 1.0;
}

// Every setting's spec names a controller, with and without normalization.
absl::Status CheckControllers(const MtuExperimentOptions& options) {
  for (const std::string& controller : options.controllers) {
    for (bool normalize : {false, true}) {
      absl::StatusOr<std::string> spec = NormalizationSettingSpec(
          controller, normalize, options.reference_bytes);
      if (!spec.ok()) return spec.status();
      absl::StatusOr<std::unique_ptr<CongestionController>> made =
          MakeController(*spec);
      if (!made.ok()) return made.status();
    }
  }
  return absl::OkStatus();
}

// Mean, standard error and bytes ratio of one profile under one setting.
struct SettingSummary {
  double mean = 0;
  double standard_error = 0;
  double bytes_ratio = 0;
};

SettingSummary SummarizeSetting(const RunResult* runs, size_t n) {
  double sum = 0;
  uint64_t small = 0, large = 0;
  for (size_t r = 0; r < n; ++r) {
    sum += runs[r].ratio;
    small += runs[r].small_bytes;
    large += runs[r].large_bytes;
  }
  SettingSummary summary;
  summary.mean = sum / static_cast<double>(n);
  double squares = 0;
  for (size_t r = 0; r < n; ++r) {
    squares += (runs[r].ratio - summary.mean) * (runs[r].ratio - summary.mean);
  }
  summary.standard_error =
      n > 1 ? std::sqrt(squares / static_cast<double>(n - 1) /
                        static_cast<double>(n))
            : 0;
  summary.bytes_ratio = static_cast<double>(small) / static_cast<double>(large);
  return summary;
}

// Profile `p` of one controller, from that controller's results (ordered
// by setting, profile, run).
MtuProfileResult SummarizeProfile(const MtuExperimentOptions& options,
                                  const RunResult* results, size_t p) {
  const size_t runs = 2 * static_cast<size_t>(options.start_offsets);
  const size_t profiles = options.profiles.size();
  MtuProfileResult profile;
  profile.name = options.profiles[p].name;
  profile.min_measured_periods = options.measured_periods + 1;
  for (int setting = 0; setting < 2; ++setting) {
    const RunResult* first = results + (setting * profiles + p) * runs;
    for (size_t r = 0; r < runs; ++r) {
      profile.min_measured_periods =
          std::min(profile.min_measured_periods, first[r].min_periods);
      profile.capped_runs += first[r].capped ? 1 : 0;
      profile.simulated_s += first[r].simulated_s;
    }
    const SettingSummary summary = SummarizeSetting(first, runs);
    (setting == 0 ? profile.ratio_without : profile.ratio_with) = summary.mean;
    (setting == 0 ? profile.stderr_without : profile.stderr_with) =
        summary.standard_error;
    (setting == 0 ? profile.bytes_ratio_without : profile.bytes_ratio_with) =
        summary.bytes_ratio;
  }
  return profile;
}

// The geometric statistics of one controller's profiles.
void SummarizeController(MtuControllerResult& row) {
  std::vector<double> without, with, bytes_without, bytes_with;
  for (const MtuProfileResult& profile : row.profiles) {
    without.push_back(profile.ratio_without);
    with.push_back(profile.ratio_with);
    bytes_without.push_back(profile.bytes_ratio_without);
    bytes_with.push_back(profile.bytes_ratio_with);
  }
  GeometricStats(without, row.ratio_without, row.gsd_without);
  GeometricStats(with, row.ratio_with, row.gsd_with);
  GeometricStats(bytes_without, row.bytes_ratio_without, row.bytes_gsd_without);
  GeometricStats(bytes_with, row.bytes_ratio_with, row.bytes_gsd_with);
}

}  // namespace

absl::StatusOr<MtuExperimentResult> RunMtuExperiment(
    const MtuExperimentOptions& options) {
  if (options.profiles.empty() || options.controllers.empty() ||
      options.start_offsets <= 0) {
    return absl::InvalidArgumentError(
        "the experiment needs controllers, profiles and start offsets");
  }
  absl::Status status = CheckControllers(options);
  if (!status.ok()) return status;
  const size_t runs = 2 * static_cast<size_t>(options.start_offsets);
  const size_t profiles = options.profiles.size();
  const size_t per_controller = 2 * profiles * runs;
  const size_t total = options.controllers.size() * per_controller;
  const std::vector<RunResult> results =
      RunParallel<RunResult>(total, options.threads, [&](size_t i) {
        const size_t c = i / per_controller;
        const size_t rest = i % per_controller;
        const bool normalize = rest / (profiles * runs) == 1;
        const size_t p = (rest / runs) % profiles;
        return RunOne(options, options.controllers[c], normalize,
                      options.profiles[p], static_cast<int>(rest % runs));
      });

  MtuExperimentResult out;
  out.runs = static_cast<int>(total);
  for (const RunResult& r : results) out.packets_simulated += r.packets;
  for (size_t c = 0; c < options.controllers.size(); ++c) {
    MtuControllerResult row;
    row.controller = options.controllers[c];
    for (size_t p = 0; p < profiles; ++p) {
      row.profiles.push_back(
          SummarizeProfile(options, results.data() + c * per_controller, p));
    }
    SummarizeController(row);
    out.rows.push_back(row);
  }
  return out;
}

}  // namespace ccreplay
