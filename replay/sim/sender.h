// The data sender of one simulated flow: a bulk transfer (always data to
// send) driven by a reference controller from cc/.
//
// - Sends while bytes in flight < cwnd (for a segment-counting controller
//   this is Linux's packets_in_flight < snd_cwnd) and, when the receiver
//   advertises a window, < that window (RFC 5681 section 2: the minimum of
//   cwnd and rwnd governs transmission); optionally paced. The controller is
//   told the flow was cwnd-limited when cwnd <= the receive window (Linux
//   tcp_is_cwnd_limited(); its slow-start refinement, cwnd < 2 *
//   max_packets_out, is not modelled).
// - An optional clamp caps the window as the receive window does, and
//   above it the controller is told it is not cwnd-limited: the kernel's
//   snd_cwnd_clamp (tcp_slow_start() and tcp_cong_avoid_ai(), Linux 6.18,
//   never raise snd_cwnd past it). Unlike the kernel, the controller's
//   own cwnd is not lowered to the clamp, only held where it passed it.
// - Pacing: the controller's rate where it defines one (Linux
//   tcp_update_pacing_rate(), Prague), else 1.25 * cwnd / srtt (RFC 9002
//   section 7.7); each packet's earliest departure is the previous one's
//   plus bytes / rate (Linux EDT, tcp_wstamp_ns). A controller that needs
//   pacing (BBR's SK_PACING_NEEDED, CongestionController::needs_pacing())
//   is paced even when the configuration does not ask for it.
// - Delivery-rate samples: every transmission records the delivery state
//   and every ACK forms the sample of its newest newly acknowledged packet,
//   with the same sampler the replay uses (replay/delivery_rate.h, Linux
//   tcp_rate.c). A bulk sender is never application-limited, so only the
//   first window (sent before anything was delivered, tcp_init_sock()'s
//   app_limited = ~0U) is marked so. The packets the same ACK reveals lost
//   are counted in AckEvent::packets_newly_lost (rs->losses: tcp_ack()
//   marks losses before tcp_cong_control()).
// - RTT: every ACK gives a sample from its newest packet (packet numbers are
//   never reused, so Karn's rule never discards one); srtt, rttvar and RTO
//   per RFC 6298 section 2, RTO at least 200 ms (Linux TCP_RTO_MIN),
//   doubled on each expiry (section 5.5).
// - Loss detection as RFC 9002 section 6.1: a packet is lost once a packet
//   sent 3 later is acknowledged (kPacketThreshold; the three duplicate ACKs
//   of RFC 5681 section 3.2) or 9/8 * max(srtt, latest RTT) after it was
//   sent if a later one is acknowledged; a lost packet's bytes are resent
//   under a new packet number. The RTO marks everything in flight lost.
// - Controller events in Linux tcp_ack() order: OnAck, then OnLoss per lost
//   packet, then OnPacketSent per transmission.
// - RFC 3168 senders set CWR on the first packet sent after ECE arrives,
//   at most once per window (section 6.1.2).
#ifndef CCREPLAY_REPLAY_SIM_SENDER_H_
#define CCREPLAY_REPLAY_SIM_SENDER_H_

#include <cstdint>
#include <limits>
#include <memory>
#include <optional>

#include "cc/congestion_controller.h"
#include "replay/delivery_rate.h"
#include "replay/sim/ring_buffer.h"
#include "replay/sim/sim_packet.h"

