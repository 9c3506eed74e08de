// Open-loop replay: drives several reference controllers side by side with
// one flow's ACK timeline, in one pass, handing each exactly what the real
// sender had learned when that ACK arrived.
//
// No look-ahead: an event is converted from itself and from earlier events
// only (the SACKed bytes the previous ACK left, to count newly delivered
// bytes), and controllers see it in timeline order. Losses reach the
// controllers when the real sender acted on them (its retransmission that
// starts a recovery episode), not when the packet was dropped.
//
// ECN feedback goes in the form the flow negotiated: RFC 3168 as the ECE
// flag (the controller applies the once-per-window rule itself), AccECN and
// QUIC as CE packet and byte counts, none otherwise.
#ifndef CCREPLAY_REPLAY_REPLAY_ENGINE_H_
#define CCREPLAY_REPLAY_REPLAY_ENGINE_H_

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "cc/congestion_controller.h"
#include "parsers/flow_table.h"
#include "replay/ack_timeline.h"

namespace ccreplay {

// What the sender knew of its flow before the first ACK: the negotiated
// ECN mode and the MSS the handshake settled (min of both MSS options less
// 12 bytes of timestamps; 0 when the capture missed the handshake). And
// what a host-state log tells of the sender's kernel: the capture clock
// minus its CLOCK_MONOTONIC, µs (CapturedCwnd::kernel_mono_offset_us),
// which Create() gives each spec that takes `mono_offset_us` and does not
// set it (cubic:linux: where its jiffies tick).
struct ReplayFlowFacts {
  EcnMode ecn = EcnMode::kNone;
  uint32_t handshake_mss_bytes = 0;
  std::optional<int64_t> kernel_mono_offset_us;
};

// The controller's view of an ACK event. `prior_sacked_bytes` is the
// sacked_bytes of the flow's previous ACK event (0 for the first): bytes
// SACKed earlier and now covered by the cumulative ACK were delivered
// before, so newly delivered = bytes_acked + sacked_after - sacked_before.
// The MSS is the larger of the handshake's and the timeline's (which only
// knows the largest segment seen so far, e.g. 37 bytes after iperf3's
// cookie).
AckEvent ToAckEvent(const TimelineEvent& event, const ReplayFlowFacts& facts,
                    uint64_t prior_sacked_bytes);

// A LossEvent for a retransmission that starts a recovery episode (fast
// retransmit, or RTO for kRto); nullopt for every other event, since later
// retransmissions of the same episode and TLPs do not reduce the window
// again (RFC 5681 section 3.2, RFC 8985 section 7.4).
std::optional<LossEvent> ToLossEvent(const TimelineEvent& event);

// A RetransmitEvent for every retransmission (TLPs too: Linux counts each
// in tp->undo_retrans); nullopt for an ACK.
std::optional<RetransmitEvent> ToRetransmitEvent(const TimelineEvent& event);

class ReplayEngine {
 public:
  // One controller per spec (see cc/registry.h). InvalidArgument naming
  // the spec when one does not parse.
  static absl::StatusOr<ReplayEngine> Create(
      const std::vector<std::string>& specs, const ReplayFlowFacts& facts);

  // Controllers built elsewhere (tests wrap one to watch what it is fed),
  // labelled by `specs`, one each.
  ReplayEngine(std::vector<std::string> specs,
               std::vector<std::unique_ptr<CongestionController>> controllers,
               const ReplayFlowFacts& facts);

  // Feeds one timeline event of the flow, in order.
  void OnEvent(const TimelineEvent& event);

  size_t size() const { return controllers_.size(); }
  const std::string& spec(size_t i) const { return specs_[i]; }
  const CongestionController& controller(size_t i) const {
    return *controllers_[i];
  }
  uint64_t acks() const { return acks_; }

 private:
  std::vector<std::string> specs_;
  std::vector<std::unique_ptr<CongestionController>> controllers_;
  ReplayFlowFacts facts_;
  uint64_t prior_sacked_bytes_ = 0;
  // Retransmitted bytes since the last ACK (AckEvent::
  // bytes_retransmitted_before).
  uint64_t retransmitted_bytes_ = 0;
  uint64_t acks_ = 0;
};

}  // namespace ccreplay

#endif  // CCREPLAY_REPLAY_REPLAY_ENGINE_H_
