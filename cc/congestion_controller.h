// The one interface every reference congestion controller implements.
//
// Controllers are pure value types: no clock, no I/O, no randomness. Time
// comes only from the events (`time_us`), so open-loop replay (a captured ACK
// sequence) and a closed-loop simulator drive them the same way, and a copy
// (Clone()) continues exactly like the original: replay runs counterfactual
// copies side by side.
//
// Event order for one ACK, as Linux's tcp_ack() does it: OnAck() first (it
// carries the RTT sample, the newly delivered and CE-marked amounts and the
// flight after removing what this ACK covers), then OnLoss() for any loss
// the same ACK revealed, then OnPacketSent() for what the sender transmits
// in response.
//
// Rounds (one RTT of data) are detected without sequence numbers: a round
// started at an ACK ends when the bytes delivered since then exceed the
// bytes that were in flight at that moment. This is `snd_una >= next_seq`
// (Linux tcp_dctcp.c, tcp_prague.c) expressed in delivered bytes.
#ifndef CCREPLAY_CC_CONGESTION_CONTROLLER_H_
#define CCREPLAY_CC_CONGESTION_CONTROLLER_H_

#include <cstdint>
#include <memory>
#include <optional>

#include "absl/strings/string_view.h"
#include "absl/types/span.h"

namespace ccreplay {

// The delivery-rate sample Linux computes for an ACK (tcp_rate_gen(),
// net/ipv4/tcp_rate.c, 6.18) from the newest packet it (S)ACKed: what rate-
// based controllers (BBR) take instead of bytes_acked. Counts are packets.
struct DeliveryRateSample {
  // rs->delivered: packets delivered between that packet's send and this
  // ACK (tp->delivered now minus at its send).
  int64_t delivered_packets = 0;
  // rs->prior_delivered: tp->delivered when that packet was sent; a round
  // ends when it reaches the delivered count at the round's start.
  uint64_t prior_delivered_packets = 0;
  // rs->interval_us: max(send elapsed, ACK elapsed); <= 0 when the sample is
  // not valid (e.g. shorter than the min RTT, tcp_rate.c's guard).
  int64_t interval_us = 0;
  // rs->is_app_limited: that packet was sent while the application (not
  // the network) limited the sender.
  bool app_limited = false;
  // BBRv3's additions to tcp_rate.c (google/bbr v3, tcp_rate_gen()):
  // rs->tx_in_flight, the packets in flight when that packet was sent (it
  // included), and rs->lost, the packets marked lost since. 0 when the
  // source does not track them (the replay of a capture).
  uint64_t tx_in_flight_packets = 0;
  uint64_t lost_packets = 0;
};

// QUIC: one in-flight packet an ACK frame newly acknowledged.
struct AckedPacket {
  // Place in send order (0 for the first application packet sent); -1 for
  // a packet of the Initial or Handshake space.
  int64_t send_order = -1;
  uint64_t bytes = 0;
};

// One ACK (TCP) or ACK frame (QUIC) that acknowledged something new or
// carried congestion feedback.
struct AckEvent {
  int64_t time_us = 0;
  // Bytes newly acknowledged by this ACK, cumulatively or by SACK.
  uint64_t bytes_acked = 0;
  // Bytes newly reported CE-marked (AccECN byte counters, QUIC has none).
  uint64_t bytes_ce = 0;
  // Packets newly delivered and newly CE-marked, as AccECN's ACE counter or
  // QUIC's ECN counts give them. 0 for packets_delivered means "derive from
  // bytes_acked": ceil(bytes_acked / mss_bytes), as a sub-MSS skb counts as
  // one packet in tcp_skb_pcount().
  uint64_t packets_delivered = 0;
  uint64_t packets_ce = 0;
  // RFC 3168 ECN-Echo on this ACK. Without AccECN/QUIC counts, every packet
  // this ACK delivered is counted as CE-marked, as Linux does for
  // delivered_ce on an ECE ACK (tcp_input.c, tcp_count_delivered()).
  bool ece = false;
  // RTT sample taken from this ACK, 0 if none (e.g. only retransmitted data
  // acknowledged, Karn's rule).
  int64_t rtt_sample_us = 0;
  // RTT of the highest segment this ACK newly SACKed that was never
  // retransmitted, 0 if none. Linux's module sample (ack_sample.rtt_us,
  // the rate sample's rtt_us) is ca_rtt_us, which tcp_clean_rtx_queue()
  // takes from that segment (sack->last_sackt) whenever there is one, so a
  // duplicate ACK in Recovery still feeds CUBIC's delay_min and HyStart
  // (tcp_input.c, tcp_ack_update_rtt(), 6.18).
  int64_t sack_rtt_sample_us = 0;
  // The sample Linux hands the congestion module (above): the SACK's,
  // else rtt_sample_us; 0 if none.
  int64_t ModuleRttUs() const {
    return sack_rtt_sample_us > 0 ? sack_rtt_sample_us : rtt_sample_us;
  }
  // The sender's smoothed and minimum RTT after this ACK (RFC 6298 srtt, the
  // Linux `srtt_us >> 3`), including queueing delay.
  int64_t srtt_us = 0;
  int64_t min_rtt_us = 0;
  // Bytes still in flight after this ACK was processed (before new sends).
  uint64_t bytes_in_flight = 0;
  // Whether this ACK advanced the cumulative ACK over data (Linux
  // FLAG_DATA_ACKED). Linux raises cwnd only then (tcp_may_raise_cwnd(),
  // tcp_input.c, 6.18): an ACK that only SACKs, such as the duplicate ACKs
  // that reveal a loss, does not grow it. QUIC has no such rule.
  bool data_acked = true;
  // Whether the sender was limited by cwnd (RFC 7661; Linux
  // tcp_is_cwnd_limited()) rather than by the application or the receiver.
  // Used when the sequence state below is unknown.
  bool cwnd_limited = true;
  // QUIC: the place in send order (0 for the first packet sent) of the
  // newest packet this ACK newly acknowledged; -1 when unknown (TCP). With
  // LossEvent::send_order, what a stack that skips growth for packets sent
  // before its recovery began (ngtcp2) needs: send order, unlike send
  // times, tells packets apart in a log with millisecond times.
  int64_t largest_acked_send_order = -1;
  // QUIC: the packets behind bytes_acked, ascending by packet number (the
  // order ngtcp2_rtb_recv_ack() hands them to on_pkt_acked); empty when
  // unknown (TCP). Valid only during the call it is passed to.
  absl::Span<const AckedPacket> acked_packets;
  // QUIC: the delivery-rate sample this ACK gives (bytes per second), as
  // draft-cheng-iccrg-delivery-rate-estimation-01 section 3.3 computes it;
  // 0 when the ACK gives none.
  uint64_t delivery_rate_bytes_per_s = 0;
  // TCP sequence state, in bytes from the start of the stream (0: unknown,
  // e.g. QUIC): the cumulative ACK after this ACK (snd_una) and the end of
  // the highest data sent before it arrived (snd_nxt). With them a Linux
  // controller decides cwnd-limitation itself, from its own cwnd, as
  // tcp_cwnd_validate() does at each send.
  uint64_t snd_una_bytes = 0;
  uint64_t snd_nxt_bytes = 0;
  // TCP: bytes retransmitted since the previous ACK (with the growth of
  // snd_nxt, what the sender sent in reply to it: Linux counts both in
  // tp->prr_out); 0 when none or unknown.
  uint64_t bytes_retransmitted_before = 0;
  // The sender's MSS (TCP) or max UDP payload (QUIC) at this ACK.
  uint32_t mss_bytes = 0;
  // Packets this ACK newly marked lost (Linux rs->losses, the growth of
  // tp->lost in tcp_ack()); 0 when unknown.
  uint64_t packets_newly_lost = 0;
  // The source shows every retransmission (OnRetransmit() follows each): a
  // capture. False for the simulator, whose senders report none; a model
  // that needs retransmission evidence (Linux's undo) then assumes none.
  bool retransmissions_visible = false;
  // Of packets_newly_lost, the ones RACK marked (TimelineEvent's).
  uint64_t packets_rack_lost = 0;
  // The delivery-rate sample of this ACK; absent when the source cannot
  // give one (the replay had no send time for what the ACK covers).
  std::optional<DeliveryRateSample> rate_sample;
  // TCP, what Linux's undo of a spurious reduction reads from an ACK
  // (tcp_input.c, 6.18): the TSecr it echoes (RFC 7323; 0: none, as Linux
  // takes it), the segments a D-SACK block reports received twice (RFC
  // 2883) and that block's end in stream bytes (as snd_una_bytes), and the
  // retransmitted bytes still in flight after it (tp->retrans_out).
  uint32_t ts_ecr = 0;
  uint64_t packets_dsacked = 0;
  uint64_t dsack_end_bytes = 0;
  uint64_t bytes_retransmitted_in_flight = 0;
  // TCP: the sender's reordering degree in segments after this ACK (Linux
  // tp->reordering); 0 when unknown. Above net.ipv4.tcp_reordering (3)
  // Linux grows cwnd on any forward progress, SACKs too
  // (tcp_may_raise_cwnd()).
  uint32_t reordering_segments = 0;
  // TCP: the start of the highest SACKed segment after this ACK, in stream
  // bytes as snd_una_bytes; snd_una_bytes when nothing is SACKed (Linux
  // tcp_highest_sack_seq(), the `fack` of tcp_check_sack_reordering()); 0
  // when unknown.
  uint64_t highest_sack_bytes = 0;
};

// TCP: the sender sent `packets` segments again, the first carrying TSval
// `ts_val` (0: no timestamps). Linux counts them for undo
// (tp->undo_retrans) and stamps an episode's first (tp->retrans_stamp).
struct RetransmitEvent {
  int64_t time_us = 0;
  uint32_t packets = 1;
  uint32_t ts_val = 0;
};

struct LossEvent {
  enum class Kind {
    kFastRetransmit,  // loss detected by dupacks/SACK/RACK: fast recovery
    kRto,             // retransmission timeout
  };
  int64_t time_us = 0;
  Kind kind = Kind::kFastRetransmit;
  uint64_t bytes_lost = 0;
  // Bytes in flight just before the loss was declared (RFC 5681 FlightSize);
  // 0 if unknown, in which case cwnd stands in for it.
  uint64_t bytes_in_flight = 0;
  // QUIC: how many packets had been sent when the loss was declared (a
  // packet whose AckEvent::largest_acked_send_order is at least this was
  // sent after); -1 when unknown (TCP).
  int64_t send_order = -1;
  // TCP: Recovery ended and began again on the ACK just delivered (Linux
  // tcp_fastretrans_alert() with lost_out left; see
  // RetransmissionClassifier::ReenterRecovery()).
  bool reenters_recovery = false;
};

struct PacketSentEvent {
  int64_t time_us = 0;
  uint64_t bytes = 0;
  // Bytes in flight after this packet was sent.
  uint64_t bytes_in_flight = 0;
};

// The sender resumes transmission after `idle_us` without data in flight.
struct IdleRestartEvent {
  int64_t time_us = 0;
  int64_t idle_us = 0;
  // The retransmission timeout in force (RFC 6298); restart rules compare
  // the idle time with it (RFC 5681 section 4.1, Linux tcp_cwnd_restart()).
  int64_t rto_us = 0;
  // tp->app_limited was set when that send left (tcp_rate_check_app_limited():
  // the application, not cwnd, had held it). BBR's CA_EVENT_TX_START
  // handling (bbr_cwnd_event(), tcp_bbr.c, Linux 6.18) acts only then.
  bool app_limited = false;
};

enum class Phase {
  kSlowStart,
  kCongestionAvoidance,
  kRecovery,  // loss recovery (fast recovery or after an RTO)
  kCwr,       // ECN-triggered window reduction (RFC 3168 CWR, Linux CA_CWR)
};

absl::string_view PhaseName(Phase phase);

// A small snapshot for reports and diagnosis.
struct ControllerState {
  Phase phase = Phase::kSlowStart;
  // ECN congestion estimate in [0, 1]; -1 when the algorithm has none.
  double alpha = -1;
  // Additive increase in force relative to Reno's one segment per RTT:
  // 1.0 for Reno, (srtt/T)^2 for Prague's RTT scaling, ...
  double ai_factor = 1.0;
  // Rounds counted outside slow start since slow start ended (Prague's
  // `round`); counted the same way for every controller.
  int64_t rounds_since_slow_start = 0;
  // Prague v0.5/v0.6 only: the pending cwnd_cnt backlog in segments
  // (negative = reductions not yet applied). 0 elsewhere.
  double backlog_segments = 0;
};

class CongestionController {
 public:
  virtual ~CongestionController() = default;

