// The shared bottleneck: one FIFO served at a fixed rate, a buffer limit with
// one of two admission policies, and optional step CE marking.
//
// Admission (h2o/quicly t/simulator.c net_bottleneck_forward(), after PR 686):
// - packet-size-neutral tail drop (default): an arriving packet is refused
//   once the free space is below the largest packet size any flow uses, so
//   small packets cannot take the last MTU of buffer that a large packet
//   would need (RFC 7141 section 4.2.1.2, "aversion to lock-out of large
//   packets"; quicly t/simulator.c admission_mtu);
// - byte-fit tail drop: a packet enters if it fits (quicly `-B`).
// Whether the packet being transmitted still counts against the buffer is
// an option (InServiceAccounting): ours keeps it until its last bit has left
// (a link's transmit buffer), quicly's simulator dequeues it when its
// transmission starts.
//
// CE marking (ECT packets only, like INET_ECN_set_ce()):
// - by sojourn time, at dequeue, when now - enqueue time > threshold, as
//   Linux sch_fq's ce_threshold (net/sched/sch_fq.c fq_dequeue());
// - by backlog, at enqueue, when the bytes already queued exceed K, as the
//   DCTCP switch rule (RFC 8257 section 3.1).
#ifndef CCREPLAY_REPLAY_SIM_BOTTLENECK_H_
#define CCREPLAY_REPLAY_SIM_BOTTLENECK_H_

#include <cstdint>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "replay/sim/ring_buffer.h"
#include "replay/sim/sim_packet.h"

namespace ccreplay {

enum class AdmissionPolicy { kPacketSizeNeutral, kByteFit };

// What the buffer holds while a packet is on the wire.
enum class InServiceAccounting {
  // The packet in service occupies the buffer until its last bit has left
  // (ccreplay's model; the default of `simulate`).
  kUntilLastBit,
  // The packet leaves the buffer when its transmission starts: h2o/quicly
  // t/simulator.c @ b79ea471, net_bottleneck_run() detaches the head with
  // net_queue_dequeue() before setting next_emit_at, and
  // net_bottleneck_forward() compares queue.size, which no longer counts
  // it, with the capacity. A 1280-byte arrival behind a 1462-byte packet
  // in service then faces the whole buffer, not 1462 bytes less.
  kDequeueAtStart,
};

// "until_last_bit" or "dequeue_at_start"; InvalidArgument otherwise.
absl::StatusOr<InServiceAccounting> ParseInServiceAccounting(
    absl::string_view name);

// When a packet moves on from the bottleneck to the receiver.
enum class BottleneckDelivery {
  // When its last bit has left (ccreplay's model; `simulate`'s default).
  kAtLastBit,
  // When its transmission starts: h2o/quicly t/simulator.c @ b79ea471,
  // net_bottleneck_run() forwards the packet it detaches to the next node
  // at once and only sets next_emit_at for the one after it. At the last
  // bit each flow's loop includes its own packet's service time, so flows
  // of 1462- and 1280-byte packets have loops 182 bytes / rate apart (49
  // us at 30 Mbit/s); at the start they have the same loop.
  kAtStart,
};

// "at_last_bit" or "at_start"; InvalidArgument otherwise.
absl::StatusOr<BottleneckDelivery> ParseBottleneckDelivery(
    absl::string_view name);

struct BottleneckConfig {
  int64_t rate_bps = 0;
  uint64_t buffer_bytes = 0;
  AdmissionPolicy admission = AdmissionPolicy::kPacketSizeNeutral;
  // The largest packet any flow sends (the size-neutral reserve).
  uint32_t largest_packet_bytes = 0;
  InServiceAccounting in_service = InServiceAccounting::kUntilLastBit;
  int64_t ce_sojourn_threshold_ns = -1;     // -1: off
  int64_t ce_backlog_threshold_bytes = -1;  // -1: off
  // Sojourn marking per skb: the segments of one TSO burst share the
  // decision taken at the first one's dequeue. Linux sch_fq dequeues a GSO
  // skb whole and INET_ECN_set_ce() marks its one IP header, which every
  // segment copies when the skb is segmented (net/sched/sch_fq.c
  // fq_dequeue(); net/ipv4/tcp_offload.c tcp_gso_segment(), Linux 6.18).
  // Off: each segment is judged by its own sojourn.
  bool ce_per_skb = false;
  // A token-bucket policer before the buffer: tokens accrue at
  // `policer_rate_bps` up to `policer_burst_bytes`; a packet that finds
  // fewer tokens than its size is dropped, one that finds enough takes
  // them. The single-rate meter of RFC 2697 with only its committed bucket
  // (CIR, CBS; exceed = drop), as Linux act_police with `rate` and `burst`
  // and `conform-exceed drop` (net/sched/act_police.c tcf_police_act(),
  // Linux 6.18). 0: no policer.
  int64_t policer_rate_bps = 0;
  uint64_t policer_burst_bytes = 0;
  // A link whose rate changes once (a radio link adapting its modulation):
  // packets that start transmission at or after `rate_step_ns` are sent at
  // `rate_after_step_bps`. -1: the rate never changes.
  int64_t rate_step_ns = -1;
  int64_t rate_after_step_bps = 0;
  // The rate a packet starting at `now_ns` is sent at.
  int64_t RateAt(int64_t now_ns) const {
    return rate_step_ns >= 0 && now_ns >= rate_step_ns ? rate_after_step_bps
                                                       : rate_bps;
  }
};

// Whether a packet of `packet_bytes` may enter a buffer of `capacity_bytes`
// holding `queued_bytes`.
bool Admits(AdmissionPolicy policy, uint64_t queued_bytes,
            uint32_t packet_bytes, uint64_t capacity_bytes,
            uint32_t largest_packet_bytes);

class Bottleneck {
 public:
  explicit Bottleneck(const BottleneckConfig& config);

