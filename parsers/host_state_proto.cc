#include "parsers/host_state_proto.h"

namespace ccreplay {
namespace {

proto::PacketNumberSpace ToProto(PacketNumberSpace space) {
  switch (space) {
    case PacketNumberSpace::kInitial:
      return proto::PACKET_NUMBER_SPACE_INITIAL;
    case PacketNumberSpace::kHandshake:
      return proto::PACKET_NUMBER_SPACE_HANDSHAKE;
    case PacketNumberSpace::kApplication:
      break;
  }
  return proto::PACKET_NUMBER_SPACE_APPLICATION;
}

void AddSeries(const char* name, const Series& series, proto::HostTrace* out) {
  if (series.empty()) return;
  proto::NamedSeries* s = out->add_series();
  s->set_name(name);
  s->mutable_points()->Reserve(static_cast<int>(series.size()));
  for (const SeriesPoint& p : series) {
    proto::SeriesPoint* point = s->add_points();
    point->set_time_us(p.time_us);
    point->set_value(p.value);
  }
}

void AddCapturedSeries(const CapturedSeries& s, proto::HostTrace* h) {
  AddSeries("cwnd_bytes", s.cwnd_bytes, h);
  AddSeries("cwnd_segments", s.cwnd_segments, h);
  AddSeries("ssthresh_bytes", s.ssthresh_bytes, h);
  AddSeries("ssthresh_segments", s.ssthresh_segments, h);
  AddSeries("srtt_us", s.srtt_us, h);
  AddSeries("rttvar_us", s.rttvar_us, h);
  AddSeries("min_rtt_us", s.min_rtt_us, h);
  AddSeries("latest_rtt_us", s.latest_rtt_us, h);
  AddSeries("bytes_in_flight", s.bytes_in_flight, h);
  AddSeries("pacing_rate_bps", s.pacing_rate_bps, h);
  AddSeries("delivered_segments", s.delivered_segments, h);
  AddSeries("delivered_ce_segments", s.delivered_ce_segments, h);
  AddSeries("bbr_bw_bps", s.bbr_bw_bps, h);
  AddSeries("bbr_min_rtt_us", s.bbr_min_rtt_us, h);
  AddSeries("bbr_pacing_gain", s.bbr_pacing_gain, h);
  AddSeries("bbr_cwnd_gain", s.bbr_cwnd_gain, h);
  for (const auto& [name, series] : s.other) AddSeries(name.c_str(), series, h);
  for (const CongestionStateChange& change : s.congestion_states) {
    proto::CongestionStateChange* out = h->add_congestion_states();
    out->set_time_us(change.time_us);
    out->set_state(change.state);
    out->set_trigger(change.trigger);
  }
}

void AddQuicEvents(const QuicSenderEvents& q, proto::HostTrace* h) {
  for (const QuicPacketSent& p : q.packets_sent) {
    proto::QuicPacketSent* out = h->add_packets_sent();
    out->set_time_us(p.time_us);
    out->set_space(ToProto(p.space));
    out->set_packet_number(p.packet_number);
    out->set_size_bytes(p.size_bytes);
    out->set_ack_eliciting(p.ack_eliciting);
  }
  for (const QuicAckReceived& a : q.acks_received) {
    proto::QuicAckReceived* out = h->add_acks_received();
    out->set_time_us(a.time_us);
    out->set_space(ToProto(a.space));
    for (const AckRange& r : a.acked_ranges) {
      proto::QuicAckRange* range = out->add_acked_ranges();
      range->set_first(r.first);
      range->set_last(r.last);
    }
    if (a.ack_delay_us.has_value()) out->set_ack_delay_us(*a.ack_delay_us);
    if (a.ect0_packets.has_value()) out->set_ect0_packets(*a.ect0_packets);
    if (a.ect1_packets.has_value()) out->set_ect1_packets(*a.ect1_packets);
    if (a.ce_packets.has_value()) out->set_ce_packets(*a.ce_packets);
  }
  for (const QuicPacketLost& l : q.packets_lost) {
    proto::QuicPacketLost* out = h->add_packets_lost();
    out->set_time_us(l.time_us);
    out->set_space(ToProto(l.space));
    out->set_packet_number(l.packet_number);
    out->set_trigger(l.trigger);
  }
  h->set_packets_received(q.packets_received);
}

}  // namespace

proto::Trace HostStateToProto(const HostStateLog& log) {
  proto::Trace trace;
  proto::CaptureSummary* c = trace.mutable_capture();
  c->set_path(log.path);
  if (!log.traces.empty())
    c->set_format(HostStateSourceName(log.traces[0].source));
  for (const std::string& w : log.warnings) c->add_warnings(w);
  for (const HostTrace& t : log.traces) {
    proto::HostTrace* h = trace.add_host_traces();
    h->set_source(HostStateSourceName(t.source));
    h->set_protocol(t.quic ? proto::PROTOCOL_QUIC : proto::PROTOCOL_TCP);
    h->set_local_endpoint(t.local_endpoint);
    h->set_remote_endpoint(t.remote_endpoint);
    h->set_local_sends_data(t.local_sends_data);
    h->set_congestion_control(t.congestion_control);
    h->set_vantage(TraceVantageName(t.vantage));
    h->set_name(t.name);
    h->set_clock(t.clock);
    if (t.clock_epoch_us.has_value()) h->set_clock_epoch_us(*t.clock_epoch_us);
    h->set_samples(t.samples);
    h->set_cwnd_updates(t.cwnd_updates);
    AddCapturedSeries(t.series, h);
    AddQuicEvents(t.quic_events, h);
  }
  return trace;
}

}  // namespace ccreplay
