// The data sender's scoreboard (RFC 6675 section 2 and 4): every byte sent
// and not yet cumulatively acknowledged, in segments as they were sent,
// with what the receiver SACKed, what the sender must consider lost
// (IsLost) and what it retransmitted, so that `pipe` (RFC 6675 SetPipe) is
// right with SACK. Sequence numbers are 64-bit, relative to the ISN
// (SequenceTracker::Unwrap), so the 32-bit wrap never reaches this class.
//
// Memory is bounded by the data in flight, not by the capture: segments
// leave the scoreboard when the cumulative ACK passes them.
#ifndef CCREPLAY_REPLAY_SACK_SCOREBOARD_H_
#define CCREPLAY_REPLAY_SACK_SCOREBOARD_H_

#include <climits>
#include <cstddef>
#include <cstdint>
#include <deque>
#include <optional>
#include <utility>

#include "replay/delivery_rate.h"

namespace ccreplay {

struct SackBlock {
  int64_t start = 0;  // First byte.
  int64_t end = 0;    // One past the last byte.
};

class SackScoreboard {
 public:
  // RFC 6675 section 2: DupThresh, the duplicate ACKs (or SACKed segments
  // above a hole) that make the hole lost.
  static constexpr int kDupThresh = 3;

  // Forgets everything; the next byte to be sent is `snd_una`.
  void Reset(int64_t snd_una);

  // What a transmission of [start, end) was. Bytes above the highest sent
  // are new; bytes below it are sent again (retransmitted).
  struct SendResult {
    uint64_t new_bytes = 0;
    uint64_t resent_bytes = 0;  // Bytes at or below the highest sent.
    // The state of the first resent byte before this transmission.
    bool was_acked = false;  // Below the cumulative ACK already.
    bool was_sacked = false;
    bool was_lost = false;           // RFC 6675 IsLost() held for it.
    bool was_retransmitted = false;  // Sent twice before: a retransmission
                                     // of a retransmission.
    bool was_unseen = false;         // The capture never saw it sent.
    bool is_head = false;            // Starts at the cumulative ACK.
    bool is_tail = false;            // Ends at the highest byte sent.
    int64_t previous_send_ns = 0;    // Last transmission of that byte.
    uint32_t previous_ts_val = 0;
  };
  // `ts_val`: the segment's TCP timestamp (0 without timestamps); `tx`:
  // the delivery-rate state at this transmission (DeliveryRateEstimator).
  // When data jumps above the highest byte sent, the bytes between are
  // recorded as unseen (the capture missed them, or they were lost before
  // it) and have no delivery-rate state.
  SendResult OnSend(int64_t start, int64_t end, int64_t time_ns,
                    uint32_t ts_val, const RateSnapshot& tx = {});

  struct AckResult {
    uint64_t bytes_acked = 0;    // Cumulative ACK advance.
    uint64_t bytes_sacked = 0;   // Newly SACKed, above the cumulative ACK.
    uint64_t bytes_dsacked = 0;  // Reported by a D-SACK block (RFC 2883).
    SackBlock dsack;             // That block, when bytes_dsacked > 0.
    // Segments newly delivered (cumulatively or by SACK), counted as
    // ceil(bytes / mss) per segment as Linux's tcp_skb_pcount() does.
    uint64_t packets_delivered = 0;
    bool reneged = false;       // The receiver dropped SACKed data.
    bool acked_unsent = false;  // The ACK covers bytes never seen sent.
    // The segment holding the highest newly acknowledged byte (cumulative
    // ACK only): its RTT sample source.
    bool has_acked_segment = false;
    // Some newly acknowledged byte had been retransmitted (Linux
    // FLAG_RETRANS_DATA_ACKED).
    bool retransmitted_data_acked = false;
    bool acked_segment_retransmitted = false;
    bool acked_segment_unseen = false;  // Its transmission was never seen.
    int64_t acked_segment_sent_ns = 0;  // Last transmission.
    int64_t acked_segment_first_sent_ns = 0;  // First transmission.
    uint32_t acked_segment_ts_val = 0;
    uint32_t acked_segment_first_ts_val = 0;
    // Of the segments newly acked or SACKed with delivery-rate state, the
    // most recently sent (highest tx.delivered), as Linux's
    // tcp_rate_skb_delivered() keeps it.
    std::optional<DeliveredPacket> newest_delivered;
    // Bytes this ACK's SACK information newly made lost (RFC 6675 IsLost).
    uint64_t bytes_newly_lost = 0;
    // The start of the lowest segment this ACK newly delivered (acked or
    // SACKed) that was never retransmitted: Linux's `reord`
    // (tcp_sacktag_one(), tcp_clean_rtx_queue()); INT64_MAX when none.
    int64_t lowest_original_delivered = INT64_MAX;
    // The last transmission of the highest segment this ACK newly SACKed
    // that was never retransmitted, and its start: Linux sack->last_sackt
    // (tcp_sacktag_one() sets it on each such segment as it walks up the
    // sorted blocks, tcp_input.c, 6.18); 0 and -1 when there is none.
    int64_t last_sackt_ns = 0;
    int64_t last_sackt_start = -1;
    // How far below the highest SACKed segment before this ACK (Linux
    // prior_fack, tcp_highest_sack_seq()) that segment lay: the metric of
    // tcp_check_sack_reordering() (tcp_input.c, 6.18); 0: no reordering.
    uint64_t reordering_bytes = 0;
  };
  // `ack`: the cumulative ACK; `blocks`: SACK blocks in the order sent;
  // `ack_ns` and `min_rtt_ns`: when the sender took the ACK and its minimum
  // RTT before it (0: unknown), and `ts_ecr` the ACK's echoed timestamp (0:
  // none), for RACK's state (RackDetectLoss()).
  AckResult OnAck(int64_t ack, const SackBlock* blocks, int block_count,
                  uint32_t mss_bytes, int64_t ack_ns = 0,
                  int64_t min_rtt_ns = 0, uint32_t ts_ecr = 0);

