#include "parsers/flow_proto.h"

#include <optional>

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

namespace {

void WriteEndpointJson(absl::string_view name, const IpAddress& address,
                       uint16_t port, JsonObjectWriter& out) {
  JsonObjectWriter endpoint = out.Object(name);
  endpoint.String("address", address.ToString());
  endpoint.Uint("port", port);
  endpoint.End();
}

std::optional<uint64_t> Widened(const std::optional<uint32_t>& v) {
  if (!v.has_value()) return std::nullopt;
  return *v;
}

}  // namespace

void WriteFlowIdentityJson(const Flow& flow, JsonObjectWriter& out) {
  const int snd = flow.sender_side();
  out.String("protocol", proto::Protocol_Name(proto::PROTOCOL_TCP));
  WriteEndpointJson("sender", flow.address[snd], flow.port[snd], out);
  WriteEndpointJson("receiver", flow.address[1 - snd], flow.port[1 - snd], out);
  out.Uint("index", flow.index);
  out.OptionalString("encapsulation",
                     flow.encapsulation != Encapsulation::kNone
                         ? std::optional<absl::string_view>(
                               EncapsulationName(flow.encapsulation))
                         : std::nullopt);
}

void WriteHandshakeJson(const Flow& flow, const FlowSummary& summary,
                        JsonObjectWriter& out) {
  out.Bool("syn_seen", flow.side[0].syn_seen || flow.side[1].syn_seen);
  out.Bool("syn_ack_seen", summary.handshake_seen);
  out.OptionalUint("mss_option_sender_bytes",
                   Widened(summary.mss_option_sender));
  out.OptionalUint("mss_option_receiver_bytes",
                   Widened(summary.mss_option_receiver));
  out.OptionalUint("wscale_sender_shift", Widened(summary.wscale_sender));
  out.OptionalUint("wscale_receiver_shift", Widened(summary.wscale_receiver));
  out.Bool("sack_permitted", summary.sack_permitted);
  out.Bool("timestamps", summary.timestamps);
  out.String("ecn_mode", proto::EcnMode_Name(EcnModeProto(summary.ecn_mode)));
  out.EmptyArray("accecn_option_kinds");  // HandshakeProto sets none.
}

void WriteFlowSummaryJson(const FlowSummary& summary, JsonObjectWriter& out) {
  out.Uint("packets_data_dir", summary.packets_data_dir);
  out.Uint("packets_ack_dir", summary.packets_ack_dir);
  out.Uint("data_bytes", summary.data_bytes);
  out.Uint("retransmitted_segments", summary.retransmitted_segments);
  out.Uint("max_payload_bytes", summary.max_payload_bytes);
  out.Uint("ect0_packets", summary.ect0_packets);
  out.Uint("ect1_packets", summary.ect1_packets);
  out.Uint("ce_packets", summary.ce_packets);
  out.Uint("not_ect_packets", summary.not_ect_packets);
  out.Uint("ece_acks", summary.ece_acks);
  out.Uint("cwr_packets", summary.cwr_packets);
  out.Uint("ace_changes", summary.ace_changes);
  out.Double("start_s", summary.start_s);
  out.Double("duration_s", summary.duration_s);
  out.Double("goodput_bps", summary.goodput_bps);
  out.Uint("duplicate_frames", summary.duplicate_frames);
}

}  // namespace ccreplay