  // Enqueues `packet` at `now_ns` (may mark it CE by backlog). False when
  // the packet is refused (dropped).
  bool Enqueue(const SimPacket& packet, int64_t now_ns);

  bool transmitting() const { return transmitting_; }
  bool has_waiting() const { return queue_.size() > (transmitting_ ? 1 : 0); }
  // The packet in service; only while transmitting().
  const SimPacket& in_service() const { return queue_.front(); }
  // Starts sending the head packet (may mark it CE by sojourn time) and
  // returns when its last bit will have left.
  int64_t StartTransmission(int64_t now_ns);
  // The packet whose transmission just ended leaves the buffer.
  SimPacket FinishTransmission();

  // Bytes in the buffer, the packet in service included.
  uint64_t queued_bytes() const { return queued_bytes_; }
  // The bytes admission compares with the capacity (InServiceAccounting).
  uint64_t admission_bytes() const;
  uint64_t transmitted_bytes() const { return transmitted_bytes_; }
  // Refused: by the buffer or the policer; by the policer alone.
  uint64_t drops() const { return drops_; }
  uint64_t policer_drops() const { return policer_drops_; }
  uint64_t ce_marks() const { return ce_marks_; }
  const BottleneckConfig& config() const { return config_; }

 private:
  void MarkCe(SimPacket& packet);
  // Whether the policer (if any) lets `bytes` through at `now_ns`.
  bool PolicerConforms(uint32_t bytes, int64_t now_ns);
  // Whether the head, dequeued at `now_ns`, is marked by sojourn time.
  bool SojournMarks(const SimPacket& head, int64_t now_ns);

  BottleneckConfig config_;
  RingBuffer<SimPacket> queue_;
  uint64_t queued_bytes_ = 0;
  bool transmitting_ = false;
  uint32_t in_service_bytes_ = 0;
  // Serialization time is bytes * 8e9 / rate ns; the remainder is carried
  // so that the long-run rate is exact.
  int64_t serialization_remainder_ = 0;
  uint64_t transmitted_bytes_ = 0;
  uint64_t drops_ = 0;
  uint64_t policer_drops_ = 0;
  // The policer's bucket, bytes, as it stood at policer_stamp_ns_.
  double policer_tokens_bytes_ = 0;
  int64_t policer_stamp_ns_ = 0;
  uint64_t ce_marks_ = 0;
  // The skb whose sojourn decision later segments share (ce_per_skb).
  uint32_t decided_flow_ = 0;
  uint64_t decided_skb_ = 0;
  bool decided_ce_ = false;
};

}  // namespace ccreplay

#endif  // CCREPLAY_REPLAY_SIM_BOTTLENECK_H_
