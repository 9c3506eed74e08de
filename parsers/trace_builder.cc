#include "parsers/trace_builder.h"

#include "parsers/flow_proto.h"

namespace ccreplay {
namespace {

// SACK blocks (in the peer's sequence space), timestamps, ACE and the
// AccECN option.
void AddOptions(const TcpSegment& s, SequenceTracker& peer,
                proto::PacketEvent* event) {
  proto::PacketEvent& e = *event;
  for (int b = 0; b < s.options.sack_block_count; ++b) {
    proto::SackBlock* block = e.add_sack_blocks();
    block->set_start_seq_bytes(
        static_cast<uint64_t>(peer.Unwrap(s.options.sack_left[b])));
    block->set_end_seq_bytes(
        static_cast<uint64_t>(peer.Unwrap(s.options.sack_right[b])));
  }
  if (s.options.has_timestamps) {
    e.set_ts_val(s.options.ts_val);
    e.set_ts_ecr(s.options.ts_ecr);
  }
  e.set_ace(s.ace());
  const AccEcnOption& a = s.options.accecn;
  if (a.kind != 0) {
    proto::AccEcnOption* o = e.mutable_accecn_option();
    o->set_kind(a.kind);
    if (a.has_ee0b()) o->set_ect0_bytes(a.ee0b);
    if (a.has_eceb()) o->set_ce_bytes(a.eceb);
    if (a.has_ee1b()) o->set_ect1_bytes(a.ee1b);
  }
}

}  // namespace

void TraceBuilder::OnSegment(const TcpSegment& s) {
  table_.OnSegment(s);
  const uint32_t index = table_.last_flow_index();
  if (only_flow_.has_value() && *only_flow_ != index) return;
  if (state_.size() <= index) state_.resize(index + 1);
  FlowState& state = state_[index];
  const Flow& flow = table_.flows()[index];
  const int side = table_.last_side();

  // Sequence spaces: a SYN sets its side's origin; otherwise the first
  // sequence (or acknowledgement) number seen does.
  SequenceTracker& own = state.space[side];
  SequenceTracker& peer = state.space[1 - side];
  StartSequenceSpace(s, own);
  if ((s.flags & kTcpAck) && !peer.started()) peer.Start(s.ack - 1);

  proto::PacketEvent e;
  e.set_time_ns(s.time_ns - flow.first_ns);
  e.set_seq_bytes(static_cast<uint64_t>(own.Unwrap(s.seq)));
  e.set_payload_bytes(s.payload_bytes);
  e.set_tcp_flags(s.flags);
  e.set_ip_ecn(static_cast<proto::IpEcn>(s.ip_ecn));
  if (s.flags & kTcpAck)
    e.set_ack_bytes(static_cast<uint64_t>(peer.Unwrap(s.ack)));
  // RFC 7323 §2.2: the window of a SYN is never scaled; others are scaled
  // by the sender's shift when both sides offered the option.
  const SideStats& mine = flow.side[side];
  const SideStats& theirs = flow.side[1 - side];
  const bool scaled = !(s.flags & kTcpSyn) && mine.syn_seen &&
                      theirs.syn_seen && mine.syn_options.has_wscale &&
                      theirs.syn_options.has_wscale;
  e.set_receive_window_bytes(uint64_t{s.window_raw}
                             << (scaled ? mine.syn_options.wscale_shift : 0));
  AddOptions(s, peer, &e);
  e.set_payload_truncated(s.captured_payload_bytes < s.payload_bytes);
  e.set_length_from_capture(s.length_from_capture);
  state.packets.push_back({side, std::move(e)});
}

void TraceBuilder::Restart() {
  table_.Restart();
  state_.clear();
}

proto::Trace TraceBuilder::Finish(const CaptureInfo& capture) {
  proto::Trace trace;
  *trace.mutable_capture() = CaptureSummaryProto(capture);

  for (const Flow& flow : table_.flows()) {
    if (only_flow_.has_value() && *only_flow_ != flow.index) continue;
    const FlowSummary summary =
        SummarizeFlow(flow, capture.first_packet_time_ns);
    const int snd = flow.sender_side();
    proto::FlowTrace* f = trace.add_flows();
    *f->mutable_identity() = FlowIdentityProto(flow);
    *f->mutable_handshake() = HandshakeProto(flow, summary);
    *f->mutable_summary() = FlowSummaryProto(summary);
    f->set_first_packet_epoch_ns(flow.first_ns);

    if (flow.index < state_.size()) {
      std::vector<Pending>& packets = state_[flow.index].packets;
      f->mutable_packets()->Reserve(static_cast<int>(packets.size()));
      for (Pending& p : packets) {
        p.event.set_direction(p.side == snd ? proto::DIRECTION_DATA
                                            : proto::DIRECTION_ACK);
        *f->add_packets() = std::move(p.event);
      }
      packets.clear();
    }
  }
  return trace;
}

}  // namespace ccreplay