  // RACK loss detection (RFC 8985 section 6.2) as Linux 6.18 runs it for
  // SACK connections, where it is the only one left (RFC 6675's was removed
  // in 6.17): after an ACK that delivered something, every segment not
  // SACKed, and not lost unless retransmitted since, that was sent before
  // the most recently sent segment (s)acked so far (rack.mstamp, ties by
  // end_seq: tcp_skb_sent_after()) is lost once
  //   rack.rtt_us + reo_wnd - (now - its send time) <= 0,
  // rack.rtt_us being the time since the send of the segment the sender
  // took last: the highest one cumulatively acked, else the highest newly
  // SACKed (tcp_sacktag_write_queue() runs before tcp_clean_rtx_queue(),
  // each calling tcp_rack_advance() per segment, which sets rtt_us every
  // time). So a hole is lost when that segment left at least `reo_wnd_ns`
  // after it: tcp_rack_detect_loss(), tcp_rack_mark_lost(),
  // tcp_rack_advance() (net/ipv4/tcp_recovery.c, 6.18). A lost
  // retransmission stops counting as retransmitted (tcp_mark_skb_lost(),
  // tcp_input.c). The reordering timer (tcp_rack_reo_timeout()) is not
  // modelled: a hole not yet lost waits for the next ACK.
  struct RackMarks {
    uint64_t newly_lost_bytes = 0;  // Marked lost here, not before.
    // The bytes RACK's rule makes lost on this ACK, counting those the
    // RFC 6675 rule (UpdateLost()) marked first on the same ACK: a RACK
    // sender runs only RACK, so to it they are RACK's marks.
    uint64_t rack_bytes = 0;
  };
  RackMarks RackDetectLoss(int64_t reo_wnd_ns);

  // The sender considers [start, end) lost (it retransmits it on dupacks or
  // SACK, as Linux's tcp_mark_head_lost() before a fast retransmit).
  void MarkLost(int64_t start, int64_t end);
  // Retransmission timeout (RFC 6675 section 5.1; Linux tcp_enter_loss()):
  // every unSACKed byte is lost and earlier retransmissions are forgotten,
  // except the one the timeout sent, [resent_start, resent_end).
  void MarkAllLost(int64_t resent_start, int64_t resent_end);

  // Gives back the memory of acknowledged segments (a finished flow).
  void ShrinkToFit();

  int64_t snd_una() const { return snd_una_; }
  int64_t snd_nxt() const { return snd_nxt_; }
  uint64_t outstanding_bytes() const {
    return static_cast<uint64_t>(snd_nxt_ - snd_una_);
  }
  uint64_t sacked_bytes() const { return sacked_bytes_; }
  // Linux tcp_highest_sack_seq() (include/net/tcp.h, 6.18), the `fack` of
  // tcp_check_sack_reordering(): the start of the segment after the
  // highest SACKed one (snd_nxt when none follows), i.e. the highest
  // SACKed segment's end; snd_una when nothing is SACKed.
  int64_t HighestSackSeq() const;
  uint64_t lost_bytes() const { return lost_bytes_; }
  uint64_t retransmitted_bytes() const { return retrans_bytes_; }
  // RFC 6675 SetPipe(): every unSACKed byte not lost counts once, every
  // retransmitted unSACKed byte once more. Equal to Linux's
  // packets_out - sacked_out - lost_out + retrans_out, in bytes.
  uint64_t pipe_bytes() const {
    return outstanding_bytes() - sacked_bytes_ - lost_bytes_ + retrans_bytes_;
  }

