#include "replay/quic_timeline.h"

#include <algorithm>
#include <cstdlib>
#include <map>
#include <optional>
#include <set>
#include <utility>

namespace ccreplay {
namespace {

// What the delivery-rate sampler records about a packet when it is sent.
struct RateState {
  uint64_t delivered_bytes = 0;
  int64_t delivered_time_us = 0;
  int64_t first_sent_time_us = 0;
};

struct SentPacket {
  int64_t time_us = 0;
  uint32_t size_bytes = 0;
  bool in_flight = false;
  int64_t send_order = 0;  // 0 for the first packet sent.
  RateState rate;
};

// Delivery-rate samples as draft-cheng-iccrg-delivery-rate-estimation-01
// section 3 defines them, in the form ngtcp2 0.12.1 lib/ngtcp2_rst.c
// (ngtcp2_rst_on_pkt_sent, ngtcp2_rst_update_rate_sample,
// ngtcp2_rst_on_ack_recv) computes them: the sample is taken from the most
// recently sent packet an ACK acknowledges, over the longer of its send and
// ACK intervals, and dropped when that interval is shorter than min_rtt.
// One sampler serves the three packet number spaces, as ngtcp2's one
// conn->rst does (lib/ngtcp2_conn.c ngtcp2_conn_new() hands &conn->rst to
// the Initial, Handshake and application ngtcp2_rtb): Initial and
// Handshake packets count in `delivered` and in the flight that decides
// whether a send starts a new sampling interval.
class DeliveryRateSampler {
 public:
  RateState OnSent(int64_t time_us, uint64_t in_flight_before_bytes) {
    if (in_flight_before_bytes == 0) {
      first_sent_time_us_ = delivered_time_us_ = time_us;
    }
    return {delivered_bytes_, delivered_time_us_, first_sent_time_us_};
  }

  // A packet of `size_bytes` sent at `sent_time_us` with `rate`, acked at
  // `now_us`.
  void OnAcked(int64_t sent_time_us, uint32_t size_bytes, const RateState& rate,
               int64_t now_us) {
    delivered_bytes_ += size_bytes;
    delivered_time_us_ = now_us;
    if (rate.delivered_bytes <= prior_delivered_bytes_) return;
    prior_delivered_bytes_ = rate.delivered_bytes;
    has_prior_ = true;
    send_elapsed_us_ = sent_time_us - rate.first_sent_time_us;
    ack_elapsed_us_ = delivered_time_us_ - rate.delivered_time_us;
    first_sent_time_us_ = sent_time_us;
  }

  // The sample at the end of an ACK, bytes per second; 0 for none.
  uint64_t Sample(int64_t min_rtt_us) const {
    const int64_t interval_us = std::max(send_elapsed_us_, ack_elapsed_us_);
    if (!has_prior_ || interval_us <= 0 || interval_us < min_rtt_us) return 0;
    return (delivered_bytes_ - prior_delivered_bytes_) * 1000000 /
           static_cast<uint64_t>(interval_us);
  }

 private:
  uint64_t delivered_bytes_ = 0;
  int64_t delivered_time_us_ = 0;
  int64_t first_sent_time_us_ = 0;
  uint64_t prior_delivered_bytes_ = 0;
  bool has_prior_ = false;
  int64_t send_elapsed_us_ = 0;
  int64_t ack_elapsed_us_ = 0;
};

// RFC 9002 section 5.3: smoothed RTT and min RTT from the samples.
class QuicRtt {
 public:
  void OnSample(int64_t latest_us, int64_t ack_delay_us) {
    min_rtt_us_ =
        min_rtt_us_ == 0 ? latest_us : std::min(min_rtt_us_, latest_us);
    if (smoothed_us_ == 0) {
      smoothed_us_ = latest_us;
      rttvar_us_ = latest_us / 2;
      return;
    }
    int64_t adjusted_us = latest_us;
    if (latest_us >= min_rtt_us_ + ack_delay_us) adjusted_us -= ack_delay_us;
    rttvar_us_ = (3 * rttvar_us_ + std::llabs(smoothed_us_ - adjusted_us)) / 4;
    smoothed_us_ = (7 * smoothed_us_ + adjusted_us) / 8;
  }
  int64_t smoothed_us() const { return smoothed_us_; }
  int64_t rttvar_us() const { return rttvar_us_; }
  int64_t min_rtt_us() const { return min_rtt_us_; }

