// The flow table: both directions of each TCP connection in one flow, with
// the facts `ccreplay flows` reports (handshake options, ECN mode, packet,
// byte, retransmission and ECN counts, timing). Fed segment by segment; its
// memory grows with the number of connections, not packets.
#ifndef CCREPLAY_PARSERS_FLOW_TABLE_H_
#define CCREPLAY_PARSERS_FLOW_TABLE_H_

#include <cstdint>
#include <deque>
#include <memory>
#include <optional>
#include <string>

#include "absl/container/flat_hash_set.h"
#include "absl/hash/hash.h"
#include "parsers/pcap_reader.h"
#include "parsers/sequence_sanity.h"
#include "parsers/sequence_tracker.h"
#include "parsers/tcp_segment.h"

namespace ccreplay {

enum class EcnMode : uint8_t { kNone, kRfc3168, kAccEcn };
const char* EcnModeName(EcnMode mode);  // "none", "rfc3168", "accecn"

// ECN mode from the SYN's and SYN-ACK's flags. RFC 3168 §6.1.1: an
// ECN-setup SYN has ECE and CWR, an ECN-setup SYN-ACK has ECE without CWR.
// RFC 9768 §3.1.1 (Table 2): a SYN with AE, CWR and ECE asks for AccECN;
// a SYN-ACK answering it with (AE,CWR,ECE) = 010, 011, 100 or 110 accepts
// AccECN, 001 or 101 falls back to RFC 3168, 000 or 111 means no ECN.
EcnMode NegotiatedEcnMode(uint16_t syn_flags, uint16_t syn_ack_flags);

// The SYN options `ccreplay flows` reports, without the per-segment ones
// (timestamps' values, SACK blocks, AccECN counters) TcpOptions carries.
struct SynOptions {
  uint16_t mss_bytes = 0;
  bool has_mss = false;
  bool has_wscale = false;
  uint8_t wscale_shift = 0;
  bool sack_permitted = false;
  bool has_timestamps = false;
  // The snapshot length cut the options (or they were malformed): an
  // option after the cut, often the window scale (last in Linux's SYN),
  // is unknown, not absent.
  bool options_cut = false;
};
SynOptions SynOptionsOf(const TcpOptions& options);

// A host's answer comes within this time when the capture sits next to
// it: a 1 ms scheduling allowance (the path round trips ccreplay
// diagnoses are longer).
inline constexpr int64_t kQuickAnswerNs = 1000000;

// How soon one side echoed the other's timestamps, timed at the capture
// point: for each of its segments (after the handshake), the time since
// the capture first saw the peer's TSval it echoes (RFC 7323 section 4.3:
// TSecr carries TS.Recent, the TSval of the last segment the host took;
// Linux tcp_replace_ts_recent()). The host can echo a TSval only after a
// segment carrying it reached it, and the echo passes the capture point a
// round trip after that segment did, so every delay is at least the round
// trip from the capture point to the answering host, whatever the host
// waited for (a delayed ACK, the application, a slow CPU): the fastest
// answers measure its distance. A capture that missed the first segment of
// a TSval times from a later one, shorter by up to a timestamp tick;
// hence a count, not one minimum, decides (VantageDetector).
struct EchoTimes {
  int64_t min_ns = -1;  // -1: no echo timed.
  uint64_t echoes = 0;
  uint64_t quick = 0;  // Under kQuickAnswerNs.

  void Add(int64_t delay_ns);
};

// The last few distinct TSvals one side sent, each with the capture time
// of its first segment: what the peer's echoes are timed against. A host
// echoes the newest TSval it took, which is the newest or one just before
// it at the capture point unless the capture sits a round trip of many
// ticks away; an older echo is not timed.
class RecentTsvals {
 public:
  void Add(uint32_t ts_val, int64_t time_ns);
  // When the capture first saw `ts_val`; -1 when it is not among the last
  // kSize distinct values.
  int64_t FirstSeen(uint32_t ts_val) const;

