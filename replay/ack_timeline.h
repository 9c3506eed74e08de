// Sender reconstruction: turns a TCP flow's packets into the ACK timeline,
// what the data sender learned from every ACK it received (bytes acked
// cumulatively, SACKed and D-SACKed, an RTT sample, ECN feedback, flight
// size, receive window, what limited it) and every retransmission it made,
// classified. The timeline is the input of replay and diagnosis.
//
// The builder is a SegmentConsumer: one streaming pass over a capture.
// Events go to a sink as they happen, never held whole; memory grows with
// the flows and the data in flight, not with packets. It owns the pass's
// FlowTable, so flow indexes are the ones `ccreplay flows` prints.
#ifndef CCREPLAY_REPLAY_ACK_TIMELINE_H_
#define CCREPLAY_REPLAY_ACK_TIMELINE_H_

#include <array>
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "cc/congestion_controller.h"
#include "parsers/flow_table.h"
#include "parsers/pcap_reader.h"
#include "parsers/sequence_tracker.h"
#include "parsers/tcp_segment.h"
#include "replay/accecn_feedback.h"
#include "replay/retransmission_classifier.h"
#include "replay/rtt_estimator.h"
#include "replay/rtt_summary.h"
#include "replay/sack_scoreboard.h"
#include "replay/vantage.h"

namespace ccreplay {

// What limited the sender just before an ACK arrived.
enum class SendLimit {
  kUnknown,  // Pacing, data held behind an ACK that the capture cannot
             // attribute (window or Nagle), or nothing the capture shows.
  kCwnd,     // It sent new data after the previous ACK and then stopped
             // with data in flight and window to spare: waiting for ACKs.
  kRwnd,     // The receive window was full.
  kApp,      // Nothing in flight, or its last new segment was short of a
             // full one (FullSegmentSize) and none followed it before the
             // ACK: the application had no more to send.
};
const char* SendLimitName(SendLimit limit);  // "unknown", "cwnd", ...

struct TimelineEvent {
  enum class Type { kAck, kRetransmission };
  Type type = Type::kAck;
  uint32_t flow_index = 0;
  // The side (Flow::address) whose data this is about: in all-flows mode
  // both sides of a connection that send data have their events.
  int sender_side = 0;
  // At the sender: the capture time, shifted by the estimated one-way delay
  // to the sender when the capture was not taken there (time_estimated).
  int64_t time_ns = 0;
  bool time_estimated = false;

