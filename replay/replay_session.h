// One `ccreplay replay` run: reads a capture (or a QUIC qlog), rebuilds the
// flow's ACK timeline, replays it through the controllers (ReplayEngine),
// aligns the captured cwnd (CwndAligner), and measures the divergence per
// controller — all in one streaming pass over the timeline. The series it
// keeps are decimated on a fixed time grid (unless `full_series`), so
// memory grows with the report's resolution, not with ACKs.
//
// A TCP capture is read twice: once for its flow table (to choose the
// flow and its sender), once for that flow's timeline. A caller that also
// reduces the timeline itself taps the second pass (ReplayOptions::tap)
// instead of reading the capture again.
#ifndef CCREPLAY_REPLAY_REPLAY_SESSION_H_
#define CCREPLAY_REPLAY_REPLAY_SESSION_H_

#include <cstddef>
#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "absl/status/statusor.h"
#include "parsers/bundle.h"
#include "parsers/flow_table.h"
#include "parsers/host_state.h"
#include "parsers/pcap_reader.h"
#include "proto/bundle.pb.h"
#include "replay/ack_timeline.h"
#include "replay/bbr_state_trace.h"
#include "replay/captured_cwnd.h"
#include "replay/divergence.h"
#include "replay/flow_selection.h"
#include "replay/series.h"

