// Reduces one flow's ACK timeline (replay/ack_timeline.h) to what a
// diagnosis looks at, on a time grid: per bin the bytes delivered, the
// largest flight, the receive window, RTT samples, ECN feedback,
// retransmissions and what limited the sender. Bins start 1 ms wide and
// double (merging pairs) whenever there would be more than kMaxBins, so
// memory is bounded whatever the length of the capture.
#ifndef CCREPLAY_REPORTS_FLOW_OBSERVATION_H_
#define CCREPLAY_REPORTS_FLOW_OBSERVATION_H_

#include <array>
#include <cstdint>
#include <limits>
#include <optional>
#include <random>
#include <vector>

#include "replay/ack_timeline.h"

namespace ccreplay {

struct ObservationBin {
  uint64_t delivered_bytes = 0;  // Growth of (cumulative ACK + SACKed bytes).
  uint64_t acks = 0;
  uint64_t max_pipe_bytes = 0;         // Largest RFC 6675 pipe after an ACK.
  uint64_t max_outstanding_bytes = 0;  // Largest snd_nxt - snd_una.
  uint64_t rwnd_bytes = 0;             // The last receive window seen.
  int64_t rtt_min_us = std::numeric_limits<int64_t>::max();
  int64_t rtt_max_us = 0;
  int64_t rtt_sum_us = 0;
  uint32_t rtt_samples = 0;
  int64_t srtt_us = 0;      // The last smoothed RTT.
  uint64_t ce_packets = 0;  // AccECN CE packets newly fed back.
  uint32_t ece_acks = 0;    // ACKs with ECE (RFC 3168 / DCTCP-style).
  uint32_t congestion_episodes = 0;
  uint32_t retransmissions = 0;
  uint32_t recovery_episodes = 0;
  uint32_t limit_acks[4] = {0, 0, 0, 0};  // ACKs by SendLimit.
  int64_t highest_ack = 0;       // Highest cumulative ACK (relative seq).
  int64_t highest_seq_sent = 0;  // Highest data byte seen sent + 1.
  uint32_t mss_bytes = 0;

  bool has_rtt() const { return rtt_samples > 0; }
  // Merges the next bin in time into this one.
  void Merge(const ObservationBin& later);
};

// A retransmission, for the time-sequence graph.
struct RetransmissionMark {
  double time_s = 0;
  int64_t seq = 0;
  RetransmissionKind kind = RetransmissionKind::kOther;
};

class FlowObserver {
 public:
  static constexpr size_t kMaxBins = 8192;
  // Retransmission marks kept for the graph (counted beyond that).
  static constexpr size_t kMaxMarks = 20000;

  // How delivery is counted. TCP: the growth of (cumulative ACK + SACKed
  // bytes), sequence numbers on the time-sequence graph. QUIC: the sum of
  // bytes_acked (each packet is acknowledged once; `ack` is a packet
  // number), and the graph in cumulative bytes delivered.
  enum class Counting { kSequence, kBytesAcked };

  // `start_ns`: time zero of the report (the flow's first packet).
  explicit FlowObserver(int64_t start_ns,
                        Counting counting = Counting::kSequence)
      : start_ns_(start_ns), counting_(counting) {}

  void Add(const TimelineEvent& event);