  virtual void OnAck(const AckEvent& ack) = 0;
  virtual void OnLoss(const LossEvent& loss) = 0;
  virtual void OnPacketSent(const PacketSentEvent& sent) = 0;
  virtual void OnIdleRestart(const IdleRestartEvent& idle) = 0;
  // After OnLoss() for the loss it repairs, when there is one. Only the
  // Linux TCP machinery uses it (undo of spurious reductions).
  virtual void OnRetransmit(const RetransmitEvent& /*retransmit*/) {}
  // Recovery ended and began again on the ACK just delivered
  // (`loss.reenters_recovery`): Linux's tcp_fastretrans_alert() with
  // lost_out left, which only the Linux TCP machinery models; other
  // controllers keep their own recovery period (RFC 6675, RFC 9002) and
  // hear of the loss by its retransmission.
  virtual void OnRecoveryReentered(const LossEvent& /*loss*/) {}

  virtual uint64_t cwnd_bytes() const = 0;
  // cwnd in segments of the current MSS; integral for segment-counting
  // (Linux) controllers, fractional for byte-counting ones.
  virtual double cwnd_segments() const = 0;
  // kNoSsthreshBytes until the first congestion event sets a threshold.
  virtual uint64_t ssthresh_bytes() const = 0;
  // Pacing rate in bits per second where the algorithm defines one.
  virtual std::optional<double> pacing_rate_bps() const = 0;
  // Whether the algorithm needs its pacing rate enforced: BBR sets
  // sk_pacing_status = SK_PACING_NEEDED in bbr_init() (Linux 6.18
  // net/ipv4/tcp_bbr.c), so the kernel paces it internally when no fq
  // qdisc does (tcp_needs_internal_pacing()). A simulated sender then
  // paces at pacing_rate_bps() whatever its configuration says.
  virtual bool needs_pacing() const { return false; }
  virtual ControllerState state() const = 0;

