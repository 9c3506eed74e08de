#include "cli/lab/bundle_meta.h"

#include "absl/strings/str_cat.h"
#include "reports/json_writer.h"

namespace ccreplay::lab {
namespace {

void WriteCapture(JsonWriter& json, absl::string_view file,
                  absl::string_view netns, absl::string_view device,
                  absl::string_view position, const CaptureStats& stats) {
  json.BeginObject()
      .Field("file", file)
      .Field("netns", netns)
      .Field("interface", device)
      .Field("position", position)
      .Field("snaplen_bytes", PacketCapture::kSnaplenBytes)
      .Field("packets_written", stats.packets_written)
      .Field("pcap_stats_ps_recv", stats.ps_recv)
      .Field("pcap_stats_ps_drop", stats.ps_drop)
      .Field("pcap_stats_ps_ifdrop", stats.ps_ifdrop)
      .EndObject();
}

}  // namespace

std::string BundleMetaJson(const BundleMeta& meta) {
  const LabConfig& config = meta.config;
  const LabTopology& topology = meta.topology;
  JsonWriter json;
  json.BeginObject()
      .Field("tool", "ccreplay lab")
      .Field("kernel", meta.kernel)
      .Field("start_time_utc",
             absl::FormatTime("%Y-%m-%dT%H:%M:%E6SZ", meta.start_time,
                              absl::UTCTimeZone()))
      .Field("start_epoch_s",
             absl::ToDoubleSeconds(meta.start_time - absl::UnixEpoch()))
      .Field("wall_s", meta.wall_s)
      .Field("duration_s", config.duration_s)
      .Field("controller", config.cc)
      .Field("ecn", EcnModeName(config.ecn))
      .Field("rate_bits_per_s", config.rate_bits_per_s);
  json.Key("queue")
      .BeginObject()
      .Field("qdisc", config.queue.in_packets ? "pfifo" : "bfifo")
      .Field(config.queue.in_packets ? "limit_packets" : "limit_bytes",
             config.queue.limit)
      .Field("position", "router egress towards the receiver, under HTB")
      .EndObject();
  json.Key("marker").BeginObject();
  if (config.mark_step_bytes > 0) {
    json.Field("kind", "step")
        .Field("threshold_bytes", config.mark_step_bytes)
        .Field("drain_rate_bits_per_s", config.rate_bits_per_s)
        .Field(
            "program",
            "eBPF virtual-queue step CE marker, tc clsact egress (cls_bpf da)")
        .Field("compiled", meta.marker_compiled_at);
  } else {
    json.Field("kind", "none");
  }
  json.EndObject();
  json.Key("delay")
      .BeginObject()
      .Field("ms", config.delay_ms)
      .Field("method", meta.delay_method)
      .Field("path",
             "ACK path only (router towards sender): RTT = delay + queueing");
  if (meta.delay_line.has_value()) {
    const DelayLineStats& line = *meta.delay_line;
    json.Key("delay_line")
        .BeginObject()
        .Field("device", topology.delay_device)
        .Field("delay_us", line.delay_us)
        .Field("packets", line.packets)
        .Field("max_backlog_packets", line.max_backlog_packets)
        .Field("late_mean_us", line.late_mean_us)
        .Field("late_max_us", line.late_max_us)
        .Field("late_over_100us", line.late_over_100us)
        .Field("late_over_1ms", line.late_over_1ms)
        .Field("write_errors", line.write_errors)
        .Field("write_max_us", line.write_max_us)
        .Field("sched_fifo", line.realtime_priority)
        .EndObject();
  }
  json.EndObject();
  json.Key("topology")
      .BeginObject()
      .Field("run_id", topology.run_id)
      .Field("sender",
             absl::StrCat(topology.sender_netns, " ", topology.sender_device,
                          " ", topology.sender_address))
      .Field("router", absl::StrCat(topology.router_netns, " ",
                                    topology.router_sender_device, " ",
                                    topology.router_sender_address, " / ",
                                    topology.router_receiver_device, " ",
                                    topology.router_receiver_address))
      .Field("receiver", absl::StrCat(topology.receiver_netns, " ",
                                      topology.receiver_device, " ",
                                      topology.receiver_address))
      .Field("sender_gso", "off (gso_max_segs 1): one packet per MSS")
      .EndObject();
  json.Field("transfer", meta.transfer_tool);
  json.Key("flows").BeginArray();
  for (size_t i = 0; i < meta.plan.flows.size(); ++i) {
    const PlannedFlow& flow = meta.plan.flows[i];
    json.BeginObject()
        .Field("index", static_cast<int64_t>(i))
        .Field("role", "data")
        .Field("controller", flow.spec.cc)
        .Field("sender",
               absl::StrCat(topology.sender_address, ":", flow.sender_port))
        .Field("receiver", absl::StrCat(topology.receiver_address, ":",
                                        flow.receiver_port));
    json.Key("mss_bytes");
    if (flow.spec.mss_bytes > 0) {
      json.Int(flow.spec.mss_bytes);
    } else {
      json.Null();
    }
    json.Key("app_limited_rate_bits_per_s");
    if (flow.spec.app_rate_bits_per_s > 0) {
      json.Int(flow.spec.app_rate_bits_per_s);
    } else {
      json.Null();
    }
    if (i < meta.builtin_results.size()) {
      json.Field("bytes_sent", meta.builtin_results[i].bytes_sent)
          .Field("bytes_received", meta.builtin_results[i].bytes_received);
    }
    if (i < meta.iperf3_reports.size()) {
      json.Field("iperf3_report", meta.iperf3_reports[i])
          .Field(
              "iperf3_control_connection",
              absl::StrCat(topology.sender_address, ":<ephemeral> -> ",
                           topology.receiver_address, ":", flow.receiver_port));
    }
    json.EndObject();
  }
  json.EndArray();
  json.Key("captures").BeginObject().Key("sender");
  WriteCapture(json, kSenderPcap, topology.sender_netns, topology.sender_device,
               "sender veth: before the bottleneck (sees ACKs after the delay)",
               meta.sender_capture);
  json.Key("receiver");
  WriteCapture(json, kReceiverPcap, topology.receiver_netns,
               topology.receiver_device,
               "receiver veth: after the bottleneck (CE visible here)",
               meta.receiver_capture);
  json.EndObject();
  json.Key("ss")
      .BeginObject()
      .Field("file", kSsLog)
      .Field("command", "ss -tinoH dst RECEIVER (sender namespace)")
      .Field("interval_ms", absl::ToDoubleMilliseconds(meta.ss_interval))
      .Field("samples", meta.ss.samples)
      .Field("mean_interval_ms", meta.ss.mean_interval_ms)
      .Field("max_interval_ms", meta.ss.max_interval_ms)
      .EndObject();
  json.Key("trace")
      .BeginObject()
      .Field("file", kTcpProbe)
      .Field("instance", meta.trace.instance)
      .Field("events", "tcp:tcp_probe tcp:tcp_cong_state_set")
      .Field("filter", meta.trace.filter)
      .Field("trace_clock", KernelTrace::kTraceClock)
      .Field("buffer_size_kb_per_cpu", meta.trace.buffer_size_kb_per_cpu)
      .Field("entries", meta.trace.entries)
      .Field("overrun", meta.trace.overrun)
      .Field("dropped_events", meta.trace.dropped_events)
      .Field("tcp_probe_semantics",
             "one line per segment a socket receives, before it is processed; "
             "snd_cwnd in "
             "packets, srtt in us; the sender socket's lines (src = sender) "
             "are its ACKs")
      .EndObject();
  json.Key("clocks")
      .BeginObject()
      .Field("pcap", "CLOCK_REALTIME (libpcap live capture, microseconds)")
      .Field("ss_log", "CLOCK_REALTIME ('# t=' lines)")
      .Field("trace",
             "CLOCK_MONOTONIC (trace_clock mono); realtime = mono + offset_ns");
  json.Key("clock_pairs").BeginArray();
  for (const ClockPair& pair : meta.trace.clock_pairs) {
    json.BeginObject()
        .Field("label", pair.label)
        .Field("mono_ns", pair.mono_ns)
        .Field("realtime_ns", pair.realtime_ns)
        .Field("offset_ns", pair.offset_ns)
        .Field("bracket_ns", pair.bracket_ns)
        .EndObject();
  }
  json.EndArray().EndObject();
  json.Field("bottleneck_qdisc_stats", meta.bottleneck_qdisc_stats);
  json.EndObject();
  return json.str() + "\n";
}

}  // namespace ccreplay::lab