  int64_t start_ns() const { return start_ns_; }
  double bin_width_s() const { return bin_width_ns_ * 1e-9; }
  const std::vector<ObservationBin>& bins() const { return bins_; }
  const std::vector<RetransmissionMark>& retransmissions() const {
    return marks_;
  }
  // Every RTT sample's minimum (the base RTT), 0 when there was none.
  int64_t min_rtt_us() const { return min_rtt_us_; }
  uint64_t total_acks() const { return total_acks_; }
  // How long the receiver held ACKs that covered fewer than `segments`
  // segments (its delayed-ACK or GRO flush timer fired before the
  // `segments`-th arrived), `service_us` a full-size packet's service time
  // at the bottleneck. From each such ACK that directly follows one
  // covering `segments` or more: the receiver sent that one at once, when
  // its last segment arrived, and this one's n segments arrived at least
  // n service times later (each waits for the one before on the link), so
  // the hold is at most the gap between the two ACKs less n service
  // times, and equal to it when they queued behind the first ACK's (a
  // train's odd segment: the common case). The median of those bounds.
  // ACKs while SACKed data was outstanding, or after such an ACK, are left
  // out: a receiver ACKs at once while a hole is open and when one is
  // filled (RFC 5681 section 4.2). At least 0; nullopt with fewer than
  // kMinHoldSamples. `service_us` of the result: what was subtracted from
  // the median's gap (its n service times), for a caller that learns the
  // link's rate later (two flows' shared fit).
  //
  // Not the excess RTT of such ACKs over that of full ones: those are
  // sent when the queue differs (a train's odd segment follows the queue
  // as it builds), which on the 24 flows of unfairness_test.cc's two-flow
  // exports (a 40 ms hold) read 25-48 ms; this reads 40.00 ms on all 24
  // (`ccreplay timeline --csv` of each export, python3 over the rows).
  struct AckHold {
    int64_t hold_us = 0;
    int64_t service_us = 0;
  };
  std::optional<AckHold> AckHoldUs(uint32_t segments, double service_us) const;
  static constexpr uint64_t kMinHoldSamples = 20;
  // The segment-weighted median of segments per ACK: half of the delivered
  // segments were acknowledged by ACKs covering at least this many (so a
  // receiver that ACKs every N segments while data flows gives N even when
  // its timer ACKs single segments while the window is small); 0 before
  // any ACK delivered data.
  uint32_t TypicalSegmentsPerAck() const;
  uint64_t total_retransmissions() const { return total_retransmissions_; }

 private:
  ObservationBin& BinAt(int64_t time_ns);
  // The parts of Add(): a retransmission; an ACK's RTT sample.
  void AddRetransmission(const TimelineEvent& e, ObservationBin& bin);
  void AddRttSample(const TimelineEvent& e, ObservationBin& bin);

  int64_t start_ns_;
  Counting counting_;
  int64_t bin_width_ns_ = 1000000;
  std::vector<ObservationBin> bins_;
  std::vector<RetransmissionMark> marks_;
  int64_t min_rtt_us_ = 0;
  uint64_t total_acks_ = 0;
  uint64_t total_retransmissions_ = 0;
  // Highest (cumulative ACK + SACKed bytes) so far: what was delivered.
  int64_t delivered_mark_ = 0;
  // An ACK that delivered fewer segments than the ACK just before it,
  // neither with SACKed data outstanding, and the gap between them: what
  // AckHoldUs reads. A reservoir sample (Vitter's algorithm R) of at most
  // kMaxHoldGaps, so memory is bounded whatever the length of the capture.
  struct HoldGap {
    uint32_t gap_us = 0;
    uint8_t segments = 0;           // This ACK's: below kMaxHoldSegments.
    uint8_t previous_segments = 0;  // The one before's, capped at it.
  };
  static constexpr size_t kMaxHoldSegments = 64;
  static constexpr size_t kMaxHoldGaps = 8192;
  void AddHoldGap(const TimelineEvent& e);
  std::vector<HoldGap> hold_gaps_;
  uint64_t hold_gaps_seen_ = 0;
  std::minstd_rand hold_gap_rng_;  // Default seed: the same sample each run.
  // The ACK before: its time, segments delivered, and whether it left no
  // SACKed data outstanding.
  int64_t previous_ack_ns_ = 0;
  uint64_t previous_ack_segments_ = 0;
  bool previous_ack_quiet_ = false;
  // Segments delivered by ACKs that delivered k segments, k = 1..64+.
  std::array<uint64_t, kMaxHoldSegments + 1> segments_by_ack_size_{};
};

}  // namespace ccreplay

#endif  // CCREPLAY_REPORTS_FLOW_OBSERVATION_H_
