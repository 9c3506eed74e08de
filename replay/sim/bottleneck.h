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
// The packet being transmitted occupies the buffer until its last bit has
// left.
//
// CE marking (ECT packets only, like INET_ECN_set_ce()):
// - by sojourn time, at dequeue, when now - enqueue time > threshold, as
//   Linux sch_fq's ce_threshold (net/sched/sch_fq.c fq_dequeue());
// - by backlog, at enqueue, when the bytes already queued exceed K, as the
//   DCTCP switch rule (RFC 8257 section 3.1).
#ifndef CCREPLAY_REPLAY_SIM_BOTTLENECK_H_
#define CCREPLAY_REPLAY_SIM_BOTTLENECK_H_

#include <cstdint>

#include "replay/sim/ring_buffer.h"
#include "replay/sim/sim_packet.h"

namespace ccreplay {

enum class AdmissionPolicy { kPacketSizeNeutral, kByteFit };

struct BottleneckConfig {
  int64_t rate_bps = 0;
  uint64_t buffer_bytes = 0;
  AdmissionPolicy admission = AdmissionPolicy::kPacketSizeNeutral;
  // The largest packet any flow sends (the size-neutral reserve).
  uint32_t largest_packet_bytes = 0;
  int64_t ce_sojourn_threshold_ns = -1;     // -1: off
  int64_t ce_backlog_threshold_bytes = -1;  // -1: off
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
  // Starts sending the head packet (may mark it CE by sojourn time) and
  // returns when its last bit will have left.
  int64_t StartTransmission(int64_t now_ns);
  // The packet whose transmission just ended leaves the buffer.
  SimPacket FinishTransmission();

  uint64_t queued_bytes() const { return queued_bytes_; }
  uint64_t transmitted_bytes() const { return transmitted_bytes_; }
  uint64_t drops() const { return drops_; }
  uint64_t ce_marks() const { return ce_marks_; }
  const BottleneckConfig& config() const { return config_; }

 private:
  void MarkCe(SimPacket& packet);

  BottleneckConfig config_;
  RingBuffer<SimPacket> queue_;
  uint64_t queued_bytes_ = 0;
  bool transmitting_ = false;
  // Serialization time is bytes * 8e9 / rate ns; the remainder is carried
  // so that the long-run rate is exact.
  int64_t serialization_remainder_ = 0;
  uint64_t transmitted_bytes_ = 0;
  uint64_t drops_ = 0;
  uint64_t ce_marks_ = 0;
};

}  // namespace ccreplay

#endif  // CCREPLAY_REPLAY_SIM_BOTTLENECK_H_
