#include "cc/linux_tcp_sender.h"

#include <algorithm>

namespace ccreplay {

LinuxTcpSender::LinuxTcpSender(const ControllerOptions& options)
    : snd_cwnd_(options.initial_window_segments),
      options_(options),
      mss_bytes_(options.mss_bytes) {}

void LinuxTcpSender::OnAck(const AckEvent& ack) {
  before_growth_.reset();
  prr_out_from_sends_ = CountPrrOut(ack);
  prior_snd_una_bytes_ = snd_una_bytes_;
  ValidateCwnd(ack);
  now_us_ = ack.time_us;
  if (ack.mss_bytes > 0) mss_bytes_ = ack.mss_bytes;
  if (ack.srtt_us > 0) srtt_us_ = ack.srtt_us;
  bytes_in_flight_ = ack.bytes_in_flight;
  const auto acked = static_cast<uint32_t>(PacketsDelivered(ack, mss_bytes_));
  const auto ce = static_cast<uint32_t>(PacketsCe(ack, mss_bytes_));
  delivered_packets_ += acked;
  delivered_ce_packets_ += ce;
  if (rounds_.OnAck(ack.bytes_acked)) {
    if (!InSlowStart()) ++rounds_outside_slow_start_;
    rounds_.StartRound(ack.bytes_in_flight);
  }

  // tcp_ack(): tcp_sacktag_write_queue() (D-SACKs), tcp_clean_rtx_queue()
  // -> .pkts_acked, then .in_ack_event, then tcp_fastretrans_alert() (state
  // exits and undo, ECE -> CWR), then tcp_cong_control().
  // tcp_check_dsack() and tcp_sacktag_one(): a D-SACK above undo_marker
  // takes its segments off undo_retrans.
  if (ack.packets_dsacked > 0 && undo_marker_bytes_.has_value() &&
      undo_retrans_ > 0 && ack.dsack_end_bytes > *undo_marker_bytes_) {
    undo_retrans_ = std::max<int64_t>(
        0, undo_retrans_ - static_cast<int64_t>(ack.packets_dsacked));
  }
  retrans_out_packets_ = static_cast<int64_t>(
      (ack.bytes_retransmitted_in_flight + mss_bytes_ - 1) /
      std::max<uint32_t>(mss_bytes_, 1));
  if (ack.ModuleRttUs() > 0) PktsAcked(ack);
  InAckEvent(ack);
  ProcessCaState(ack);
  last_ce_feedback_ = HasCeFeedback(ack);
  if (HasCeFeedback(ack) && ca_state_ == CaState::kOpen) EnterCwr();
  EnterRecoveryOnLostMarks(ack);

  if (HasCongControl()) {
    CongControl(ack, acked, ce);
  } else if (ca_state_ == CaState::kCwr || ca_state_ == CaState::kRecovery) {
    CwndReduction(acked, ack.data_acked, packets_in_flight());
  } else if (acked > 0 && IsCwndLimited(ack) && MayRaiseCwnd(ack)) {
    // tcp_cong_control(): tcp_may_raise_cwnd(), then the module's
    // tcp_is_cwnd_limited() check.
    before_growth_ = {snd_cwnd_, snd_cwnd_cnt_};
    CongAvoid(ack, acked);
  }
  last_acked_ = acked;
  last_data_acked_ = ack.data_acked;
}

void LinuxTcpSender::ValidateCwnd(const AckEvent& ack) {
  if (ack.snd_nxt_bytes == 0) return;
  const uint64_t mss = std::max<uint32_t>(mss_bytes_, 1);
  // The sends since the previous ACK, summarized by the last one (packets
  // out and in flight only grow between ACKs): snd_nxt then, in flight
  // then (what is in flight after this ACK plus what it delivered), and
  // tcp_write_xmit()'s is_cwnd_limited |= in_flight >= cwnd. A
  // retransmission counts as a send: tcp_ack() retransmits
  // (tcp_xmit_recovery()) and then tcp_data_snd_check() runs
  // tcp_write_xmit() on what is queued, so a bulk sender that retransmits
  // into a full window is found cwnd-limited. The DCTCP receive-window
  // bundle (40 ms, 100 Mbit/s, paced): 130 out of cwnd 565, Recovery cuts
  // to 126, one retransmission, undone on the next ACK to 571; the kernel
  // then grows to 692 in one round trip (is_cwnd_limited held until
  // cwnd_usage_seq is acked), where the model, which saw no send, held 561.
  const bool sent =
      ack.snd_nxt_bytes > snd_nxt_bytes_ || ack.bytes_retransmitted_before > 0;
  const uint64_t in_flight =
      (ack.bytes_in_flight + ack.bytes_acked + mss - 1) / mss;
  const bool window_full = in_flight >= snd_cwnd_;
  // tcp_write_xmit() tests the window only with data in the send queue
  // (tcp_push_pending_frames() calls it only with a tcp_send_head()). A
  // sender whose last sends stopped short of its window had none left;
  // until it sends again, a window full only because cwnd fell (a
  // reduction undone before anything was sent) is no window it failed to
  // fill. The DCTCP 10 ms paced VM bundle: cwnd 90, 28 out, Recovery to 27
  // and undone 0.3 ms later; the kernel holds 90 until 48 are out.
  if (sent) send_queue_drained_ = !window_full;
  const bool limited = (window_full && (sent || !send_queue_drained_)) ||
                       (!options_.cwnd_limit_from_flight && ack.cwnd_limited);
  // Before the first ACK, snd_una was where this ACK started.
  const uint64_t snd_una =
      snd_una_bytes_ > 0
          ? snd_una_bytes_
          : ack.snd_una_bytes - std::min(ack.bytes_acked, ack.snd_una_bytes);
  if (sent || limited) {
    const auto packets_out =
        static_cast<uint32_t>((ack.snd_nxt_bytes - snd_una + mss - 1) / mss);
    // tcp_cwnd_validate() (tcp_output.c, 6.18).
    if (snd_una >= cwnd_usage_seq_ || limited ||
        (!is_cwnd_limited_ && packets_out > max_packets_out_)) {
      is_cwnd_limited_ = limited;
      max_packets_out_ = packets_out;
      cwnd_usage_seq_ = ack.snd_nxt_bytes;
    }
  }
  snd_una_bytes_ = ack.snd_una_bytes;
  snd_nxt_bytes_ = ack.snd_nxt_bytes;
}

bool LinuxTcpSender::CountPrrOut(const AckEvent& ack) {
  if (ack.snd_nxt_bytes == 0 || snd_nxt_bytes_ == 0) return false;
  if (ca_state_ != CaState::kCwr && ca_state_ != CaState::kRecovery) {
    return true;
  }
  // tcp_write_xmit() and tcp_xmit_retransmit_queue() add what they send to
  // prr_out during a reduction (tcp_output.c, 6.18). Between ACKs the
  // sender sent what the previous one allowed, or less when ACKs came
  // faster than it could send (several in one softirq): then sndcnt is
  // larger on the next ACK, and cwnd (in flight + sndcnt) with it.
  const uint64_t mss = std::max<uint32_t>(mss_bytes_, 1);
  const uint64_t new_bytes = ack.snd_nxt_bytes > snd_nxt_bytes_
                                 ? ack.snd_nxt_bytes - snd_nxt_bytes_
                                 : 0;
  prr_out_ += (new_bytes + mss - 1) / mss +
              (ack.bytes_retransmitted_before + mss - 1) / mss;
  return true;
}

// net.ipv4.tcp_reordering's default (Documentation/networking/ip-sysctl.rst,
// 6.18), the initial tp->reordering; tcp_max_reordering caps raises.
constexpr uint32_t kSysctlTcpReordering = 3;
constexpr uint32_t kSysctlTcpMaxReordering = 300;

bool LinuxTcpSender::MayRaiseCwnd(const AckEvent& ack) const {
  // tcp_may_raise_cwnd() (tcp_input.c, 6.18): "If reordering is high then
  // always grow cwnd whenever data is delivered regardless of its
  // ordering" (FLAG_FORWARD_PROGRESS: the caller's acked > 0), else only
  // on FLAG_DATA_ACKED (snd_una moved over data).
  const uint32_t reordering = std::max(ack.reordering_segments, ts_reordering_);
  return ack.data_acked || reordering > kSysctlTcpReordering;
}

void LinuxTcpSender::CheckTsReordering(const AckEvent& ack) {
  // tcp_check_sack_reordering(sk, prior_snd_una, 1) (tcp_input.c, 6.18):
  // metric = fack - low_seq, fack = tcp_highest_sack_seq(); tp->reordering
  // rises to it (in segments, rounded up) when above tp->reordering * mss.
  if (ack.highest_sack_bytes == 0 || prior_snd_una_bytes_ == 0 ||
      ack.highest_sack_bytes <= prior_snd_una_bytes_) {
    return;
  }
  const uint64_t mss = std::max<uint32_t>(mss_bytes_, 1);
  const uint64_t metric = ack.highest_sack_bytes - prior_snd_una_bytes_;
  const uint32_t reordering =
      std::max({ack.reordering_segments, ts_reordering_, kSysctlTcpReordering});
  if (metric > uint64_t{reordering} * mss) {
    ts_reordering_ = static_cast<uint32_t>(
        std::min<uint64_t>((metric + mss - 1) / mss, kSysctlTcpMaxReordering));
  }
}

void LinuxTcpSender::SetHighSeq() {
  // tp->high_seq = tp->snd_nxt (tcp_init_cwnd_reduction(),
  // tcp_enter_recovery(), tcp_enter_loss()).
  high_mark_bytes_ = delivered_bytes() + bytes_in_flight_;
  high_seq_bytes_ = snd_nxt_bytes_;
}

bool LinuxTcpSender::ReachedHighSeq(const AckEvent& ack, bool beyond) const {
  if (high_seq_bytes_ == 0 || ack.snd_una_bytes == 0) {
    const uint64_t delivered = delivered_bytes();
    return beyond ? delivered > high_mark_bytes_
                  : delivered >= high_mark_bytes_;
  }
  return beyond ? ack.snd_una_bytes > high_seq_bytes_
                : ack.snd_una_bytes >= high_seq_bytes_;
}

bool LinuxTcpSender::IsCwndLimited(const AckEvent& ack) const {
  if (ack.snd_nxt_bytes == 0) return ack.cwnd_limited;
  // tcp_is_cwnd_limited() (include/net/tcp.h, 6.18): "If in slow start,
  // ensure cwnd grows to twice what was ACKed."
  if (is_cwnd_limited_) return true;
  return InSlowStart() && snd_cwnd_ < 2 * max_packets_out_;
}

void LinuxTcpSender::InitCwndReduction() {
  // tcp_init_cwnd_reduction().
  SetHighSeq();
  snd_cwnd_cnt_ = 0;
  prior_cwnd_ = snd_cwnd_;
  prr_delivered_ = 0;
  prr_out_ = 0;
  snd_ssthresh_ = Ssthresh();
}

void LinuxTcpSender::EnterCwr() {
  // tcp_enter_cwr().
  InitCwndReduction();
  SetState(CaState::kCwr);
  ca_state_ = CaState::kCwr;
}

// long: tcp_fastretrans_alert()'s per-state steps, in its order, so that
// each reads as the kernel's switch does.
void LinuxTcpSender::ProcessCaState(const AckEvent& ack) {
  switch (ca_state_) {
    case CaState::kOpen:
      break;
    case CaState::kCwr:
      // "CWR is to be held something *above* high_seq is ACKed".
      if (!ReachedHighSeq(ack, /*beyond=*/true)) return;
      EndReduction();
      break;
    case CaState::kRecovery:
      if (ReachedHighSeq(ack, /*beyond=*/false)) {
        if (TryUndoRecovery(ack)) {
          ++undo_counts_.full;
          ReturnToOpen();
        } else {
          EndReduction();
        }
        break;
      }
      if (ack.data_acked && TryUndoPartial(ack)) return;
      if (TryUndoDsack()) ReturnToOpen();  // tcp_try_to_open()
      return;
    case CaState::kLoss:
      // tcp_process_loss(), without F-RTO.
      if (ack.data_acked && TryUndoLoss(ack)) return;
      if (!ReachedHighSeq(ack, /*beyond=*/false)) return;
      if (TryUndoRecovery(ack)) ++undo_counts_.loss;
      ReturnToOpen();
      break;
  }
  // Open (or Disorder): a D-SACK may still show the last episode spurious.
  TryUndoDsack();
  // tcp_try_to_open(): no retransmission left, no stamp.
  if (retrans_out_packets_ == 0) retrans_stamp_.reset();
}

void LinuxTcpSender::EndReduction() {
  if (ca_state_ != CaState::kLoss && !HasCongControl() &&
      snd_ssthresh_ < kInfiniteSsthreshSegments) {
    snd_cwnd_ = snd_ssthresh_;  // tcp_end_cwnd_reduction()
  }
  ReturnToOpen();
}

void LinuxTcpSender::ReturnToOpen() {
  SetState(CaState::kOpen);
  ca_state_ = CaState::kOpen;
}

bool LinuxTcpSender::PacketDelayed(const AckEvent& ack) const {
  // tcp_packet_delayed() (tcp_input.c, 6.18): an echoed timestamp before
  // the first retransmission (tcp_tsopt_ecr_before(): a TSecr of 0 is
  // none); with no retransmission yet, the hole was filled by the
  // original (SACK connections).
  if (!retrans_stamp_.has_value()) return true;
  return ack.ts_ecr != 0 &&
         static_cast<int32_t>(ack.ts_ecr - *retrans_stamp_) < 0;
}

bool LinuxTcpSender::UndoMarked() const {
  // A source that reports no retransmission (OnRetransmit(): the simulator)
  // gives no evidence either way: no undo.
  return undo_marker_bytes_.has_value() && retransmits_reported_;
}

bool LinuxTcpSender::MayUndo(const AckEvent& ack) const {
  // tcp_may_undo().
  return UndoMarked() && (undo_retrans_ == 0 || PacketDelayed(ack));
}

bool LinuxTcpSender::UndoCwndReduction() {
  // tcp_undo_cwnd_reduction().
  const std::optional<uint32_t> cwnd = UndoCwnd();
  if (!cwnd.has_value()) return false;
  if (prior_ssthresh_ > 0) {
    snd_cwnd_ = *cwnd;
    snd_ssthresh_ = std::max(snd_ssthresh_, prior_ssthresh_);
  }
  undo_marker_bytes_.reset();
  return true;
}

bool LinuxTcpSender::TryUndoRecovery(const AckEvent& ack) {
  // tcp_try_undo_recovery(): "Happy end!"; the caller counts it (Full or
  // Loss undo) and returns to Open.
  return MayUndo(ack) && UndoCwndReduction();
}

bool LinuxTcpSender::TryUndoDsack() {
  // tcp_try_undo_dsack(): D-SACKs covered every retransmission.
  if (!UndoMarked() || undo_retrans_ != 0) return false;
  if (!UndoCwndReduction()) return false;
  ++undo_counts_.dsack;
  return true;
}

bool LinuxTcpSender::TryUndoPartial(const AckEvent& ack) {
  // tcp_try_undo_partial(): "Plain luck! Hole if filled with delayed
  // packet, rather than with a retransmit"; undone only once no
  // retransmission is in flight.
  if (!UndoMarked() || !PacketDelayed(ack)) return false;
  CheckTsReordering(ack);
  if (retrans_out_packets_ > 0) return true;
  if (!UndoCwndReduction()) return false;
  ++undo_counts_.partial;
  ReturnToOpen();  // tcp_try_keep_open()
  return true;
}

bool LinuxTcpSender::TryUndoLoss(const AckEvent& ack) {
  // tcp_try_undo_loss() without F-RTO.
  if (!MayUndo(ack) || !UndoCwndReduction()) return false;
  ++undo_counts_.loss;
  ReturnToOpen();
  return true;
}

void LinuxTcpSender::InitUndo(uint32_t prior_ssthresh) {
  // tcp_init_undo(): "undo_retrans==0 means 'can undo now'", so -1 when
  // no retransmission is in flight; tcp_retrans_stamp_cleanup().
  prior_ssthresh_ = prior_ssthresh;
  undo_marker_bytes_ = snd_una_bytes_;
  undo_retrans_ = retrans_out_packets_ > 0 ? retrans_out_packets_ : -1;
  if (retrans_out_packets_ == 0) retrans_stamp_.reset();
}

uint32_t LinuxTcpSender::CurrentSsthresh() const {
  // tcp_current_ssthresh() outside a reduction.
  return std::max(snd_ssthresh_, (snd_cwnd_ >> 1) + (snd_cwnd_ >> 2));
}

void LinuxTcpSender::OnRetransmit(const RetransmitEvent& retransmit) {
  // tcp_retransmit_skb(): "Save stamp of the first (attempted)
  // retransmit", and count it for undo.
  retransmits_reported_ = true;
  if (!retrans_stamp_.has_value()) retrans_stamp_ = retransmit.ts_val;
  if (undo_retrans_ < 0) undo_retrans_ = 0;
  undo_retrans_ += retransmit.packets;
}

void LinuxTcpSender::CwndReduction(uint32_t acked, bool una_advanced,
                                   uint64_t in_flight) {
  // tcp_cwnd_reduction() (tcp_input.c, 6.18; RFC 6937 PRR): while more
  // than ssthresh is in flight, send ssthresh/prior_cwnd of what is
  // delivered (PRR-SSRB's proportional part); below it, as much as is
  // delivered (+1 when snd_una advanced), up to ssthresh. newly_lost is
  // taken as 0. prr_out counts what the capture shows sent since the
  // reduction began (CountPrrOut()); without sequence state, a bulk sender
  // is taken to send all of sndcnt before the next ACK.
  if (acked == 0 || prior_cwnd_ == 0) return;
  prr_delivered_ += acked;
  const int64_t delta =
      int64_t{snd_ssthresh_} - static_cast<int64_t>(in_flight);
  int64_t sndcnt = 0;
  if (delta < 0) {
    const uint64_t dividend =
        uint64_t{snd_ssthresh_} * prr_delivered_ + prior_cwnd_ - 1;
    sndcnt = static_cast<int64_t>(dividend / prior_cwnd_) -
             static_cast<int64_t>(prr_out_);
  } else {
    sndcnt = std::max<int64_t>(
        static_cast<int64_t>(prr_delivered_) - static_cast<int64_t>(prr_out_),
        acked);
    if (una_advanced) ++sndcnt;
    sndcnt = std::min(delta, sndcnt);
  }
  // "Force a fast retransmit upon entering fast recovery".
  sndcnt = std::max<int64_t>(sndcnt, prr_out_ > 0 ? 0 : 1);
  snd_cwnd_ = static_cast<uint32_t>(
      std::max<int64_t>(static_cast<int64_t>(in_flight) + sndcnt, 1));
  if (!prr_out_from_sends_) {
    prr_out_ += static_cast<uint64_t>(std::max<int64_t>(sndcnt, 0));
  }
}

void LinuxTcpSender::EnterRecoveryOnLostMarks(const AckEvent& ack) {
  // tcp_fastretrans_alert(): in Open or CWR, tcp_time_to_recover() is
  // true once any segment is marked lost (tp->lost_out, "the loss is
  // proven"; a RACK sender marks only by RACK, tcp_identify_packet_loss()),
  // so the ACK that marks it enters Recovery, before any retransmission
  // (tcp_input.c, 6.18). A reordered segment marked lost puts the kernel
  // in Recovery that timestamps then undo, with nothing retransmitted. The
  // retransmission the capture shows later finds the model in Recovery
  // already (OnLoss()). Only where the source shows retransmissions (a
  // capture): the simulator's senders report their losses themselves.
  if (!ack.retransmissions_visible) return;
  retransmits_reported_ = true;
  if (ack.packets_rack_lost > 0 && !HasCongControl() &&
      (ca_state_ == CaState::kOpen || ca_state_ == CaState::kCwr)) {
    EnterRecovery(last_ce_feedback_);
  }
}

void LinuxTcpSender::EnterRecovery(bool ece_ack) {
  // tcp_enter_recovery(): prior_ssthresh unless the ACK carried ECE; a
  // reduction already running in CWR continues.
  if (ca_state_ == CaState::kOpen) {
    InitUndo(ece_ack ? 0 : CurrentSsthresh());
    InitCwndReduction();
  } else {
    InitUndo(0);
    SetHighSeq();
  }
  SetState(CaState::kRecovery);
  ca_state_ = CaState::kRecovery;
}

void LinuxTcpSender::OnLoss(const LossEvent& loss) {
  now_us_ = loss.time_us;
  const uint64_t in_flight_after_ack = packets_in_flight();
  if (loss.bytes_in_flight > 0) bytes_in_flight_ = loss.bytes_in_flight;
  if (loss.kind == LossEvent::Kind::kFastRetransmit) {
    // tcp_enter_recovery(): the reduction already running in CWR continues.
    if (ca_state_ == CaState::kRecovery || ca_state_ == CaState::kLoss) return;
    // A .cong_control module (BBR) runs after tcp_fastretrans_alert(): it
    // sees Recovery before and after an ACK that ended and re-entered it,
    // no new episode (bbr_set_cwnd_to_recover_or_restore() compares
    // prev_ca_state). Not modelled: that the model left Recovery on it.
    if (loss.reenters_recovery && HasCongControl()) return;
    // The kernel enters Recovery on the ACK that reveals the loss
    // (tcp_fastretrans_alert() runs before tcp_cong_control() in tcp_ack()),
    // so that ACK did not grow cwnd but already ran the reduction; the
    // timeline reports the retransmission after it.
    const bool was_open = ca_state_ == CaState::kOpen;
    if (was_open && before_growth_.has_value()) {
      snd_cwnd_ = before_growth_->cwnd;
      snd_cwnd_cnt_ = before_growth_->cnt;
    }
    EnterRecovery(last_ce_feedback_);
    if (was_open) {
      ReduceOnRecoveryEntry(last_acked_, last_data_acked_, in_flight_after_ack);
    }
    before_growth_.reset();
    return;
  }
  // tcp_enter_loss(): ssthresh is recomputed unless a reduction is running.
  if (ca_state_ == CaState::kOpen) {
    InitUndo(CurrentSsthresh());
    prior_cwnd_ = snd_cwnd_;
    snd_ssthresh_ = Ssthresh();
    OnCaEventLoss();
  }
  snd_cwnd_ = 1;  // packets_in_flight + 1 once everything is marked lost
  snd_cwnd_cnt_ = 0;
  SetHighSeq();
  high_seq_bytes_ = 0;  // snd_nxt at the timeout is not known: delivery decides
  if (ca_state_ != CaState::kLoss) SetState(CaState::kLoss);
  ca_state_ = CaState::kLoss;
}

void LinuxTcpSender::OnPacketSent(const PacketSentEvent& sent) {
  now_us_ = sent.time_us;
  bytes_in_flight_ = sent.bytes_in_flight;
}

void LinuxTcpSender::OnIdleRestart(const IdleRestartEvent& idle) {
  now_us_ = idle.time_us;
  if (idle.rto_us > 0 && idle.idle_us > idle.rto_us) {
    // tcp_cwnd_restart(), with tcp_current_ssthresh().
    if (ca_state_ != CaState::kCwr && ca_state_ != CaState::kRecovery) {
      snd_ssthresh_ =
          std::max(snd_ssthresh_, (snd_cwnd_ >> 1) + (snd_cwnd_ >> 2));
    }
    const uint32_t restart_cwnd =
        std::min(options_.initial_window_segments, snd_cwnd_);
    uint32_t cwnd = snd_cwnd_;
    int64_t delta_us = idle.idle_us;
    while ((delta_us -= idle.rto_us) > 0 && cwnd > restart_cwnd) cwnd >>= 1;
    snd_cwnd_ = std::max(cwnd, restart_cwnd);
  }
  OnTxStart(idle);
}

uint32_t LinuxTcpSender::SlowStart(uint32_t acked) {
  const uint32_t cwnd = std::min(snd_cwnd_ + acked, snd_ssthresh_);
  acked -= cwnd - snd_cwnd_;
  snd_cwnd_ = cwnd;
  return acked;
}

void LinuxTcpSender::CongAvoidAi(uint32_t w, uint32_t acked) {
  const uint64_t growth_bytes =
      options_.normalize_bytes > 0 ? options_.normalize_bytes : mss_bytes_;
  const uint64_t w_units = uint64_t{w} * mss_bytes_;
  // "If credits accumulated at a higher w, apply them gently now."
  if (snd_cwnd_cnt_ >= w_units) {
    snd_cwnd_cnt_ = 0;
    ++snd_cwnd_;
  }
  snd_cwnd_cnt_ += uint64_t{acked} * growth_bytes;
  if (snd_cwnd_cnt_ >= w_units) {
    const uint64_t delta = snd_cwnd_cnt_ / w_units;
    snd_cwnd_cnt_ -= delta * w_units;
    snd_cwnd_ += static_cast<uint32_t>(delta);
  }
}

void LinuxTcpSender::RenoCongAvoid(uint32_t acked) {
  if (InSlowStart()) {
    acked = SlowStart(acked);
    if (acked == 0) return;
  }
  CongAvoidAi(snd_cwnd_, acked);
}

void LinuxTcpSender::CongAvoid(const AckEvent& /*ack*/, uint32_t acked) {
  RenoCongAvoid(acked);
}

uint32_t LinuxTcpSender::RenoSsthresh() const {
  return std::max(snd_cwnd_ >> 1, 2u);
}

uint32_t LinuxTcpSender::RenoUndoCwnd() const {
  return std::max(snd_cwnd_, prior_cwnd_);
}

uint64_t LinuxTcpSender::packets_in_flight() const {
  return (bytes_in_flight_ + mss_bytes_ - 1) /
         std::max<uint32_t>(mss_bytes_, 1);
}

Phase LinuxTcpSender::PhaseForState() const {
  switch (ca_state_) {
    case CaState::kCwr:
      return Phase::kCwr;
    case CaState::kRecovery:
    case CaState::kLoss:
      return Phase::kRecovery;
    case CaState::kOpen:
      break;
  }
  return InSlowStart() ? Phase::kSlowStart : Phase::kCongestionAvoidance;
}

uint64_t LinuxTcpSender::cwnd_bytes() const {
  return uint64_t{snd_cwnd_} * mss_bytes_;
}

uint64_t LinuxTcpSender::ssthresh_bytes() const {
  if (snd_ssthresh_ >= kInfiniteSsthreshSegments) return kNoSsthreshBytes;
  return uint64_t{snd_ssthresh_} * mss_bytes_;
}

std::optional<double> LinuxTcpSender::pacing_rate_bps() const {
  // tcp_update_pacing_rate(): mss * max(cwnd, packets_out) / srtt, times
  // tcp_pacing_ss_ratio (200 %) while cwnd < ssthresh / 2, else
  // tcp_pacing_ca_ratio (120 %).
  if (srtt_us_ <= 0) return std::nullopt;
  const double ratio = snd_cwnd_ < snd_ssthresh_ / 2 ? 2.0 : 1.2;
  const double packets =
      std::max<double>(static_cast<double>(snd_cwnd_), packets_in_flight());
  return 8.0 * mss_bytes_ * packets * 1e6 / srtt_us_ * ratio;
}

ControllerState LinuxTcpSender::state() const {
  ControllerState s;
  s.phase = PhaseForState();
  s.rounds_since_slow_start = rounds_outside_slow_start_;
  return s;
}

}  // namespace ccreplay
