// Why a data sender retransmitted: fast retransmit (three duplicate ACKs,
// RFC 5681 section 3.2, or SACK loss detection, RFC 6675 section 5 and
// RACK, RFC 8985), retransmission timeout (RFC 6298 section 5, told by the
// silence before it and its exponential backoff), tail loss probe (RFC 8985
// section 7), or none of those (other). And, afterwards, whether it was
// spurious: a D-SACK reported the data twice (RFC 2883, RFC 3708), or the
// first ACK covering it echoed the timestamp of the original transmission
// (the Eifel detection algorithm, RFC 3522 section 3.2).
#ifndef CCREPLAY_REPLAY_RETRANSMISSION_CLASSIFIER_H_
#define CCREPLAY_REPLAY_RETRANSMISSION_CLASSIFIER_H_

#include <array>
#include <cstdint>

#include "replay/rtt_estimator.h"
#include "replay/sack_scoreboard.h"

namespace ccreplay {

enum class RetransmissionKind { kFast, kRto, kTlp, kOther };
const char* RetransmissionKindName(RetransmissionKind kind);  // "fast", ...

class RetransmissionClassifier {
 public:
  // Tolerance on the timer: a retransmission after 3/4 of the estimated
  // RTO is a timeout. Our estimate comes from the samples the capture
  // shows, the sender's from its own (with delayed-ACK inflation), so the
  // two differ by a margin.
  static constexpr double kRtoFraction = 0.75;
  // RFC 8985 section 7.2: PTO = 2 * SRTT; a probe earlier than one SRTT
  // after the last ACK is not taken for one.
  static constexpr double kPtoMinSrtts = 1.0;
  // A retransmission within max(2 ms, SRTT / 4) of an ACK that showed the
  // loss (duplicates, SACK) was sent in answer to it.
  static constexpr int64_t kAckTriggerMinUs = 2000;

  // An ACK from the receiver: `advanced` when it moved the cumulative ACK,
  // `duplicate` per RFC 5681 section 2 (or carrying SACK information for
  // data above the cumulative ACK), `sacked_above` when the scoreboard
  // holds SACKed data.
  // `ts_val`: the ACK's timestamp (0 without timestamps).
  void OnAck(int64_t time_ns, bool advanced, bool duplicate, bool sacked_above,
             int64_t snd_una, uint32_t ts_val);
  // New data sent with nothing in flight before it: the timer starts.
  void OnSendFromIdle(int64_t time_ns);

  struct Result {
    RetransmissionKind kind = RetransmissionKind::kOther;
    // The first retransmission of a loss-recovery episode: one congestion
    // event for the controllers (fast recovery entered, or a timeout).
    bool starts_episode = false;
  };
  // A transmission of [start, end) that resent data (`sent` from the
  // scoreboard, taken before this transmission was recorded), at `time_ns`
  // with TCP timestamps `ts_val` and `ts_ecr` (0 without). The echoed
  // timestamp names the last ACK the sender had processed (RFC 7323
  // section 4.3: TS.Recent), so the loss signals and the silence are taken
  // as of that ACK: exact even where the capture sees the ACK and the
  // retransmission far from the sender.
  Result Classify(int64_t time_ns, int64_t start, int64_t end,
                  const SackScoreboard::SendResult& sent,
                  const RttEstimator& rtt, int64_t snd_una, int64_t snd_nxt,
                  uint64_t outstanding_bytes, uint32_t mss_bytes,
                  uint32_t ts_val, uint32_t ts_ecr);

  // Spurious retransmissions newly detected by a D-SACK block, and by the
  // timestamp echoed in the first ACK covering a retransmission (Eifel).
  int OnDsack(const SackBlock& block);
  int OnCumulativeAck(int64_t ack, bool has_timestamps, uint32_t ts_ecr);

  // After OnAck(): true when that ACK ended a fast-recovery episode while
  // data first sent after the episode began had been retransmitted and is
  // not yet cumulatively acknowledged. Linux enters Recovery again on that
  // ACK: tcp_fastretrans_alert() ends Recovery once snd_una reaches
  // high_seq, then tcp_time_to_recover() sees tp->lost_out and calls
  // tcp_enter_recovery() (tcp_input.c, 6.18). A new episode then begins,
  // its recovery point `snd_nxt`. (Such data SACKed before that ACK left
  // lost_out in the kernel; the capture's order makes that rare: its
  // retransmission follows the last one below the old recovery point.)
  bool ReenterRecovery(int64_t snd_nxt);

