#include "parsers/flow_table.h"

#include <algorithm>

namespace ccreplay {

const char* EcnModeName(EcnMode mode) {
  switch (mode) {
    case EcnMode::kRfc3168:
      return "rfc3168";
    case EcnMode::kAccEcn:
      return "accecn";
    case EcnMode::kNone:
      break;
  }
  return "none";
}

EcnMode NegotiatedEcnMode(uint16_t syn_flags, uint16_t syn_ack_flags) {
  const bool ece = syn_flags & kTcpEce, cwr = syn_flags & kTcpCwr,
             ae = syn_flags & kTcpAe;
  if (!(ece && cwr)) return EcnMode::kNone;
  const int reply = ((syn_ack_flags & kTcpAe) ? 4 : 0) |
                    ((syn_ack_flags & kTcpCwr) ? 2 : 0) |
                    ((syn_ack_flags & kTcpEce) ? 1 : 0);
  if (ae) {
    switch (reply) {
      case 0b010:
      case 0b011:
      case 0b100:
      case 0b110:
        return EcnMode::kAccEcn;
      case 0b001:
      case 0b101:
        return EcnMode::kRfc3168;
      default:
        return EcnMode::kNone;
    }
  }
  // RFC 3168 SYN: only ECE-without-CWR accepts (AE is ignored).
  return (reply & 0b011) == 0b001 ? EcnMode::kRfc3168 : EcnMode::kNone;
}

SynOptions SynOptionsOf(const TcpOptions& options) {
  SynOptions out;
  out.mss_bytes = options.mss_bytes;
  out.has_mss = options.has_mss;
  out.has_wscale = options.has_wscale;
  out.wscale_shift = options.wscale_shift;
  out.sack_permitted = options.sack_permitted;
  out.has_timestamps = options.has_timestamps;
  out.options_cut = options.truncated;
  return out;
}

namespace {

// The side of `flow` (see Flow::address) that sent `s`; -1 when `s` belongs
// to another connection.
inline int SideOf(const Flow& flow, const TcpSegment& s) {
  if (s.src_port == flow.port[0] && s.dst_port == flow.port[1] &&
      s.src == flow.address[0] && s.dst == flow.address[1]) {
    return 0;
  }
  if (s.src_port == flow.port[1] && s.dst_port == flow.port[0] &&
      s.src == flow.address[1] && s.dst == flow.address[0]) {
    return 1;
  }
  return -1;
}

}  // namespace

FlowTable::Key FlowTable::KeyOf(const IpAddress& a, uint16_t a_port,
                                const IpAddress& b, uint16_t b_port) {
  const bool a_low = EndpointNotAfter(a, a_port, b, b_port);
  Key key;
  key.src = a_low ? a : b;
  key.dst = a_low ? b : a;
  key.src_port = a_low ? a_port : b_port;
  key.dst_port = a_low ? b_port : a_port;
  return key;
}

void FlowTable::FindOrAdd(const TcpSegment& s, bool fresh_syn) {
  std::deque<Flow>& flows = *flows_;
  auto it = index_by_key_.find(KeyOf(s.src, s.src_port, s.dst, s.dst_port));
  if (it != index_by_key_.end()) {
    const Flow& flow = flows[*it];
    // A new SYN on a 4-tuple whose connection has closed starts a new flow
    // (port reuse).
    const bool closed =
        flow.side[0].fin_or_rst_seen || flow.side[1].fin_or_rst_seen;
    if (!(fresh_syn && closed)) {
      last_flow_index_ = *it;
      last_side_ = SideOf(flow, s);
      return;
    }
    index_by_key_.erase(it);
    // The endpoints' state moves on to the new flow: it is the
    // connection's, checked with this SYN already (HeldSanity).
    const int side = SideOf(flow, s);
    const ConnectionSanity& old = flow.sanity;
    AddFlow(s);
    Flow& added = flows.back();
    added.sanity = old;
    if (side != 0) added.sanity.SwapDirections();
    return;
  }
  AddFlow(s);
}

void FlowTable::AddFlow(const TcpSegment& s) {
  std::deque<Flow>& flows = *flows_;
  Flow& flow = flows.emplace_back();
  flow.index = static_cast<uint32_t>(flows.size() - 1);
  flow.address[0] = s.src;
  flow.address[1] = s.dst;
  flow.port[0] = s.src_port;
  flow.port[1] = s.dst_port;
  flow.first_ns = s.time_ns;
  index_by_key_.insert(flow.index);
  last_flow_index_ = flow.index;
  last_side_ = 0;
  last_started_flow_ = true;
}

void StartSequenceSpace(const TcpSegment& s, SequenceTracker& space) {
  if (s.flags & kTcpSyn) {
    space.Start(s.seq);
  } else if (!space.started()) {
    space.Start(s.seq - 1);
  }
}

namespace {

// The side's traffic after its SYN, made at its first such segment (or a
// SYN with payload), with the sequence space the SYN seen before started.
SideTraffic& TrafficOf(SideStats& side) {
  if (side.traffic == nullptr) {
    side.traffic = std::make_unique<SideTraffic>();
    if (side.syn_seen) side.traffic->sequence.Start(side.syn_seq);
  }
  return *side.traffic;
}

// A segment with timestamps, after the handshake: its echo timed against
// the peer's TSvals (`peer` null: the peer sent nothing but its SYN), its
// own TSval kept for the peer's echoes.
void TimeEcho(const TcpSegment& s, SideTraffic& t, const SideTraffic* peer) {
  if (peer != nullptr) {
    const int64_t first_ns = peer->sent_tsvals.FirstSeen(s.options.ts_ecr);
    if (first_ns >= 0 && s.time_ns >= first_ns)
      t.echo_times.Add(s.time_ns - first_ns);
  }
  t.sent_tsvals.Add(s.options.ts_val, s.time_ns);
}

// The side's SYN, or on the others its ECN flags and the handshake RTT (the
// first ACK after both SYNs, on the side that sent the first SYN).
void CountHandshakeAndFlags(const TcpSegment& s, Flow& flow, int direction) {
  SideStats& side = flow.side[direction];
  if (s.flags & kTcpSyn) {
    if (side.syn_seen && side.syn_seq == s.seq &&
        side.syn_repeats < UINT32_MAX) {
      ++side.syn_repeats;
    }
    side.syn_seen = true;
    side.syn_flags = s.flags;
    side.syn_options = SynOptionsOf(s.options);
    side.syn_ns = s.time_ns;
    side.syn_seq = s.seq;
  } else {
    const SideStats& peer = flow.side[1 - direction];
    if (flow.handshake_rtt_ns == 0 && side.syn_seen &&
        !(side.syn_flags & kTcpAck) && peer.syn_seen && (s.flags & kTcpAck)) {
      flow.handshake_rtt_ns = s.time_ns - side.syn_ns;
    }
    SideTraffic& t = TrafficOf(side);
    if (s.options.has_timestamps) TimeEcho(s, t, peer.traffic.get());
    if (s.flags & kTcpEce) ++t.ece_packets;
    if (s.flags & kTcpCwr) ++t.cwr_packets;
    const uint8_t ace = s.ace();
    if (t.last_ace.has_value() && *t.last_ace != ace) ++t.ace_changes;
    t.last_ace = ace;
  }
  if (s.flags & (kTcpFin | kTcpRst)) side.fin_or_rst_seen = true;
}

// The segment's place in the side's sequence space: new, retransmitted or
// reordered payload. A SYN without payload only moves the space's origin
// (SideStats::syn_seq) until the side has traffic.
void CountPayload(const TcpSegment& s, Flow& flow, SideStats& side) {
  const bool syn = s.flags & kTcpSyn;
  if (side.traffic == nullptr && s.payload_bytes == 0) return;
  SideTraffic& t = TrafficOf(side);
  StartSequenceSpace(s, t.sequence);
  if (s.payload_bytes == 0) return;
  const int64_t start = t.sequence.Unwrap(s.seq) + (syn ? 1 : 0);
  SequenceTracker::Coverage c =
      t.sequence.Record(start, s.payload_bytes, s.time_ns);
  t.unique_payload_bytes += c.new_bytes;
  // A segment that only fills a hole, sooner after the hole opened than
  // a round trip (the least a loss takes to be repaired), arrived out of
  // order; anything else below the highest byte seen was sent again.
  const bool reordered =
      !c.overlaps_seen && c.filled_hole_opened_ns != 0 &&
      flow.handshake_rtt_ns > 0 &&
      s.time_ns - c.filled_hole_opened_ns < flow.handshake_rtt_ns;
  if (reordered) {
    ++t.reordered_segments;
  } else if (c.below_highest) {
    ++t.retransmitted_segments;
  }
  t.max_payload_bytes = std::max(t.max_payload_bytes, s.payload_bytes);
  if (t.payload_packets++ == 0) t.first_payload_ns = s.time_ns;
  t.last_payload_ns = s.time_ns;
}

}  // namespace

void EchoTimes::Add(int64_t delay_ns) {
  if (min_ns < 0 || delay_ns < min_ns) min_ns = delay_ns;
  ++echoes;
  if (delay_ns < kQuickAnswerNs) ++quick;
}

void RecentTsvals::Add(uint32_t ts_val, int64_t time_ns) {
  // Kept at its first sight: a repeat (the same tick, or a segment sent
  // again with its old TSval) times nothing anew.
  if (FirstSeen(ts_val) >= 0) return;
  newest_ = count_ == 0 ? 0 : (newest_ + 1) % kSize;
  if (count_ < kSize) ++count_;
  ts_val_[newest_] = ts_val;
  first_ns_[newest_] = time_ns;
}

int64_t RecentTsvals::FirstSeen(uint32_t ts_val) const {
  for (int i = 0; i < count_; ++i) {
    if (ts_val_[i] == ts_val) return first_ns_[i];
  }
  return -1;
}

void FlowTable::OnSegment(const TcpSegment& s) {
  // Consecutive packets mostly belong to one flow: skip the hash lookup.
  const bool fresh_syn = (s.flags & (kTcpSyn | kTcpAck)) == kTcpSyn;
  last_started_flow_ = false;
  const int last_flow_side =
      last_flow_ == nullptr || fresh_syn ? -1 : SideOf(*last_flow_, s);
  if (last_flow_side >= 0) {
    last_side_ = last_flow_side;
  } else {
    FindOrAdd(s, fresh_syn);
    last_flow_ = &(*flows_)[last_flow_index_];
  }
  Flow& flow = *last_flow_;
  SideStats& side = flow.side[last_side_];
  flow.last_ns = s.time_ns;
  if (flow.encapsulation == Encapsulation::kNone)
    flow.encapsulation = s.encapsulation;
  side.CountEcn(s.ip_ecn & 3);
  CountHandshakeAndFlags(s, flow, last_side_);
  CountPayload(s, flow, side);
}

ConnectionSanity* FlowTable::HeldSanity(const TcpSegment& s, int* side) {
  if (last_flow_ != nullptr) {
    *side = SideOf(*last_flow_, s);
    if (*side >= 0) return &last_flow_->sanity;
  }
  auto it = index_by_key_.find(KeyOf(s.src, s.src_port, s.dst, s.dst_port));
  if (it == index_by_key_.end()) return nullptr;
  Flow& flow = (*flows_)[*it];
  *side = SideOf(flow, s);
  return &flow.sanity;
}

void FlowTable::OnDuplicateFrame(const TcpSegment& s) {
  // A copy never starts a flow: its original may have been dropped as
  // corrupt, or its flow forgotten, and a flow only the table held would
  // put the table's indexes out of step with its consumers'.
  int side = last_flow_ == nullptr ? -1 : SideOf(*last_flow_, s);
  if (side < 0) {
    auto it = index_by_key_.find(KeyOf(s.src, s.src_port, s.dst, s.dst_port));
    if (it == index_by_key_.end()) return;
    last_flow_index_ = *it;
    last_flow_ = &(*flows_)[last_flow_index_];
    side = SideOf(*last_flow_, s);
  }
  last_side_ = side;
  ++last_flow_->duplicate_frames;
}

void FlowTable::ReleaseTraffic(uint32_t flow_index) {
  Flow& flow = (*flows_)[flow_index];
  flow.side[0].traffic.reset();
  flow.side[1].traffic.reset();
}

std::unique_ptr<std::deque<Flow>> FlowTable::TakeFlows() {
  std::unique_ptr<std::deque<Flow>> taken = std::move(flows_);
  flows_ = std::make_unique<std::deque<Flow>>();
  index_by_key_ = decltype(index_by_key_)(0, IndexHash{flows_.get()},
                                          IndexEq{flows_.get()});
  last_flow_ = nullptr;
  return taken;
}

void FlowTable::Restart() {
  index_by_key_.clear();
  flows_->clear();
  last_flow_ = nullptr;
}

void FlowTable::Forget(uint32_t index) {
  if (index >= flows_->size()) return;
  auto it = index_by_key_.find(index);
  // Only if the key still leads to this flow (port reuse may have moved it
  // to a newer one).
  if (it != index_by_key_.end() && *it == index) index_by_key_.erase(it);
  Flow& flow = (*flows_)[index];
  flow.side[0].traffic.reset();
  flow.side[1].traffic.reset();
  if (last_flow_ == &flow) last_flow_ = nullptr;
}

FlowSummary SummarizeFlow(const Flow& flow, int64_t capture_start_ns) {
  static const SideTraffic kNoTraffic;
  const int snd = flow.sender_side();
  const int rcv = 1 - snd;
  const SideStats& s = flow.side[snd];
  const SideStats& r = flow.side[rcv];
  const SideTraffic& st = s.traffic != nullptr ? *s.traffic : kNoTraffic;
  const SideTraffic& rt = r.traffic != nullptr ? *r.traffic : kNoTraffic;
  FlowSummary out;
  out.index = flow.index;
  out.sender = EndpointString(flow.address[snd], flow.port[snd]);
  out.receiver = EndpointString(flow.address[rcv], flow.port[rcv]);
  out.packets_data_dir = s.packets();
  out.packets_ack_dir = r.packets();
  out.payload_packets_data_dir = st.payload_packets;
  out.data_bytes = st.unique_payload_bytes;
  out.retransmitted_segments = st.retransmitted_segments;
  out.duplicate_frames = flow.duplicate_frames;
  out.max_payload_bytes = st.max_payload_bytes;
  out.encapsulation = flow.encapsulation;
  if (s.syn_seen && s.syn_options.has_mss)
    out.mss_option_sender = s.syn_options.mss_bytes;
  if (r.syn_seen && r.syn_options.has_mss)
    out.mss_option_receiver = r.syn_options.mss_bytes;
  if (s.syn_seen && s.syn_options.has_wscale)
    out.wscale_sender = s.syn_options.wscale_shift;
  if (r.syn_seen && r.syn_options.has_wscale)
    out.wscale_receiver = r.syn_options.wscale_shift;
  out.sack_permitted = s.syn_seen && r.syn_seen &&
                       s.syn_options.sack_permitted &&
                       r.syn_options.sack_permitted;
  out.timestamps = s.syn_seen && r.syn_seen && s.syn_options.has_timestamps &&
                   r.syn_options.has_timestamps;
  // The SYN is the one without ACK; either side may have opened.
  out.handshake_seen = s.syn_seen && r.syn_seen;
  if (out.handshake_seen) {
    const bool sender_opened = !(s.syn_flags & kTcpAck);
    const SideStats& opener = sender_opened ? s : r;
    const SideStats& answerer = sender_opened ? r : s;
    out.ecn_mode = NegotiatedEcnMode(opener.syn_flags, answerer.syn_flags);
  }
  out.not_ect_packets = s.ecn_packets(kNotEct);
  out.ect1_packets = s.ecn_packets(kEct1);
  out.ect0_packets = s.ecn_packets(kEct0);
  out.ce_packets = s.ecn_packets(kCe);
  out.ece_acks = rt.ece_packets;
  out.cwr_packets = st.cwr_packets;
  out.ace_changes = out.ecn_mode == EcnMode::kAccEcn ? rt.ace_changes : 0;
  out.start_s = static_cast<double>(flow.first_ns - capture_start_ns) * 1e-9;
  out.duration_s = static_cast<double>(flow.last_ns - flow.first_ns) * 1e-9;
  const int64_t data_span_ns = st.last_payload_ns - st.first_payload_ns;
  if (data_span_ns > 0) {
    out.goodput_bps = static_cast<double>(st.unique_payload_bytes) * 8.0 /
                      (static_cast<double>(data_span_ns) * 1e-9);
  }
  return out;
}

}  // namespace ccreplay