 private:
  static constexpr int kSize = 4;
  uint32_t ts_val_[kSize] = {0, 0, 0, 0};
  int64_t first_ns_[kSize] = {0, 0, 0, 0};
  uint8_t count_ = 0;
  uint8_t newest_ = 0;
};

// What one side sent after its SYN: made at its first such segment, so a
// side that sent only a SYN (or nothing) costs a pointer.
struct SideTraffic {
  uint64_t payload_packets = 0;
  uint64_t unique_payload_bytes = 0;
  uint64_t retransmitted_segments = 0;
  // Segments that filled a hole sooner than a retransmission could have
  // (less than the handshake RTT after the hole opened): reordering.
  uint64_t reordered_segments = 0;
  uint32_t max_payload_bytes = 0;
  std::optional<uint8_t> last_ace;
  uint64_t ece_packets = 0;  // Non-SYN packets with ECE.
  uint64_t cwr_packets = 0;  // Non-SYN packets with CWR.
  uint64_t ace_changes = 0;  // Non-SYN packets whose ACE differs from the last.
  int64_t first_payload_ns = 0;
  int64_t last_payload_ns = 0;
  RecentTsvals sent_tsvals;  // This side's, for the peer's echoes.
  EchoTimes echo_times;      // This side's echoes of the peer's.
  SequenceTracker sequence;
};

// What one side of a connection sent. Kept small (see flow_table_test's
// size bound): a capture can hold millions of flows that never carry data.
struct SideStats {
  int64_t syn_ns = 0;                    // When this side's SYN was seen.
  std::unique_ptr<SideTraffic> traffic;  // Null until a non-SYN segment.
  // Packets by ECN codepoint (IpEcnCodepoint), 40 bits each: the low 32
  // here, the high 8 in ecn_high (a trillion packets; 4 G, 32 bits, is
  // 86 minutes of one 10 Gb/s flow of 1500-byte packets).
  uint32_t ecn_low[4] = {0, 0, 0, 0};
  // SYNs with the sequence number of the one before: its retransmission
  // timer fired (RFC 6298 section 5.7). Stops at 2^32 - 1.
  uint32_t syn_repeats = 0;
  uint32_t syn_seq = 0;  // The sequence number of the last SYN.
  uint8_t ecn_high[4] = {0, 0, 0, 0};
  uint16_t syn_flags = 0;
  SynOptions syn_options;
  bool syn_seen = false;  // A SYN (with or without ACK) from this side.
  bool fin_or_rst_seen = false;

  uint64_t ecn_packets(int codepoint) const {
    return uint64_t{ecn_high[codepoint]} << 32 | ecn_low[codepoint];
  }
  void CountEcn(int codepoint) {
    if (++ecn_low[codepoint] == 0) ++ecn_high[codepoint];
  }
  // Every packet has one ECN codepoint.
  uint64_t packets() const {
    return ecn_packets(0) + ecn_packets(1) + ecn_packets(2) + ecn_packets(3);
  }
  uint64_t unique_payload_bytes() const {
    return traffic != nullptr ? traffic->unique_payload_bytes : 0;
  }
};

struct Flow {
  uint32_t index = 0;
  // Frames captured twice, both directions (DuplicateFrames): in no other
  // count.
  uint32_t duplicate_frames = 0;
  // side[0] is the source of the flow's first packet.
  IpAddress address[2];
  uint16_t port[2] = {0, 0};
  // The tunnel the flow's packets came through (the first one seen when
  // only some were tunnelled); kNone when none was.
  Encapsulation encapsulation = Encapsulation::kNone;
  SideStats side[2];
  int64_t first_ns = 0;
  int64_t last_ns = 0;
  // SYN to the opener's first ACK after the SYN-ACK: one round trip at any
  // vantage point; 0 until the handshake has been seen.
  int64_t handshake_rtt_ns = 0;
  // The reader's state of the connection (SequenceSanity), held here for
  // the newest flow of its endpoints (FlowTable::HeldSanity).
  ConnectionSanity sanity;

  // The data sender: the side that sent more unique payload (the first
  // packet's source on a tie).
  int sender_side() const {
    return side[1].unique_payload_bytes() > side[0].unique_payload_bytes() ? 1
                                                                           : 0;
  }
};

// One row of `ccreplay flows`.
struct FlowSummary {
  uint32_t index = 0;
  std::string sender;  // "ADDR:PORT", IPv6 in brackets.
  std::string receiver;
  uint64_t packets_data_dir = 0;
  uint64_t packets_ack_dir = 0;
  // Of packets_data_dir, those that carried payload (retransmissions
  // included): what a diagnosis calls "data packets".
  uint64_t payload_packets_data_dir = 0;
  uint64_t data_bytes = 0;
  uint64_t retransmitted_segments = 0;
  uint64_t duplicate_frames = 0;  // Both directions.
  uint32_t max_payload_bytes = 0;
  Encapsulation encapsulation = Encapsulation::kNone;
  std::optional<uint32_t> mss_option_sender;
  std::optional<uint32_t> mss_option_receiver;
  std::optional<uint32_t> wscale_sender;
  std::optional<uint32_t> wscale_receiver;
  bool sack_permitted = false;
  bool timestamps = false;
  bool handshake_seen = false;
  EcnMode ecn_mode = EcnMode::kNone;
  uint64_t ect0_packets = 0;
  uint64_t ect1_packets = 0;
  uint64_t ce_packets = 0;
  uint64_t not_ect_packets = 0;
  uint64_t ece_acks = 0;
  uint64_t cwr_packets = 0;
  uint64_t ace_changes = 0;
  double start_s = 0;
  double duration_s = 0;
  double goodput_bps = 0;
};

FlowSummary SummarizeFlow(const Flow& flow, int64_t capture_start_ns);

// Starts the sequence space of the side that sent `s`, if not started: a
// SYN sets its origin (the SYN takes sequence number `seq`); otherwise the
// first segment seen does, as if its first byte were the one after the SYN.
void StartSequenceSpace(const TcpSegment& s, SequenceTracker& space);

class FlowTable : public SegmentConsumer {
 public:
  void OnSegment(const TcpSegment& segment) override;
  // Counts the copy on its flow; changes nothing else. A copy of no flow
  // the table holds (its original dropped as corrupt, or its flow
  // forgotten) counts nowhere.
  void OnDuplicateFrame(const TcpSegment& segment) override;
  void Restart() override;
  // The state in the record of the flow `segment` belongs to (the newest
  // of its endpoints); null when none has it yet (or it was forgotten).
  ConnectionSanity* HeldSanity(const TcpSegment& segment, int* side) override;
  // Forgets flow `index` for lookups, so that a later segment of its
  // endpoints starts a new flow, and frees its per-side traffic state
  // (sequence tracking, payload counts). Its record stays in flows(), so
  // indexes keep meaning what they meant, at sizeof(Flow) per flow.
  void Forget(uint32_t index);

