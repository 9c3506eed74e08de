// The conformance check of an input as named on the command line: a qlog
// (its congestion_window), or a capture or lab bundle with its tcp_probe
// or ss log. The captured cwnd is read by the replay's own pass
// (ReplayOptions::captured_tap), so `check` sees exactly the cwnd that
// `replay` compares with.
#ifndef CCREPLAY_REPLAY_CONFORMANCE_CONFORMANCE_INPUT_H_
#define CCREPLAY_REPLAY_CONFORMANCE_CONFORMANCE_INPUT_H_

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "replay/ack_timeline.h"
#include "replay/conformance/conformance.h"
#include "replay/replay_session.h"

namespace ccreplay {

// Turns timeline events and the captured cwnd into ConformanceAcks.
class ConformanceTraceBuilder {
 public:
  // As ReplayOptions::captured_tap is called.
  void OnEvent(const TimelineEvent& e, const CapturedAtEvent& captured);
  // The steps. A QUIC timeline carries no datagram size: the largest
  // packet acked (bytes per packet of an ACK) stands in. A step counts as
  // cwnd-limited when the timeline says so and its flight filled the
  // captured cwnd to within a datagram.
  std::vector<ConformanceAck> Finish();

 private:
  // Gives the congestion event pending since a retransmission to the ACK
  // just added (at `ack_time_ns`) or the one before.
  void AttachPendingEvent(int64_t ack_time_ns);

  std::vector<ConformanceAck> acks_;
  // A congestion event (a retransmission starting an episode) not yet
  // given to an ACK: the ACK at the same time, else the one before it.
  std::optional<int64_t> pending_event_ns_;
  bool pending_timeout_ = false;
  int64_t pending_send_order_ = -1;  // TimelineEvent::send_order.
};

struct CheckOptions {
  std::string flow;             // --flow; empty: the largest / first.
  std::string host_state_path;  // --ss / --probe (TCP).
  bool qlog = false;            // The input is a qlog whatever it looks like.
  // "reno", "cubic" or "dctcp"; empty: the bundle's controller, else reno.
  std::string family;
  // The stack whose documented deviations apply; empty: "linux" for a lab
  // bundle, none otherwise.
  std::string stack;
};

struct CheckRun {
  ConformanceProfile profile;
  ConformanceResult result;
  std::string source_description;  // Where the captured cwnd came from.
  int64_t first_ack_us = 0;        // Time of the first ACK checked.
  std::vector<std::string> warnings;
  bool truncated = false;
};

// FailedPrecondition (nothing to check) when the input has no captured
// cwnd (a capture without a host-state log); InvalidArgument for an
// unknown family.
absl::StatusOr<CheckRun> CheckInput(const std::string& input,
                                    const CheckOptions& options);

}  // namespace ccreplay

#endif  // CCREPLAY_REPLAY_CONFORMANCE_CONFORMANCE_INPUT_H_
