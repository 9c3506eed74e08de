// meta.json of a lab bundle: what was built, what ran, and how good the
// ground truth is (capture drops, trace overruns, delay-line lateness,
// clock mapping). Written through reports/json_writer.h.
#ifndef CCREPLAY_CLI_LAB_BUNDLE_META_H_
#define CCREPLAY_CLI_LAB_BUNDLE_META_H_

#include <optional>
#include <string>
#include <vector>

#include "absl/time/time.h"
#include "cli/lab/delay_line.h"
#include "cli/lab/kernel_trace.h"
#include "cli/lab/lab_config.h"
#include "cli/lab/packet_capture.h"
#include "cli/lab/ss_sampler.h"
#include "cli/lab/topology.h"
#include "cli/lab/transfer_plan.h"

namespace ccreplay::lab {

// File names inside a bundle.
inline constexpr char kSenderPcap[] = "sender.pcap";
inline constexpr char kReceiverPcap[] = "receiver.pcap";
inline constexpr char kSsLog[] = "ss.log";
inline constexpr char kTcpProbe[] = "tcp_probe.txt";
inline constexpr char kMetaJson[] = "meta.json";

struct BundleMeta {
  LabConfig config;
  LabTopology topology;
  TransferPlan plan;
  std::string transfer_tool;                // "iperf3" or "builtin"
  std::vector<FlowResult> builtin_results;  // builtin only
  std::vector<std::string> iperf3_reports;  // iperf3 only
  std::string kernel;
  absl::Time start_time;
  double wall_s = 0;
  std::string marker_compiled_at;  // "" without a marker
  std::string delay_method;        // "none", "netem" or "tun"
  std::optional<DelayLineStats> delay_line;
  CaptureStats sender_capture, receiver_capture;
  SsSamplerStats ss;
  absl::Duration ss_interval;
  TraceStats trace;
  std::string bottleneck_qdisc_stats;
};

std::string BundleMetaJson(const BundleMeta& meta);

}  // namespace ccreplay::lab

#endif  // CCREPLAY_CLI_LAB_BUNDLE_META_H_
