// What a lab run built and measured (LabRun), and its meta.json: the
// proto::BundleMeta (proto/bundle.proto) that parsers/bundle.h reads back.
#ifndef CCREPLAY_LAB_BUNDLE_META_H_
#define CCREPLAY_LAB_BUNDLE_META_H_

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "absl/time/time.h"
#include "lab/delay_line.h"
#include "lab/kernel_trace.h"
#include "lab/lab_config.h"
#include "lab/ngtcp2_transfer.h"
#include "lab/packet_capture.h"
#include "lab/reaper.h"
#include "lab/sender_host.h"
#include "lab/ss_sampler.h"
#include "lab/topology.h"
#include "lab/transfer_plan.h"
#include "proto/bundle.pb.h"

namespace ccreplay::lab {

struct LabRun {
  LabConfig config;
  LabTopology topology;
  TransferPlan plan;
  std::string transfer_tool;                // "iperf3", "builtin" or "ngtcp2"
  std::vector<FlowResult> builtin_results;  // builtin only
  std::vector<std::string> iperf3_reports;  // iperf3 only
  std::vector<Ngtcp2FlowResult> ngtcp2_results;  // ngtcp2 only
  std::string kernel;
  SenderHostFacts sender_host;
  absl::Time start_time = absl::InfinitePast();  // until the transfer starts
  double wall_s = 0;
  std::string marker_compiled_at;  // "" without a marker
  std::string delay_method;        // "none", "netem" or "tun"
  std::optional<DelayLineStats> delay_line;
  // The TUN device delaying the second path's ACKs: its own, the first
  // path's when the delays are equal, "" without a delay or a second path.
  std::string second_path_delay_device;
  // The second path's own delay line (LabConfig::second_path with a delay
  // other than the first's).
  std::optional<DelayLineStats> second_delay_line;
  // The data path's reordering line (LabConfig::reorder_percent > 0).
  std::optional<DelayLineStats> reorder_line;
  // The sender namespace's non-zero Tcp and TcpExt counters after the
  // transfer, named as nstat names them (ReadTcpCounters()).
  std::map<std::string, int64_t> sender_nstat;
  CaptureStats sender_capture, receiver_capture;
  SsSamplerStats ss;
  absl::Duration ss_interval;
  TraceStats trace;
  std::string bottleneck_qdisc_stats;
  // False until the run has stopped every capture and saved the trace:
  // meta.json says so (BundleMeta.complete).
  bool complete = false;
  // Leftovers of killed labs removed before this run.
  ReapReport reaped;
};

proto::BundleMeta ToBundleMeta(const LabRun& run);

// The `ss ... dst FILTER` that selects the run's connections: the receiver
// address, or with a second path the receiver's prefix (B.1 and B.2).
std::string SsPeerFilter(const LabRun& run);

}  // namespace ccreplay::lab

#endif  // CCREPLAY_LAB_BUNDLE_META_H_
