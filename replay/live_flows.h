// The flows of a live capture, interval by interval: the ACK timeline of
// every flow (AckTimelineBuilder, the same streaming pass `ccreplay flows`
// makes over a file) summed up at the end of each interval into one row per
// flow that sent or received a packet in it.
#ifndef CCREPLAY_REPLAY_LIVE_FLOWS_H_
#define CCREPLAY_REPLAY_LIVE_FLOWS_H_

#include <array>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "parsers/flow_table.h"
#include "parsers/inet_diag.h"
#include "parsers/pcap_reader.h"
#include "parsers/tcp_segment.h"
#include "replay/ack_timeline.h"

namespace ccreplay {

// One flow over one interval.
struct LiveFlowInterval {
  uint32_t flow_index = 0;
  std::string sender;  // "ADDR:PORT", the data sender.
  std::string receiver;
  // Data the receiver newly acknowledged cumulatively in the interval: the
  // flow's goodput. None while no ACK of the flow's data has been seen (a
  // capture of one direction only).
  std::optional<double> rate_bps;
  // New data (unique payload bytes) the sender sent in the interval.
  double send_rate_bps = 0;
  // The sender's smoothed RTT after its last RTT sample; none before one.
  std::optional<double> srtt_ms;
  // Since the capture started.
  uint64_t packets = 0;
  uint64_t data_bytes = 0;
  uint64_t retransmissions = 0;
  // SendLimitName() of the limit most of the interval's ACKs carried;
  // "none" when no ACK arrived in the interval.
  std::string limit = "none";
  // The newest notable event ("" when none yet) and its capture time.
  std::string newest_event;
  int64_t newest_event_time_ns = 0;
  // The local stack's state of the sender's socket, when it is one of this
  // host's (set by the caller, AttachHostState); none otherwise.
  std::optional<HostTcpSocket> host;
};

// Sets LiveFlowInterval::host of each row whose sender is a socket in
// `sockets`.
void AttachHostState(const HostSocketIndex& sockets,
                     std::vector<LiveFlowInterval>& rows);

// When a flow leaves the live table (LiveFlowMonitor::ExpireFlows).
struct LiveFlowExpiry {
  // No packet for this long: gone (a NAT's or firewall's idle timeout is
  // of this order; a long-lived idle connection comes back as a new flow).
  int64_t idle_ns = 60'000'000'000;
  // Closed (FIN both ways, or an RST) and no packet for this long: gone.
  // Longer than the few RTOs in which a lost last FIN or ACK is sent again
  // (RFC 6298's 1 s minimum RTO, doubled twice), short enough that a host
  // opening thousands of short connections a second keeps a small table.
  int64_t closed_ns = 5'000'000'000;
};

class LiveFlowMonitor : public SegmentConsumer {
 public:
  explicit LiveFlowMonitor(LiveFlowExpiry expiry = {});
  void OnSegment(const TcpSegment& segment) override;
  // The reader's state, in the flow table's records.
  ConnectionSanity* HeldSanity(const TcpSegment& segment, int* side) override {
    return builder_.HeldSanity(segment, side);
  }
  void Restart() override;

  // Closes the interval that started at the previous call (or at the
  // first segment), `interval_ns` long: a row per flow with a packet in it,
  // in flow order.
  std::vector<LiveFlowInterval> EndInterval(int64_t interval_ns);
  // Drops the flows idle, or closed and idle, past `expiry` at `now_ns`
  // (capture clock) from the live table and frees their state: how many.
  // Their index is not reused; a later packet of their endpoints starts a
  // new flow with a new index.
  size_t ExpireFlows(int64_t now_ns);
  // Flows in the live table.
  size_t live_flows() const { return marks_.size(); }
  // Flows with timeline state (AckTimelineBuilder::flows_with_state()).
  size_t flows_with_state() const { return builder_.flows_with_state(); }
  // Every flow seen, expired ones included (their records stay: indexes).
  const FlowTable& flow_table() const { return builder_.flow_table(); }

 private:
  // What a flow had at the start of the interval, and its newest state.
  struct FlowMarks {
    uint64_t packets_at_start = 0;
    std::array<uint64_t, 2> bytes_at_start = {0, 0};  // Per Flow::side.
    int64_t srtt_us = 0;
    uint64_t acked_bytes = 0;  // In the interval.
    bool acks_seen = false;    // Since the capture started.
    std::array<uint64_t, 4> limit_acks = {0, 0, 0, 0};  // By SendLimit.
    std::string newest_event;
    int64_t newest_event_time_ns = 0;
    bool reset = false;  // An RST was seen.
  };
  void OnEvent(const TimelineEvent& event);
  FlowMarks& Marks(uint32_t flow_index);

  LiveFlowExpiry expiry_;
  AckTimelineBuilder builder_;
  // The live table: by flow index, the flows not expired.
  absl::flat_hash_map<uint32_t, FlowMarks> marks_;
};

// The notable thing `event` tells, or "" for an ordinary ACK.
std::string NotableEvent(const TimelineEvent& event);

}  // namespace ccreplay

#endif  // CCREPLAY_REPLAY_LIVE_FLOWS_H_
