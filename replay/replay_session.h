// One `ccreplay replay` run: reads a capture (or a QUIC qlog), rebuilds the
// flow's ACK timeline, replays it through the controllers (ReplayEngine),
// aligns the captured cwnd (CwndAligner), and measures the divergence per
// controller — all in one streaming pass over the timeline. The series it
// keeps are decimated on a fixed time grid (unless `full_series`), so
// memory grows with the report's resolution, not with ACKs.
#ifndef CCREPLAY_REPLAY_REPLAY_SESSION_H_
#define CCREPLAY_REPLAY_REPLAY_SESSION_H_

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "parsers/host_state.h"
#include "replay/captured_cwnd.h"
#include "replay/divergence.h"
#include "replay/series.h"

namespace ccreplay {

struct ReplayOptions {
  std::vector<std::string> specs;  // Controller specs (cc/registry.h).
  std::string flow;                // --flow selector; empty: the largest.
  // ss log or tcp_probe trace (TCP), qlog (QUIC); empty: flight size.
  std::string host_state_path;
  bool full_series = false;  // One series point per ACK.
  size_t max_points = 4000;  // Otherwise, at most this many.
  DivergenceOptions divergence;
};

struct ReplayedController {
  std::string spec;
  DivergenceSummary divergence;
  // Times relative to ReplayResult::start_us, one sample per series point.
  FlowSeries series;
};

struct ReplayResult {
  uint32_t flow_index = 0;
  std::string sender;  // "ADDR:PORT"; QUIC: the trace name.
  std::string receiver;
  CapturedSource source = CapturedSource::kFlightSize;
  std::string source_description;
  int64_t start_us = 0;  // Time 0 of the series (capture start).
  // The captured cwnd at each series point (step-wise: the last value
  // captured at or before it), nullopt before the first.
  std::vector<std::optional<uint64_t>> captured_cwnd_bytes;
  std::vector<ReplayedController> controllers;
  uint64_t acks = 0;
  std::vector<std::string> warnings;
};

// The inputs of a `ccreplay lab` bundle or a testdata/lab directory:
// sender.pcap[.gz], and tcp_probe.txt[.gz] (per ACK) if present, else
// ss.log. NotFound naming the directory when it has no sender capture.
struct BundleInputs {
  std::string capture;
  std::string host_state;  // Empty when the bundle has neither.
};
absl::StatusOr<BundleInputs> FindBundleInputs(const std::string& dir);

// TCP: a pcap/pcapng capture, its host state (ss or tcp_probe) optional.
absl::StatusOr<ReplayResult> ReplayTcpCapture(const std::string& capture_path,
                                              const ReplayOptions& options);

// The trace of a host-state log that a QUIC replay uses: `flow` as a trace
// index, else the first QUIC trace with received ACK frames. NotFound when
// there is none, InvalidArgument for a bad index (errors name `path`).
absl::StatusOr<size_t> SelectQuicTrace(const HostStateLog& log,
                                       const std::string& flow,
                                       const std::string& path);

// QUIC: the qlog's own sender events are the timeline, its
// congestion_window the captured cwnd. `options.flow` picks a trace by
// index (default: the first with ACK frames received).
absl::StatusOr<ReplayResult> ReplayQuicLog(const std::string& qlog_path,
                                           const ReplayOptions& options);

}  // namespace ccreplay

#endif  // CCREPLAY_REPLAY_REPLAY_SESSION_H_
