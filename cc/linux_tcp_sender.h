// The Linux TCP machinery around a congestion-control module, in segments.
//
// Linux controllers (tcp_congestion_ops) only see hooks; the window state
// machine that calls them lives in net/ipv4/tcp_input.c and tcp_cong.c. This
// class is that machinery, so that each module (Reno, CUBIC, DCTCP, Prague)
// is only its hooks, as in the kernel. Modelled on Linux 6.18:
//
// - ECN feedback in the Open state enters CWR (tcp_try_to_open() ->
//   tcp_enter_cwr(): ssthresh = .ssthresh(), snd_cwnd_cnt = 0, high_seq =
//   snd_nxt). CWR ends once data *above* high_seq is acknowledged; the same
//   ACK may enter CWR again.
// - A fast retransmit enters Recovery (tcp_enter_recovery(); ssthresh is not
//   recomputed if already in CWR), ending once high_seq is acknowledged:
//   cumulatively, snd_una at or past it (tcp_fastretrans_alert()), not by
//   SACKs above it.
// - An RTO enters Loss (tcp_enter_loss(): ssthresh = .ssthresh(),
//   CA_EVENT_LOSS, cwnd = 1), ending like Recovery; cwnd slow-starts.
// - Without .cong_control, cwnd is only raised outside CWR/Recovery, and
//   during them follows the PRR bound (RFC 6937): for a cwnd-limited,
//   ACK-clocked sender PRR sends ssthresh/prior_cwnd segments per segment
//   delivered, so cwnd falls from prior_cwnd to ssthresh in proportion to
//   what has been delivered; on exit cwnd = ssthresh
//   (tcp_end_cwnd_reduction()). With .cong_control (Prague) the module owns
//   cwnd in every state and neither applies.
// - After an idle period longer than the RTO, tcp_cwnd_restart() halves cwnd
//   once per RTO elapsed, down to min(IW, cwnd) (tcp_slow_start_after_idle).
// - A reduction found spurious is undone (tcp_undo_cwnd_reduction(): cwnd =
//   .undo_cwnd(), ssthresh back to prior_ssthresh), for modules that model
//   .undo_cwnd (UndoCwnd()): when D-SACKs (RFC 2883) have reported every
//   retransmission of the episode received twice (undo_retrans reaches 0:
//   tcp_try_undo_dsack(), or at the episode's end tcp_try_undo_recovery()),
//   or when the ACK echoes a timestamp older than the episode's first
//   retransmission (tcp_packet_delayed(), Eifel, RFC 3522): at the end
//   (tcp_try_undo_recovery()), on a partial ACK with no retransmission in
//   flight (tcp_try_undo_partial()), or after an RTO (tcp_try_undo_loss()).
//   F-RTO (RFC 5682) is not modelled. SACK is assumed (tcp_packet_delayed()
//   without a retransmission stamp). A partial undo is also evidence of
//   reordering (tcp_try_undo_partial() -> tcp_check_sack_reordering(),
//   TCPTSReorder): tp->reordering rises to the distance from the old
//   snd_una to the highest SACK, and above net.ipv4.tcp_reordering cwnd
//   grows on SACKs too (tcp_may_raise_cwnd()).
//
// MTU normalization (ControllerOptions::normalize_bytes) scales the
// congestion-avoidance counter of tcp_cong_avoid_ai(): the kernel adds one
// segment per w segments acknowledged; normalized, one segment per
// w * mss / reference segments, so growth is `reference` bytes per RTT while
// cwnd still moves by whole segments.
#ifndef CCREPLAY_CC_LINUX_TCP_SENDER_H_
#define CCREPLAY_CC_LINUX_TCP_SENDER_H_

#include <cstdint>
#include <optional>

#include "cc/congestion_controller.h"
#include "cc/round_tracker.h"

namespace ccreplay {

class LinuxTcpSender : public CongestionController {
 public:
  // CongestionController:
  void OnAck(const AckEvent& ack) final;
  void OnLoss(const LossEvent& loss) final;
  void OnPacketSent(const PacketSentEvent& sent) final;
  void OnIdleRestart(const IdleRestartEvent& idle) final;
  void OnRetransmit(const RetransmitEvent& retransmit) final;
  void OnRecoveryReentered(const LossEvent& loss) final { OnLoss(loss); }
  uint64_t cwnd_bytes() const final;
  double cwnd_segments() const final { return snd_cwnd_; }
  uint64_t ssthresh_bytes() const final;
  std::optional<double> pacing_rate_bps() const override;
  ControllerState state() const override;

  uint32_t snd_cwnd() const { return snd_cwnd_; }
  uint32_t snd_ssthresh() const { return snd_ssthresh_; }

  // Reductions undone so far, by the kernel's counter for each
  // (LINUX_MIB_TCP*UNDO, nstat TcpExtTCPFullUndo, ...).
  struct UndoCounts {
    int64_t full = 0;     // tcp_try_undo_recovery() in Recovery
    int64_t partial = 0;  // tcp_try_undo_partial()
    int64_t dsack = 0;    // tcp_try_undo_dsack()
    int64_t loss = 0;     // tcp_try_undo_loss(), tcp_try_undo_recovery()
  };
  const UndoCounts& undo_counts() const { return undo_counts_; }