  // Once per fast-recovery episode: true when `ts_ecr`, echoed by an ACK
  // that advanced snd_una while the episode was open, predates the
  // episode's first retransmission (tcp_packet_delayed(): the hole was
  // filled by the delayed original). Linux's tcp_try_undo_partial() then
  // takes the ACK as reordering (tcp_check_sack_reordering(), tcp_input.c,
  // 6.18) and clears its undo marker, so later ACKs of the episode do not.
  bool TakeDelayedOriginal(uint32_t ts_ecr);

  uint32_t duplicate_acks() const { return duplicate_acks_; }
  bool in_recovery(int64_t snd_una) const {
    return episode_open_ && snd_una < recovery_point_;
  }

 private:
  // The last retransmissions, for the spurious checks (older ones are
  // decided or forgotten: memory stays constant).
  struct Recent {
    int64_t start = 0;
    int64_t end = 0;
    uint32_t ts_val = 0;
    bool acked = false;  // Its first covering ACK was seen.
    bool spurious = false;
    bool used = false;
  };
  static constexpr size_t kRecent = 16;
  // The last ACKs, by timestamp, with the loss signals after each.
  struct AckState {
    uint32_t ts_val = 0;
    int64_t time_ns = 0;
    uint32_t duplicate_acks = 0;
    bool sacked_above = false;
  };
  static constexpr size_t kRecentAcks = 16;
  // The loss signals as the sender saw them: as of the last ACK it had
  // processed (named by the echoed timestamp), else as of the last one the
  // capture saw.
  struct SenderView {
    int64_t last_ack_ns = 0;
    uint32_t duplicate_acks = 0;
    bool sacked_above = false;
    // Capture-time gap from that ACK to the next one (-1: unknown).
    int64_t next_ack_gap_ns = -1;
  };
  // What the silence, the timer and the ACKs say about a retransmission.
  struct Signals {
    bool timed_out = false;
    bool in_episode = false;
    bool ack_detected = false;
    bool probe_delay = false;
    bool ack_triggered = false;
  };
  SenderView ViewAsOf(uint32_t ts_ecr) const;
  Signals Observe(int64_t time_ns, const SenderView& view,
                  const SackScoreboard::SendResult& sent,
                  const RttEstimator& rtt, int64_t snd_una,
                  uint64_t outstanding_bytes, uint32_t mss_bytes) const;
  RetransmissionKind Decide(const Signals& signals,
                            const SackScoreboard::SendResult& sent,
                            uint32_t duplicate_acks) const;
  // Opens a recovery episode where `kind` starts one; true if it did.
  bool MaybeStartEpisode(RetransmissionKind kind, const Signals& signals,
                         int64_t time_ns, int64_t snd_nxt);
  void Remember(int64_t start, int64_t end, uint32_t ts_val);

  int64_t timer_start_ns_ = 0;
  int backoff_ = 0;
  uint32_t duplicate_acks_ = 0;
  bool sacked_above_ = false;
  int64_t last_ack_ns_ = 0;
  bool ack_seen_ = false;
  bool episode_open_ = false;
  bool episode_seen_ = false;  // Some episode started (episode_kind_ set).
  RetransmissionKind episode_kind_ = RetransmissionKind::kOther;
  int64_t recovery_point_ = 0;
  // The TSval of the fast-recovery episode's first retransmission (Linux
  // retrans_stamp; 0: none, or already taken by TakeDelayedOriginal()).
  uint32_t episode_first_ts_val_ = 0;
  // The end of the highest range at or above recovery_point_ that a fast
  // retransmission resent during the open episode (0: none), and whether
  // the last OnAck() closed the episode with it still unacknowledged.
  int64_t next_window_loss_end_ = 0;
  bool closed_with_loss_pending_ = false;
  std::array<Recent, kRecent> recent_;
  size_t next_recent_ = 0;
  int recent_awaiting_ack_ = 0;  // Entries of recent_ with used && !acked.
  std::array<AckState, kRecentAcks> acks_;
  size_t next_ack_ = 0;
};

}  // namespace ccreplay

#endif  // CCREPLAY_REPLAY_RETRANSMISSION_CLASSIFIER_H_
