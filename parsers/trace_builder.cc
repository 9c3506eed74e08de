#include "parsers/trace_builder.h"

namespace ccreplay {
namespace {

void SetEndpoint(const IpAddress& address, uint16_t port,
                 proto::Endpoint* out) {
  out->set_address(address.ToString());
  out->set_port(port);
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
  if (s.flags & kTcpSyn) {
    own.Start(s.seq);
  } else if (!own.started()) {
    own.Start(s.seq - 1);
  }
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
  proto::CaptureSummary* c = trace.mutable_capture();
  c->set_path(capture.path);
  c->set_format(capture.format);
  for (const std::string& t : capture.link_types) c->add_link_types(t);
  c->set_packets(capture.packets);
  c->set_tcp_packets(capture.tcp_packets);
  for (const std::string& w : capture.warnings) c->add_warnings(w);

  for (const Flow& flow : table_.flows()) {
    if (only_flow_.has_value() && *only_flow_ != flow.index) continue;
    const FlowSummary summary =
        SummarizeFlow(flow, capture.first_packet_time_ns);
    const int snd = flow.sender_side();
    proto::FlowTrace* f = trace.add_flows();
    proto::FlowIdentity* id = f->mutable_identity();
    id->set_protocol(proto::PROTOCOL_TCP);
    id->set_index(flow.index);
    SetEndpoint(flow.address[snd], flow.port[snd], id->mutable_sender());
    SetEndpoint(flow.address[1 - snd], flow.port[1 - snd],
                id->mutable_receiver());

    proto::Handshake* h = f->mutable_handshake();
    h->set_syn_seen(flow.side[0].syn_seen || flow.side[1].syn_seen);
    h->set_syn_ack_seen(summary.handshake_seen);
    if (summary.mss_option_sender)
      h->set_mss_option_sender_bytes(*summary.mss_option_sender);
    if (summary.mss_option_receiver) {
      h->set_mss_option_receiver_bytes(*summary.mss_option_receiver);
    }
    if (summary.wscale_sender)
      h->set_wscale_sender_shift(*summary.wscale_sender);
    if (summary.wscale_receiver)
      h->set_wscale_receiver_shift(*summary.wscale_receiver);
    h->set_sack_permitted(summary.sack_permitted);
    h->set_timestamps(summary.timestamps);
    h->set_ecn_mode(
        summary.ecn_mode == EcnMode::kAccEcn    ? proto::ECN_MODE_ACCECN
        : summary.ecn_mode == EcnMode::kRfc3168 ? proto::ECN_MODE_RFC3168
                                                : proto::ECN_MODE_NONE);

    proto::FlowSummary* s = f->mutable_summary();
    s->set_packets_data_dir(summary.packets_data_dir);
    s->set_packets_ack_dir(summary.packets_ack_dir);
    s->set_data_bytes(summary.data_bytes);
    s->set_retransmitted_segments(summary.retransmitted_segments);
    s->set_max_payload_bytes(summary.max_payload_bytes);
    s->set_ect0_packets(summary.ect0_packets);
    s->set_ect1_packets(summary.ect1_packets);
    s->set_ce_packets(summary.ce_packets);
    s->set_not_ect_packets(summary.not_ect_packets);
    s->set_ece_acks(summary.ece_acks);
    s->set_cwr_packets(summary.cwr_packets);
    s->set_ace_changes(summary.ace_changes);
    s->set_start_s(summary.start_s);
    s->set_duration_s(summary.duration_s);
    s->set_goodput_bps(summary.goodput_bps);
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