namespace ccreplay {

// The captured cwnd as it stood when a timeline event reached the replay.
struct CapturedAtEvent {
  // The last value logged before the event and the highest logged since
  // the previous ACK, bytes; nullopt when none (or the source is the
  // flight size).
  std::optional<uint64_t> last_bytes;
  std::optional<uint64_t> peak_bytes;
  // The ssthresh logged with `last_bytes` (SsthreshAtCwndPoint(); qlog
  // only), kNoSsthreshBytes while unset; nullopt when not logged.
  std::optional<uint64_t> ssthresh_bytes;
  // tcp_probe: the value read before ACK k + 1 is the state before ACK k
  // (CwndAligner::shows_state_before_ack()).
  bool lags_one_ack = false;
};

struct ReplayOptions {
  std::vector<std::string> specs;  // Controller specs (cc/registry.h).
  std::string flow;                // --flow selector; empty: the largest.
  // ss log or tcp_probe trace (TCP), qlog (QUIC); empty: flight size.
  std::string host_state_path;
  bool full_series = false;  // One series point per ACK.
  size_t max_points = 4000;  // Otherwise, at most this many.
  DivergenceOptions divergence;
  // Every timeline event of the replayed flow also goes here, just before
  // the controllers get it, so a caller that reduces the timeline itself
  // (diagnose's FlowObserver) shares the one pass. May be null.
  TimelineSink tap;
  // Every timeline event of the replayed flow again, with the captured
  // cwnd due before it (set for ACKs only). May be null.
  std::function<void(const TimelineEvent&, const CapturedAtEvent&)>
      captured_tap;
};

struct ReplayedController {
  std::string spec;
  DivergenceSummary divergence;
  // The replayed cwnd averaged over time from the first ACK to the last,
  // each ACK's cwnd held until the next; nullopt when they are at the same
  // time (at most one ACK).
  std::optional<double> mean_cwnd_bytes;
  // Times relative to ReplayResult::start_us, one sample per series point.
  FlowSeries series;
  // A bbr:linux controller's state after every ACK (never decimated);
  // nullopt for every other controller.
  std::optional<BbrStateTrace> bbr_state;
};

struct ReplayResult {
  uint32_t flow_index = 0;
  std::string sender;  // "ADDR:PORT"; QUIC: the trace name.
  std::string receiver;
  CapturedSource source = CapturedSource::kFlightSize;
  std::string source_description;
  SendTimeAccounting host_send_time;  // From an ss log, else empty.
  int64_t start_us = 0;               // Time 0 of the series (capture start).
  // The captured cwnd at each series point (step-wise: the last value
  // captured at or before it), nullopt before the first.
  std::vector<std::optional<uint64_t>> captured_cwnd_bytes;
  // The captured cwnd averaged over time the same way, from its first
  // value to the last ACK; nullopt when it is the flight size (a lower
  // bound, defined only while cwnd-limited) or has no value.
  std::optional<double> captured_mean_cwnd_bytes;
  // The captured cwnd's first value, bytes (the initial window when the
  // log starts with the connection); nullopt for the flight size.
  std::optional<uint64_t> first_captured_cwnd_bytes;
  std::vector<ReplayedController> controllers;
  // QUIC replayed without specs: why the stack's own profile was chosen
  // (StackProfile::reason); empty when the specs were given.
  std::string controller_profile;
  uint64_t acks = 0;
  // TCP: the timeline's figures for the flow (AckTimelineBuilder::Stats).
  TimelineStats timeline;
  std::vector<std::string> warnings;
  // The capture ended inside a packet record: the result covers the part
  // before the cut (exit code 6, as `flows` gives).
  bool truncated = false;
};

// A TCP input as named on the command line: a capture file, or a bundle
// directory (parsers/bundle.h), of which it takes the sender capture, the
// per-ACK host state and the controller the run used. A host-state path
// given explicitly wins over the bundle's. Errors are ReadBundle's.
struct TcpInput {
  std::string capture;
  std::string host_state;  // Empty when neither given nor in the bundle.
  std::string controller;  // The bundle's; empty for a capture file.
  // Each bundle flow's own controller (meta.json flows[].controller) by its
  // sender "ADDR:PORT": `lab --flows reno,reno` runs reno on every flow
  // while meta.sender.controller keeps --cc's default.
  std::vector<std::pair<std::string, std::string>> flow_controllers;
  // About the bundle (an incomplete one); empty for a capture file.
  std::vector<std::string> warnings;
  // The bundle's meta.json sender facts (GSO size, HZ, pacing); nullopt
  // for a capture file.
  std::optional<proto::BundleSender> bundle_sender;
};
absl::StatusOr<TcpInput> ResolveTcpInput(const std::string& path,
                                         const std::string& host_state_path);
// The controller the input names for `flow`: its bundle flow's, else the
// bundle's; empty for a capture file.
std::string ControllerOf(const TcpInput& input, const Flow& flow);

// A QUIC input as named on the command line: a qlog (known by its content,
// or by `qlog_flag`), or a bundle of `lab --transfer ngtcp2`, whose flow's
// server qlog is the ground truth (parsers/bundle.h BundleServerQlog picks
// it by `flow`). `flow` is what to select inside the qlog: the given one
// for a qlog, empty for a bundle's (one trace per file).
struct QuicInput {
  std::string qlog;
  std::string flow;
  // About the bundle (an incomplete one); empty for a qlog.
  std::vector<std::string> warnings;
  // For a bundle's qlog: the Unix time of its time zero, taken as the
  // flow's first datagram in the bundle's sender capture
  // (BundleQlogEpochNs), and the clock's name. Unset for a qlog given
  // alone or when the capture has no datagram of the flow.
  std::optional<int64_t> clock_epoch_ns;
  std::string clock;
};

// The Unix time, in ns, of time zero of `qlog`, the server qlog of one of
// `bundle`'s flows (meta.flows[].server_qlog), for a qlog whose own
// reference_time is unknown (ngtcp2 writes 0 with relative times): the
// flow's first datagram (its UDP port, meta.flows[].sender) in the
// bundle's sender capture. The assumption: the server creates the
// connection, and starts its qlog, when the client's first Initial
// arrives, which the sender-side capture (the server's own interface,
// the same host clock) saw then; the error is the server's handling of
// that datagram (about 0.7 ms on testdata/lab/ngtcp2_two_cubic_*: the
// client's Initial to the server's first datagram in the capture), under
// a millisecond. nullopt when no flow names `qlog` or the capture has no
// datagram of it; the capture reader's errors.
absl::StatusOr<std::optional<int64_t>> BundleQlogEpochNs(
    const Bundle& bundle, const std::string& qlog);
// nullopt when `path` is neither (a capture, a TCP bundle).
absl::StatusOr<std::optional<QuicInput>> ResolveQuicInput(
    const std::string& path, bool qlog_flag, const std::string& flow);

// The first pass over a TCP capture: its flow table and the flow chosen
// by `flow` (replay/flow_selection.h; errors name the capture).
struct TcpCaptureScan {
  CaptureInfo info;  // info.path: the capture.
  // How it was read (--filter, progress): every later pass reads it so, so
  // that flow indices and segments stay those of the scan.
  CaptureReadOptions read_options;
  FlowTable table;
  SelectedFlow selected;
  FlowSummary summary;  // Of the selected flow.
};
absl::StatusOr<TcpCaptureScan> ScanTcpCapture(
    const std::string& capture_path, const std::string& flow,
    const CaptureReadOptions& read_options = CaptureReadOptions());

// The second pass: the scanned flow's timeline, replayed (`options.flow`
// is not used: the scan chose). A host-state log without the flow is
// FailedPrecondition before the capture is read again.
absl::StatusOr<ReplayResult> ReplayTcpFlow(const TcpCaptureScan& scan,
                                           const ReplayOptions& options);

// TCP: a pcap/pcapng capture, its host state (ss or tcp_probe) optional:
// ScanTcpCapture() then ReplayTcpFlow().
absl::StatusOr<ReplayResult> ReplayTcpCapture(const std::string& capture_path,
                                              const ReplayOptions& options);

// The trace of a host-state log that a QUIC replay uses: `flow` as a trace
// index, else the first QUIC trace with received ACK frames.
// FailedPrecondition (nothing to diagnose) when there is none, InvalidArgument
// for a bad index (errors name `path`).
absl::StatusOr<size_t> SelectQuicTrace(const HostStateLog& log,
                                       const std::string& flow,
                                       const std::string& path);

// QUIC: the qlog's own sender events are the timeline, its
// congestion_window the captured cwnd. `options.flow` picks a trace by
// index (default: the first with ACK frames received). Without
// `options.specs`, the trace's stack profile (replay/stack_profile.h);
// InvalidArgument when the log names no stack that has one.
absl::StatusOr<ReplayResult> ReplayQuicLog(const std::string& qlog_path,
                                           const ReplayOptions& options);

// The same for a log already read: trace `index` of the log read from
// `qlog_path` (`options.flow` is not used).
absl::StatusOr<ReplayResult> ReplayQuicTrace(const HostStateLog& log,
                                             size_t index,
                                             const std::string& qlog_path,
                                             const ReplayOptions& options);

}  // namespace ccreplay

#endif  // CCREPLAY_REPLAY_REPLAY_SESSION_H_
