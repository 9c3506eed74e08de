#include "replay/live_flows.h"

#include <algorithm>

#include "absl/strings/str_cat.h"

namespace ccreplay {

std::string NotableEvent(const TimelineEvent& event) {
  if (event.type == TimelineEvent::Type::kRetransmission) {
    return absl::StrCat("retransmission: ", RetransmissionKindName(event.kind));
  }
  if (event.reneged) return "SACK reneging";
  if (event.spurious_retransmissions > 0) return "spurious retransmission";
  if (event.congestion_episode) return "congestion episode (ECN)";
  // Idle for an RTO or more: when RFC 5681 section 4.1 restarts the
  // window; shorter pauses (an application gap) are ordinary.
  if (event.idle_restart_time_ns != 0 &&
      event.idle_restart_idle_us >= event.rto_us) {
    return "restart after idle";
  }
  if (event.duplicate) return "duplicate ACK";
  return "";
}

void AttachHostState(const HostSocketIndex& sockets,
                     std::vector<LiveFlowInterval>& rows) {
  for (LiveFlowInterval& row : rows) {
    const HostTcpSocket* socket =
        FindLocalSender(sockets, row.sender, row.receiver);
    if (socket != nullptr) row.host = *socket;
  }
}

LiveFlowMonitor::LiveFlowMonitor(LiveFlowExpiry expiry)
    : expiry_(expiry),
      builder_([this](const TimelineEvent& event) { OnEvent(event); }) {}

void LiveFlowMonitor::OnSegment(const TcpSegment& segment) {
  builder_.OnSegment(segment);
  FlowMarks& marks = Marks(builder_.flow_table().last_flow_index());
  if (segment.flags & kTcpRst) marks.reset = true;
}

void LiveFlowMonitor::Restart() {
  builder_.Restart();
  marks_.clear();
}

LiveFlowMonitor::FlowMarks& LiveFlowMonitor::Marks(uint32_t flow_index) {
  return marks_[flow_index];
}

size_t LiveFlowMonitor::ExpireFlows(int64_t now_ns) {
  std::vector<uint32_t> expired;
  for (const auto& [index, marks] : marks_) {
    const Flow& flow = builder_.flow_table().flows()[index];
    const int64_t idle_ns = now_ns - flow.last_ns;
    const bool closed = marks.reset || (flow.side[0].fin_or_rst_seen &&
                                        flow.side[1].fin_or_rst_seen);
    if (idle_ns >= expiry_.idle_ns || (closed && idle_ns >= expiry_.closed_ns))
      expired.push_back(index);
  }
  for (uint32_t index : expired) {
    builder_.Forget(index);
    marks_.erase(index);
  }
  return expired.size();
}

void LiveFlowMonitor::OnEvent(const TimelineEvent& event) {
  FlowMarks& marks = Marks(event.flow_index);
  if (event.type == TimelineEvent::Type::kAck) {
    if (event.srtt_us > 0) marks.srtt_us = event.srtt_us;
    marks.acked_bytes += event.bytes_acked;
    marks.acks_seen = true;
    ++marks.limit_acks[static_cast<size_t>(event.limit)];
  }
  std::string notable = NotableEvent(event);
  if (!notable.empty()) {
    marks.newest_event = std::move(notable);
    marks.newest_event_time_ns = event.time_ns;
  }
}

std::vector<LiveFlowInterval> LiveFlowMonitor::EndInterval(
    int64_t interval_ns) {
  std::vector<LiveFlowInterval> rows;
  std::vector<uint32_t> live;
  live.reserve(marks_.size());
  for (const auto& entry : marks_) live.push_back(entry.first);
  std::sort(live.begin(), live.end());  // Rows in flow order.
  for (uint32_t index : live) {
    const Flow& flow = builder_.flow_table().flows()[index];
    FlowMarks& marks = marks_[index];
    const uint64_t packets = flow.side[0].packets() + flow.side[1].packets();
    const int sender = flow.sender_side();
    const uint64_t bytes = flow.side[sender].unique_payload_bytes();
    if (packets > marks.packets_at_start) {
      LiveFlowInterval row;
      const FlowSummary summary = SummarizeFlow(flow, flow.first_ns);
      row.flow_index = flow.index;
      row.sender = summary.sender;
      row.receiver = summary.receiver;
      const uint64_t new_bytes =
          bytes - std::min(bytes, marks.bytes_at_start[sender]);
      if (interval_ns > 0) {
        row.send_rate_bps = new_bytes * 8e9 / interval_ns;
        if (marks.acks_seen)
          row.rate_bps = marks.acked_bytes * 8e9 / interval_ns;
      }
      if (marks.srtt_us > 0) row.srtt_ms = marks.srtt_us / 1e3;
      row.packets = packets;
      row.data_bytes = bytes;
      row.retransmissions = summary.retransmitted_segments;
      const auto most =
          std::max_element(marks.limit_acks.begin(), marks.limit_acks.end());
      if (*most > 0) {
        row.limit = SendLimitName(
            static_cast<SendLimit>(most - marks.limit_acks.begin()));
      }
      row.newest_event = marks.newest_event;
      row.newest_event_time_ns = marks.newest_event_time_ns;
      rows.push_back(std::move(row));
    }
    marks.packets_at_start = packets;
    marks.bytes_at_start = {flow.side[0].unique_payload_bytes(),
                            flow.side[1].unique_payload_bytes()};
    marks.limit_acks = {0, 0, 0, 0};
    marks.acked_bytes = 0;
  }
  return rows;
}

}  // namespace ccreplay
