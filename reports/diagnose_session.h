// One `ccreplay diagnose` run, from the input on disk to the Diagnosis:
// a capture (pcap/pcapng, optionally with the sender's ss log or tcp_probe
// trace), a lab bundle directory, or a QUIC sender's qlog alone. It
// observes the chosen flow's timeline (reports/flow_observation.h),
// replays it through the claimed controllers and their counterfactuals
// (replay/replay_session.h, reports/controller_choice.h) and diagnoses the
// lot (reports/diagnosis.h).
#ifndef CCREPLAY_REPORTS_DIAGNOSE_SESSION_H_
#define CCREPLAY_REPORTS_DIAGNOSE_SESSION_H_

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "parsers/capture_filter.h"
#include "replay/shared_bottleneck.h"
#include "reports/diagnosis.h"
#include "reports/flow_observation.h"
#include "reports/unfairness.h"

namespace ccreplay {

struct DiagnoseOptions {
  // A capture, a bundle directory or a qlog; may be empty with qlog_path.
  std::string input;
  std::string host_state_path;     // --ss or --probe.
  std::string qlog_path;           // --qlog.
  std::string flow;                // --flow; empty: the largest.
  std::vector<std::string> specs;  // --cc; empty: chosen from the flow.
  // Closed-loop simulations of the fitted path as evidence.
  bool simulate = true;
  // How the capture is read (--filter, progress).
  CaptureReadOptions capture;
};

struct DiagnoseRun {
  Diagnosis diagnosis;
  std::vector<std::string> warnings;
  bool truncated = false;  // The capture ended mid-packet.
  // The flow as one of several sharing a bottleneck (reports/unfairness.h):
  // packet size, replayed controller, CA growth from the captured cwnd,
  // min RTT, its delivery on the capture's absolute clock;
  // throughput_bps is left to the caller.
  CompetitorFacts competitor;
  // The flow's observed timeline (the diagnosis's time zero is its start),
  // for views across flows (reports/competition.h) without reading the
  // input again.
  std::shared_ptr<const FlowObserver> observer;
  // The observer's time zero on the input's clock, ns: a capture's packet
  // time (Unix), a qlog's event time.
  int64_t start_ns = 0;
  // The Unix time of start_ns == 0, ns: 0 for a capture, the qlog's
  // reference_time; absent when the input states none.
  std::optional<int64_t> clock_epoch_ns;
  // The input's clock, for people: "capture time (Unix)", "qlog
  // reference_time", "qlog time (reference unknown)".
  std::string clock;
  // The flow's largest data packet (its plots' packet unit), bytes.
  uint32_t packet_bytes = 0;
  // Its delay and loss series for shared-bottleneck detection
  // (replay/shared_bottleneck.h), from the same pass as the observer; times
  // on the input's clock.
  SbdFlowSeries sbd;
};

// Errors name the file: NotFound / InvalidArgument / DataLoss as the
// readers give them; InvalidArgument for a --cc spec that does not parse.
absl::StatusOr<DiagnoseRun> DiagnoseInput(const DiagnoseOptions& options);

}  // namespace ccreplay

#endif  // CCREPLAY_REPORTS_DIAGNOSE_SESSION_H_
