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

class LiveFlowMonitor : public SegmentConsumer {
 public:
  LiveFlowMonitor();
  void OnSegment(const TcpSegment& segment) override;
  void Restart() override;

  // Closes the interval that started at the previous call (or at the
  // first segment), `interval_ns` long: a row per flow with a packet in it,
  // in flow order.
  std::vector<LiveFlowInterval> EndInterval(int64_t interval_ns);
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
  };
  void OnEvent(const TimelineEvent& event);
  FlowMarks& Marks(uint32_t flow_index);

  AckTimelineBuilder builder_;
  std::vector<FlowMarks> marks_;
};

// The notable thing `event` tells, or "" for an ordinary ACK.
std::string NotableEvent(const TimelineEvent& event);

}  // namespace ccreplay

#endif  // CCREPLAY_REPLAY_LIVE_FLOWS_H_