  // kAck: the cumulative ACK (relative sequence number, data starts at 1).
  int64_t ack = 0;
  // kAck: the same as the segment carries it (32 bits, from the ISN); what
  // a host log of the socket (tcp_probe's snd_una) names it by.
  uint32_t ack_wire = 0;
  uint64_t bytes_acked = 0;        // Newly acknowledged cumulatively.
  uint64_t bytes_sacked = 0;       // Newly SACKed.
  uint64_t bytes_dsacked = 0;      // Reported twice (D-SACK, RFC 2883).
  uint64_t packets_delivered = 0;  // Segments newly acked or SACKed.
  bool duplicate = false;          // A duplicate ACK (RFC 5681 section 2).
  bool reneged = false;            // The receiver dropped SACKed data.
  // RTT sample (0: none, e.g. Karn's rule) and the RFC 6298 state after it.
  int64_t rtt_sample_us = 0;
  // RTT of the highest segment this ACK newly SACKed that was never
  // retransmitted (0: none): what Linux hands the congestion module
  // instead when there is one (AckEvent::sack_rtt_sample_us).
  int64_t sack_rtt_sample_us = 0;
  int64_t srtt_us = 0;
  int64_t rttvar_us = 0;
  int64_t min_rtt_us = 0;
  int64_t rto_us = 0;
  // ECN feedback. `ece`: the ECE flag (RFC 3168 / DCTCP-style receivers;
  // false under AccECN, where it is part of ACE).
  bool ece = false;
  // AccECN: CE-marked packets newly reported (ACE unwrapped) and the total
  // so far; the option's byte counters, newly reported.
  uint64_t ce_packets = 0;
  uint64_t ce_packets_total = 0;
  uint64_t ce_bytes = 0;
  uint64_t ect0_bytes = 0;
  uint64_t ect1_bytes = 0;
  // This ACK told the sender of a new congestion episode: ECE, or an
  // AccECN CE increase, outside the window already reduced for.
  bool congestion_episode = false;
  // CE-marked data packets seen so far in IP headers (captures after the
  // bottleneck only; a sender-side capture sees none).
  uint64_t ip_ce_data_packets = 0;
  // Flight after the ACK: outstanding (snd_nxt - snd_una), SACKed, lost
  // and pipe (RFC 6675: unSACKed, not lost, plus retransmitted).
  uint64_t outstanding_bytes = 0;
  uint64_t sacked_bytes = 0;
  uint64_t lost_bytes = 0;
  uint64_t pipe_bytes = 0;
  // kAck: pipe just before the ACK, what the sender had in flight when it
  // took it. Not pipe_bytes + bytes_acked + bytes_sacked: a cumulative
  // advance also covers bytes SACKed or marked lost by earlier ACKs, which
  // were out of the pipe already (a reordered segment filling its hole
  // acks the later ones its SACKs had delivered).
  uint64_t pipe_before_bytes = 0;
  // Retransmitted bytes neither acknowledged nor SACKed (Linux
  // tp->retrans_out).
  uint64_t retransmitted_bytes = 0;
  // kAck: the TSecr the ACK echoes, and the end of its D-SACK block when
  // bytes_dsacked > 0 (relative sequence number). kRetransmission: the
  // TSval the segment carried. 0: no timestamps.
  uint32_t ts_ecr = 0;
  int64_t dsack_end = 0;
  uint32_t ts_val = 0;
  // kAck: the sender's estimate of the reordering degree in segments
  // after this ACK (Linux tp->reordering: net.ipv4.tcp_reordering, 3,
  // raised by tcp_check_sack_reordering() up to tcp_max_reordering, 300).
  uint32_t reordering = 0;
  // kAck: the start of the highest SACKed segment after this ACK, the
  // cumulative ACK when nothing is SACKed (Linux tcp_highest_sack_seq()).
  int64_t highest_sack = 0;
  uint64_t rwnd_bytes = 0;                // Scaled receive window of this ACK.
  SendLimit limit = SendLimit::kUnknown;  // Before the ACK.
  // kUnknown because the sender, silent since a short segment, answered
  // this ACK at once with new data: its window or Nagle's rule held it,
  // which the capture cannot tell apart. Unlike other kUnknown ACKs, no
  // evidence of a full window: replay leaves growth to the controller's
  // own cwnd-limited test (AckEvent::cwnd_limited).
  bool held_after_short = false;
  uint32_t mss_bytes = 0;                 // The sender's MSS (it can change).
  uint32_t spurious_retransmissions = 0;  // Found spurious by this ACK.
  // QUIC only (AckEvent and LossEvent have their meaning): kAck: the send
  // order of the newest packet newly acked and the delivery-rate sample;
  // kRetransmission: the packets sent before the loss was declared.
  int64_t send_order = -1;
  uint64_t delivery_rate_bytes_per_s = 0;
  // QUIC kAck: the in-flight packets newly acked (AckEvent::acked_packets).
  std::vector<AckedPacket> acked_packets;
  // QUIC: the place of the ACK frame or loss in the stack's log
  // (QuicPacketSent::log_order; 0: not recorded), which orders it against
  // the captured cwnd points logged in the same millisecond.
  uint64_t log_order = 0;
  // Before this ACK the sender resumed sending at `idle_restart_time_ns`
  // with nothing outstanding, `idle_restart_idle_us` after its previous
  // send (0: no such resumption); replay applies the restart-after-idle
  // rule (RFC 5681 section 4.1, Linux tcp_cwnd_restart()).
  int64_t idle_restart_time_ns = 0;
  int64_t idle_restart_idle_us = 0;
  // tp->app_limited was set at that send (IdleRestartEvent::app_limited).
  bool idle_restart_app_limited = false;
  // The delivery-rate sample Linux's tcp_rate.c would take at this ACK
  // (DeliveryRateEstimator); absent without a send time for what it
  // delivered.
  std::optional<DeliveryRateSample> rate_sample;
  // Segments this ACK newly made lost (RFC 6675 IsLost on its SACK blocks).
  uint64_t packets_newly_lost = 0;
  // The segments RACK makes lost on this ACK (RFC 8985; Linux
  // tcp_rack_mark_lost(), the only marking a RACK sender does,
  // tcp_identify_packet_loss(), tcp_input.c, 6.18), whether or not the RFC
  // 6675 count above marked them first: what enters Recovery.
  uint64_t packets_rack_lost = 0;
  // kAck: this ACK ended loss recovery with later data still lost, and the
  // sender entered recovery again at once
  // (RetransmissionClassifier::ReenterRecovery()).
  bool reenters_recovery = false;

