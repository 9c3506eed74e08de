#include "reports/sim_report.h"

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "proto/json_printer.h"
#include "proto/simulation.pb.h"

namespace ccreplay {
namespace {

double ThroughputBps(const FlowStats& stats, int64_t duration_ns) {
  return 8.0 * static_cast<double>(stats.egress_bytes) /
         (static_cast<double>(duration_ns) * 1e-9);
}

// The bottleneck's utilization over the whole run.
double Utilization(const Simulation& sim, int64_t duration_ns) {
  return 8.0 * static_cast<double>(sim.bottleneck().transmitted_bytes()) /
         (static_cast<double>(sim.config().rate_bps) *
          static_cast<double>(duration_ns) * 1e-9);
}

}  // namespace

namespace {

proto::SimPath SimPathProto(const Simulation& sim, int64_t duration_ns) {
  const SimulationConfig& config = sim.config();
  proto::SimPath path;
  path.set_rate_bps(config.rate_bps);
  path.set_base_rtt_us(config.base_rtt_ns / 1000);
  path.set_buffer_bytes(config.buffer_bytes);
  path.set_admission(config.admission == AdmissionPolicy::kByteFit
                         ? "byte_fit"
                         : "packet_size_neutral");
  path.set_duration_s(static_cast<double>(duration_ns) * 1e-9);
  path.set_utilization(Utilization(sim, duration_ns));
  path.set_drops(sim.bottleneck().drops());
  path.set_ce_marks(sim.bottleneck().ce_marks());
  for (const PathSample& s : sim.path_series()) {
    proto::SimPathSample* sample = path.add_series();
    sample->set_time_us(s.time_us);
    sample->set_queue_bytes(s.queue_bytes);
    sample->set_utilization(s.utilization);
  }
  return path;
}

proto::SimFlowSample SimFlowSampleProto(const SeriesSample& s) {
  proto::SimFlowSample out;
  out.set_time_us(s.time_us);
  out.set_cwnd_bytes(s.cwnd_bytes);
  if (s.ssthresh_bytes != kNoSsthreshBytes) {
    out.set_ssthresh_bytes(s.ssthresh_bytes);
  }
  out.set_phase(std::string(PhaseName(s.phase)));
  if (s.alpha >= 0) out.set_alpha(s.alpha);
  out.set_ai_factor(s.ai_factor);
  out.set_bytes_in_flight(s.bytes_in_flight);
  out.set_delivered_bytes(s.delivered_bytes);
  out.set_throughput_bps(s.throughput_bps);
  out.set_queue_bytes(s.queue_bytes);
  out.set_srtt_us(s.srtt_us);
  return out;
}

proto::SimFlow SimFlowProto(const Simulation& sim, size_t i,
                            int64_t duration_ns) {
  const FlowStats stats = sim.flow_stats(i);
  const FlowConfig& config = sim.config().flows[i];
  proto::SimFlow flow;
  flow.set_cc(config.cc_spec);
  flow.set_packet_bytes(config.packet_bytes);
  flow.set_ecn_feedback(std::string(EcnFeedbackName(sim.feedback(i))));
  flow.set_start_us(config.start_ns / 1000);
  flow.set_throughput_bps(ThroughputBps(stats, duration_ns));
  flow.set_egress_bytes(stats.egress_bytes);
  flow.set_packets_sent(stats.sender.packets_sent);
  flow.set_retransmissions(stats.sender.retransmissions);
  flow.set_drops(stats.drops);
  flow.set_ce_marked(stats.ce_marked);
  flow.set_congestion_episodes(stats.sender.congestion_episodes);
  flow.set_rtos(stats.sender.rtos);
  for (const SeriesSample& s : sim.flow_series()[i].samples) {
    *flow.add_series() = SimFlowSampleProto(s);
  }
  return flow;
}

}  // namespace

std::string SimulationJson(const Simulation& sim, int64_t duration_ns) {
  proto::SimulationReport report;
  *report.mutable_path() = SimPathProto(sim, duration_ns);
  for (size_t i = 0; i < sim.flow_count(); ++i) {
    *report.add_flows() = SimFlowProto(sim, i, duration_ns);
  }
  return PrintJson(report);
}

std::string SimulationCsv(const Simulation& sim) {
  std::string out =
      "flow,time_us,cwnd_bytes,ssthresh_bytes,phase,alpha,ai_factor,"
      "bytes_in_flight,delivered_bytes,throughput_bps,queue_bytes,srtt_us\n";
  for (size_t i = 0; i < sim.flow_count(); ++i) {
    for (const SeriesSample& s : sim.flow_series()[i].samples) {
      absl::StrAppendFormat(
          &out, "%d,%d,%d,%s,%s,%s,%g,%d,%d,%.0f,%d,%d\n", i, s.time_us,
          s.cwnd_bytes,
          s.ssthresh_bytes == kNoSsthreshBytes ? std::string()
                                               : absl::StrCat(s.ssthresh_bytes),
          PhaseName(s.phase),
          s.alpha < 0 ? std::string() : absl::StrFormat("%g", s.alpha),
          s.ai_factor, s.bytes_in_flight, s.delivered_bytes, s.throughput_bps,
          s.queue_bytes, s.srtt_us);
    }
  }
  return out;
}

std::string SimulationTable(const Simulation& sim, int64_t duration_ns) {
  const SimulationConfig& config = sim.config();
  std::string out = absl::StrFormat(
      "path: %.3f Mbit/s, base RTT %.3f ms, buffer %d bytes (%s), %.1f s\n"
      "utilization %.4f, drops %d, CE marks %d\n\n",
      config.rate_bps / 1e6, config.base_rtt_ns / 1e6, config.buffer_bytes,
      config.admission == AdmissionPolicy::kByteFit ? "byte-fit"
                                                    : "packet-size-neutral",
      static_cast<double>(duration_ns) * 1e-9, Utilization(sim, duration_ns),
      sim.bottleneck().drops(), sim.bottleneck().ce_marks());
  absl::StrAppendFormat(&out, "%-4s %-28s %6s %-8s %12s %8s %6s %8s %8s\n",
                        "flow", "cc", "bytes", "ecn", "Mbit/s", "retrans",
                        "drops", "CE", "episodes");
  for (size_t i = 0; i < sim.flow_count(); ++i) {
    const FlowStats stats = sim.flow_stats(i);
    absl::StrAppendFormat(
        &out, "%-4d %-28s %6d %-8s %12.3f %8d %6d %8d %8d\n", i,
        config.flows[i].cc_spec, config.flows[i].packet_bytes,
        EcnFeedbackName(sim.feedback(i)),
        ThroughputBps(stats, duration_ns) / 1e6, stats.sender.retransmissions,
        stats.drops, stats.ce_marked, stats.sender.congestion_episodes);
  }
  return out;
}

std::vector<std::string> SimulationWarnings(const Simulation& sim) {
  std::vector<std::string> warnings;
  for (size_t i = 0; i < sim.flow_count(); ++i) {
    const FlowStats stats = sim.flow_stats(i);
    // Slow start's exit and the first episode can coincide; a second
    // episode with ssthresh still unset means the loss response never
    // ended slow start.
    if (stats.sender.congestion_episodes < 2 ||
        sim.sender(i).controller().ssthresh_bytes() != kNoSsthreshBytes) {
      continue;
    }
    warnings.push_back(absl::StrFormat(
        "flow %d (%s) had %d congestion episodes but never left slow start "
        "(ssthresh unset): its window grew without bound, so its throughput, "
        "drops (%d) and retransmissions (%d) are those of an unbounded "
        "window, not of its controller's loss response. Prague v0.5 does "
        "this on a path without CE marks (its ssthresh hook keeps ssthresh "
        "infinite and slow start skips the step that applies the cut); real "
        "senders are bounded by the receive window: try --rwnd",
        i, sim.config().flows[i].cc_spec, stats.sender.congestion_episodes,
        stats.drops, stats.sender.retransmissions));
  }
  return warnings;
}

std::string MtuExperimentJson(const MtuExperimentResult& result) {
  proto::MtuExperimentReport report;
  for (const MtuControllerResult& row : result.rows) {
    proto::MtuExperimentRow* out = report.add_rows();
    out->set_controller(row.controller);
    out->set_ratio_without(row.ratio_without);
    out->set_gsd_without(row.gsd_without);
    out->set_ratio_with(row.ratio_with);
    out->set_gsd_with(row.gsd_with);
    out->set_bytes_ratio_without(row.bytes_ratio_without);
    out->set_bytes_gsd_without(row.bytes_gsd_without);
    out->set_bytes_ratio_with(row.bytes_ratio_with);
    out->set_bytes_gsd_with(row.bytes_gsd_with);
    for (const MtuProfileResult& p : row.profiles) {
      proto::MtuProfileRow* profile = out->add_profiles();
      profile->set_name(p.name);
      profile->set_ratio_without(p.ratio_without);
      profile->set_ratio_with(p.ratio_with);
      profile->set_stderr_without(p.stderr_without);
      profile->set_stderr_with(p.stderr_with);
      profile->set_bytes_ratio_without(p.bytes_ratio_without);
      profile->set_bytes_ratio_with(p.bytes_ratio_with);
    }
  }
  return PrintJson(report);
}

std::string MtuExperimentTable(const MtuExperimentResult& result) {
  std::string out;
  for (const MtuControllerResult& row : result.rows) {
    absl::StrAppendFormat(
        &out,
        "%s: T1280/T1462 without normalization %.4f (GSD %.4f), with %.4f "
        "(GSD %.4f); bytes ratio without %.4f (GSD %.4f), with %.4f (GSD "
        "%.4f)\n  %-15s %9s %7s %9s %7s %9s %9s %8s %7s %12s\n",
        row.controller, row.ratio_without, row.gsd_without, row.ratio_with,
        row.gsd_with, row.bytes_ratio_without, row.bytes_gsd_without,
        row.bytes_ratio_with, row.bytes_gsd_with, "profile", "without", "se",
        "with", "se", "bytes w/o", "bytes w/", "periods", "capped",
        "simulated s");
    for (const MtuProfileResult& p : row.profiles) {
      absl::StrAppendFormat(
          &out, "  %-15s %9.4f %7.4f %9.4f %7.4f %9.4f %9.4f %8d %7d %12.0f\n",
          p.name, p.ratio_without, p.stderr_without, p.ratio_with,
          p.stderr_with, p.bytes_ratio_without, p.bytes_ratio_with,
          p.min_measured_periods, p.capped_runs, p.simulated_s);
    }
  }
  return out;
}

std::string PragueExperimentJson(const PragueExperimentResult& result) {
  proto::PragueExperimentReport report;
  for (const PragueRow& row : result.rows) {
    proto::PragueExperimentRow* out = report.add_rows();
    out->set_profile(row.profile);
    out->set_rtt_scaling(row.rtt_scaling);
    out->set_ack_every(row.ack_every);
    out->set_utilization(row.utilization);
    out->set_utilization_second_half(row.utilization_second_half);
    out->set_min_cwnd_after_ss_segments(row.min_cwnd_after_ss_segments);
  }
  return PrintJson(report);
}

std::string PragueExperimentTable(const PragueExperimentResult& result) {
  std::string out = absl::StrFormat(
      "%-28s %-11s %9s %11s %11s %14s\n", "profile", "rtt_scaling", "ack_every",
      "utilization", "second half", "min cwnd (seg)");
  for (const PragueRow& row : result.rows) {
    absl::StrAppendFormat(
        &out, "%-28s %-11s %9d %11.4f %11.4f %14d\n", row.profile,
        row.rtt_scaling ? "on" : "off", row.ack_every, row.utilization,
        row.utilization_second_half, row.min_cwnd_after_ss_segments);
  }
  return out;
}

}  // namespace ccreplay