namespace ccreplay {

struct SenderConfig {
  uint32_t flow = 0;
  uint32_t packet_bytes = 1448;
  bool pacing = false;
  EcnFeedback feedback = EcnFeedback::kNone;
  // The receiver's advertised window in bytes; 0: unlimited.
  uint64_t receive_window_bytes = 0;
  // The window clamp in bytes (FlowConfig::cwnd_clamp_packets); 0: none.
  uint64_t cwnd_clamp_bytes = 0;
  // TSO bursts (FlowConfig::tso_burst_shift); 0: one packet per pacing
  // slot.
  uint32_t tso_burst_shift = 0;
  // The application writes its data (Sender::OnAppWrite); false: a bulk
  // sender that always has data.
  bool application_limited = false;
  // The sender's clock tick; 0: exact. quicly's is a millisecond (h2o/quicly
  // include/quicly/loss.h @ 026098dc): an RTT sample is the difference of
  // two whole-ms times, at least 1 ms (quicly_rtt_update(): "Force minimum
  // RTT sample to 1ms"), smoothed and variance in integer ms ((7 s + x) / 8,
  // (3 v + |s - x|) / 4), and its controllers' callbacks take `now` in ms
  // (include/quicly/cc.h). Not modelled: the ACK delay quicly subtracts
  // (this sender's estimator subtracts none, with or without the clock),
  // and deadlines on the grid (loss and retransmission timers fire at
  // their exact times, from the ticked RTTs).
  int64_t clock_ns = 0;
};

// Linux's GSO limit (GSO_LEGACY_MAX_SIZE, include/linux/netdevice.h,
// Linux 6.18): a TSO burst carries at most 64 KB.
inline constexpr uint64_t kGsoMaxBytes = 65536;

// Packets in one TSO burst at `pacing_rate_bps`: the bytes of 2^-shift s of
// the rate, at least 2 segments, at most kGsoMaxBytes. shift 10 is
// tcp_tso_autosize() (net/ipv4/tcp_output.c, Linux 6.18: sk_pacing_rate >>
// sk_pacing_shift, default 10, min sysctl_tcp_min_tso_segs = 2, capped by
// gso_max_size); shift 12 is Prague v0.5's own .tso_segs hook
// (L4STeam/l4steam.github.io @ 0125ddd7 tcp_prague.c: max_tso_burst =
// (rate / mtu) >> prague_burst_shift, default 12, and max(..., min_tso_segs)).
uint32_t TsoBurstPackets(double pacing_rate_bps, uint32_t shift,
                         uint32_t packet_bytes);

// Counters of one flow, as the sender sees them.
struct SenderStats {
  uint64_t packets_sent = 0;
  uint64_t retransmissions = 0;
  uint64_t bytes_sent = 0;
  uint64_t bytes_acked = 0;
  uint64_t acks_received = 0;
  uint64_t packets_lost = 0;  // declared lost (fast retransmit or RTO)
  uint64_t rtos = 0;
  uint64_t ce_packets_reported = 0;  // AccECN counts, or packets on ECE ACKs
  uint64_t ece_acks = 0;
  uint64_t cwr_packets = 0;
  // Congestion episodes: a loss or CE signal about a packet sent after the
  // previous episode began (one per window, RFC 5681 section 3.2).
  uint64_t congestion_episodes = 0;
  // Lowest cwnd once the controller has left slow start (ssthresh set);
  // UINT64_MAX until then.
  uint64_t min_cwnd_after_slow_start_bytes =
      std::numeric_limits<uint64_t>::max();
};

class Sender {
 public:
  static constexpr int64_t kNever = std::numeric_limits<int64_t>::max();

  Sender(const SenderConfig& config,
         std::unique_ptr<CongestionController> controller);

  // Whether the sender paces: configured so, or the controller needs it.
  bool paced() const { return config_.pacing || controller_->needs_pacing(); }
  // Whether the window allows another packet (pacing aside).
  bool CanSend() const {
    return HasData() && bytes_in_flight_ < controller_->cwnd_bytes() &&
           bytes_in_flight_ < SenderLimitBytes();
  }
  // A retransmission or a full packet of written data to send.
  bool HasData() const {
    return !retransmit_.empty() ||
           written_bytes_ - next_seq_ >= config_.packet_bytes;
  }
  // The application writes `bytes` more (kUnlimitedBytes: it
  // has data from now on). A write that finds less than a packet unsent,
  // the window open and nothing to retransmit marks a bubble in the
  // delivery-rate samples (Linux 6.18 net/ipv4/tcp_rate.c
  // tcp_rate_check_app_limited(), called from tcp_sendmsg_locked()).
  static constexpr uint64_t kUnlimitedBytes =
      std::numeric_limits<uint64_t>::max() / 2;
  void OnAppWrite(uint64_t bytes);
  // Earliest departure of the next packet under pacing (unused otherwise).
  int64_t next_send_ns() const { return next_send_ns_; }
  // The pacing rate: the controller's where it defines one, else 1.25 x
  // cwnd / srtt. 0 before the first RTT sample.
  double pacing_rate_bps() const;
  // Packets the next paced transmission may send back to back: 1 without
  // TSO bursts (SenderConfig::tso_burst_shift), else TsoBurstPackets().
  uint32_t burst_packets() const;
  // Builds and records the next transmission (a retransmission first).
  SimPacket Send(int64_t now_ns);

  void OnAck(const SimAck& ack, int64_t now_ns);
  // Earliest loss-detection or retransmission deadline, kNever if none.
  int64_t timer_deadline_ns() const;
  void OnTimer(int64_t now_ns);

  // Sets (or, with 0, lifts) the window clamp.
  void set_cwnd_clamp_bytes(uint64_t bytes) {
    config_.cwnd_clamp_bytes = bytes;
  }