  // kRetransmission: [seq_start, seq_end) sent again.
  int64_t seq_start = 0;
  int64_t seq_end = 0;
  RetransmissionKind kind = RetransmissionKind::kOther;
  bool starts_episode = false;  // First of a loss-recovery episode.
  bool retransmits_retransmission = false;
};

using TimelineSink = std::function<void(const TimelineEvent&)>;

// What `ccreplay flows` reports from the timeline, for one flow's sender.
struct TimelineStats {
  uint64_t rtt_samples = 0;
  double rtt_min_ms = 0;
  double rtt_median_ms = 0;
  double rtt_max_ms = 0;
  uint64_t retransmissions[4] = {0, 0, 0, 0};  // By RetransmissionKind.
  uint64_t spurious_retransmissions = 0;
  uint64_t ece_episodes = 0;
  std::optional<uint64_t> ce_fed_back_packets;  // AccECN only.
  uint64_t ip_ce_data_packets = 0;
  uint64_t bytes_acked = 0;  // Cumulatively acknowledged at the end.
  uint64_t acks = 0;
  Vantage vantage = Vantage::kUnknown;
  // Whether the flight above (and any cwnd-limited share) is the
  // sender's own, estimated, or not known; and how, in a sentence.
  SenderWindow sender_window = SenderWindow::kUnobservable;
  std::string sender_window_reason;
  // VantageDetector::Revision(): empty when the handshake's timing alone
  // gives `vantage`.
  std::string vantage_note;
  std::vector<std::string> warnings;
};

class AckTimelineBuilder : public SegmentConsumer {
 public:
  // All flows: statistics for every flow, events to `sink` (may be null).
  explicit AckTimelineBuilder(TimelineSink sink = nullptr);
  // One flow: `flow_index` as `ccreplay flows` numbers it, whose data
  // sender is `sender_side` (Flow::sender_side() of a first pass).
  AckTimelineBuilder(uint32_t flow_index, int sender_side, TimelineSink sink);
  ~AckTimelineBuilder() override;
  // One flow: the selected flow's record from a first pass over the same
  // capture, whose echo times (EchoTimes) place the capture point from
  // the handshake on (VantageDetector::SetEchoTimes). Without it they do
  // only in Stats(), after the pass.
  void UseFirstPass(const Flow& scanned);

  void OnSegment(const TcpSegment& segment) override;
  // Counted in the flow table only: a copy is no event of the flow.
  void OnDuplicateFrame(const TcpSegment& segment) override {
    table_.OnDuplicateFrame(segment);
  }
  // The reader's state, in the flow table's records.
  ConnectionSanity* HeldSanity(const TcpSegment& segment, int* side) override {
    return table_.HeldSanity(segment, side);
  }
  void Restart() override;
  // Frees flow `index`'s state (FlowTable::Forget, and its scoreboards and
  // held ACKs, dropped unemitted): a later segment of its endpoints starts
  // a new flow.
  void Forget(uint32_t index);
  // Flows with timeline state: those with a second segment not forgotten.
  size_t flows_with_state() const { return flows_with_state_; }
  // After the last segment: hands out the ACKs still held (AckHold) of
  // downstream captures. Call once the reader is done, before Stats().
  void Finish();

  const FlowTable& flow_table() const { return table_; }
  // The table's records, moved out (FlowTable::TakeFlows): after
  // Finish(), for a consumer done with the pass.
  std::unique_ptr<std::deque<Flow>> TakeFlows() { return table_.TakeFlows(); }
  // Frees the flow's state, here and in the table (ReleaseTraffic), for a
  // one-pass consumer done with a flow that ended: events still held for
  // it (AckHold) are dropped, ACK events waiting on what the sender sends
  // next are emitted application-limited; a later segment starts it again
  // as after its SYN.
  void ReleaseFlow(uint32_t flow_index);
  // Emits the flow's ACK events that wait on what its sender sends next
  // (application-limited: nothing followed), for a consumer that closes
  // its record of the flow before the flow's next segment.
  void EmitHeldAppAcks(uint32_t flow_index);
  // The flow's figures, its sender taken as Flow::sender_side().
  TimelineStats Stats(uint32_t flow_index) const;

 private:
  struct Direction;
  struct FlowState;