  virtual std::unique_ptr<CongestionController> Clone() const = 0;
};

// Options every profile shares (the registry fills them from the spec).
struct ControllerOptions {
  // MSS assumed until an event reports one (AckEvent::mss_bytes); 1448 is
  // what Linux uses on a 1500-byte MTU path with TCP timestamps.
  uint32_t mss_bytes = 1448;
  // Initial window in segments: Linux TCP_INIT_CWND, RFC 6928.
  uint32_t initial_window_segments = 10;
  // MTU normalization (RFC 7141 section 2.3, quicly PR #686): the reference
  // packet size congestion-avoidance growth is computed with, 0 = off.
  uint32_t normalize_bytes = 0;
  // Linux controllers: what decides whether the sender was cwnd-limited
  // (tcp_is_cwnd_limited()). false ("capture"): the capture's evidence
  // (AckEvent::cwnd_limited) or the model's own window filled, so a
  // counterfactual controller grows wherever the real sender was not held
  // by the application or receiver. true ("flight"): only the model's own
  // window filled by the captured flight, as tcp_cwnd_validate() does:
  // the kernel's behaviour when the model is the sender's own controller.
  bool cwnd_limit_from_flight = false;
  // The RFC profiles (`reno`, `cubic`, `rfc9002:newreno`): end the initial
  // slow start by HyStart++ (RFC 9406, cc/hystart_plus_plus.h).
  bool hystart_plus_plus = false;
};

// Packets this ACK newly delivered and newly reported CE-marked (see the
// AckEvent comments for how they are derived when not given).
uint64_t PacketsDelivered(const AckEvent& ack, uint32_t mss_bytes);
uint64_t PacketsCe(const AckEvent& ack, uint32_t mss_bytes);
// The steps in which a controller that grows once per packet acknowledged
// (RFC 9002 appendix B.5, ngtcp2's on_pkt_acked) takes this ACK: its
// packets (PacketsDelivered(), at least 1), at most kMaxPerAckSteps. An
// ACK of more (94 MB at 1448 bytes: a capture that lost a stretch of the
// flow, or a corrupt one: replay_fuzzer found an ACK of 1,747,514,177
// bytes with a 143-byte MSS, 12 M steps) is taken in that many equal
// steps.
inline constexpr uint64_t kMaxPerAckSteps = uint64_t{1} << 16;
uint64_t PerPacketSteps(const AckEvent& ack, uint32_t mss_bytes);
// Whether the ACK carries any congestion-experienced feedback.
inline bool HasCeFeedback(const AckEvent& ack) {
  return ack.ece || ack.packets_ce > 0 || ack.bytes_ce > 0;
}

// The reference packet size of MTU normalization (quicly
// QUICLY_CC_REFERENCE_MTU: midpoint of 1472 and 1452, RFC 7141 section 2.3).
inline constexpr uint32_t kReferenceMtuBytes = 1462;
inline constexpr uint64_t kNoSsthreshBytes = UINT64_MAX;
// "No slow start threshold yet" (Linux TCP_INFINITE_SSTHRESH).
inline constexpr uint32_t kInfiniteSsthreshSegments = 0x7fffffff;

}  // namespace ccreplay

#endif  // CCREPLAY_CC_CONGESTION_CONTROLLER_H_