 private:
  int64_t smoothed_us_ = 0;
  int64_t rttvar_us_ = 0;
  int64_t min_rtt_us_ = 0;
};

uint64_t LargestAcked(const QuicAckReceived& a) {
  uint64_t largest = 0;
  for (const AckRange& range : a.acked_ranges) {
    largest = std::max(largest, range.last);
  }
  return largest;
}

// Whether `sent` comes before the ACK (`ack`) or loss (null) logged at
// `time_us` and `log_order`: by time, then by place in the log; without
// places, a send at the same time comes after unless the ACK acknowledges
// it.
bool SentBefore(const QuicPacketSent& sent, int64_t time_us, uint64_t log_order,
                const QuicAckReceived* ack) {
  if (sent.time_us != time_us) return sent.time_us < time_us;
  if (sent.log_order > 0 && log_order > 0) return sent.log_order < log_order;
  return ack != nullptr && sent.space == ack->space &&
         sent.packet_number <= LargestAcked(*ack);
}

// Whether `ack`, the next ACK frame, comes before `lost`, the next loss,
// `last_ack_order` being the log_order of the ACK frame before `ack`. By
// time; at equal times the ACK comes first (the order of RFC 9002 appendix
// A.7 OnAckReceived / A.10 DetectAndRemoveLost: cwnd grows for what the ACK
// acknowledges before the losses it reveals reduce it), unless the loss
// was logged before the previous ACK frame: ngtcp2 0.12.1 writes the
// losses an ACK reveals before that ACK's packet_received event
// (ngtcp2_qlog_pkt_lost() runs inside ngtcp2_rtb_recv_ack(), the packet
// event is written by ngtcp2_qlog_pkt_received_end() after all its frames,
// lib/ngtcp2_conn.c), so such a loss belongs to an ACK already replayed.
// A loss of a packet the ACK acknowledges was declared before it (a loss
// timer): processing an ACK removes what it acknowledges before it looks
// for losses (ngtcp2_rtb_recv_ack(), lib/ngtcp2_rtb.c; RFC 9002 appendix
// A.7).
bool AckBeforeLoss(const QuicAckReceived& ack, const QuicPacketLost& lost,
                   uint64_t last_ack_order) {
  if (ack.time_us != lost.time_us) return ack.time_us < lost.time_us;
  if (ack.space == lost.space &&
      std::any_of(ack.acked_ranges.begin(), ack.acked_ranges.end(),
                  [&lost](const AckRange& r) {
                    return r.first <= lost.packet_number &&
                           lost.packet_number <= r.last;
                  })) {
    return false;
  }
  return lost.log_order == 0 || last_ack_order == 0 ||
         lost.log_order > last_ack_order;
}

class Builder {
 public:
  Builder(const TimelineSink& sink, QuicTimelineStats& stats)
      : sink_(sink), stats_(stats) {}

  void OnSent(const QuicPacketSent& p) {
    const bool in_flight = p.ack_eliciting && p.size_bytes > 0;
    // ngtcp2 samples only the packets it keeps for retransmission, not the
    // ACK-only ones (lib/ngtcp2_conn.c conn_on_pkt_sent() -> ngtcp2_rtb_add()
    // -> ngtcp2_rst_on_pkt_sent()), against the flight of all spaces.
    const RateState rate =
        in_flight ? rate_.OnSent(p.time_us,
                                 in_flight_bytes_ + handshake_in_flight_bytes_)
                  : RateState{};
    if (p.space != PacketNumberSpace::kApplication) {
      handshake_sent_[{p.space, p.packet_number}] = {p.time_us, p.size_bytes,
                                                     in_flight, rate};
      if (in_flight) handshake_in_flight_bytes_ += p.size_bytes;
      return;
    }
    sent_[p.packet_number] = {p.time_us, p.size_bytes, in_flight, sends_++,
                              rate};
    if (in_flight) in_flight_bytes_ += p.size_bytes;
    stats_.max_packet_bytes = std::max(stats_.max_packet_bytes, p.size_bytes);
  }