  // `s` carries payload or a FIN.
  void OnData(FlowState& flow, int side, const TcpSegment& s);
  // The steps of OnData, in the order a data segment meets them.
  // `side`'s data, first seen in `s`: sequence numbers start at the ISN
  // and the MSS at the handshake's.
  static std::unique_ptr<Direction> NewDirection(const FlowState& flow,
                                                 int side, const TcpSegment& s);
  // Records the segment's TSval; true when it is older than one already
  // sent (the packet was reordered before the capture, not resent).
  static bool TakeTimestamp(Direction& d, bool has_ts, uint32_t ts_val);
  // A departure at `send_ns`: new data from a write that found the send
  // queue drained marks an application-limited bubble
  // (tcp_rate_check_app_limited()).
  static void MarkWriteAfterBubble(Direction& d, int64_t send_ns,
                                   bool new_data);
  // [start, end) sent at `send_ns` (sender's clock): the scoreboard, a hole
  // before it, a send from idle and the MSS.
  static SackScoreboard::SendResult RecordSend(FlowState& flow, Direction& d,
                                               const TcpSegment& s,
                                               int64_t start, int64_t end,
                                               int64_t send_ns,
                                               uint32_t ts_val);
  // [start, end) was sent again: classified, counted, and emitted.
  void OnRetransmission(const FlowState& flow, int side, Direction& d,
                        const TcpSegment& s, int64_t start, int64_t end,
                        int64_t send_ns, uint64_t outstanding_before,
                        const SackScoreboard::SendResult& sent);
  // `s` is an ACK, not a SYN, and the other side's data is tracked
  // (FlowState::direction[1 - side] is set).
  // `ack_ns`: the ACK's time at the sender (estimated downstream).
  void OnAckFrom(FlowState& flow, int side, const TcpSegment& s,
                 bool handshake_ack, int64_t ack_ns);
  // The steps of OnAckFrom, in the order an ACK meets them.
  // The cumulative ACK, unwrapped (a FIN's counted as its sequence number),
  // and counted for the capture's artefacts.
  static int64_t CountAck(Direction& d, const TcpSegment& s);
  // The ACK and its SACK blocks applied to the scoreboard.
  static SackScoreboard::AckResult ApplyAck(Direction& d, const TcpSegment& s,
                                            int64_t ack, uint32_t mss,
                                            int64_t ack_ns);
  // The receive window the ACK advertises, scaled.
  static void TakeWindow(const FlowState& flow, int side, Direction& d,
                         const TcpSegment& s);
  // Retransmissions the ACK shows were spurious (D-SACK, or the timestamp
  // echo of a cumulative ACK), counted in d.spurious.
  static int CountSpurious(Direction& d, const SackScoreboard::AckResult& r,
                           bool advanced, const TcpSegment& s);
  // After an ACK that advanced snd_una from `old_una` with timestamps: in
  // a recovery episode, an echo from before its first retransmission is
  // reordering (tcp_try_undo_partial()), taken before RACK runs.
  static void TakeDelayedOriginal(Direction& d, int64_t old_una,
                                  const TcpSegment& s, uint32_t mss);
  // tp->reordering raised from a reordering metric in bytes: an ACK's
  // SACKs (AckResult::reordering_bytes) or a partial undo's
  // (tcp_check_sack_reordering()); returns the degree in segments.
  static uint32_t TakeReordering(Direction& d, uint64_t reordering_bytes,
                                 uint32_t mss);
  // RACK's reordering window after `r` (Direction::reo_wnd_steps): a
  // D-SACK widens it by min_rtt / 4 once a round trip; `in_recovery` as
  // for MarkLosses().
  static void UpdateReoWnd(Direction& d, const SackScoreboard::AckResult& r,
                           bool in_recovery);
  // The window (UpdateReoWnd()), the ACK's reordering (TakeReordering()),
  // then the segments RACK marks
  // lost on it (SackScoreboard::RackDetectLoss()) with the sender's
  // reordering window; returns the bytes the ACK newly made lost, the
  // scoreboard's RFC 6675 marks and Direction::lost_by_retransmission_bytes
  // included (taken). `in_recovery`: the sender is in
  // Recovery or Loss when it looks: tcp_fastretrans_alert() leaves
  // Recovery before it looks for losses, and enters it again after
  // (tcp_input.c, 6.18).
  static uint64_t MarkLosses(Direction& d, const SackScoreboard::AckResult& r,
                             bool in_recovery, uint32_t mss);
  // The RTT sample the ACK gives (0: none), added to the estimators.
  static int64_t TakeRttSample(Direction& d, const TcpSegment& s,
                               const SackScoreboard::AckResult& r,
                               int64_t ack_ns);
  // ECN feedback: ECE or AccECN counters, a new congestion episode; sets
  // the event's ECN fields.
  static void TakeEcnFeedback(const FlowState& flow, Direction& d,
                              const TcpSegment& s,
                              const SackScoreboard::AckResult& r,
                              bool handshake_ack, bool duplicate,
                              TimelineEvent& e);
  // The ACK event's time, acknowledgement, RTT state, flight, window and a
  // pending restart after idle (taken).
  static void FillAckEvent(const FlowState& flow, int sender, Direction& d,
                           const SackScoreboard::AckResult& r, int64_t ack_ns,
                           TimelineEvent& e);
  // Linux's socket backlog: true when `s`, a pure ACK of `side`, is
  // queued (Direction::backlog) until the sender's segments show it taken:
  // the initial window's last one, or one whose echo is not older than its
  // TSval; otherwise it ends the backlog.
  bool BacklogTakes(FlowState& flow, int side, const TcpSegment& s);
  static int64_t InitialWindowEnd(const Direction& d);
  // Before `s`: anything but the writing sender's next segment ends its
  // write; after `side`'s data: the initial window out ends it.
  void EndBurst(FlowState& flow, int side, const TcpSegment& s);
  void EndBurstAtWindow(FlowState& flow, int side);
  // Marks late every backlogged ACK whose TSval is after `ts_ecr`, the
  // echo of the sender's latest segment (the sender has not taken it);
  // true when the first is.
  static bool MarkUntaken(Direction& d, uint32_t ts_ecr);
  // Takes the backlogged ACKs of `sender`'s data, coalesced as the kernel
  // does, at its last departure; no more backlog after.
  void ReleaseBacklog(FlowState& flow, int sender);
  // Before `s` is taken: emits the held ACK events (AckHold) that the
  // sender had seen by then.
  void ReleaseHeldAcks(FlowState& flow, int side, const TcpSegment& s);
  // The oldest held ACK event of `sender`'s data: its flight gains the
  // data sent since it was captured; its limit is decided; emitted.
  void ReleaseAck(FlowState& flow, int sender);
  // What limited the sender before an ACK, with `outstanding`
  // bytes in flight (SendLimit); kUnknown when the vantage is. Starts the
  // next interval.
  static SendLimit DecideLimit(const FlowState& flow, Direction& d,
                               uint64_t outstanding, uint32_t mss);
  // Emits an ACK event, or holds it while its kApp limit rests on a short
  // segment alone (Direction::app_pending).
  void EmitAck(const FlowState& flow, int sender, TimelineEvent& event);
  // Emits the held ACK event of `sender`'s data, if any, before what comes
  // next: `new_data` sent at `send_ns` (sender's clock) at once after it
  // makes it kCwnd.
  void ResolvePendingApp(const FlowState& flow, int sender, bool new_data,
                         int64_t send_ns);
  static SendLimit LimitBefore(const Direction& d, uint64_t outstanding,
                               uint32_t mss);
  void OnHandshake(FlowState& flow, int side, const TcpSegment& s);
  // The state of the flow of the segment just given to the table (nullptr:
  // none is kept, see the definition); `new_flow`: the segment started it.
  FlowState* StateFor(const TcpSegment& s, bool new_flow);
  // `flow` as OnHandshake leaves it after the table's flow's first segment,
  // a SYN alone.
  static void StartFromSyn(const Flow& table_flow, FlowState& flow);
  static TimelineStats StatsOf(const FlowState& flow, const Flow& table_flow);
  bool Tracked(const FlowState& flow, int sender_side) const;
  // Frees the scoreboards of a flow closed both ways with nothing
  // outstanding; its statistics stay.
  static void ReleaseIfClosed(FlowState& flow, const Flow& table_flow);
  // The MSS `side` sends with from the handshake: the peer's option (with
  // `own_option`, the smaller of both) less the timestamps option; 0 when
  // the peer's SYN was not seen.
  static uint32_t HandshakeMss(const FlowState& flow, int side,
                               bool own_option);
  static void TrackMss(Direction& d, uint32_t payload_bytes,
                       bool behind_data_in_flight);
  // A new segment of `payload_bytes` left at `send_ns`: the previous one,
  // when this followed it at once, was full (FullSegmentSize); this one is
  // short or not.
  static void TakeNewSegment(Direction& d, uint32_t payload_bytes,
                             int64_t send_ns);
  static void StartReduction(const FlowState& flow, Direction& d);
  void Emit(const FlowState& flow, int sender, TimelineEvent& event) const;

  TimelineSink sink_;
  bool one_flow_ = false;
  uint32_t selected_flow_ = 0;
  int selected_sender_ = 0;
  // UseFirstPass()'s echo times, by the table's side.
  std::optional<std::array<EchoTimes, 2>> first_pass_echoes_;
  FlowTable table_;
  std::vector<std::unique_ptr<FlowState>> flows_;
  size_t flows_with_state_ = 0;  // Non-null flows_.
};

}  // namespace ccreplay

#endif  // CCREPLAY_REPLAY_ACK_TIMELINE_H_
