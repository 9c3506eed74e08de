#include "parsers/flow_proto.h"

namespace ccreplay {
namespace {

proto::Endpoint EndpointProto(const IpAddress& address, uint16_t port) {
  proto::Endpoint out;
  out.set_address(address.ToString());
  out.set_port(port);
  return out;
}

proto::EcnMode EcnModeProto(EcnMode mode) {
  switch (mode) {
    case EcnMode::kAccEcn:
      return proto::ECN_MODE_ACCECN;
    case EcnMode::kRfc3168:
      return proto::ECN_MODE_RFC3168;
    case EcnMode::kNone:
      break;
  }
  return proto::ECN_MODE_NONE;
}

}  // namespace

proto::CaptureSummary CaptureSummaryProto(const CaptureInfo& capture) {
  proto::CaptureSummary c;
  c.set_path(capture.path);
  c.set_format(capture.format);
  for (const std::string& t : capture.link_types) c.add_link_types(t);
  c.set_packets(capture.packets);
  c.set_tcp_packets(capture.tcp_packets);
  for (const std::string& w : capture.warnings) c.add_warnings(w);
  return c;
}

proto::FlowIdentity FlowIdentityProto(const Flow& flow) {
  const int snd = flow.sender_side();
  proto::FlowIdentity id;
  id.set_protocol(proto::PROTOCOL_TCP);
  id.set_index(flow.index);
  *id.mutable_sender() = EndpointProto(flow.address[snd], flow.port[snd]);
  *id.mutable_receiver() =
      EndpointProto(flow.address[1 - snd], flow.port[1 - snd]);
  if (flow.encapsulation != Encapsulation::kNone)
    id.set_encapsulation(EncapsulationName(flow.encapsulation));
  return id;
}

proto::Handshake HandshakeProto(const Flow& flow, const FlowSummary& summary) {
  proto::Handshake h;
  h.set_syn_seen(flow.side[0].syn_seen || flow.side[1].syn_seen);
  h.set_syn_ack_seen(summary.handshake_seen);
  if (summary.mss_option_sender)
    h.set_mss_option_sender_bytes(*summary.mss_option_sender);
  if (summary.mss_option_receiver)
    h.set_mss_option_receiver_bytes(*summary.mss_option_receiver);
  if (summary.wscale_sender) h.set_wscale_sender_shift(*summary.wscale_sender);
  if (summary.wscale_receiver)
    h.set_wscale_receiver_shift(*summary.wscale_receiver);
  h.set_sack_permitted(summary.sack_permitted);
  h.set_timestamps(summary.timestamps);
  h.set_ecn_mode(EcnModeProto(summary.ecn_mode));
  return h;
}

proto::FlowSummary FlowSummaryProto(const FlowSummary& summary) {
  proto::FlowSummary s;
  s.set_packets_data_dir(summary.packets_data_dir);
  s.set_packets_ack_dir(summary.packets_ack_dir);
  s.set_data_bytes(summary.data_bytes);
  s.set_retransmitted_segments(summary.retransmitted_segments);
  s.set_duplicate_frames(summary.duplicate_frames);
  s.set_max_payload_bytes(summary.max_payload_bytes);
  s.set_ect0_packets(summary.ect0_packets);
  s.set_ect1_packets(summary.ect1_packets);
  s.set_ce_packets(summary.ce_packets);
  s.set_not_ect_packets(summary.not_ect_packets);
  s.set_ece_acks(summary.ece_acks);
  s.set_cwr_packets(summary.cwr_packets);
  s.set_ace_changes(summary.ace_changes);
  s.set_start_s(summary.start_s);
  s.set_duration_s(summary.duration_s);
  s.set_goodput_bps(summary.goodput_bps);
  return s;
}

}  // namespace ccreplay