  void OnAck(const QuicAckReceived& a) {
    if (a.space != PacketNumberSpace::kApplication) {
      OnHandshakeAck(a);
      return;
    }
    DiscardHandshakeSpaces();
    TimelineEvent e;
    const uint64_t largest = LargestAcked(a);
    const std::optional<SentPacket> largest_newly_acked =
        RemoveAcked(a, largest, e);
    if (largest_newly_acked.has_value() &&
        largest_newly_acked->time_us <= a.time_us) {
      e.rtt_sample_us = a.time_us - largest_newly_acked->time_us;
      rtt_.OnSample(e.rtt_sample_us,
                    static_cast<int64_t>(a.ack_delay_us.value_or(0)));
    }
    CountCe(a, e);
    // An ACK of only a packet declared lost (and ACK-only packets) still
    // tells the sender the loss was spurious.
    if (e.bytes_acked == 0 && e.ce_packets == 0 &&
        e.spurious_retransmissions == 0) {
      return;
    }
    EmitAck(a, largest, e);
  }

  void OnLost(const QuicPacketLost& l) {
    if (l.space != PacketNumberSpace::kApplication) return;
    auto it = sent_.find(l.packet_number);
    if (it == sent_.end()) return;
    const SentPacket packet = it->second;
    sent_.erase(it);
    declared_lost_.insert(l.packet_number);
    if (packet.in_flight) in_flight_bytes_ -= packet.size_bytes;
    TimelineEvent e;
    e.type = TimelineEvent::Type::kRetransmission;
    e.time_ns = l.time_us * 1000;
    e.log_order = l.log_order;
    e.seq_start = static_cast<int64_t>(l.packet_number);
    e.seq_end = e.seq_start + 1;
    e.kind = RetransmissionKind::kFast;
    e.send_order = sends_;
    // RFC 9002 section 7.3.2: one reduction per recovery period. Send
    // order, not send time, says whether the packet was sent after the
    // period began: times in a log may be whole milliseconds.
    e.starts_episode = packet.send_order >= recovery_start_order_;
    if (e.starts_episode) {
      recovery_start_order_ = sends_;
      ++stats_.congestion_events;
    }
    sink_(e);
  }

 private:
  // An ACK frame of the Initial or Handshake space: the bytes it newly
  // acknowledges grow cwnd as any others do (RFC 9002 appendix B.5
  // OnPacketsAcked; ngtcp2 0.12.1 shares one ngtcp2_cc among the three
  // spaces' ngtcp2_rtb, lib/ngtcp2_conn.c pktns_init(), and
  // ngtcp2_rtb_recv_ack() calls cc->on_pkt_acked for every packet it
  // acknowledges, lib/ngtcp2_rtb.c), and its RTT sample counts (RFC 9002
  // section 5.1; the ack_delay of an Initial ACK is ignored, section 5.3).
  // These packets stay out of the application flight (a discarded space's
  // packets are never acked, section 6.4) but count in the delivery rate
  // (DeliveryRateSampler).
  void OnHandshakeAck(const QuicAckReceived& a) {
    TimelineEvent e;
    const uint64_t largest = LargestAcked(a);
    for (const AckRange& range : a.acked_ranges) {
      auto it = handshake_sent_.lower_bound({a.space, range.first});
      while (it != handshake_sent_.end() && it->first.first == a.space &&
             it->first.second <= range.last) {
        const HandshakePacket& packet = it->second;
        if (it->first.second == largest && packet.time_us <= a.time_us) {
          e.rtt_sample_us = a.time_us - packet.time_us;
          rtt_.OnSample(e.rtt_sample_us,
                        a.space == PacketNumberSpace::kInitial
                            ? 0
                            : static_cast<int64_t>(a.ack_delay_us.value_or(0)));
        }
        if (packet.in_flight) {
          rate_.OnAcked(packet.time_us, packet.size_bytes, packet.rate,
                        a.time_us);
          handshake_in_flight_bytes_ -= packet.size_bytes;
          e.bytes_acked += packet.size_bytes;
          ++e.packets_delivered;
          e.acked_packets.push_back({-1, packet.size_bytes});
        }
        it = handshake_sent_.erase(it);
      }
    }
    if (e.bytes_acked == 0) return;
    // No application packet number and no send order: 0 and -1 say so.
    EmitAck(a, 0, e);
  }

