// The data receiver of one simulated flow: reassembly, ACK timing and ECN
// feedback.
//
// ACK timing (RFC 5681 section 4.2, RFC 1122 section 4.2.3.2): one ACK per
// `ack_every` segments (1: every segment; 2: classic delayed ACK; 8 or 16:
// GRO-style coalescing), or when the delayed-ACK timer expires; an immediate
// ACK for a segment that is out of order, duplicate, or fills a hole, and,
// with DCTCP or AccECN feedback, when the CE state of arriving packets
// changes (RFC 8257 section 3.2; RFC 9768 section 3.2.2.5.1,
// change-triggered ACKs). While data is missing, RecoveryAcks chooses
// between TCP's rule (every packet) and quicly's (only the packet that
// reveals a gap). Before taking a packet whose number is not the
// successor of the last one (a drop happened), pending packets are ACKed, so
// every ACK covers a contiguous packet-number range (see SimAck).
//
// ECN feedback (sim_packet.h EcnFeedback): RFC 3168 latches ECE from the
// first CE until a CWR arrives (section 6.1.3; Linux tcp_ecn_accept_cwr()
// before tcp_ecn_check_ce()); DCTCP's ECE is the CE state of the packets the
// ACK covers; AccECN counts CE packets and bytes per codepoint (carried in
// the ACE field and the AccECN option by the pcap export).
#ifndef CCREPLAY_REPLAY_SIM_RECEIVER_H_
#define CCREPLAY_REPLAY_SIM_RECEIVER_H_

#include <cstdint>
#include <utility>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "replay/sim/sim_packet.h"

namespace ccreplay {

// Which packets get an immediate ACK while data is missing.
enum class RecoveryAcks {
  // Every packet that arrives out of order, is a duplicate, fills a hole or
  // arrives while a hole exists (RFC 5681 section 4.2: "an immediate ACK
  // SHOULD be generated when an out-of-order segment arrives"; Linux
  // tcp_data_queue() -> tcp_enter_quickack_mode() while out_of_order_queue
  // is not empty). The default of `simulate`.
  kEveryPacketWhileHole,
  // Only a packet whose number is not the successor of the last received
  // one (a new gap), or one marked CE; otherwise every `ack_every` packets.
  // h2o/quicly lib/quicly.c @ b11d363 record_receipt() with its default
  // reordering_threshold 1: ack_now = is_out_of_order || ecn == CE, where
  // record_pn() sets is_out_of_order only when the packet does not extend
  // the highest received range; packets after the gap extend it again, so
  // they go back to packet_tolerance (2). Packet numbers are never reused,
  // so a retransmission that fills a hole is in order.
  kOnNewGap,
};

// "every_packet_while_hole" or "on_new_gap"; InvalidArgument otherwise.
absl::StatusOr<RecoveryAcks> ParseRecoveryAcks(absl::string_view name);

struct ReceiverConfig {
  uint32_t flow = 0;
  EcnFeedback feedback = EcnFeedback::kNone;
  uint32_t ack_every = 2;
  RecoveryAcks recovery_acks = RecoveryAcks::kEveryPacketWhileHole;
  // Whether ACKs carry SACK blocks. The simulated sender reads only the
  // packet-number range an ACK covers; the blocks are for an observer (the
  // pcap export). Building them scans every out-of-order range per ACK,
  // which after a slow-start overshoot with thousands of holes was 15 % of
  // a run (bench/sim_benchmark.cc BM_SimulateRenoAuOfficeJitter).
  bool sack_blocks = true;
};

class Receiver {
 public:
  // What one delivered packet caused: up to two ACKs (pending packets
  // flushed first, then the packet's own immediate ACK) and whether the
  // delayed-ACK timer must be armed for the current ACK generation.
  struct Output {
    int ack_count = 0;
    SimAck acks[2];
    bool arm_timer = false;
  };

  explicit Receiver(const ReceiverConfig& config);

  void OnPacket(const SimPacket& packet, int64_t now_ns, Output& out);
  // The delayed-ACK timer armed in generation `generation` fired: returns
  // true and fills `ack` if that generation's packets are still unACKed.
  bool OnDelayedAckTimer(uint64_t generation, int64_t now_ns, SimAck& ack);

  // Incremented by every ACK sent.
  uint64_t generation() const { return generation_; }
  uint64_t acks_sent() const { return generation_; }

 private:
  // Returns true if the packet was not in order (hole, duplicate or fill).
  bool Reassemble(uint64_t seq, uint32_t bytes);
  void BuildAck(int64_t now_ns, SimAck& ack);
  // The three most recently grown out-of-order ranges, newest first.
  void AddSackBlocks(SimAck& ack) const;

  ReceiverConfig config_;
  uint64_t rcv_nxt_ = 0;
  // A received range above rcv_nxt_, [start, end), and the number of the
  // out-of-order arrival that last grew it (for the SACK blocks' order).
  struct OutOfOrderRange {
    uint64_t start = 0;
    uint64_t end = 0;
    uint64_t last_arrival = 0;
  };
  // Sorted and disjoint.
  std::vector<OutOfOrderRange> out_of_order_;
  uint64_t out_of_order_arrivals_ = 0;
  bool any_packet_ = false;
  uint64_t last_pn_ = 0;
  uint32_t pending_packets_ = 0;
  uint64_t pending_first_pn_ = 0;
  int64_t echo_sent_ns_ = 0;
  uint64_t generation_ = 0;
  bool last_was_ce_ = false;
  bool ece_latched_ = false;  // RFC 3168
  bool dctcp_ce_ = false;     // DCTCP's CE state of the pending packets
  uint64_t ce_packets_ = 0;
  uint64_t ce_bytes_ = 0;
  uint64_t ect0_bytes_ = 0;
  uint64_t ect1_bytes_ = 0;
};

}  // namespace ccreplay

#endif  // CCREPLAY_REPLAY_SIM_RECEIVER_H_