 protected:
  // The kernel's icsk_ca_state values that matter to congestion control.
  enum class CaState { kOpen, kCwr, kRecovery, kLoss };

  explicit LinuxTcpSender(const ControllerOptions& options);

  // tcp_congestion_ops hooks. `acked` and `ce` are packet counts.
  virtual uint32_t Ssthresh() = 0;                              // .ssthresh
  virtual void CongAvoid(const AckEvent& ack, uint32_t acked);  // .cong_avoid
  virtual bool HasCongControl() const { return false; }
  virtual void CongControl(const AckEvent& /*ack*/, uint32_t /*acked*/,
                           uint32_t /*ce*/) {}     // .cong_control
  virtual void SetState(CaState /*new_state*/) {}  // .set_state
  virtual void OnCaEventLoss() {}                  // CA_EVENT_LOSS
  // CA_EVENT_TX_START: the sender resumed with nothing in flight.
  virtual void OnTxStart(const IdleRestartEvent& /*idle*/) {}
  // What the ACK that revealed a loss does to cwnd once the sender is in
  // Recovery (the replay reports the loss after that ACK): by default the
  // PRR step tcp_cwnd_reduction() takes on it; a .cong_control module that
  // handles Recovery itself (BBR) overrides it.
  virtual void ReduceOnRecoveryEntry(uint32_t acked, bool data_acked,
                                     uint64_t in_flight) {
    CwndReduction(acked, data_acked, in_flight);
  }
  // .undo_cwnd: the cwnd an undo restores; nullopt for a module whose
  // undo is not modelled (no undo then).
  virtual std::optional<uint32_t> UndoCwnd() { return std::nullopt; }
  virtual void InAckEvent(const AckEvent& /*ack*/) {}  // .in_ack_event
  virtual void PktsAcked(const AckEvent& /*ack*/) {}   // .pkts_acked

  // tcp_cong.c helpers.
  // tcp_slow_start(): grows cwnd up to ssthresh, returns the leftover.
  uint32_t SlowStart(uint32_t acked);
  // tcp_cong_avoid_ai(): one segment per `w` segments acknowledged.
  void CongAvoidAi(uint32_t w, uint32_t acked);
  // tcp_reno_cong_avoid() without the cwnd-limited check (done by OnAck).
  void RenoCongAvoid(uint32_t acked);
  // tcp_reno_ssthresh(): max(cwnd / 2, 2).
  uint32_t RenoSsthresh() const;
  // tcp_reno_undo_cwnd(): max(cwnd, prior_cwnd).
  uint32_t RenoUndoCwnd() const;

  bool InSlowStart() const { return snd_cwnd_ < snd_ssthresh_; }
  CaState ca_state() const { return ca_state_; }
  Phase PhaseForState() const;

  uint32_t mss_bytes() const { return mss_bytes_; }
  int64_t now_us() const { return now_us_; }
  int64_t srtt_us() const { return srtt_us_; }
  uint64_t bytes_in_flight() const { return bytes_in_flight_; }
  uint64_t packets_in_flight() const;
  // tp->delivered / tp->delivered_ce and the byte count behind snd_una.
  uint64_t delivered_packets() const { return delivered_packets_; }
  uint64_t delivered_ce_packets() const { return delivered_ce_packets_; }
  uint64_t delivered_bytes() const { return rounds_.delivered_bytes(); }
  // snd_una after the ACK being processed and snd_nxt before it, in stream
  // bytes (AckEvent); 0 when the ACKs carry no sequence state.
  uint64_t snd_una_bytes() const { return snd_una_bytes_; }
  uint64_t snd_nxt_bytes() const { return snd_nxt_bytes_; }
  // tcp_cwnd_reduction(): PRR with `in_flight` packets after the ACK.
  void CwndReduction(uint32_t acked, bool una_advanced, uint64_t in_flight);
  const ControllerOptions& options() const { return options_; }
  // tcp_is_cwnd_limited() after ValidateCwnd() has seen `ack`.
  bool IsCwndLimited(const AckEvent& ack) const;

  uint32_t snd_cwnd_;
  uint32_t snd_ssthresh_ = kInfiniteSsthreshSegments;