  // The log does not say when the Initial and Handshake spaces are
  // discarded; a server discards them when the handshake completes
  // (lib/ngtcp2_conn.c conn_discard_initial_state() and
  // conn_discard_handshake_state(), RFC 9001 section 4.9), before it can
  // read an application-space ACK. Their packets still unacknowledged then
  // leave the flight (conn_discard_pktns()).
  void DiscardHandshakeSpaces() {
    if (handshake_sent_.empty()) return;
    handshake_sent_.clear();
    handshake_in_flight_bytes_ = 0;
  }

  // Removes the packets `a` acknowledges from sent_, counting the in-flight
  // ones into `e`; returns the largest acknowledged if it was newly acked.
  std::optional<SentPacket> RemoveAcked(const QuicAckReceived& a,
                                        uint64_t largest, TimelineEvent& e) {
    std::optional<SentPacket> largest_newly_acked;
    for (const AckRange& range : a.acked_ranges) {
      // A packet declared lost that the peer acknowledges after all: the
      // loss was spurious (RFC 9002 section 6.1 lets reordering cause it;
      // ngtcp2 undoes its reduction then, ngtcp2_rtb_recv_ack() ->
      // on_spurious_congestion, lib/ngtcp2_rtb.c, 0.12.1).
      for (auto lost = declared_lost_.lower_bound(range.first);
           lost != declared_lost_.end() && *lost <= range.last;
           lost = declared_lost_.erase(lost)) {
        ++e.spurious_retransmissions;
      }
      auto it = sent_.lower_bound(range.first);
      while (it != sent_.end() && it->first <= range.last) {
        if (it->first == largest) largest_newly_acked = it->second;
        if (it->second.in_flight) {
          rate_.OnAcked(it->second.time_us, it->second.size_bytes,
                        it->second.rate, a.time_us);
          e.send_order = std::max(e.send_order, it->second.send_order);
          e.bytes_acked += it->second.size_bytes;
          ++e.packets_delivered;
          e.acked_packets.push_back(
              {it->second.send_order, it->second.size_bytes});
          in_flight_bytes_ -= it->second.size_bytes;
        }
        largest_send_order_acked_ =
            std::max(largest_send_order_acked_, it->second.send_order);
        it = sent_.erase(it);
      }
    }
    return largest_newly_acked;
  }

  // The ECN-CE count newly reported by `a`, and whether it starts a
  // congestion episode.
  void CountCe(const QuicAckReceived& a, TimelineEvent& e) {
    if (!a.ce_packets.has_value()) return;
    stats_.ecn_counts = true;
    if (*a.ce_packets <= ce_packets_total_) return;
    e.ce_packets = *a.ce_packets - ce_packets_total_;
    ce_packets_total_ = *a.ce_packets;
    // RFC 9002 appendix B.7: a CE increase is a congestion event if
    // the largest acknowledged packet was sent after recovery began.
    if (largest_send_order_acked_ >= recovery_start_order_) {
      e.congestion_episode = true;
      recovery_start_order_ = sends_;
      ++stats_.congestion_events;
    }
  }