  // In order of first packet. A deque: it grows without copying the
  // flows already held (a vector would hold twice their size while it
  // grows).
  const std::deque<Flow>& flows() const { return *flows_; }
  // The flow and side (0 or 1, see Flow::address) of the last segment.
  uint32_t last_flow_index() const { return last_flow_index_; }
  int last_side() const { return last_side_; }
  // The flow of the last segment (valid until Restart(): a deque's
  // elements stay where they are as it grows).
  const Flow& last_flow() const { return *last_flow_; }
  // Whether the last segment started a flow.
  bool last_started_flow() const { return last_started_flow_; }
  // Frees what the flow's sides sent after their SYNs (SideTraffic: its
  // sequence spaces and counts), keeping the record: for a one-pass
  // consumer that has taken what it needs of a flow that ended, so that
  // memory follows the flows open at once (replay/flow_index.h). A later
  // segment of the flow counts from zero again.
  void ReleaseTraffic(uint32_t flow_index);
  // Moves the records out, for a consumer that reads them after the pass
  // (replay/flow_index.h); the table is left empty, as after Restart().
  std::unique_ptr<std::deque<Flow>> TakeFlows();

 private:
  // The lower endpoint (EndpointNotAfter) first.
  using Key = EndpointPair;
  // The connection of endpoints a and b, either way round.
  static Key KeyOf(const IpAddress& a, uint16_t a_port, const IpAddress& b,
                   uint16_t b_port);
  static Key KeyOf(const Flow& flow) {
    return KeyOf(flow.address[0], flow.port[0], flow.address[1], flow.port[1]);
  }
  // The index holds flow indexes (4 bytes each, not a 40-byte key), hashed
  // and compared by their flow's key, and looked up by a segment's key.
  struct IndexHash {
    using is_transparent = void;
    const std::deque<Flow>* flows;
    size_t operator()(const Key& k) const { return absl::HashOf(k); }
    size_t operator()(uint32_t i) const {
      return absl::HashOf(KeyOf((*flows)[i]));
    }
  };
  struct IndexEq {
    using is_transparent = void;
    const std::deque<Flow>* flows;
    Key KeyFor(const Key& k) const { return k; }
    Key KeyFor(uint32_t i) const { return KeyOf((*flows)[i]); }
    template <typename A, typename B>
    bool operator()(const A& a, const B& b) const {
      return KeyFor(a) == KeyFor(b);
    }
  };
  // Sets last_flow_index_ and last_side_ for a segment of another flow
  // than the last one's, or for a SYN, adding a flow when it starts one.
  void FindOrAdd(const TcpSegment& segment, bool fresh_syn);
  // Adds a flow started by `segment` and makes it the last one.
  void AddFlow(const TcpSegment& segment);

  // On the heap, so that the index's functors still point at it after the
  // table is moved.
  std::unique_ptr<std::deque<Flow>> flows_ =
      std::make_unique<std::deque<Flow>>();
  absl::flat_hash_set<uint32_t, IndexHash, IndexEq> index_by_key_{
      0, IndexHash{flows_.get()}, IndexEq{flows_.get()}};
  uint32_t last_flow_index_ = 0;
  int last_side_ = 0;
  bool last_started_flow_ = false;
  Flow* last_flow_ = nullptr;
};

}  // namespace ccreplay

#endif  // CCREPLAY_PARSERS_FLOW_TABLE_H_
