#include "lab/lab.h"

#include <sys/stat.h>
#include <sys/utsname.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <map>
#include <memory>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "absl/time/clock.h"
#include "lab/builtin_transfer.h"
#include "lab/cleanup_registry.h"
#include "lab/iperf3_transfer.h"
#include "lab/lab_owner.h"
#include "lab/netns.h"
#include "lab/ngtcp2_transfer.h"
#include "lab/reaper.h"
#include "lab/step_marker.h"
#include "lab/subprocess.h"
#include "parsers/bundle.h"
#include "proto/json_printer.h"

namespace ccreplay::lab {
namespace {

constexpr absl::Duration kSsInterval = absl::Milliseconds(10);
// Time for the last segments, the FIN exchange and a delayed ACK to reach
// both captures after the transfer returns.
constexpr absl::Duration kCaptureTail = absl::Milliseconds(200);

// Runs every registered cleanup when the lab returns, whatever the path.
struct CleanupOnReturn {
  ~CleanupOnReturn() { CleanupRegistry::Global().RunAll(); }
};

absl::Status MakeDirectories(const std::string& path) {
  std::string partial;
  for (size_t i = 0; i <= path.size(); ++i) {
    if (i < path.size() && path[i] != '/') continue;
    partial = path.substr(0, i);
    if (partial.empty()) continue;
    if (mkdir(partial.c_str(), 0755) != 0 && errno != EEXIST) {
      return absl::PermissionDeniedError(
          absl::StrCat("cannot create ", partial, ": ", std::strerror(errno)));
    }
  }
  return absl::OkStatus();
}

std::string KernelRelease() {
  utsname name;
  return uname(&name) == 0 ? name.release : "unknown";
}

// About 150 bytes per event in the ring, two events per data packet at up
// to a few thousand packets/s: 4 MB per second of transfer, 8 MB minimum.
int64_t TraceBufferKbPerCpu(double duration_s) {
  return std::clamp<int64_t>(static_cast<int64_t>(duration_s * 4096), 8192,
                             262144);
}

// meta.json through a temporary file and rename(2), so a reader sees one
// whole version: written with complete=false before the first capture file
// exists and again with complete=true at the end, a bundle cut short (by
// SIGINT, or SIGKILL, which runs no handler) says it is partial.
absl::Status WriteMeta(const LabRun& run) {
  const std::string path =
      absl::StrCat(run.config.output_dir, "/", kBundleMetaJson);
  const std::string partial = path + ".partial";
  {
    std::ofstream file(partial);
    file << PrintJson(ToBundleMeta(run));
    if (!file)
      return absl::InternalError(absl::StrCat("cannot write ", partial));
  }
  if (std::rename(partial.c_str(), path.c_str()) != 0) {
    return absl::InternalError(
        absl::StrCat("cannot write ", path, ": ", std::strerror(errno)));
  }
  return absl::OkStatus();
}

TransferPlan MakePlan(const LabConfig& config, const LabTopology& topology) {
  TransferPlan plan;
  plan.sender_netns = topology.sender_netns;
  plan.receiver_netns = topology.receiver_netns;
  plan.sender_address = topology.sender_address;
  plan.duration = absl::Seconds(config.duration_s);
  plan.paced = config.paced;
  for (size_t i = 0; i < config.flows.size(); ++i) {
    plan.flows.push_back(PlannedFlow{
        config.flows[i], topology.base_port + 10 + static_cast<int>(i),
        topology.base_port + static_cast<int>(i),
        config.flows[i].path == 2 ? topology.second_receiver_address
                                  : topology.receiver_address});
  }
  return plan;
}

}  // namespace

absl::Status CheckLabPrerequisites(const LabConfig& config) {
  if (geteuid() != 0) {
    return absl::PermissionDeniedError(
        "ccreplay lab must run as root: it creates network namespaces, qdiscs "
        "and a tracefs "
        "instance (CAP_NET_ADMIN and CAP_SYS_ADMIN)");
  }
  for (const char* tool : {"ip", "tc", "ss"}) {
    if (FindProgram(tool).empty()) {
      return absl::FailedPreconditionError(
          absl::StrCat("ccreplay lab needs '", tool,
                       "' (iproute2), which is not installed"));
    }
  }
  if (config.transfer == TransferTool::kIperf3 &&
      FindProgram("iperf3").empty()) {
    return absl::FailedPreconditionError(
        "--transfer iperf3: iperf3 is not installed");
  }
  if (config.transfer == TransferTool::kNgtcp2) {
    for (const char* tool : {kNgtcp2Server, kNgtcp2Client, kOpenssl}) {
      if (FindProgram(tool).empty()) {
        return absl::FailedPreconditionError(absl::StrCat(
            "--transfer ngtcp2 needs '", tool,
            "' (Debian packages ngtcp2-server, ngtcp2-client, openssl)"));
      }
    }
  }
  if (access("/proc/self/ns/net", F_OK) != 0) {
    return absl::FailedPreconditionError(
        "kernel feature missing: network namespaces (CONFIG_NET_NS)");
  }
  return absl::OkStatus();
}

namespace {

// What the run measures while the transfer runs, started before it and
// stopped after it.
struct Recorders {
  std::unique_ptr<KernelTrace> trace;
  std::unique_ptr<PacketCapture> sender_capture;
  std::unique_ptr<PacketCapture> receiver_capture;
  std::unique_ptr<SsSampler> sampler;
};

// The run's plan: kernel, namespaces and addresses, flows, transfer tool.
absl::StatusOr<LabRun> PlanRun(const LabConfig& config, ReapReport reaped) {
  LabRun run;
  run.reaped = std::move(reaped);
  run.config = config;
  run.kernel = KernelRelease();
  run.ss_interval = kSsInterval;
  absl::StatusOr<LabTopology> topology = PlanTopology();
  if (!topology.ok()) return topology.status();
  run.topology = *topology;
  run.plan = MakePlan(config, run.topology);
  run.transfer_tool = config.transfer == TransferTool::kNgtcp2 ? "ngtcp2"
                      : config.transfer == TransferTool::kBuiltin ||
                              (config.transfer == TransferTool::kAuto &&
                               FindProgram("iperf3").empty())
                          ? "builtin"
                          : "iperf3";
  return run;
}

// With --mark_step_bytes, the configured eBPF step marker in a scratch
// directory named for its owner (reaper.h) and removed at exit; returns
// its path, or "" without a marker.
absl::StatusOr<std::string> PrepareStepMarker(const LabConfig& config,
                                              LabRun* run) {
  std::string work_dir = absl::StrCat(
      "/tmp/",
      LabResourceName(SelfOwner(), run->topology.run_id, "work-XXXXXX"));
  CleanupRegistry& registry = CleanupRegistry::Global();
  {
    SignalDeferral deferral;
    if (mkdtemp(work_dir.data()) == nullptr) {
      return absl::InternalError(
          absl::StrCat("mkdtemp: ", std::strerror(errno)));
    }
    registry.Add(CleanupRegistry::Action::kRemoveDir, work_dir);
  }
  if (config.mark_step_bytes <= 0) return std::string();
  registry.Add(CleanupRegistry::Action::kUnlink,
               work_dir + "/step_marker.bpf.c");
  registry.Add(CleanupRegistry::Action::kUnlink,
               work_dir + "/step_marker.bpf.o");
  const std::string marker_path = work_dir + "/step_marker.o";
  registry.Add(CleanupRegistry::Action::kUnlink, marker_path);
  absl::StatusOr<StepMarkerObject> marker = LoadStepMarkerObject(work_dir);
  if (!marker.ok()) return marker.status();
  absl::Status status = ConfigureStepMarker(marker->elf, config.rate_bits_per_s,
                                            config.mark_step_bytes);
  if (!status.ok()) return status;
  std::ofstream(marker_path, std::ios::binary) << marker->elf;
  run->marker_compiled_at = marker->compiled_at;
  return marker_path;
}

// iperf3 sets TCP_CONGESTION after connect(), so its socket keeps what the
// namespace default's init() did: --paced on makes that bbr (bbr_init()
// sets SK_PACING_NEEDED, tcp_bbr.c 6.18), --paced off reno (no init()).
absl::Status SetSenderDefaultController(const LabConfig& config, LabRun* run) {
  if (run->transfer_tool != "iperf3" || config.paced == PacingMode::kAuto) {
    return absl::OkStatus();
  }
  return WriteNetnsSysctl(run->topology.sender_netns,
                          "net/ipv4/tcp_congestion_control",
                          config.paced == PacingMode::kOn ? "bbr" : "reno");
}

// Namespaces, links and the bottleneck; the sender's facts and controllers.
absl::Status BuildPath(const LabConfig& config, const std::string& marker_path,
                       LabRun* run) {
  const LabTopology& t = run->topology;
  absl::Status status = BuildTopology(t, config.ecn);
  if (!status.ok()) return status;
  status = SetSenderDefaultController(config, run);
  if (!status.ok()) return status;
  run->sender_host =
      ReadSenderHostFacts(t.sender_netns, t.sender_device, run->kernel);
  // ngtcp2's controllers run in user space, not as TCP_CONGESTION.
  for (const PlannedFlow& flow : run->plan.flows) {
    if (config.transfer == TransferTool::kNgtcp2) break;
    status = CheckControllerAvailable(t.sender_netns, flow.spec.cc);
    if (!status.ok()) return status;
  }
  status = ShapeBottleneck(t, config, marker_path);
  if (!status.ok() || !config.second_path.has_value()) return status;
  return AddSecondBottleneck(t, *config.second_path);
}

// The first path's delay: netem where the kernel has it (one bottleneck
// only: netem on the router's egress towards the sender would delay both
// paths' ACKs alike), else a TUN delay line on the ACK path (returned, to
// be stopped after the transfer).
absl::StatusOr<std::unique_ptr<DelayLine>> AddDelay(const LabConfig& config,
                                                    LabRun* run) {
  const LabTopology& t = run->topology;
  run->delay_method = "none";
  if (config.delay_ms <= 0) return nullptr;
  if (!config.second_path.has_value()) {
    absl::StatusOr<bool> netem = TryNetemDelay(t, config.delay_ms);
    if (!netem.ok()) return netem.status();
    if (*netem) {
      run->delay_method = "netem";
      return nullptr;
    }
  }
  absl::StatusOr<std::unique_ptr<DelayLine>> line = DelayLine::Start(
      t.router_netns, t.delay_device, absl::Milliseconds(config.delay_ms));
  if (!line.ok()) return line.status();
  absl::Status status = RouteAckPathThroughDelayLine(t);
  if (!status.ok()) return status;
  run->delay_method = "tun";
  return line;
}

// The second path's delay, when it differs from the first's: its own TUN
// delay line (returned) or, at 0, a rule past the first's; null when the
// second path shares the first's delay (and delay line). After AddDelay.
absl::StatusOr<std::unique_ptr<DelayLine>> AddSecondDelay(
    const LabConfig& config, LabRun* run) {
  const LabTopology& t = run->topology;
  if (!config.second_path.has_value()) return nullptr;
  if (config.second_path->delay_ms == config.delay_ms) {
    if (run->delay_method == "tun") {
      run->second_path_delay_device = t.delay_device;
    }
    return nullptr;
  }
  std::unique_ptr<DelayLine> line;
  if (config.second_path->delay_ms > 0) {
    absl::StatusOr<std::unique_ptr<DelayLine>> started =
        DelayLine::Start(t.router_netns, t.second_delay_device,
                         absl::Milliseconds(config.second_path->delay_ms));
    if (!started.ok()) return started.status();
    line = *std::move(started);
  }
  absl::Status status = RouteSecondAckPath(t, line != nullptr);
  if (!status.ok()) return status;
  if (line != nullptr) run->second_path_delay_device = t.second_delay_device;
  return line;
}

// The data path's reordering line (--reorder), returned to be stopped
// after the transfer; null without reordering.
absl::StatusOr<std::unique_ptr<DelayLine>> AddReorder(const LabConfig& config,
                                                      const LabRun& run) {
  if (config.reorder_percent <= 0) return nullptr;
  const LabTopology& t = run.topology;
  absl::StatusOr<std::unique_ptr<DelayLine>> line = DelayLine::Start(
      t.router_netns, t.reorder_device, absl::ZeroDuration(),
      ReorderSpec{config.reorder_percent / 100, config.reorder_delay});
  if (!line.ok()) return line.status();
  absl::Status status = RouteDataPathThroughReorderLine(t);
  if (!status.ok()) return status;
  return line;
}

// The kernel trace, then meta.json (complete=false until the end), then
// the two captures and the ss sampler.
absl::StatusOr<Recorders> StartRecorders(const LabConfig& config,
                                         const LabRun& run) {
  const LabTopology& t = run.topology;
  std::vector<int> ports;
  for (const PlannedFlow& flow : run.plan.flows)
    ports.push_back(flow.receiver_port);
  Recorders r;
  absl::StatusOr<std::unique_ptr<KernelTrace>> trace = KernelTrace::Start(
      t.run_id, ports, TraceBufferKbPerCpu(config.duration_s));
  if (!trace.ok()) return trace.status();
  r.trace = *std::move(trace);
  absl::Status status = WriteMeta(run);
  if (!status.ok()) return status;
  const std::string out = config.output_dir + "/";
  const char* filter = run.transfer_tool == "ngtcp2" ? "udp" : "tcp";
  absl::StatusOr<std::unique_ptr<PacketCapture>> capture = PacketCapture::Start(
      t.sender_netns, t.sender_device, filter, out + kBundleSenderPcap);
  if (!capture.ok()) return capture.status();
  r.sender_capture = *std::move(capture);
  capture = PacketCapture::Start(t.receiver_netns, t.receiver_device, filter,
                                 out + kBundleReceiverPcap);
  if (!capture.ok()) return capture.status();
  r.receiver_capture = *std::move(capture);
  absl::StatusOr<std::unique_ptr<SsSampler>> sampler = SsSampler::Start(
      t.sender_netns, SsPeerFilter(run), out + kBundleSsLog, kSsInterval);
  if (!sampler.ok()) return sampler.status();
  r.sampler = *std::move(sampler);
  return r;
}

absl::Status RunTransfer(const LabConfig& config, LabRun* run) {
  run->start_time = absl::Now();
  if (run->transfer_tool == "builtin") {
    absl::StatusOr<std::vector<FlowResult>> results =
        RunBuiltinTransfer(run->plan);
    if (!results.ok()) return results.status();
    run->builtin_results = *std::move(results);
  } else if (run->transfer_tool == "ngtcp2") {
    absl::StatusOr<std::vector<Ngtcp2FlowResult>> results = RunNgtcp2Transfer(
        run->plan, Ngtcp2DownloadBytes(run->plan, config.rate_bits_per_s),
        run->topology.run_id, config.output_dir);
    if (!results.ok()) return results.status();
    run->ngtcp2_results = *std::move(results);
  } else {
    absl::StatusOr<std::vector<std::string>> reports =
        RunIperf3Transfer(run->plan, config.output_dir);
    if (!reports.ok()) return reports.status();
    run->iperf3_reports = *std::move(reports);
  }
  return absl::OkStatus();
}

absl::Status StopRecorders(const LabConfig& config, Recorders& r, LabRun* run) {
  absl::StatusOr<SsSamplerStats> ss = r.sampler->Stop();
  if (!ss.ok()) return ss.status();
  run->ss = *ss;
  absl::StatusOr<CaptureStats> sender_stats = r.sender_capture->Stop();
  if (!sender_stats.ok()) return sender_stats.status();
  run->sender_capture = *sender_stats;
  absl::StatusOr<CaptureStats> receiver_stats = r.receiver_capture->Stop();
  if (!receiver_stats.ok()) return receiver_stats.status();
  run->receiver_capture = *receiver_stats;
  absl::StatusOr<TraceStats> trace_stats =
      r.trace->StopAndSave(config.output_dir + "/" + kBundleTcpProbe);
  if (!trace_stats.ok()) return trace_stats.status();
  run->trace = *trace_stats;
  return absl::OkStatus();
}

}  // namespace

absl::StatusOr<LabRun> RunLab(const LabConfig& config) {
  absl::Status status = CheckLabPrerequisites(config);
  if (!status.ok()) return status;
  absl::Time wall_start = absl::Now();
  CleanupRegistry::InstallSignalHandlers();
  CleanupOnReturn cleanup_on_return;
  // What labs killed before they could clean up left behind.
  absl::StatusOr<ReapReport> reaped = ReapOrphanedLabResources();
  if (!reaped.ok()) return reaped.status();
  status = MakeDirectories(config.output_dir);
  if (!status.ok()) return status;

  absl::StatusOr<LabRun> run = PlanRun(config, *std::move(reaped));
  if (!run.ok()) return run.status();
  absl::StatusOr<std::string> marker_path = PrepareStepMarker(config, &*run);
  if (!marker_path.ok()) return marker_path.status();
  status = BuildPath(config, *marker_path, &*run);
  if (!status.ok()) return status;
  absl::StatusOr<std::unique_ptr<DelayLine>> delay_line =
      AddDelay(config, &*run);
  if (!delay_line.ok()) return delay_line.status();
  absl::StatusOr<std::unique_ptr<DelayLine>> second_delay_line =
      AddSecondDelay(config, &*run);
  if (!second_delay_line.ok()) return second_delay_line.status();
  absl::StatusOr<std::unique_ptr<DelayLine>> reorder_line =
      AddReorder(config, *run);
  if (!reorder_line.ok()) return reorder_line.status();

  absl::StatusOr<Recorders> recorders = StartRecorders(config, *run);
  if (!recorders.ok()) return recorders.status();
  status = RunTransfer(config, &*run);
  if (!status.ok()) return status;
  absl::SleepFor(kCaptureTail);
  status = StopRecorders(config, *recorders, &*run);
  if (!status.ok()) return status;
  absl::StatusOr<std::map<std::string, int64_t>> counters =
      ReadTcpCounters(run->topology.sender_netns);
  if (!counters.ok()) return counters.status();
  run->sender_nstat = *std::move(counters);
  if (*delay_line != nullptr) run->delay_line = (*delay_line)->Stop();
  if (*second_delay_line != nullptr) {
    run->second_delay_line = (*second_delay_line)->Stop();
  }
  if (*reorder_line != nullptr) run->reorder_line = (*reorder_line)->Stop();
  run->bottleneck_qdisc_stats = BottleneckQdiscStats(run->topology);

  run->wall_s = absl::ToDoubleSeconds(absl::Now() - wall_start);
  run->complete = true;
  status = WriteMeta(*run);
  if (!status.ok()) return status;
  return run;
}

}  // namespace ccreplay::lab