  void EmitAck(const QuicAckReceived& a, uint64_t largest, TimelineEvent& e) {
    e.type = TimelineEvent::Type::kAck;
    e.time_ns = a.time_us * 1000;
    e.log_order = a.log_order;
    e.ack = static_cast<int64_t>(largest);
    e.srtt_us = rtt_.smoothed_us();
    e.rttvar_us = rtt_.rttvar_us();
    e.min_rtt_us = rtt_.min_rtt_us();
    e.ce_packets_total = ce_packets_total_;
    e.outstanding_bytes = in_flight_bytes_;
    e.pipe_bytes = in_flight_bytes_;
    // Every newly acked packet was in flight: QUIC has no SACKed state.
    e.pipe_before_bytes = in_flight_bytes_ + e.bytes_acked;
    e.delivery_rate_bytes_per_s = rate_.Sample(rtt_.min_rtt_us());
    // The log does not say what limited the sender, and ngtcp2 and quicly
    // grow cwnd on every ACK outside recovery (no RFC 7661 check in their
    // Reno/CUBIC), so every ACK counts as cwnd-limited.
    e.limit = SendLimit::kCwnd;
    ++stats_.acks;
    stats_.bytes_acked += e.bytes_acked;
    sink_(e);
  }

  const TimelineSink& sink_;
  QuicTimelineStats& stats_;
  std::map<uint64_t, SentPacket> sent_;
  // Packet numbers declared lost and not acknowledged since.
  std::set<uint64_t> declared_lost_;
  struct HandshakePacket {
    int64_t time_us = 0;
    uint32_t size_bytes = 0;
    bool in_flight = false;
    RateState rate;
  };
  std::map<std::pair<PacketNumberSpace, uint64_t>, HandshakePacket>
      handshake_sent_;
  uint64_t in_flight_bytes_ = 0;  // Application space only.
  uint64_t handshake_in_flight_bytes_ = 0;
  uint64_t ce_packets_total_ = 0;
  int64_t sends_ = 0;  // Application-space packets sent so far.
  // Packets sent before the current recovery period began: one sent later
  // has a send order at least this (0: no recovery yet).
  int64_t recovery_start_order_ = 0;
  int64_t largest_send_order_acked_ = -1;
  QuicRtt rtt_;
  DeliveryRateSampler rate_;
};

}  // namespace

QuicTimelineStats BuildQuicTimeline(const HostTrace& trace,
                                    const TimelineSink& sink) {
  QuicTimelineStats stats;
  Builder builder(sink, stats);
  const QuicSenderEvents& q = trace.quic_events;
  size_t s = 0, a = 0, l = 0;
  // Merge the three logs by time. At equal times an ACK comes before the
  // losses it revealed (AckBeforeLoss()), and a send keeps its place in
  // the log.
  uint64_t last_ack_order = 0;
  while (s < q.packets_sent.size() || a < q.acks_received.size() ||
         l < q.packets_lost.size()) {
    const QuicPacketSent* sent =
        s < q.packets_sent.size() ? &q.packets_sent[s] : nullptr;
    const QuicAckReceived* ack =
        a < q.acks_received.size() ? &q.acks_received[a] : nullptr;
    const QuicPacketLost* lost =
        l < q.packets_lost.size() ? &q.packets_lost[l] : nullptr;
    if (ack != nullptr &&
        (lost == nullptr || AckBeforeLoss(*ack, *lost, last_ack_order)) &&
        (sent == nullptr ||
         !SentBefore(*sent, ack->time_us, ack->log_order, ack))) {
      last_ack_order = ack->log_order;
      builder.OnAck(q.acks_received[a++]);
    } else if (lost != nullptr &&
               (sent == nullptr ||
                !SentBefore(*sent, lost->time_us, lost->log_order, nullptr))) {
      builder.OnLost(q.packets_lost[l++]);
    } else {
      builder.OnSent(q.packets_sent[s++]);
    }
  }
  if (!stats.ecn_counts) {
    stats.warnings.push_back("no ACK frame carried ECN counts");
  }
  return stats;
}

}  // namespace ccreplay