 private:
  // tcp_may_raise_cwnd(), given that `ack` delivered something.
  bool MayRaiseCwnd(const AckEvent& ack) const;
  // tcp_check_sack_reordering() with the timestamp evidence of a partial
  // undo: low_seq is the snd_una before `ack`.
  void CheckTsReordering(const AckEvent& ack);
  // high_seq_bytes_ and high_mark_bytes_ from the sender's state now.
  void SetHighSeq();
  // tcp_fastretrans_alert()'s "!before(tp->snd_una, tp->high_seq)"; for
  // CWR (`beyond`) something above high_seq must be acknowledged.
  bool ReachedHighSeq(const AckEvent& ack, bool beyond) const;
  // tcp_cwnd_validate() for the sends since the previous ACK.
  void ValidateCwnd(const AckEvent& ack);
  // Adds the packets sent since the previous ACK to prr_out while a
  // reduction runs; false when the ACK does not say what was sent.
  bool CountPrrOut(const AckEvent& ack);
  void InitCwndReduction();
  // Recovery entered on the ACK whose SACKs let RACK mark a loss.
  void EnterRecoveryOnLostMarks(const AckEvent& ack);
  // tcp_enter_recovery(); `ece_ack`: the ACK carried ECE.
  void EnterRecovery(bool ece_ack);
  void EnterCwr();
  // tcp_fastretrans_alert()'s state exits and undos for `ack`.
  void ProcessCaState(const AckEvent& ack);
  // tcp_end_cwnd_reduction() and the return to Open.
  void EndReduction();
  void ReturnToOpen();
  uint32_t CurrentSsthresh() const;
  // The undo steps of tcp_fastretrans_alert(); true when they undid.
  bool TryUndoRecovery(const AckEvent& ack);
  bool TryUndoDsack();
  // True when it ends the ACK's state processing (a retransmission still
  // in flight, or undone).
  bool TryUndoPartial(const AckEvent& ack);
  bool TryUndoLoss(const AckEvent& ack);
  // tp->undo_marker is set, and the source reports retransmissions.
  bool UndoMarked() const;
  // tcp_may_undo() and tcp_packet_delayed().
  bool MayUndo(const AckEvent& ack) const;
  bool PacketDelayed(const AckEvent& ack) const;
  // tcp_undo_cwnd_reduction(): false when the module has no undo.
  bool UndoCwndReduction();
  // tcp_init_undo() with prior_ssthresh, at the start of Recovery or Loss.
  void InitUndo(uint32_t prior_ssthresh);

  // cwnd and snd_cwnd_cnt before the growth of the last ACK, if it grew
  // cwnd; undone when that ACK turns out to have revealed a loss.
  struct CwndBeforeGrowth {
    uint32_t cwnd;
    uint64_t cnt;
  };
  std::optional<CwndBeforeGrowth> before_growth_;
  uint32_t last_acked_ = 0;       // Packets the last ACK delivered...
  bool last_data_acked_ = false;  // ...and whether it moved snd_una.
  // tp->is_cwnd_limited, tp->max_packets_out, tp->cwnd_usage_seq, and the
  // snd_una / snd_nxt the previous ACK left (bytes; 0 = unknown).
  bool is_cwnd_limited_ = false;
  uint32_t max_packets_out_ = 0;
  uint64_t cwnd_usage_seq_ = 0;
  // The last sends stopped short of the window: nothing was left to send.
  bool send_queue_drained_ = false;
  uint64_t snd_una_bytes_ = 0;
  uint64_t snd_nxt_bytes_ = 0;
  // snd_una before the ACK being processed (bytes; 0 = unknown).
  uint64_t prior_snd_una_bytes_ = 0;
  // tp->reordering as raised by a partial undo (segments); the ACK's own
  // reordering_segments carries the SACK-based raises.
  uint32_t ts_reordering_ = 0;

  ControllerOptions options_;
  uint32_t mss_bytes_;
  // tp->snd_cwnd_cnt, in segments x growth bytes (see the header comment).
  uint64_t snd_cwnd_cnt_ = 0;
  CaState ca_state_ = CaState::kOpen;
  // tp->high_seq (snd_nxt when the reduction began) in stream bytes, as
  // AckEvent::snd_una_bytes; 0 when the ACKs carry no sequence state or
  // after an RTO (whose snd_nxt the controller does not see): then
  // high_mark_bytes_, high_seq as delivered bytes, decides the end.
  uint64_t high_seq_bytes_ = 0;
  uint64_t high_mark_bytes_ = 0;
  uint32_t prior_cwnd_ = 0;
  uint64_t prr_delivered_ = 0;
  uint64_t prr_out_ = 0;
  // prr_out counts the capture's sends (CountPrrOut()), else every sndcnt
  // is taken as sent before the next ACK.
  bool prr_out_from_sends_ = false;
  uint64_t delivered_packets_ = 0;
  uint64_t delivered_ce_packets_ = 0;
  uint64_t bytes_in_flight_ = 0;
  int64_t now_us_ = 0;
  int64_t srtt_us_ = 0;
  RoundTracker rounds_;
  int64_t rounds_outside_slow_start_ = 0;
  // tp->undo_marker (snd_una when the episode began; unset: no undo
  // possible), tp->undo_retrans (-1: none sent yet), tp->retrans_stamp
  // (TSval of the first retransmission since Open; 0: none) and
  // tp->prior_ssthresh (0: nothing to restore).
  std::optional<uint64_t> undo_marker_bytes_;
  int64_t undo_retrans_ = 0;
  std::optional<uint32_t> retrans_stamp_;
  uint32_t prior_ssthresh_ = 0;
  // tp->retrans_out after the last ACK, and whether it fed back CE.
  int64_t retrans_out_packets_ = 0;
  bool last_ce_feedback_ = false;
  bool retransmits_reported_ = false;  // OnRetransmit() was called.
  UndoCounts undo_counts_;
};

}  // namespace ccreplay

#endif  // CCREPLAY_CC_LINUX_TCP_SENDER_H_