 private:
  enum Flag : uint8_t {
    kSacked = 1,
    kLost = 2,
    kRetransInFlight = 4,  // Retransmitted, not yet SACKed or acked.
    kEverRetransmitted = 8,
    kUnseen = 16,
    // Made lost by UpdateLost() on the ACK being taken (cleared on the
    // next; dupthresh_from_, dupthresh_to_).
    kDupthreshLost = 32,
  };
  struct Segment {
    int64_t start;
    int64_t end;
    int64_t sent_ns;
    int64_t first_sent_ns;
    uint32_t ts_val;
    uint32_t first_ts_val;
    uint8_t flags;
    RateSnapshot tx;
    uint64_t length() const { return static_cast<uint64_t>(end - start); }
  };

  // tcp_rack_advance() for a segment this ACK newly delivered: SACKed, or
  // cumulatively acked without a SACK before.
  void RackAdvance(const Segment& s, bool cumulative);
  // Linux tcp_skb_spurious_retrans() (tcp_input.c, 6.18): `s` was
  // retransmitted and this ACK echoes a timestamp from before its last
  // transmission, so the ACK is for an earlier one. tcp_clean_rtx_queue()
  // does not take such a segment into RACK's state (tcp_sacktag_one()
  // does: only tcp_rack_advance()'s min-RTT test applies there).
  bool SpuriouslyRetransmitted(const Segment& s) const;

  // Index of the segment holding byte `seq` (size() when none).
  size_t Find(int64_t seq) const;
  // Splits the segment holding `seq` so that a segment starts there;
  // returns its index.
  size_t SplitAt(int64_t seq);
  // Clips [start, end) to [snd_una, snd_nxt) (`end` in place) and splits
  // segments at both edges; returns the index of the first segment inside,
  // nullopt when the clipped range is empty.
  std::optional<size_t> SplitRange(int64_t start, int64_t& end);
  // tcp_rate_skb_delivered() for a segment newly acked or SACKed.
  static void TakeRateState(Segment& s, bool sacked, AckResult& result);
  void SetFlag(Segment& s, Flag flag);
  void ClearFlag(Segment& s, Flag flag);
  // The ACK's SACK blocks after its cumulative part: a leading D-SACK
  // (RFC 2883) counted, the others taken.
  void TakeSackBlocks(int64_t ack, const SackBlock* blocks, int block_count,
                      uint32_t mss_bytes, AckResult& r);
  void Sack(int64_t start, int64_t end, uint32_t mss_bytes, AckResult& result);
  // RFC 6675 IsLost(): marks the unSACKed bytes below the DupThresh-th
  // SACKed segment (or below more than (DupThresh - 1) * SMSS SACKed
  // bytes) counted from the highest SACKed byte down.
  void UpdateLost(uint32_t mss_bytes);
  void DropAcked(int64_t ack, uint32_t mss_bytes, AckResult& result);

  // Contiguous from snd_una_ to snd_nxt_. A deque: acknowledged segments
  // leave from the front block by block, and a long flight never needs one
  // large reallocated array, which fragmented the heap over many flows.
  std::deque<Segment> segments_;
  int64_t snd_una_ = 1;
  int64_t snd_nxt_ = 1;
  int64_t highest_sacked_end_ = 0;
  int64_t lost_below_ = 0;  // Every unSACKed byte below was marked lost.
  // Where the segments UpdateLost() marked on the last ACK lie.
  int64_t dupthresh_from_ = 0;
  int64_t dupthresh_to_ = 0;
  uint64_t sacked_bytes_ = 0;
  uint64_t lost_bytes_ = 0;
  uint64_t retrans_bytes_ = 0;

  // RACK state (Linux struct tcp_rack): the send time and end of the most
  // recently sent segment delivered (rack.mstamp, rack.end_seq), the send
  // time of the one the sender took last (rack.rtt_us = now - it), and
  // whether anything was delivered since the last detection
  // (rack.advanced). The ACK being taken: its time, the min RTT before it,
  // and the last segment taken per kind (cumulative wins).
  int64_t rack_xmit_ns_ = INT64_MIN;
  int64_t rack_end_ = 0;
  int64_t rack_last_sent_ns_ = 0;
  bool rack_advanced_ = false;
  int64_t rack_ack_ns_ = 0;
  int64_t rack_min_rtt_ns_ = 0;
  uint32_t rack_ts_ecr_ = 0;
  std::optional<int64_t> rack_cumulative_sent_ns_;
  std::optional<std::pair<int64_t, int64_t>> rack_sacked_;  // start, sent_ns
};

}  // namespace ccreplay

#endif  // CCREPLAY_REPLAY_SACK_SCOREBOARD_H_
