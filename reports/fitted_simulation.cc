#include "reports/fitted_simulation.h"

#include <algorithm>
#include <cmath>
#include <memory>
#include <optional>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "cc/registry.h"
#include "replay/sim/parallel_runs.h"
#include "replay/sim/simulation.h"
#include "reports/percentile.h"

namespace ccreplay {
namespace {

// Segments per ACK the fitted receiver may be given.
constexpr double kMaxAckEvery = 64;
// A fitted run simulates at most this many full-size packets (about a
// second of CPU) and at most this long.
constexpr double kMaxSimulatedPackets = 400000;
constexpr double kMaxSimulatedS = 60;
// The smallest buffer the fitted path gets, in packets: a flow that never
// queued still needs room for a burst of ACK-clocked packets.
constexpr uint64_t kMinBufferPackets = 8;
constexpr uint64_t kFullPacketBytes = 1500;

SimulationConfig ConfigFor(const FittedPath& path) {
  SimulationConfig config;
  config.rate_bps = path.rate_bps;
  config.base_rtt_ns = path.base_rtt_ns;
  config.buffer_bytes = path.buffer_bytes;
  config.admission = path.admission;
  config.ce_sojourn_threshold_ns = path.ce_sojourn_threshold_ns;
  if (path.rate_step_ns >= 0) {
    config.rate_step_ns = path.rate_step_ns;
    config.rate_after_step_bps = path.rate_after_step_bps;
  }
  return config;
}

absl::StatusOr<std::unique_ptr<Simulation>> Run(const SimulationConfig& config,
                                                int64_t until_ns) {
  absl::StatusOr<std::unique_ptr<Simulation>> sim = Simulation::Create(config);
  if (!sim.ok()) return sim.status();
  (*sim)->RunUntil(until_ns);
  return sim;
}

}  // namespace

double FittedPath::CapacityBytes() const {
  const double run_s = duration_ns * 1e-9;
  if (rate_step_ns < 0 || rate_step_ns >= duration_ns) {
    return rate_bps / 8.0 * run_s;
  }
  const double step_s = rate_step_ns * 1e-9;
  return (rate_bps * step_s + rate_after_step_bps * (run_s - step_s)) / 8.0;
}

std::string FittedPath::Describe() const {
  std::string extra;
  if (rate_step_ns >= 0) {
    extra += absl::StrFormat(", the rate %.2f Mb/s from %.3f s",
                             rate_after_step_bps / 1e6, rate_step_ns / 1e9);
  }
  if (ack_hold_ns > 0 && ack_hold_period_ns > 0) {
    extra += absl::StrFormat(", ACKs held %.0f ms of every %.0f ms",
                             ack_hold_ns / 1e6, ack_hold_period_ns / 1e6);
  }
  return absl::StrCat(DescribeFit(), extra);
}

std::string FittedPath::DescribeFit() const {
  return absl::StrFormat(
      "%.2f Mb/s, base RTT %.2f ms, buffer %d bytes%s, %s, an ACK every %d "
      "segments or after %s, %.1f s simulated",
      rate_bps / 1e6, base_rtt_ns / 1e6, buffer_bytes,
      admission == AdmissionPolicy::kByteFit ? " (byte-fit admission)" : "",
      ce_sojourn_threshold_ns < 0
          ? std::string("no CE marking")
          : absl::StrFormat("CE above %.2f ms of sojourn",
                            ce_sojourn_threshold_ns / 1e6),
      ack_every,
      delayed_ack_measured
          ? absl::StrFormat("%.3g ms (measured)", delayed_ack_ns / 1e6)
          : absl::StrFormat("%.3g ms (Linux's delayed-ACK minimum)",
                            delayed_ack_ns / 1e6),
      duration_ns / 1e9);
}

namespace {

// The path's propagation delay, as the simulator models it (it adds each
// packet's service time at the bottleneck): the smallest RTT sample less
// the service time of the packet it timed, or the handshake's round trip,
// which carries no payload, when lower. `service_s`: a full-size packet's.
void FitBaseRtt(const PathEstimates& estimates, const FlowFitFacts& flow,
                double service_s, FittedPath* fitted) {
  const double min_rtt_s = estimates.base_rtt_s;
  double base_s = std::max(min_rtt_s - service_s, min_rtt_s / 2);
  fitted->base_rtt_service_ns =
      static_cast<int64_t>((min_rtt_s - base_s) * 1e9);
  if (flow.handshake_rtt_ns > 0 && flow.handshake_rtt_ns * 1e-9 < base_s) {
    base_s = flow.handshake_rtt_ns * 1e-9;
    fitted->base_rtt_service_ns = 0;
  }
  fitted->base_rtt_ns = static_cast<int64_t>(base_s * 1e9);
}

// The buffer and the CE marking threshold. `service_s`: a full-size
// packet's service time.
void FitQueue(const PathEstimates& estimates, const FlowObserver& observed,
              double service_s, FittedPath* fitted) {
  FittedPath& path = *fitted;
  // A drop-tail buffer is what the queue held when it dropped: the RTT
  // at the loss episodes less the base RTT and the timed packet's service,
  // at the rate. Without loss: the largest queue the flow saw. CE marking
  // starts at the median queueing delay of the intervals where marks came
  // back.
  const int64_t base_us = observed.min_rtt_us();
  std::vector<int64_t> ce_queue_us;
  for (const ObservationBin& b : observed.bins()) {
    if (b.has_rtt() && (b.ce_packets > 0 || b.ece_acks > 0)) {
      ce_queue_us.push_back(b.rtt_min_us - base_us);
    }
  }
  const double full_queue_s =
      estimates.rtt_at_loss_s - path.base_rtt_ns * 1e-9 - service_s;
  const double queue_bytes =
      estimates.rtt_at_loss_s > 0
          ? std::max(full_queue_s, 0.0) * estimates.bottleneck_rate_bps / 8
          : estimates.max_queue_bytes;
  path.buffer_bytes = ClampBufferBytes(queue_bytes);
  if (observed.total_retransmissions() == 0) {
    // Nothing was lost, so the buffer held every queue the flow built:
    // the largest RTT sample's queueing delay at the rate (slow start's
    // overshoot included, which the percentile above leaves out).
    int64_t max_rtt_us = 0;
    for (const ObservationBin& b : observed.bins()) {
      if (b.has_rtt()) max_rtt_us = std::max(max_rtt_us, b.rtt_max_us);
    }
    path.buffer_bytes = std::max(
        path.buffer_bytes,
        ClampBufferBytes(estimates.bottleneck_rate_bps / 8 *
                         std::max<int64_t>(max_rtt_us - base_us, 0) * 1e-6));
  }
  if (!ce_queue_us.empty()) {
    path.ce_sojourn_threshold_ns =
        std::max<int64_t>(Median(ce_queue_us), 0) * 1000;
    // A marking queue holds more than its threshold (else it would drop
    // before it marks): at least twice the threshold's worth of the rate.
    path.buffer_bytes =
        std::max(path.buffer_bytes,
                 ClampBufferBytes(2 * estimates.bottleneck_rate_bps / 8 *
                                  path.ce_sojourn_threshold_ns * 1e-9));
  }
}

// How many segments an ACK covers and how long the receiver holds one.
// `service_s`: a full-size packet's service time.
void FitAcks(const FlowObserver& observed, double service_s,
             FittedPath* fitted) {
  FittedPath& path = *fitted;
  if (const uint32_t n = observed.TypicalSegmentsPerAck(); n > 0) {
    path.ack_every = static_cast<uint32_t>(std::min<double>(n, kMaxAckEvery));
  }
  if (path.ack_every >= 2) {
    if (const std::optional<FlowObserver::AckHold> hold =
            observed.AckHoldUs(path.ack_every, service_s * 1e6)) {
      path.delayed_ack_ns = ClampDelayedAckNs(hold->hold_us * 1000);
      path.delayed_ack_service_ns = hold->service_us * 1000;
      path.delayed_ack_measured = true;
    }
  }
}

// Seconds as nanoseconds, at most an hour: a fitted rate near zero gives
// service times beyond any int64 (diagnose_fuzzer: 9e19 ns), and an
// uncertainty of an hour already says "unknown".
int64_t UncertaintyNs(double s) {
  constexpr double kMaxS = 3600;
  if (!(s > 0)) return 0;
  return static_cast<int64_t>(std::min(s, kMaxS) * 1e9);
}

// What FitUncertainty says of each parameter, from the estimates' rate
// window and the RTT at loss's standard error.
FitUncertainty Uncertainty(const PathEstimates& estimates,
                           const FittedPath& path) {
  const double full_service_s =
      kFullPacketBytes * 8.0 / estimates.bottleneck_rate_bps;
  FitUncertainty u;
  if (estimates.window_s > 0) {
    u.rate_fraction = path.ack_every * full_service_s / estimates.window_s;
  }
  u.base_rtt_ns = UncertaintyNs(full_service_s);
  u.buffer_delay_ns =
      UncertaintyNs(std::hypot(full_service_s, 2 * estimates.rtt_at_loss_se_s));
  if (path.delayed_ack_measured) u.delayed_ack_ns = u.base_rtt_ns;
  return u;
}

}  // namespace

uint64_t ClampBufferBytes(double bytes) {
  constexpr double kMaxBytes = kMaxSimulatedPackets * kFullPacketBytes;
  constexpr uint64_t kMinBytes = kMinBufferPackets * kFullPacketBytes;
  if (!(bytes > 0)) return kMinBytes;  // NaN too.
  return std::max(static_cast<uint64_t>(std::min(bytes, kMaxBytes)), kMinBytes);
}

int64_t ClampDelayedAckNs(int64_t hold_ns) {
  constexpr int64_t kMinNs = 10'000;
  constexpr int64_t kMaxNs = 500'000'000;
  return std::clamp<int64_t>(hold_ns, kMinNs, kMaxNs);
}

double MaxSimulatedPacketSeconds(double rate_bps) {
  return kMaxSimulatedPackets * kFullPacketBytes * 8 / rate_bps;
}

absl::StatusOr<FittedPath> FitPath(const PathEstimates& estimates,
                                   const FlowObserver& observed,
                                   const FlowFitFacts& flow) {
  if (!(estimates.bottleneck_rate_bps > 0) || !(estimates.base_rtt_s > 0)) {
    return absl::InvalidArgumentError(
        "no bottleneck rate or base RTT to fit a path to");
  }
  FittedPath path;
  path.rate_bps = static_cast<int64_t>(estimates.bottleneck_rate_bps);
  // A TSO/GRO super-segment crosses the link as full-size packets.
  const double service_s =
      (flow.packet_bytes > 0
           ? std::min<uint64_t>(flow.packet_bytes, kFullPacketBytes)
           : kFullPacketBytes) *
      8.0 / estimates.bottleneck_rate_bps;
  FitBaseRtt(estimates, flow, service_s, &path);
  FitQueue(estimates, observed, service_s, &path);
  FitAcks(observed, service_s, &path);
  path.uncertainty = Uncertainty(estimates, path);
  path.duration_ns = static_cast<int64_t>(
      std::min({flow.duration_s, kMaxSimulatedS,
                MaxSimulatedPacketSeconds(estimates.bottleneck_rate_bps)}) *
      1e9);
  return path;
}

absl::StatusOr<double> SimulatedUtilization(const FittedPath& path,
                                            const std::string& spec,
                                            uint32_t packet_bytes) {
  SimulationConfig config = ConfigFor(path);
  absl::StatusOr<ControllerSpec> parsed = ControllerSpec::Parse(spec);
  if (!parsed.ok()) return parsed.status();
  FlowConfig flow;
  flow.cc_spec = spec;
  flow.packet_bytes = packet_bytes;
  flow.pacing = parsed->family == "prague";
  flow.ack_every = path.ack_every;
  flow.delayed_ack_ns = path.delayed_ack_ns;
  flow.ack_hold_ns = path.ack_hold_ns;
  flow.ack_hold_period_ns = path.ack_hold_period_ns;
  config.flows.push_back(flow);
  absl::StatusOr<std::unique_ptr<Simulation>> sim =
      Run(config, path.duration_ns);
  if (!sim.ok()) return sim.status();
  const double capacity_bytes = path.CapacityBytes();
  return capacity_bytes > 0
             ? (*sim)->flow_stats(0).egress_bytes / capacity_bytes
             : 0;
}

namespace {

// `flow` on `path`, its spec with the normalize= option it asks for.
absl::StatusOr<FlowConfig> FlowFor(const FittedPath& path,
                                   const SimulatedFlow& flow) {
  FlowConfig config;
  config.cc_spec = flow.spec;
  if (flow.normalize_bytes.has_value()) {
    absl::StatusOr<ControllerSpec> spec = ControllerSpec::Parse(flow.spec);
    if (!spec.ok()) return spec.status();
    absl::StatusOr<ControllerSpec> normalized =
        spec->With("normalize", absl::StrCat(*flow.normalize_bytes));
    if (!normalized.ok()) return normalized.status();
    config.cc_spec = normalized->ToString();
  }
  config.packet_bytes = flow.packet_bytes;
  config.start_ns = flow.start_ns;
  config.base_rtt_ns = flow.base_rtt_ns;
  config.ack_every = path.ack_every;
  config.delayed_ack_ns = path.delayed_ack_ns;
  return config;
}

}  // namespace

absl::StatusOr<double> SimulatedThroughputRatio(const FittedPath& path,
                                                const SimulatedFlow& a,
                                                const SimulatedFlow& b,
                                                double measure_from, int runs) {
  absl::StatusOr<RatioOverPaths> r = SimulatedThroughputRatioOverPaths(
      {path}, a, b, measure_from, std::max(runs, 1));
  if (!r.ok()) return r.status();
  return r->mean;
}

std::vector<FittedPath> PathsWithinUncertainty(const FittedPath& path,
                                               int count) {
  if (count <= 1) return {path};
  const FitUncertainty& u = path.uncertainty;
  // Stratum s of `count`, centred, as an offset in (-1, 1).
  auto offset = [count](int i, int j) {
    const int s = (i * (2 * j + 1)) % count;
    return (2.0 * s + 1) / count - 1;
  };
  const double queue_s =
      path.rate_bps > 0 ? path.buffer_bytes * 8.0 / path.rate_bps : 0;
  std::vector<FittedPath> paths;
  for (int i = 0; i < count; ++i) {
    FittedPath p = path;
    p.rate_bps =
        std::llround(path.rate_bps * (1 + offset(i, 0) * u.rate_fraction));
    p.base_rtt_ns = std::max<int64_t>(
        1, path.base_rtt_ns + std::llround(offset(i, 1) * u.base_rtt_ns));
    const double delay_s =
        std::max(queue_s + offset(i, 2) * u.buffer_delay_ns * 1e-9, 0.0);
    p.buffer_bytes = std::max<uint64_t>(
        static_cast<uint64_t>(delay_s * p.rate_bps / 8), kFullPacketBytes);
    p.delayed_ack_ns = ClampDelayedAckNs(
        path.delayed_ack_ns + std::llround(offset(i, 3) * u.delayed_ack_ns));
    paths.push_back(p);
  }
  return paths;
}

namespace {

using RunBytes = absl::StatusOr<std::pair<uint64_t, uint64_t>>;

// One run of `config` on `path`: the bytes of its two flows out of the
// bottleneck from `from_ns` to the end.
RunBytes BytesFrom(const SimulationConfig& config, const FittedPath& path,
                   int64_t from_ns) {
  absl::StatusOr<std::unique_ptr<Simulation>> sim = Simulation::Create(config);
  if (!sim.ok()) return sim.status();
  (*sim)->RunUntil(from_ns);
  const uint64_t a_before = (*sim)->flow_stats(0).egress_bytes;
  const uint64_t b_before = (*sim)->flow_stats(1).egress_bytes;
  (*sim)->RunUntil(path.duration_ns);
  return std::make_pair((*sim)->flow_stats(0).egress_bytes - a_before,
                        (*sim)->flow_stats(1).egress_bytes - b_before);
}

// The runs' bytes, `runs_per_path` consecutive runs a path, as a ratio.
absl::StatusOr<RatioOverPaths> Summarize(const std::vector<RunBytes>& bytes,
                                         int paths, int runs_per_path) {
  RatioOverPaths out;
  out.paths = paths;
  double a_bytes = 0, b_bytes = 0;
  std::vector<double> per_path;
  for (int p = 0; p < paths; ++p) {
    double pa = 0, pb = 0;
    for (int k = 0; k < runs_per_path; ++k) {
      const RunBytes& run = bytes[p * runs_per_path + k];
      if (!run.ok()) return run.status();
      pa += run->first;
      pb += run->second;
    }
    a_bytes += pa;
    b_bytes += pb;
    if (pb > 0) per_path.push_back(pa / pb);
  }
  out.mean = b_bytes > 0 ? a_bytes / b_bytes : 0;
  out.low = Percentile(per_path, 0.1);
  out.high = Percentile(per_path, 0.9);
  return out;
}

}  // namespace

absl::StatusOr<RatioOverPaths> SimulatedThroughputRatioOverPaths(
    const std::vector<FittedPath>& paths, const SimulatedFlow& a,
    const SimulatedFlow& b, double measure_from, int runs_per_path) {
  if (paths.empty() || runs_per_path < 1) {
    return absl::InvalidArgumentError("no path or no run to simulate");
  }
  std::vector<SimulationConfig> configs;
  for (const FittedPath& path : paths) {
    SimulationConfig config = ConfigFor(path);
    for (const SimulatedFlow* flow : {&a, &b}) {
      absl::StatusOr<FlowConfig> f = FlowFor(path, *flow);
      if (!f.ok()) return f.status();
      config.flows.push_back(*std::move(f));
    }
    if (paths.size() * runs_per_path > 1)
      config.sender_jitter.kind = SenderJitterSpec::Kind::kServiceTime;
    configs.push_back(std::move(config));
  }
  const int64_t later_start_ns = std::max(a.start_ns, b.start_ns);
  // Each run's bytes from measure_from of the way on, on all cores.
  const std::vector<RunBytes> bytes = RunParallel<RunBytes>(
      paths.size() * runs_per_path, 0, [&](size_t r) -> RunBytes {
        const FittedPath& path = paths[r / runs_per_path];
        SimulationConfig seeded = configs[r / runs_per_path];
        seeded.seed = r + 1;
        return BytesFrom(seeded, path,
                         later_start_ns + static_cast<int64_t>(
                                              measure_from * (path.duration_ns -
                                                              later_start_ns)));
      });
  return Summarize(bytes, static_cast<int>(paths.size()), runs_per_path);
}

}  // namespace ccreplay