  const CongestionController& controller() const { return *controller_; }
  const SenderStats& stats() const { return stats_; }
  const SenderConfig& config() const { return config_; }
  uint64_t bytes_in_flight() const { return bytes_in_flight_; }
  int64_t srtt_ns() const { return srtt_ns_; }

 private:
  enum class PacketState : uint8_t { kInFlight, kAcked, kLost };
  struct SentPacket {
    uint64_t pn = 0;
    uint64_t seq = 0;
    uint32_t bytes = 0;
    int64_t sent_ns = 0;
    PacketState state = PacketState::kInFlight;
    RateSnapshot tx;  // the delivery state at its send (tcp_rate.c)
  };
  struct Range {
    uint64_t seq = 0;
    uint32_t bytes = 0;
  };

  // The smaller of the receive window and the clamp; UINT64_MAX: neither.
  uint64_t SenderLimitBytes() const;
  // `ns` on the sender's clock (SenderConfig::clock_ns): the start of its
  // tick; `ns` itself without a clock.
  int64_t Tick(int64_t ns) const;
  // The time the controller is told, µs.
  int64_t ControllerTimeUs(int64_t now_ns) const;
  // An RTT sample of the packet sent at `sent_ns` and acknowledged now.
  void UpdateRtt(int64_t now_ns, int64_t sent_ns);
  int64_t LossDelayNs() const;
  // RFC 9002 section 6.1's test for an unacknowledged packet older than the
  // largest acknowledged one.
  bool IsLost(const SentPacket& packet, int64_t now_ns,
              int64_t loss_delay_ns) const;
  // The packets DetectLosses() would declare lost now.
  uint64_t CountLosses(int64_t now_ns) const;
  void DetectLosses(int64_t now_ns);
  void DeclareLost(SentPacket& packet, LossEvent::Kind kind, int64_t now_ns);
  void OnRto(int64_t now_ns);
  // Tells the controller a transmission starts with nothing in flight.
  void NoteTxStart(int64_t now_ns);
  void CountEpisode(uint64_t pn);
  void TrackMinCwnd();
  void PopSettled();
  // Marks the packets `ack` covers as acknowledged and takes an RTT sample
  // from the newest; adds the bytes and packets newly acknowledged and
  // gives the newest of those (tcp_rate_skb_delivered()'s choice).
  void MarkAcked(const SimAck& ack, int64_t now_ns, uint64_t* bytes_acked,
                 uint64_t* packets_acked,
                 std::optional<DeliveredPacket>* newest);
  // The controller's view of `ack` (before its ECN feedback).
  AckEvent MakeAckEvent(int64_t now_ns, uint64_t bytes_acked,
                        uint64_t packets_acked) const;
  // The ECN feedback `ack` carries under the negotiated scheme.
  void AddEcnFeedback(const SimAck& ack, AckEvent* event);

  SenderConfig config_;
  std::unique_ptr<CongestionController> controller_;
  RingBuffer<SentPacket> sent_;  // from the oldest unsettled packet number
  RingBuffer<Range> retransmit_;
  uint64_t next_pn_ = 0;
  uint64_t next_seq_ = 0;
  uint64_t bytes_in_flight_ = 0;
  bool any_acked_ = false;
  uint64_t largest_acked_pn_ = 0;
  int64_t next_send_ns_ = 0;
  // Bytes the application has written (SenderConfig::application_limited).
  uint64_t written_bytes_ = kUnlimitedBytes;
  // The last transmission, for CA_EVENT_TX_START after an idle period.
  std::optional<int64_t> last_send_ns_;
  int64_t srtt_ns_ = 0;
  int64_t rttvar_ns_ = 0;
  int64_t min_rtt_ns_ = 0;
  int64_t latest_rtt_ns_ = 0;
  int64_t rto_ns_ = 1'000'000'000;  // RFC 6298 section 2.1 before a sample
  int64_t rto_deadline_ns_ = kNever;
  int64_t loss_time_ns_ = kNever;
  uint64_t episode_end_pn_ = 0;
  bool any_episode_ = false;
  bool cwr_pending_ = false;
  bool cwr_sent_ = false;
  uint64_t cwr_pn_ = 0;
  uint64_t ce_packets_seen_ = 0;
  uint64_t ce_bytes_seen_ = 0;
  DeliveryRateEstimator rate_;
  SenderStats stats_;
};

}  // namespace ccreplay

#endif  // CCREPLAY_REPLAY_SIM_SENDER_H_
