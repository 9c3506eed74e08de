#include "lab/bundle_meta.h"

#include <optional>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "parsers/bundle.h"

namespace ccreplay::lab {
namespace {

proto::BundleEcnMode ProtoEcnMode(EcnMode mode) {
  switch (mode) {
    case EcnMode::kOff:
      return proto::BUNDLE_ECN_OFF;
    case EcnMode::kRfc3168:
      return proto::BUNDLE_ECN_RFC3168;
    case EcnMode::kAccEcn:
      return proto::BUNDLE_ECN_ACCECN;
  }
  return proto::BUNDLE_ECN_MODE_UNSPECIFIED;
}

// Whether the TCP sockets were paced (for a controller that does not pace
// by itself, as bbr does), from --paced and the transfer tool; nullopt
// when the lab cannot tell. --paced on: SO_MAX_PACING_RATE or a bbr
// namespace default (lab_config.h PacingMode). The built-in sender sets
// TCP_CONGESTION before connect(), so no default's init() runs on its
// socket; iperf3 sets it after connect() (its socket keeps the pacing of
// the namespace default's init(), bbr_init() in tcp_bbr.c, 6.18).
std::optional<bool> SocketsPaced(const LabRun& run) {
  if (run.transfer_tool == "ngtcp2") return std::nullopt;
  if (run.config.paced == PacingMode::kOn) return true;
  if (run.transfer_tool == "builtin" || run.config.paced == PacingMode::kOff) {
    return false;
  }
  const std::string& initial = run.sender_host.default_controller;
  if (initial.empty()) return std::nullopt;
  return absl::StartsWith(initial, "bbr");
}

proto::BundleSender Sender(const LabRun& run) {
  proto::BundleSender sender;
  sender.set_controller(run.config.cc);
  sender.set_ecn_mode(ProtoEcnMode(run.config.ecn));
  const int tcp_ecn_sysctl = TcpEcnSysctl(run.config.ecn);
  sender.set_sender_tcp_ecn_sysctl(tcp_ecn_sysctl);
  sender.set_receiver_tcp_ecn_sysctl(tcp_ecn_sysctl);
  const SenderHostFacts& host = run.sender_host;
  if (host.gso_max_size_bytes) {
    sender.set_gso_max_size_bytes(*host.gso_max_size_bytes);
  }
  if (host.gso_max_segs) sender.set_gso_max_segs(*host.gso_max_segs);
  if (host.config_hz) sender.set_config_hz(*host.config_hz);
  // The built-in sender sets TCP_CONGESTION before connect()
  // (builtin_transfer.cc); iperf3 does not say.
  if (run.transfer_tool == "builtin") {
    sender.set_controller_set_before_connect(true);
  }
  if (!host.default_controller.empty()) {
    sender.set_default_controller(host.default_controller);
  }
  if (std::optional<bool> paced = SocketsPaced(run)) sender.set_paced(*paced);
  sender.set_paced_mode(std::string(PacingModeName(run.config.paced)));
  return sender;
}

proto::BundleBottleneck Bottleneck(const LabRun& run) {
  const LabConfig& config = run.config;
  proto::BundleBottleneck bottleneck;
  bottleneck.set_rate_bits_per_s(config.rate_bits_per_s);
  bottleneck.set_qdisc(config.queue.in_packets ? "pfifo" : "bfifo");
  if (config.queue.in_packets) {
    bottleneck.set_limit_packets(config.queue.limit);
  } else {
    bottleneck.set_limit_bytes(config.queue.limit);
  }
  bottleneck.set_marker(config.mark_step_bytes > 0 ? "step" : "none");
  if (config.mark_step_bytes > 0) {
    bottleneck.set_marker_threshold_bytes(config.mark_step_bytes);
    bottleneck.set_marker_compiled(run.marker_compiled_at);
  }
  bottleneck.set_qdisc_stats(run.bottleneck_qdisc_stats);
  return bottleneck;
}

proto::BundleDelayLine DelayLineProto(const DelayLineStats& stats) {
  proto::BundleDelayLine line;
  line.set_delay_us(stats.delay_us);
  line.set_packets(stats.packets);
  line.set_max_backlog_packets(stats.max_backlog_packets);
  line.set_late_mean_us(stats.late_mean_us);
  line.set_late_max_us(stats.late_max_us);
  line.set_late_over_100us_packets(stats.late_over_100us);
  line.set_late_over_1ms_packets(stats.late_over_1ms);
  line.set_write_errors(stats.write_errors);
  line.set_write_max_us(stats.write_max_us);
  line.set_sched_fifo(stats.realtime_priority);
  if (stats.reorder_fraction > 0) {
    line.set_reordered_packets(stats.reordered_packets);
    line.set_overtaking_packets(stats.overtaking_packets);
  }
  return line;
}

proto::BundleReorder Reorder(const LabRun& run) {
  proto::BundleReorder reorder;
  reorder.set_percent(run.config.reorder_percent);
  reorder.set_extra_delay_us(
      absl::ToInt64Microseconds(run.config.reorder_delay));
  reorder.set_device(run.topology.reorder_device);
  reorder.set_route_table(run.topology.reorder_table);
  if (run.reorder_line.has_value())
    *reorder.mutable_line() = DelayLineProto(*run.reorder_line);
  return reorder;
}

proto::BundleDelay Delay(const LabRun& run) {
  proto::BundleDelay delay;
  delay.set_delay_ms(run.config.delay_ms);
  delay.set_method(run.delay_method);
  if (!run.delay_line.has_value()) return delay;
  delay.set_device(run.topology.delay_device);
  delay.set_route_table(run.topology.delay_table);
  *delay.mutable_delay_line() = DelayLineProto(*run.delay_line);
  return delay;
}

// Path `number`'s bottleneck and delay (BundlePath).
proto::BundlePath Path(int number, const PathSpec& spec,
                       const std::string& receiver_address,
                       const std::string& delay_device,
                       const std::optional<DelayLineStats>& delay_line) {
  proto::BundlePath path;
  path.set_path(number);
  path.set_rate_bits_per_s(spec.rate_bits_per_s);
  path.set_qdisc(spec.queue.in_packets ? "pfifo" : "bfifo");
  if (spec.queue.in_packets) {
    path.set_limit_packets(spec.queue.limit);
  } else {
    path.set_limit_bytes(spec.queue.limit);
  }
  path.set_delay_ms(spec.delay_ms);
  path.set_receiver_address(receiver_address);
  path.set_htb_class(number == 1 ? "1:10" : "1:20");  // topology.cc
  path.set_delay_device(delay_device);
  if (delay_line.has_value()) {
    *path.mutable_delay_line() = DelayLineProto(*delay_line);
  }
  return path;
}

// Path 1, and path 2 when a flow took it.
void AddPaths(const LabRun& run, proto::BundleMeta* meta) {
  const LabConfig& config = run.config;
  const LabTopology& t = run.topology;
  const bool first_line = run.delay_method == "tun";
  *meta->add_paths() = Path(
      1, PathSpec{config.rate_bits_per_s, config.queue, config.delay_ms},
      t.receiver_address, first_line ? t.delay_device : "", run.delay_line);
  if (!config.second_path.has_value()) return;
  const std::string& device = run.second_path_delay_device;
  *meta->add_paths() =
      Path(2, *config.second_path, t.second_receiver_address, device,
           device == t.second_delay_device ? run.second_delay_line
           : device.empty()                ? std::nullopt
                                           : run.delay_line);
}

proto::BundleTopology Topology(const LabTopology& t) {
  proto::BundleTopology topology;
  topology.set_run_id(t.run_id);
  topology.set_sender_netns(t.sender_netns);
  topology.set_sender_device(t.sender_device);
  topology.set_sender_address(t.sender_address);
  topology.set_router_netns(t.router_netns);
  topology.set_router_sender_device(t.router_sender_device);
  topology.set_router_sender_address(t.router_sender_address);
  topology.set_router_receiver_device(t.router_receiver_device);
  topology.set_router_receiver_address(t.router_receiver_address);
  topology.set_receiver_netns(t.receiver_netns);
  topology.set_receiver_device(t.receiver_device);
  topology.set_receiver_address(t.receiver_address);
  return topology;
}

proto::BundleFlow Flow(const LabRun& run, size_t i) {
  const PlannedFlow& planned = run.plan.flows[i];
  proto::BundleFlow flow;
  flow.set_index(static_cast<int>(i));
  flow.set_controller(planned.spec.cc);
  flow.set_sender(
      absl::StrCat(run.topology.sender_address, ":", planned.sender_port));
  // gtlsclient binds an ephemeral port the lab does not learn.
  const bool quic = run.transfer_tool == "ngtcp2";
  flow.set_receiver(absl::StrCat(planned.receiver_address, ":",
                                 quic ? 0 : planned.receiver_port));
  flow.set_path(planned.spec.path);
  if (planned.spec.mss_bytes > 0) flow.set_mss_bytes(planned.spec.mss_bytes);
  if (planned.spec.rcvbuf_bytes > 0)
    flow.set_receiver_rcvbuf_bytes(planned.spec.rcvbuf_bytes);
  if (planned.spec.app_rate_bits_per_s > 0) {
    flow.set_app_limited_rate_bits_per_s(planned.spec.app_rate_bits_per_s);
  }
  if (planned.spec.app_rate_for > absl::ZeroDuration()) {
    flow.set_app_limited_for_s(
        absl::ToDoubleSeconds(planned.spec.app_rate_for));
  }
  if (i < run.builtin_results.size()) {
    flow.set_bytes_sent(run.builtin_results[i].bytes_sent);
    flow.set_bytes_received(run.builtin_results[i].bytes_received);
  }
  if (i < run.iperf3_reports.size())
    flow.set_iperf3_report(run.iperf3_reports[i]);
  if (planned.spec.max_udp_payload_bytes > 0)
    flow.set_max_udp_payload_bytes(planned.spec.max_udp_payload_bytes);
  if (i < run.ngtcp2_results.size()) {
    flow.set_server_qlog(run.ngtcp2_results[i].server_qlog);
    flow.set_download_bytes(run.ngtcp2_results[i].download_bytes);
  }
  return flow;
}

proto::BundleCapture Capture(absl::string_view file, absl::string_view netns,
                             absl::string_view device,
                             const CaptureStats& stats) {
  proto::BundleCapture capture;
  capture.set_file(std::string(file));
  capture.set_netns(std::string(netns));
  capture.set_interface(std::string(device));
  capture.set_snaplen_bytes(PacketCapture::kSnaplenBytes);
  capture.set_packets_written(stats.packets_written);
  capture.set_ps_recv_packets(stats.ps_recv);
  capture.set_ps_drop_packets(stats.ps_drop);
  capture.set_ps_ifdrop_packets(stats.ps_ifdrop);
  return capture;
}

proto::BundleTrace Trace(const TraceStats& stats) {
  proto::BundleTrace trace;
  trace.set_file(kBundleTcpProbe);
  trace.set_instance(stats.instance);
  for (absl::string_view event : KernelTrace::kEvents) {
    // "tcp/tcp_probe" in tracefs is "tcp:tcp_probe" to perf and trace-cmd.
    std::string name(event);
    name[name.find('/')] = ':';
    trace.add_events(name);
  }
  trace.set_filter(stats.filter);
  trace.set_trace_clock(KernelTrace::kTraceClock);
  trace.set_buffer_size_kb_per_cpu(stats.buffer_size_kb_per_cpu);
  trace.set_entries(stats.entries);
  trace.set_overrun_events(stats.overrun);
  trace.set_dropped_events(stats.dropped_events);
  for (const ClockPair& pair : stats.clock_pairs) {
    proto::BundleClockPair* out = trace.add_clock_pairs();
    out->set_label(pair.label);
    out->set_mono_ns(pair.mono_ns);
    out->set_realtime_ns(pair.realtime_ns);
    out->set_offset_ns(pair.offset_ns);
    out->set_bracket_ns(pair.bracket_ns);
  }
  return trace;
}

}  // namespace

proto::BundleMeta ToBundleMeta(const LabRun& run) {
  const LabTopology& t = run.topology;
  proto::BundleMeta meta;
  meta.set_tool("ccreplay lab");
  meta.set_complete(run.complete);
  meta.set_kernel_release(run.kernel);
  if (run.start_time != absl::InfinitePast()) {
    meta.set_start_time_utc(absl::FormatTime(
        "%Y-%m-%dT%H:%M:%E6SZ", run.start_time, absl::UTCTimeZone()));
  }
  meta.set_wall_s(run.wall_s);
  meta.set_duration_s(run.config.duration_s);
  meta.set_transfer_tool(run.transfer_tool);
  *meta.mutable_sender() = Sender(run);
  *meta.mutable_bottleneck() = Bottleneck(run);
  *meta.mutable_delay() = Delay(run);
  *meta.mutable_topology() = Topology(t);
  for (size_t i = 0; i < run.plan.flows.size(); ++i) {
    *meta.add_flows() = Flow(run, i);
  }
  AddPaths(run, &meta);
  if (run.config.reorder_percent > 0) *meta.mutable_reorder() = Reorder(run);
  for (const auto& [name, value] : run.sender_nstat)
    (*meta.mutable_sender_nstat())[name] = value;
  *meta.mutable_sender_capture() = Capture(kBundleSenderPcap, t.sender_netns,
                                           t.sender_device, run.sender_capture);
  *meta.mutable_receiver_capture() =
      Capture(kBundleReceiverPcap, t.receiver_netns, t.receiver_device,
              run.receiver_capture);
  proto::BundleSs* ss = meta.mutable_ss();
  ss->set_file(kBundleSsLog);
  ss->set_command(run.config.second_path.has_value()
                      ? "ss -tinoH dst RECEIVER/24 (sender namespace)"
                      : "ss -tinoH dst RECEIVER (sender namespace)");
  ss->set_interval_ms(absl::ToDoubleMilliseconds(run.ss_interval));
  ss->set_samples(run.ss.samples);
  ss->set_mean_interval_ms(run.ss.mean_interval_ms);
  ss->set_max_interval_ms(run.ss.max_interval_ms);
  *meta.mutable_trace() = Trace(run.trace);
  return meta;
}

std::string SsPeerFilter(const LabRun& run) {
  const LabTopology& t = run.topology;
  if (!run.config.second_path.has_value()) return t.receiver_address;
  return absl::StrCat(t.receiver_address, "/", t.prefix_length);
}

}  // namespace ccreplay::lab
