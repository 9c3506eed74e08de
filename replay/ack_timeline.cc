#include "replay/ack_timeline.h"

#include <algorithm>
#include <deque>
#include <utility>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "replay/full_segment_size.h"
#include "replay/handshake_rtt.h"

namespace ccreplay {
namespace {

// RFC 7323 section 3: the timestamps option takes 12 bytes of every
// segment once negotiated (10 bytes and 2 of padding, as Linux sends it).
constexpr uint32_t kTimestampOptionBytes = 12;
// RFC 9293 section 3.7.1: the MSS assumed when none is known.
constexpr uint32_t kDefaultMssBytes = 536;
// Linux's net.ipv4.tcp_reordering and tcp_max_reordering defaults
// (Documentation/networking/ip-sysctl.rst, 6.18): tp->reordering starts at
// the first and never exceeds the second.
constexpr uint32_t kInitialReordering = 3;
constexpr uint32_t kMaxReordering = 300;
// New-data segments sent behind data in flight (so full-sized, unless the
// application ran dry) per window in which a lower MSS, as Prague v0.7
// sets, is detected: the window's largest segment, when it is below the
// current MSS and at least half the window has exactly that size.
constexpr uint32_t kMssWindowSegments = 64;
// A new segment that left within srtt / kAtOnceRttFraction of the previous
// one, with no ACK between, followed it at once (TakeNewSegment).
constexpr int64_t kAtOnceRttFraction = 8;
// New data that left within this of an ACK reaching the sender answered
// it (the sender had data queued and waited for the window): the ACK's
// processing and the transmit path take microseconds (Linux tcp_ack() ->
// tcp_data_snd_check()); a millisecond allows for a loaded host and the
// capture's clock. An application writing 16 kB at 10 Mb/s (13 ms apart)
// lands within it once in 13.
constexpr int64_t kAnsweredAckNs = 1'000'000;
// ACK events held at most while the sender is silent after a short
// segment (a window's worth of ACKs of 1,448-byte segments at 1 MB);
// beyond, they are emitted as application-limited.
constexpr size_t kMaxPendingAppAcks = 1024;
// Linux's initial window, TCP_INIT_CWND (include/net/tcp.h, 6.18; RFC
// 6928): the first write goes out this many segments at once, whatever
// ACKs arrive meanwhile (BacklogTakes).
constexpr int64_t kInitialWindowSegments = 10;
// The initial window's segments leave one after another from the write:
// at most 34 us apart in the 0 ms lab bundles of bench/fidelity.sh
// (`tshark -r sender.pcap -c 24 -T fields -e frame.time_relative`); a
// longer gap ends the write.
constexpr int64_t kBurstGapNs = 100'000;
// The ACKs a sender-side capture's backlog holds (BacklogTakes()) at most,
// and for at most how long: a writer holds its socket for a write, not
// longer (the emulated senders of the DCTCP bundles took ACKs up to 3.6 ms
// late). Past either, the ACKs held are taken as they came: a capture that
// lost the sender's direction, or a receiver answering a silent sender,
// holds no more.
constexpr size_t kMaxBacklogAcks = 64;
constexpr int64_t kMaxBacklogNs = 50'000'000;

}  // namespace

const char* SendLimitName(SendLimit limit) {
  switch (limit) {
    case SendLimit::kCwnd:
      return "cwnd";
    case SendLimit::kRwnd:
      return "rwnd";
    case SendLimit::kApp:
      return "app";
    case SendLimit::kUnknown:
      break;
  }
  return "unknown";
}

// One direction's data, reconstructed as its sender saw it, with the ACKs
// of the other side.
struct AckTimelineBuilder::Direction {
  SequenceTracker data_sequence;  // Unwraps this side's sequence numbers.
  SequenceTracker ack_sequence;   // Unwraps the peer's ACK and SACK edges.
  SackScoreboard board;
  DeliveryRateEstimator rate;
  RttEstimator rtt;
  RttSummary rtt_summary;
  RetransmissionClassifier classifier;
  AccEcnFeedback accecn;
  CaptureArtefacts artefacts;

  uint64_t retransmissions[4] = {0, 0, 0, 0};
  // Bytes a fast retransmission showed lost that the scoreboard had not
  // marked, or a lost retransmission (the sender's RACK, RFC 8985, marks
  // them in tcp_ack() before it resends): counted in the next ACK's
  // packets_newly_lost, the nearest a capture gets to the ACK that marked
  // them.
  uint64_t lost_by_retransmission_bytes = 0;
  // What RACK marked lost on the last ACK (MarkLosses()).
  uint64_t rack_lost_bytes = 0;
  uint64_t spurious = 0;
  uint64_t ece_episodes = 0;
  uint64_t ip_ce_data_packets = 0;
  uint32_t reordering = kInitialReordering;  // Linux tp->reordering
  bool reord_seen = false;                   // Linux tp->reord_seen > 0
  // RACK's reordering window in steps of min_rtt / 4 (Linux tp->rack:
  // reo_wnd_steps, reo_wnd_persist, dsack_seen, last_delivered;
  // UpdateReoWnd()), and whether the last ACK found the sender in Recovery.
  uint32_t reo_wnd_steps = 1;
  uint32_t reo_wnd_persist = 0;
  bool dsack_seen = false;
  uint64_t reo_last_delivered = 0;
  bool rack_in_recovery = false;

  // Sending.
  uint32_t mss_limit_bytes = 0;  // Peer's MSS option less our options.
  uint32_t mss_bytes = 0;        // 0 until the handshake or data tells.
  uint32_t mss_window_max = 0;
  uint32_t mss_window_at_max = 0;
  uint32_t mss_window_count = 0;
  bool sent_new_since_ack = false;
  // The last new segment: its size, when it left (sender's clock) and
  // whether it was short of a full segment (FullSegmentSize).
  uint32_t last_new_bytes = 0;
  int64_t last_new_send_ns = -1;
  bool last_new_short = false;
  // The last departure (new data or not) and the gap before it; the last
  // ACK.
  int64_t last_departure_ns = -1;
  int64_t last_departure_gap_ns = 0;
  int64_t last_ack_ns = -1;
  FullSegmentSize full_segment;
  // DecideLimit's last answer was kApp from a short segment alone: the
  // ACK events since that segment wait in app_pending until what the
  // sender did next tells (ResolvePendingApp): new data at once after the
  // newest means it had more queued all along.
  bool limit_from_short = false;
  std::deque<TimelineEvent> app_pending;
  // Downstream, the ACK events the sender has not seen yet (AckHold), in
  // capture order; each with the flight before it and snd_nxt when it was
  // captured, so the data sent until the sender saw it can be added.
  struct HeldAck {
    TimelineEvent event;
    uint64_t outstanding_before = 0;
    int64_t snd_nxt = 0;
  };
  std::deque<HeldAck> held_acks;
  // The receiver's pure ACKs the sender's kernel may have queued while a
  // write held the socket (BacklogTakes), in capture order; and whether
  // the first write (the initial window) may still be going out.
  // `late`: shown taken after a later send (back to back in the initial
  // window, or an echo of an older TSval); the others were held only until
  // the sender's next segment could tell, and are taken as they came.
  struct BackloggedAck {
    TcpSegment segment;
    bool late = false;
  };
  std::vector<BackloggedAck> backlog;
  bool initial_burst = true;
  // Linux tp->lsndtime: when data last left (sender's clock); and a send
  // with nothing outstanding, for the next ACK's event to carry.
  int64_t last_send_ns = -1;
  int64_t idle_restart_ns = 0;
  int64_t idle_restart_idle_ns = 0;
  bool idle_restart_app_limited = false;  // tp->app_limited at that send
  bool fin_sent = false;
  int64_t fin_end = 0;
  bool ts_seen = false;
  uint32_t max_ts_val = 0;
  // A window reduction is under way until the cumulative ACK passes
  // reduction_end (Linux leaves CWR once snd_una is above high_seq). Under
  // RFC 3168 its end is the first byte of the CWR-marked packet that
  // answers it, known once that packet is seen (awaiting_cwr until then):
  // exact at any vantage point, where the highest byte seen sent lags the
  // sender's at receiver-side captures.
  bool reducing = false;
  bool awaiting_cwr = false;
  int64_t reduction_end = 0;

  // Receiving ACKs.
  bool has_last_ack = false;
  uint16_t last_window_raw = 0;
  uint64_t rwnd_bytes = 0;
  bool rwnd_known = false;

  uint32_t current_mss() const {
    return mss_bytes > 0 ? mss_bytes : kDefaultMssBytes;
  }
};

struct AckTimelineBuilder::FlowState {
  uint32_t index = 0;
  std::unique_ptr<Direction> direction[2];  // [side]: side as data sender.
  bool syn_seen[2] = {false, false};
  uint32_t isn[2] = {0, 0};
  uint16_t syn_flags[2] = {0, 0};
  SynOptions syn_options[2];
  int opener = -1;  // The side that sent the SYN without ACK.
  bool syn_ack_seen = false;
  bool handshake_done = false;
  EcnMode ecn_mode = EcnMode::kNone;
  VantageDetector vantage;
  HandshakeRtt handshake_rtt;    // Both senders' first RTO estimate.
  int64_t shift_ns[2] = {0, 0};  // Capture point to sender, per sender side.
  // When the sender saw the receiver's ACKs, per data sender side.
  AckHold hold[2];
  bool timestamps = false;  // Both SYNs carried the option.
  bool released = false;    // ReleaseIfClosed() freed the scoreboards.
};

AckTimelineBuilder::AckTimelineBuilder(TimelineSink sink)
    : sink_(std::move(sink)) {}

AckTimelineBuilder::AckTimelineBuilder(uint32_t flow_index, int sender_side,
                                       TimelineSink sink)
    : sink_(std::move(sink)),
      one_flow_(true),
      selected_flow_(flow_index),
      selected_sender_(sender_side) {}

AckTimelineBuilder::~AckTimelineBuilder() = default;

// A side's echo times as `flow`'s record has them; none when the side
// sent nothing after its SYN (or the record's traffic was freed).
static EchoTimes EchoTimesOf(const Flow& flow, int side) {
  const SideTraffic* traffic = flow.side[side].traffic.get();
  return traffic != nullptr ? traffic->echo_times : EchoTimes();
}

void AckTimelineBuilder::UseFirstPass(const Flow& scanned) {
  first_pass_echoes_ = {EchoTimesOf(scanned, 0), EchoTimesOf(scanned, 1)};
}

void AckTimelineBuilder::Restart() {
  table_.Restart();
  flows_.clear();
  flows_with_state_ = 0;
}

void AckTimelineBuilder::Forget(uint32_t index) {
  table_.Forget(index);
  if (index < flows_.size() && flows_[index] != nullptr) {
    flows_[index].reset();
    --flows_with_state_;
  }
}

bool AckTimelineBuilder::Tracked(const FlowState& flow, int sender_side) const {
  return !one_flow_ ||
         (flow.index == selected_flow_ && sender_side == selected_sender_);
}

void AckTimelineBuilder::StartFromSyn(const Flow& table_flow, FlowState& flow) {
  const SideStats& opener = table_flow.side[0];
  flow.index = table_flow.index;
  flow.syn_seen[0] = true;
  flow.isn[0] = opener.syn_seq;
  flow.syn_flags[0] = opener.syn_flags;
  flow.syn_options[0] = opener.syn_options;
  flow.opener = 0;
  flow.vantage.OnSyn(table_flow.first_ns);
  flow.handshake_rtt.OnSyn(table_flow.first_ns, /*ts_known=*/false, 0);
}

AckTimelineBuilder::FlowState* AckTimelineBuilder::StateFor(const TcpSegment& s,
                                                            bool new_flow) {
  const uint32_t index = table_.last_flow_index();
  const bool tracked = !one_flow_ || index == selected_flow_;
  if (new_flow) {
    flows_.push_back(nullptr);
    // A flow's first segment, a SYN alone, makes no state yet: a capture
    // can hold millions of flows that never get further. Its second
    // segment makes it (StartFromSyn), from what the table kept of the
    // SYN; whatever of that the second one changes, it sets again.
    const bool syn_alone =
        (s.flags & (kTcpSyn | kTcpAck | kTcpFin)) == kTcpSyn &&
        s.payload_bytes == 0;
    if (!tracked || syn_alone) return nullptr;
    flows_.back() = std::make_unique<FlowState>();
    flows_.back()->index = index;
    ++flows_with_state_;
  } else if (tracked && flows_[index] == nullptr) {
    flows_[index] = std::make_unique<FlowState>();
    ++flows_with_state_;
    StartFromSyn(table_.last_flow(), *flows_[index]);
  }
  return flows_[index].get();
}

void AckTimelineBuilder::ReleaseFlow(uint32_t flow_index) {
  EmitHeldAppAcks(flow_index);
  if (flow_index < flows_.size()) flows_[flow_index].reset();
  table_.ReleaseTraffic(flow_index);
}

void AckTimelineBuilder::EmitHeldAppAcks(uint32_t flow_index) {
  if (flow_index >= flows_.size() || flows_[flow_index] == nullptr) return;
  for (int sender = 0; sender < 2; ++sender) {
    if (flows_[flow_index]->direction[sender] != nullptr)
      ResolvePendingApp(*flows_[flow_index], sender, false, 0);
  }
}

void AckTimelineBuilder::OnSegment(const TcpSegment& s) {
  table_.OnSegment(s);
  FlowState* flow = StateFor(s, table_.last_started_flow());
  if (flow == nullptr) return;
  const int side = table_.last_side();
  const bool handshake_ack = !flow->handshake_done && flow->syn_ack_seen &&
                             side == flow->opener && !(s.flags & kTcpSyn) &&
                             (s.flags & kTcpAck);
  OnHandshake(*flow, side, s);
  ReleaseHeldAcks(*flow, side, s);
  if (BacklogTakes(*flow, side, s)) return;
  EndBurst(*flow, side, s);
  // Checked here, not in the callees: most segments are pure ACKs or data
  // from the side whose ACKs nobody tracks, and calls cost.
  if (s.payload_bytes > 0 || (s.flags & kTcpFin)) OnData(*flow, side, s);
  EndBurstAtWindow(*flow, side);
  if ((s.flags & kTcpAck) && !(s.flags & kTcpSyn) &&
      flow->direction[1 - side] != nullptr) {
    OnAckFrom(*flow, side, s, handshake_ack,
              s.time_ns + flow->shift_ns[1 - side]);
  }
  if (!flow->released) ReleaseIfClosed(*flow, table_.last_flow());
}

void AckTimelineBuilder::ReleaseHeldAcks(FlowState& flow, int side,
                                         const TcpSegment& s) {
  for (int sender = 0; sender < 2; ++sender) {
    AckHold& hold = flow.hold[sender];
    if (!hold.active() || flow.direction[sender] == nullptr) continue;
    // Whatever the sender sends echoes the last TSval it took.
    const bool echo = side == sender && s.options.has_timestamps;
    while (hold.Pop(s.time_ns, echo, s.options.ts_ecr, false))
      ReleaseAck(flow, sender);
  }
}

// At 0 ms the first ACKs reach a sender-side capture while the initial
// window is still leaving, yet the kernel (tcp_probe) takes them only
// after its last segment, as one ACK: the writing thread owns the socket
// (tcp_sendmsg() under lock_sock()), so tcp_v4_rcv() finds
// sock_owned_by_user() and queues them with tcp_add_backlog(), which
// coalesces pure ACKs of identical headers into one; release_sock() ->
// __release_sock() hands it to tcp_v4_do_rcv() when the write is done
// (net/ipv4/tcp_ipv4.c, net/core/sock.c, 6.18). The capture shows it:
// the initial window's segments keep leaving back to back after the ACK
// (without timestamps, only there: later writes cannot be told from data
// the ACK itself released), or, at any point of the flow, the sender's
// segments after it echo a TSval from before it (RFC 7323 TS.Recent: the
// sender has not taken it). With timestamps every pure ACK waits for the
// sender's next segment to tell; one it does not show late is taken as it
// came. The DCTCP bundles made under an emulated CPU: ten segments of the
// initial window over 3.6 ms, the first ACK among them, tcp_probe's first
// line counting all ten out; and, application-limited, ACKs taken after
// sends 0.1-0.7 ms later (docs/controllers.md).
bool AckTimelineBuilder::BacklogTakes(FlowState& flow, int side,
                                      const TcpSegment& s) {
  const int sender = 1 - side;
  Direction* d = flow.direction[sender].get();
  const bool echoes = flow.timestamps && s.options.has_timestamps;
  if (d == nullptr || !(d->initial_burst || echoes) || !(s.flags & kTcpAck) ||
      (s.flags & (kTcpSyn | kTcpFin | kTcpRst)) || s.payload_bytes > 0) {
    return false;
  }
  const bool at_sender =
      !flow.hold[sender].active() && flow.shift_ns[sender] == 0 &&
      flow.vantage.Decide(flow.opener == sender) == Vantage::kSender;
  // Still writing: the window's last segment left just before, or, with
  // timestamps, the sender's next segment decides (EndBurst()).
  const bool back_to_back = d->initial_burst &&
                            d->board.snd_nxt() < InitialWindowEnd(*d) &&
                            s.time_ns - d->last_departure_ns <= kBurstGapNs;
  const bool writing = d->last_departure_ns >= 0 && (echoes || back_to_back);
  if (!at_sender || !writing || s.options.sack_block_count > 0) {
    ReleaseBacklog(flow, sender);  // This ACK, taken at once, ends it.
    return false;
  }
  if (d->backlog.size() >= kMaxBacklogAcks ||
      (!d->backlog.empty() &&
       s.time_ns - d->backlog.front().segment.time_ns > kMaxBacklogNs)) {
    ReleaseBacklog(flow, sender);
  }
  d->backlog.push_back({s, back_to_back});
  return true;
}

int64_t AckTimelineBuilder::InitialWindowEnd(const Direction& d) {
  return 1 + kInitialWindowSegments * d.current_mss();
}

void AckTimelineBuilder::EndBurst(FlowState& flow, int side,
                                  const TcpSegment& s) {
  for (int sender = 0; sender < 2; ++sender) {
    Direction* d = flow.direction[sender].get();
    if (d == nullptr || d->backlog.empty()) continue;
    // The write goes on: back to back, or echoing a TSval from before the
    // first ACK held (the sender has not taken it: RFC 7323 TS.Recent).
    const bool sends = side == sender && s.payload_bytes > 0 &&
                       !(s.flags & (kTcpSyn | kTcpRst));
    const bool recent =
        s.time_ns - d->backlog.front().segment.time_ns <= kMaxBacklogNs;
    const bool echo_older = sends && recent && s.options.has_timestamps &&
                            MarkUntaken(*d, s.options.ts_ecr);
    const bool continues =
        sends &&
        (echo_older || (d->initial_burst && s.time_ns - flow.shift_ns[side] -
                                                    d->last_departure_ns <=
                                                kBurstGapNs));
    if (!continues) ReleaseBacklog(flow, sender);
  }
}

bool AckTimelineBuilder::MarkUntaken(Direction& d, uint32_t ts_ecr) {
  bool first_untaken = false;
  for (size_t i = 0; i < d.backlog.size(); ++i) {
    const TcpSegment& a = d.backlog[i].segment;
    if (a.options.has_timestamps && TsBefore(ts_ecr, a.options.ts_val)) {
      d.backlog[i].late = true;
      if (i == 0) first_untaken = true;
    }
  }
  return first_untaken;
}

void AckTimelineBuilder::EndBurstAtWindow(FlowState& flow, int side) {
  Direction* d = flow.direction[side].get();
  if (d != nullptr && d->initial_burst &&
      d->board.snd_nxt() >= InitialWindowEnd(*d)) {
    ReleaseBacklog(flow, side);
  }
}

// tcp_add_backlog() merges a pure ACK into the one queued before it when
// nothing but the acknowledgement and window differ (same flags, ECN
// field and option bytes).
static bool Coalesces(const TcpSegment& a, const TcpSegment& b) {
  constexpr uint16_t kCompared = kTcpEce | kTcpCwr | kTcpAe | kTcpUrg;
  return (a.flags & kCompared) == (b.flags & kCompared) &&
         a.ip_ecn == b.ip_ecn && a.seq == b.seq &&
         a.options.has_timestamps == b.options.has_timestamps &&
         a.options.ts_val == b.options.ts_val &&
         a.options.ts_ecr == b.options.ts_ecr;
}

void AckTimelineBuilder::ReleaseBacklog(FlowState& flow, int sender) {
  Direction& d = *flow.direction[sender];
  d.initial_burst = false;
  if (d.backlog.empty()) return;
  std::vector<Direction::BackloggedAck> acks;
  acks.swap(d.backlog);
  // A late ACK is taken when the write released the socket, after its
  // last segment (captured at the sender: no shift); an ACK after it (the
  // write ended before the window was out) is taken as it came, and so is
  // one nothing showed late. In capture order, never before the one
  // before it.
  int64_t taken_ns = INT64_MIN;
  for (size_t i = 0; i < acks.size(); ++i) {
    const TcpSegment& a = acks[i].segment;
    if (acks[i].late && i + 1 < acks.size() && acks[i + 1].late &&
        acks[i + 1].segment.time_ns <= d.last_departure_ns &&
        Coalesces(a, acks[i + 1].segment)) {
      CountAck(d, a);  // Received, merged into the next.
      continue;
    }
    taken_ns = std::max(taken_ns, acks[i].late
                                      ? std::max(d.last_departure_ns, a.time_ns)
                                      : a.time_ns);
    OnAckFrom(flow, 1 - sender, a, false, taken_ns);
  }
}

void AckTimelineBuilder::ReleaseAck(FlowState& flow, int sender) {
  Direction& d = *flow.direction[sender];
  if (d.held_acks.empty()) return;
  Direction::HeldAck held = std::move(d.held_acks.front());
  d.held_acks.pop_front();
  // New data captured after the ACK and before the sender saw it left the
  // sender before the ACK arrived: it was in flight then.
  const uint64_t sent_since = static_cast<uint64_t>(
      std::max<int64_t>(0, d.board.snd_nxt() - held.snd_nxt));
  TimelineEvent& e = held.event;
  e.outstanding_bytes += sent_since;
  e.pipe_bytes += sent_since;
  e.pipe_before_bytes += sent_since;
  e.limit =
      DecideLimit(flow, d, held.outstanding_before + sent_since, e.mss_bytes);
  EmitAck(flow, sender, e);
}

void AckTimelineBuilder::Finish() {
  for (const std::unique_ptr<FlowState>& flow : flows_) {
    if (flow == nullptr) continue;
    for (int sender = 0; sender < 2; ++sender) {
      if (flow->direction[sender] != nullptr) ReleaseBacklog(*flow, sender);
      while (flow->direction[sender] != nullptr &&
             flow->hold[sender].Pop(0, false, 0, true)) {
        ReleaseAck(*flow, sender);
      }
      if (flow->direction[sender] != nullptr)
        ResolvePendingApp(*flow, sender, /*new_data=*/false, 0);
    }
  }
}

void AckTimelineBuilder::ReleaseIfClosed(FlowState& flow,
                                         const Flow& table_flow) {
  if (!table_flow.side[0].fin_or_rst_seen ||
      !table_flow.side[1].fin_or_rst_seen) {
    return;
  }
  // Both sides sent FIN (or RST) and everything sent is acknowledged: the
  // scoreboards hold nothing more the statistics need.
  for (const std::unique_ptr<Direction>& d : flow.direction) {
    if (d != nullptr && d->board.outstanding_bytes() > 0) return;
  }
  for (const std::unique_ptr<Direction>& d : flow.direction) {
    if (d != nullptr) d->board.ShrinkToFit();
  }
  flow.released = true;
}

uint32_t AckTimelineBuilder::HandshakeMss(const FlowState& flow, int side,
                                          bool own_option) {
  const int peer = 1 - side;
  if (!flow.syn_seen[peer]) return 0;
  // RFC 9293 section 3.7.1: without the peer's option, 536 bytes.
  uint32_t mss = flow.syn_options[peer].has_mss
                     ? flow.syn_options[peer].mss_bytes
                     : kDefaultMssBytes;
  // The smaller of the two options, as the sender's path MTU caps it too
  // (Linux tcp_sync_mss(): the MSS clamp and the path MTU, the smaller).
  if (own_option && flow.syn_seen[side] && flow.syn_options[side].has_mss)
    mss =
        std::min(mss, static_cast<uint32_t>(flow.syn_options[side].mss_bytes));
  // RFC 7323 section 3 and Linux tcp_current_mss(): the timestamps option
  // takes its 12 bytes from every segment once both SYNs carried it.
  const bool timestamps = flow.syn_seen[side] &&
                          flow.syn_options[side].has_timestamps &&
                          flow.syn_options[peer].has_timestamps;
  const uint32_t options = timestamps ? kTimestampOptionBytes : 0;
  return mss > options ? mss - options : mss;
}

void AckTimelineBuilder::TrackMss(Direction& d, uint32_t payload_bytes,
                                  bool behind_data_in_flight) {
  // A larger segment proves a larger MSS (no handshake seen, or the
  // options said less than the sender uses).
  d.mss_bytes = std::max(d.mss_bytes, payload_bytes);
  if (!behind_data_in_flight) return;
  if (payload_bytes > d.mss_window_max) {
    d.mss_window_max = payload_bytes;
    d.mss_window_at_max = 0;
  }
  if (payload_bytes == d.mss_window_max) ++d.mss_window_at_max;
  if (++d.mss_window_count < kMssWindowSegments) return;
  if (d.mss_window_max < d.mss_bytes &&
      2 * d.mss_window_at_max >= kMssWindowSegments) {
    d.mss_bytes = d.mss_window_max;  // Lowered (Prague v0.7).
  }
  d.mss_window_max = d.mss_window_at_max = d.mss_window_count = 0;
}

void AckTimelineBuilder::TakeNewSegment(Direction& d, uint32_t payload_bytes,
                                        int64_t send_ns) {
  // The previous new segment was followed at once: no ACK between (the
  // sender did not wait for one) and within an eighth of the smoothed RTT
  // (pacing spreads a window over the RTT; an application's next write
  // comes when it comes). Without an RTT sample yet, no ACK between.
  const int64_t at_once_ns = d.rtt.srtt_us() * 1000 / kAtOnceRttFraction;
  if (d.sent_new_since_ack && d.last_new_send_ns >= 0 &&
      (at_once_ns == 0 || send_ns - d.last_new_send_ns <= at_once_ns)) {
    d.full_segment.OnFullSegment(d.last_new_bytes, d.current_mss());
  }
  d.sent_new_since_ack = true;
  d.last_new_bytes = payload_bytes;
  d.last_new_send_ns = send_ns;
  d.last_new_short =
      payload_bytes < d.full_segment.ShortBelowBytes(d.current_mss());
}

void AckTimelineBuilder::OnHandshake(FlowState& flow, int side,
                                     const TcpSegment& s) {
  if (s.flags & kTcpSyn) {
    flow.syn_seen[side] = true;
    flow.isn[side] = s.seq;
    flow.syn_flags[side] = s.flags;
    flow.syn_options[side] = SynOptionsOf(s.options);
    const TcpOptions& o = s.options;
    if (!(s.flags & kTcpAck)) {
      flow.opener = side;
      flow.vantage.OnSyn(s.time_ns);
      flow.handshake_rtt.OnSyn(s.time_ns, o.has_timestamps, o.ts_val);
    } else if (flow.opener == 1 - side) {
      flow.handshake_rtt.OnSynAck(s.time_ns, o.has_timestamps, o.ts_val,
                                  o.ts_ecr);
      if (flow.syn_ack_seen) return;
      flow.syn_ack_seen = true;
      flow.vantage.OnSynAck(s.time_ns);
      flow.ecn_mode = NegotiatedEcnMode(flow.syn_flags[flow.opener], s.flags);
    }
    return;
  }
  if (flow.syn_ack_seen && !flow.handshake_done && side == flow.opener &&
      (s.flags & kTcpAck)) {
    flow.handshake_done = true;
    flow.vantage.OnHandshakeAck(s.time_ns);
    if (first_pass_echoes_.has_value() && flow.index == selected_flow_) {
      flow.vantage.SetEchoTimes((*first_pass_echoes_)[side],
                                (*first_pass_echoes_)[1 - side]);
    }
    flow.handshake_rtt.OnHandshakeAck(s.time_ns, s.options.has_timestamps,
                                      s.options.ts_ecr);
    for (auto& d : flow.direction) {
      if (d != nullptr)
        d->rtt.SeedFromHandshake(flow.handshake_rtt.sample_us());
    }
    flow.timestamps = flow.syn_options[0].has_timestamps &&
                      flow.syn_options[1].has_timestamps;
    for (int sender = 0; sender < 2; ++sender) {
      flow.shift_ns[sender] =
          flow.vantage.SenderOneWayNs(flow.opener == sender);
      // Without timestamps nothing shows when the sender took an ACK: the
      // handshake round trip overshoots once the path's shrinks (test301:
      // the server answers the client's frame 10 in 13.5 ms, handshake
      // 16.0 ms, so a 51 B segment sent after it had ACK 7 would count as
      // in flight before it, widening the cwnd-limited window it opened).
      // Those keep the capture order: limits and flight as captured.
      if (flow.timestamps) flow.hold[sender].Start(2 * flow.shift_ns[sender]);
    }
  }
}

void AckTimelineBuilder::OnData(FlowState& flow, int side,
                                const TcpSegment& s) {
  const bool syn = s.flags & kTcpSyn;
  const bool fin = s.flags & kTcpFin;
  if (!Tracked(flow, side)) return;
  std::unique_ptr<Direction>& slot = flow.direction[side];
  if (slot == nullptr) {
    if (s.payload_bytes == 0) return;  // A FIN alone starts nothing.
    slot = NewDirection(flow, side, s);
  }
  Direction& d = *slot;
  const int64_t start = d.data_sequence.Unwrap(s.seq) + (syn ? 1 : 0);
  const int64_t end = start + s.payload_bytes;
  if (fin) {
    d.fin_sent = true;
    d.fin_end = end + 1;
  }
  if (s.payload_bytes == 0) return;
  if ((s.flags & kTcpCwr) && d.awaiting_cwr) {
    d.awaiting_cwr = false;
    d.reduction_end = std::max(d.reduction_end, start);
  }

  if (s.ip_ecn == kCe) {
    ++d.ip_ce_data_packets;
    flow.vantage.OnCeMarkedData();
  }
  const bool has_ts = s.options.has_timestamps;
  const uint32_t ts_val = has_ts ? s.options.ts_val : 0;
  const bool older_ts = TakeTimestamp(d, has_ts, ts_val);
  // A super-segment is at least two segments' worth (a full MSS over): a
  // payload a few bytes over the MSS is a sender whose full segments vary
  // (options, PMTU), not TSO/GRO.
  if (d.mss_limit_bytes > 0 && s.payload_bytes >= 2 * d.mss_limit_bytes) {
    ++d.artefacts.super_segments;
    d.artefacts.largest_super_segment_bytes =
        std::max(d.artefacts.largest_super_segment_bytes, s.payload_bytes);
  }

  const int64_t send_ns = s.time_ns - flow.shift_ns[side];
  ResolvePendingApp(flow, side, end > d.board.snd_nxt(), send_ns);
  const uint64_t outstanding_before = d.board.outstanding_bytes();
  const SackScoreboard::SendResult sent =
      RecordSend(flow, d, s, start, end, send_ns, ts_val);
  if (sent.resent_bytes == 0 || (sent.was_unseen && older_ts)) return;
  OnRetransmission(flow, side, d, s, start, end, send_ns, outstanding_before,
                   sent);
}

std::unique_ptr<AckTimelineBuilder::Direction> AckTimelineBuilder::NewDirection(
    const FlowState& flow, int side, const TcpSegment& s) {
  const bool syn = s.flags & kTcpSyn;
  auto d = std::make_unique<Direction>();
  // The ISN from the SYN; without it data starts where the capture does.
  const uint32_t isn =
      flow.syn_seen[side] ? flow.isn[side] : s.seq - (syn ? 0 : 1);
  d->data_sequence.Start(isn);
  d->ack_sequence.Start(isn);
  d->board.Reset(1);
  d->mss_limit_bytes = HandshakeMss(flow, side, /*own_option=*/false);
  d->mss_bytes = HandshakeMss(flow, side, /*own_option=*/true);
  if (flow.handshake_done) d->accecn.StartAtHandshake();
  d->rtt.SeedFromHandshake(flow.handshake_rtt.sample_us());
  return d;
}

bool AckTimelineBuilder::TakeTimestamp(Direction& d, bool has_ts,
                                       uint32_t ts_val) {
  // An older timestamp than one already sent: this packet left the sender
  // before others the capture saw first (reordered, not resent).
  const bool older_ts = has_ts && d.ts_seen && TsBefore(ts_val, d.max_ts_val);
  if (has_ts && (!d.ts_seen || !older_ts)) {
    d.ts_seen = true;
    d.max_ts_val = ts_val;
  }
  return older_ts;
}

// tcp_rate_check_app_limited() runs at the start of each write
// (tcp_sendmsg_locked(), net/ipv4/tcp.c, 6.18) and marks a bubble when the
// previous write's data has been sent but for less than an MSS (a tail
// Nagle holds, which the new write then fills: no short segment shows). A
// write that found the queue so drained shows as new data leaving neither
// on an ACK (within kAckClockedNs of one) nor on the pacing clock of the
// departures before it (more than twice the gap before the last one). The
// bubble is marked before this segment's snapshot, with the packets in
// flight before it.
void AckTimelineBuilder::MarkWriteAfterBubble(Direction& d, int64_t send_ns,
                                              bool new_data) {
  constexpr int64_t kAckClockedNs = 200'000;
  const int64_t gap =
      d.last_departure_ns < 0 ? 0 : send_ns - d.last_departure_ns;
  const bool ack_clocked =
      d.last_ack_ns >= 0 && send_ns - d.last_ack_ns <= kAckClockedNs;
  if (new_data && !ack_clocked && d.last_departure_gap_ns > 0 &&
      gap > 2 * d.last_departure_gap_ns) {
    const uint64_t mss = d.current_mss();
    d.rate.MarkAppLimited((d.board.pipe_bytes() + mss - 1) / mss);
  }
  d.last_departure_gap_ns = gap;
  d.last_departure_ns = send_ns;
}

SackScoreboard::SendResult AckTimelineBuilder::RecordSend(
    FlowState& flow, Direction& d, const TcpSegment& s, int64_t start,
    int64_t end, int64_t send_ns, uint32_t ts_val) {
  const int64_t snd_nxt_before = d.board.snd_nxt();
  const uint64_t outstanding_before = d.board.outstanding_bytes();
  MarkWriteAfterBubble(d, send_ns, end > snd_nxt_before);
  const RateSnapshot tx = d.rate.OnSend(send_ns, outstanding_before == 0);
  const SackScoreboard::SendResult sent =
      d.board.OnSend(start, end, send_ns, ts_val, tx);
  const int64_t last_send_ns = d.last_send_ns;
  d.last_send_ns = send_ns;
  if (sent.new_bytes > 0) {
    if (start > snd_nxt_before) flow.vantage.OnDataHole();
    if (outstanding_before == 0) {
      d.classifier.OnSendFromIdle(send_ns);
      // Linux tcp_slow_start_after_idle_check(): with no packet out, the
      // time since the last send decides a restart (include/net/tcp.h).
      if (last_send_ns >= 0 && d.idle_restart_ns == 0) {
        d.idle_restart_ns = send_ns;
        d.idle_restart_idle_ns = send_ns - last_send_ns;
        d.idle_restart_app_limited = tx.app_limited;
      }
    }
    if (d.mss_limit_bytes == 0 || s.payload_bytes <= d.mss_limit_bytes)
      TrackMss(d, s.payload_bytes, outstanding_before > 0);
    TakeNewSegment(d, s.payload_bytes, send_ns);
    if (d.last_new_short) {
      const uint64_t mss = d.current_mss();
      d.rate.MarkAppLimited((d.board.pipe_bytes() + mss - 1) / mss);
    }
  }
  return sent;
}

void AckTimelineBuilder::OnRetransmission(
    const FlowState& flow, int side, Direction& d, const TcpSegment& s,
    int64_t start, int64_t end, int64_t send_ns, uint64_t outstanding_before,
    const SackScoreboard::SendResult& sent) {
  const bool has_ts = s.options.has_timestamps;
  const RetransmissionClassifier::Result c = d.classifier.Classify(
      send_ns, start, end, sent, d.rtt, d.board.snd_una(), d.board.snd_nxt(),
      outstanding_before, d.current_mss(), has_ts ? s.options.ts_val : 0,
      has_ts ? s.options.ts_ecr : 0);
  ++d.retransmissions[static_cast<int>(c.kind)];
  if (c.kind == RetransmissionKind::kFast) {
    const uint64_t lost_before = d.board.lost_bytes();
    d.board.MarkLost(start, end);
    d.lost_by_retransmission_bytes += d.board.lost_bytes() - lost_before;
    // Resent again: its retransmission was lost too, which RACK marks once
    // more (tp->lost counts transmissions; net/ipv4/tcp_recovery.c
    // tcp_rack_detect_loss(), Linux 6.18).
    if (sent.was_retransmitted && sent.was_lost) {
      d.lost_by_retransmission_bytes += sent.resent_bytes;
    }
  }
  if (c.kind == RetransmissionKind::kRto && c.starts_episode)
    d.board.MarkAllLost(start, end);
  if (c.starts_episode) {
    // Loss recovery reduces the window once; ECN feedback within it is
    // part of the same episode (Linux ignores ECE outside Open/Disorder).
    StartReduction(flow, d);
  }
  if (!sink_) return;
  TimelineEvent e;
  e.type = TimelineEvent::Type::kRetransmission;
  e.time_ns = send_ns;
  e.time_estimated = flow.shift_ns[side] != 0;
  e.seq_start = start;
  e.seq_end = end;
  e.kind = c.kind;
  e.starts_episode = c.starts_episode;
  e.retransmits_retransmission = sent.was_retransmitted;
  e.ts_val = has_ts ? s.options.ts_val : 0;
  e.ack = d.board.snd_una();
  e.outstanding_bytes = d.board.outstanding_bytes();
  e.sacked_bytes = d.board.sacked_bytes();
  e.lost_bytes = d.board.lost_bytes();
  e.pipe_bytes = d.board.pipe_bytes();
  e.rwnd_bytes = d.rwnd_bytes;
  e.mss_bytes = d.current_mss();
  e.srtt_us = d.rtt.srtt_us();
  e.rttvar_us = d.rtt.rttvar_us();
  e.min_rtt_us = d.rtt.min_rtt_us();
  e.rto_us = d.rtt.rto_us();
  Emit(flow, side, e);
}

void AckTimelineBuilder::OnAckFrom(FlowState& flow, int side,
                                   const TcpSegment& s, bool handshake_ack,
                                   int64_t ack_ns) {
  const int sender = 1 - side;
  Direction& d = *flow.direction[sender];
  const uint32_t mss = d.current_mss();
  const int64_t ack = CountAck(d, s);
  const uint64_t outstanding_before = d.board.outstanding_bytes();
  const uint64_t pipe_before = d.board.pipe_bytes();
  const int block_count = s.options.sack_block_count;
  const int64_t old_una = d.board.snd_una();
  const SackScoreboard::AckResult r = ApplyAck(d, s, ack, mss, ack_ns);
  const bool advanced = r.bytes_acked > 0;
  const bool window_changed =
      d.has_last_ack && s.window_raw != d.last_window_raw;
  const bool duplicate = !advanced && ack == old_una && s.payload_bytes == 0 &&
                         !(s.flags & kTcpFin) && outstanding_before > 0 &&
                         (!window_changed || block_count > 0);
  TakeWindow(flow, side, d, s);
  const int64_t rtt_sample_us = TakeRttSample(d, s, r, ack_ns);
  std::optional<DeliveryRateSample> rate_sample =
      d.rate.OnAck(ack_ns, r.packets_delivered, r.newest_delivered,
                   d.rtt.min_rtt_us(), r.reneged);
  d.last_ack_ns = ack_ns;
  const bool has_ts = s.options.has_timestamps;
  d.classifier.OnAck(ack_ns, advanced, duplicate, d.board.sacked_bytes() > 0,
                     d.board.snd_una(), has_ts ? s.options.ts_val : 0);
  if (advanced && has_ts) TakeDelayedOriginal(d, old_una, s, mss);
  const uint64_t lost_bytes =
      MarkLosses(d, r, d.classifier.in_recovery(d.board.snd_una()), mss);
  const bool reenters_recovery =
      d.classifier.ReenterRecovery(d.board.snd_nxt());
  if (reenters_recovery) StartReduction(flow, d);
  const int spurious = CountSpurious(d, r, advanced, s);

  TimelineEvent e;
  TakeEcnFeedback(flow, d, s, r, handshake_ack, duplicate, e);
  FillAckEvent(flow, sender, d, r, ack_ns, e);
  e.rate_sample = rate_sample;
  e.packets_newly_lost = (lost_bytes + mss - 1) / mss;
  e.reenters_recovery = reenters_recovery;
  e.duplicate = duplicate;
  e.rtt_sample_us = rtt_sample_us;
  e.pipe_before_bytes = pipe_before;
  e.mss_bytes = mss;
  e.spurious_retransmissions = static_cast<uint32_t>(spurious);
  e.ts_ecr = has_ts ? s.options.ts_ecr : 0;
  if (r.bytes_dsacked > 0) e.dsack_end = r.dsack.end;
  e.reordering = d.reordering;
  e.highest_sack = d.board.HighestSackSeq();
  AckHold& hold = flow.hold[sender];
  if (hold.active()) {
    // The limit, flight and emission wait until the sender has the ACK.
    hold.Push(s.time_ns, has_ts, s.options.ts_val);
    d.held_acks.push_back({e, outstanding_before, d.board.snd_nxt()});
    return;
  }
  e.limit = DecideLimit(flow, d, outstanding_before, mss);
  EmitAck(flow, sender, e);
}

void AckTimelineBuilder::TakeDelayedOriginal(Direction& d, int64_t old_una,
                                             const TcpSegment& s,
                                             uint32_t mss) {
  // tcp_try_undo_partial(), in tcp_fastretrans_alert() before RACK runs:
  // the hole was filled by the delayed original, reordering of
  // tcp_highest_sack_seq() - prior_snd_una (tcp_check_sack_reordering(),
  // which takes none when nothing above snd_una is SACKed).
  if (!d.classifier.in_recovery(d.board.snd_una()) ||
      !d.classifier.TakeDelayedOriginal(s.options.ts_ecr)) {
    return;
  }
  const int64_t fack = d.board.HighestSackSeq();
  if (fack > old_una) {
    TakeReordering(d, static_cast<uint64_t>(fack - old_una), mss);
  }
}

int AckTimelineBuilder::CountSpurious(Direction& d,
                                      const SackScoreboard::AckResult& r,
                                      bool advanced, const TcpSegment& s) {
  int spurious = 0;
  if (r.bytes_dsacked > 0) spurious += d.classifier.OnDsack(r.dsack);
  if (advanced) {
    spurious += d.classifier.OnCumulativeAck(
        d.board.snd_una(), s.options.has_timestamps, s.options.ts_ecr);
  }
  d.spurious += static_cast<uint64_t>(spurious);
  return spurious;
}

uint32_t AckTimelineBuilder::TakeReordering(Direction& d,
                                            uint64_t reordering_bytes,
                                            uint32_t mss) {
  // tcp_check_sack_reordering(): "metric > tp->reordering * mss"; any
  // metric counts as reordering seen.
  if (reordering_bytes > 0) d.reord_seen = true;
  if (reordering_bytes > uint64_t{d.reordering} * mss) {
    d.reordering = static_cast<uint32_t>(
        std::min<uint64_t>((reordering_bytes + mss - 1) / mss, kMaxReordering));
  }
  return d.reordering;
}

int64_t AckTimelineBuilder::CountAck(Direction& d, const TcpSegment& s) {
  int64_t ack = d.ack_sequence.Unwrap(s.ack);
  if (d.fin_sent && ack == d.fin_end) --ack;  // The FIN's sequence number.
  ++d.artefacts.acks;
  if (s.flags & kTcpEce) ++d.artefacts.ece_acks;
  if (ack > d.board.snd_nxt()) ++d.artefacts.acks_of_unseen_data;
  return ack;
}

void AckTimelineBuilder::UpdateReoWnd(Direction& d,
                                      const SackScoreboard::AckResult& r,
                                      bool in_recovery) {
  // tcp_dsack_seen() (net/ipv4/tcp_input.c, 6.18): a D-SACK counts toward
  // the window only once reordering has been seen, and that before this
  // ACK's own reordering (tcp_check_dsack() runs first in
  // tcp_sacktag_write_queue()). Not modelled: the D-SACKs it skips as
  // dubious (more duplicates than retransmissions) or as a TLP's.
  if (r.bytes_dsacked > 0 && d.reord_seen) d.dsack_seen = true;
  // tcp_rack_update_reo_wnd() (net/ipv4/tcp_recovery.c), from tcp_ack()
  // after tcp_clean_rtx_queue(): at most one step a round trip (a D-SACK
  // for data sent before the last step is disregarded), kept for
  // TCP_RACK_RECOVERY_THRESH (16) recoveries, then back to one step.
  constexpr uint32_t kRackRecoveryThresh = 16;
  constexpr uint32_t kMaxReoWndSteps = 0xFF;
  if (r.newest_delivered.has_value() && r.newest_delivered->tx.delivered > 0) {
    const uint64_t prior_delivered = r.newest_delivered->tx.delivered;
    if (prior_delivered < d.reo_last_delivered) d.dsack_seen = false;
    if (d.dsack_seen) {
      d.reo_wnd_steps = std::min(kMaxReoWndSteps, d.reo_wnd_steps + 1);
      d.dsack_seen = false;
      d.reo_last_delivered = d.rate.delivered();
      d.reo_wnd_persist = kRackRecoveryThresh;
    } else if (d.reo_wnd_persist == 0) {
      d.reo_wnd_steps = 1;
    }
  }
  // tcp_try_undo_recovery(): a Recovery that ends without an undo spends
  // one of the persisting recoveries (an undone one does not, and a D-SACK
  // undo adds one back: the undo is the controller model's, not known
  // here, so every end counts).
  if (d.rack_in_recovery && !in_recovery && d.reo_wnd_persist > 0) {
    --d.reo_wnd_persist;
  }
  d.rack_in_recovery = in_recovery;
}

uint64_t AckTimelineBuilder::MarkLosses(Direction& d,
                                        const SackScoreboard::AckResult& r,
                                        bool in_recovery, uint32_t mss) {
  UpdateReoWnd(d, r, in_recovery);
  // The reordering the ACK shows counts first (tcp_sacktag_write_queue()
  // and tcp_clean_rtx_queue() run before tcp_fastretrans_alert()).
  TakeReordering(d, r.reordering_bytes, mss);
  // tcp_rack_reo_wnd() (net/ipv4/tcp_recovery.c, 6.18): without reordering
  // seen, none in Recovery or Loss, nor once tp->reordering segments are
  // SACKed; else min_rtt / 4 per step, at most srtt.
  int64_t reo_wnd_us = 0;
  const uint64_t sacked_packets =
      (d.board.sacked_bytes() + mss - 1) / std::max<uint32_t>(mss, 1);
  if (d.reord_seen || (!in_recovery && sacked_packets < d.reordering)) {
    const int64_t srtt_us = d.rtt.srtt_us();
    const int64_t min_rtt_us = d.rtt.min_rtt_us();
    reo_wnd_us = min_rtt_us > 0 ? min_rtt_us / 4 * d.reo_wnd_steps : srtt_us;
    if (srtt_us > 0) reo_wnd_us = std::min(reo_wnd_us, srtt_us);
  }
  const SackScoreboard::RackMarks rack =
      d.board.RackDetectLoss(reo_wnd_us * 1000);
  d.rack_lost_bytes = rack.rack_bytes;
  const uint64_t lost_bytes = r.bytes_newly_lost + rack.newly_lost_bytes +
                              d.lost_by_retransmission_bytes;
  d.lost_by_retransmission_bytes = 0;
  return lost_bytes;
}

SackScoreboard::AckResult AckTimelineBuilder::ApplyAck(Direction& d,
                                                       const TcpSegment& s,
                                                       int64_t ack,
                                                       uint32_t mss,
                                                       int64_t ack_ns) {
  SackBlock blocks[4];
  const int block_count = s.options.sack_block_count;
  for (int k = 0; k < block_count; ++k) {
    blocks[k].start = d.ack_sequence.Unwrap(s.options.sack_left[k]);
    blocks[k].end = d.ack_sequence.Unwrap(s.options.sack_right[k]);
  }
  return d.board.OnAck(ack, blocks, block_count, mss, ack_ns,
                       d.rtt.min_rtt_us() * 1000,
                       s.options.has_timestamps ? s.options.ts_ecr : 0);
}

void AckTimelineBuilder::TakeWindow(const FlowState& flow, int side,
                                    Direction& d, const TcpSegment& s) {
  d.has_last_ack = true;
  d.last_window_raw = s.window_raw;
  // RFC 7323 section 2.2: the window is scaled once both SYNs carried the
  // option; SYNs themselves are never scaled. A SYN cut by the snaplen
  // before its window scale option leaves the scale unknown, and with it
  // the window (a 64 KB window scaled by 2^10 would read as 64 bytes).
  const bool scale_unknown =
      (flow.syn_options[0].options_cut && !flow.syn_options[0].has_wscale) ||
      (flow.syn_options[1].options_cut && !flow.syn_options[1].has_wscale);
  if (flow.syn_seen[0] && flow.syn_seen[1] && !scale_unknown) {
    const bool scaled =
        flow.syn_options[0].has_wscale && flow.syn_options[1].has_wscale;
    d.rwnd_bytes = static_cast<uint64_t>(s.window_raw)
                   << (scaled ? flow.syn_options[side].wscale_shift : 0);
    d.rwnd_known = true;
  }
}

int64_t AckTimelineBuilder::TakeRttSample(Direction& d, const TcpSegment& s,
                                          const SackScoreboard::AckResult& r,
                                          int64_t ack_ns) {
  // RTT sample from the segment holding the highest newly acknowledged
  // byte (as tshark's ack_rtt and Linux's ca_rtt_us). If any newly
  // acknowledged byte was retransmitted, Karn's rule (RFC 6298 section 3;
  // Linux FLAG_RETRANS_DATA_ACKED) allows none, unless the echoed
  // timestamp names the transmission answered (RFC 7323 section 4).
  const bool has_ts = s.options.has_timestamps;
  const uint32_t ecr = s.options.ts_ecr;
  int64_t sent_ns = 0;
  if (r.bytes_acked > 0 && r.has_acked_segment && !r.acked_segment_unseen) {
    if (!r.retransmitted_data_acked) {
      sent_ns = r.acked_segment_sent_ns;
    } else if (has_ts &&
               r.acked_segment_ts_val != r.acked_segment_first_ts_val) {
      if (ecr == r.acked_segment_ts_val) sent_ns = r.acked_segment_sent_ns;
      if (ecr == r.acked_segment_first_ts_val)
        sent_ns = r.acked_segment_first_sent_ns;
    } else if (has_ts && !r.acked_segment_retransmitted &&
               ecr == r.acked_segment_ts_val) {
      sent_ns = r.acked_segment_sent_ns;
    }
  }
  int64_t rtt_sample_us = 0;
  if (sent_ns > 0 && ack_ns >= sent_ns) {
    rtt_sample_us = std::max<int64_t>((ack_ns - sent_ns) / 1000, 1);
    d.rtt.AddSample(rtt_sample_us);
    d.rtt_summary.Add(rtt_sample_us);
  }
  return rtt_sample_us;
}

void AckTimelineBuilder::TakeEcnFeedback(const FlowState& flow, Direction& d,
                                         const TcpSegment& s,
                                         const SackScoreboard::AckResult& r,
                                         bool handshake_ack, bool duplicate,
                                         TimelineEvent& e) {
  const bool accecn = flow.ecn_mode == EcnMode::kAccEcn;
  AccEcnFeedback::Update ce;
  bool signal = false;
  if (accecn) {
    // The ACK completing the handshake echoes the SYN-ACK's IP-ECN field
    // in ACE, not the counter (RFC 9768 section 3.2.2.3).
    if (!handshake_ack) {
      // A duplicate ACK without SACK stands for one delivered segment, as
      // Linux counts it (tcp_add_reno_sack()).
      const uint64_t packets =
          r.packets_delivered +
          ((duplicate && s.options.sack_block_count == 0) ? 1 : 0);
      ce = d.accecn.OnAck(s.ace(), packets, r.bytes_acked + r.bytes_sacked,
                          s.options.accecn);
      signal = ce.ce_packets > 0;
    }
  } else {
    signal = s.flags & kTcpEce;
  }
  if (d.reducing && !d.awaiting_cwr && d.board.snd_una() > d.reduction_end)
    d.reducing = false;
  bool episode = false;
  if (signal && !d.reducing) {
    // RFC 3168 section 6.1.2: the sender reduces once per window of data.
    episode = true;
    ++d.ece_episodes;
    StartReduction(flow, d);
  }
  e.ece = !accecn && (s.flags & kTcpEce);
  e.ce_packets = ce.ce_packets;
  e.ce_bytes = ce.ce_bytes;
  e.ect0_bytes = ce.ect0_bytes;
  e.ect1_bytes = ce.ect1_bytes;
  e.congestion_episode = episode;
}

void AckTimelineBuilder::FillAckEvent(const FlowState& flow, int sender,
                                      Direction& d,
                                      const SackScoreboard::AckResult& r,
                                      int64_t ack_ns, TimelineEvent& e) {
  e.type = TimelineEvent::Type::kAck;
  e.time_ns = ack_ns;
  e.time_estimated = flow.shift_ns[sender] != 0;
  e.ack = d.board.snd_una();
  e.ack_wire = d.ack_sequence.isn() + static_cast<uint32_t>(e.ack);
  e.bytes_acked = r.bytes_acked;
  e.bytes_sacked = r.bytes_sacked;
  e.bytes_dsacked = r.bytes_dsacked;
  e.packets_delivered = r.packets_delivered;
  if (r.last_sackt_ns > 0 && ack_ns >= r.last_sackt_ns) {
    e.sack_rtt_sample_us =
        std::max<int64_t>((ack_ns - r.last_sackt_ns) / 1000, 1);
  }
  const uint64_t mss = std::max<uint32_t>(d.current_mss(), 1);
  e.packets_rack_lost = (d.rack_lost_bytes + mss - 1) / mss;
  e.reneged = r.reneged;
  e.srtt_us = d.rtt.srtt_us();
  e.rttvar_us = d.rtt.rttvar_us();
  e.min_rtt_us = d.rtt.min_rtt_us();
  e.rto_us = d.rtt.rto_us();
  e.ce_packets_total = d.accecn.ce_packets();
  e.ip_ce_data_packets = d.ip_ce_data_packets;
  e.outstanding_bytes = d.board.outstanding_bytes();
  e.sacked_bytes = d.board.sacked_bytes();
  e.lost_bytes = d.board.lost_bytes();
  e.pipe_bytes = d.board.pipe_bytes();
  e.retransmitted_bytes = d.board.retransmitted_bytes();
  e.rwnd_bytes = d.rwnd_bytes;
  if (d.idle_restart_ns != 0 && d.idle_restart_ns <= ack_ns) {
    e.idle_restart_time_ns = d.idle_restart_ns;
    e.idle_restart_idle_us = d.idle_restart_idle_ns / 1000;
    e.idle_restart_app_limited = d.idle_restart_app_limited;
    d.idle_restart_ns = 0;
  }
}

SendLimit AckTimelineBuilder::DecideLimit(const FlowState& flow, Direction& d,
                                          uint64_t outstanding, uint32_t mss) {
  const SendLimit limit = flow.vantage.handshake_timed()
                              ? LimitBefore(d, outstanding, mss)
                              : SendLimit::kUnknown;  // Unobservable window.
  d.sent_new_since_ack = false;
  d.limit_from_short = limit == SendLimit::kApp && outstanding > 0;
  return limit;
}

void AckTimelineBuilder::EmitAck(const FlowState& flow, int sender,
                                 TimelineEvent& event) {
  Direction& d = *flow.direction[sender];
  if (d.limit_from_short && d.app_pending.size() < kMaxPendingAppAcks) {
    d.app_pending.push_back(std::move(event));
    return;
  }
  ResolvePendingApp(flow, sender, /*new_data=*/false, 0);
  if (sink_) Emit(flow, sender, event);
}

void AckTimelineBuilder::ResolvePendingApp(const FlowState& flow, int sender,
                                           bool new_data, int64_t send_ns) {
  Direction& d = *flow.direction[sender];
  if (d.app_pending.empty()) return;
  // RFC 7661 section 3 (and Linux tcp_rate_check_app_limited()): the
  // sender is application-limited when it had nothing queued. Answering
  // an ACK with new data at once shows it had, since the short segment:
  // something held it at every ACK until then, its window or Nagle's
  // rule (RFC 9293 section 3.7.4) holding a short remainder, which the
  // capture cannot tell apart: kUnknown, never kApp.
  const int64_t at_once_ns =
      std::min(kAnsweredAckNs, d.rtt.srtt_us() * 1000 / kAtOnceRttFraction);
  const bool queued =
      new_data && send_ns - d.app_pending.back().time_ns <= at_once_ns;
  for (TimelineEvent& event : d.app_pending) {
    if (queued) {
      event.limit = SendLimit::kUnknown;
      event.held_after_short = true;
    }
    if (sink_) Emit(flow, sender, event);
  }
  d.app_pending.clear();
}

SendLimit AckTimelineBuilder::LimitBefore(const Direction& d,
                                          uint64_t outstanding, uint32_t mss) {
  if (outstanding == 0) return SendLimit::kApp;
  if (d.rwnd_known && outstanding + mss > d.rwnd_bytes) return SendLimit::kRwnd;
  if (d.last_new_short) return SendLimit::kApp;
  if (d.sent_new_since_ack) return SendLimit::kCwnd;
  return SendLimit::kUnknown;
}

void AckTimelineBuilder::StartReduction(const FlowState& flow, Direction& d) {
  d.reducing = true;
  d.awaiting_cwr = flow.ecn_mode == EcnMode::kRfc3168;
  d.reduction_end = d.board.snd_nxt();
}

void AckTimelineBuilder::Emit(const FlowState& flow, int sender,
                              TimelineEvent& event) const {
  event.flow_index = flow.index;
  event.sender_side = sender;
  sink_(event);
}

TimelineStats AckTimelineBuilder::Stats(uint32_t flow_index) const {
  if (flow_index >= flows_.size()) return TimelineStats();
  const Flow& table_flow = table_.flows()[flow_index];
  if (flows_[flow_index] != nullptr)
    return StatsOf(*flows_[flow_index], table_flow);
  if (one_flow_ && flow_index != selected_flow_) return TimelineStats();
  FlowState syn_alone;  // See StateFor().
  StartFromSyn(table_flow, syn_alone);
  return StatsOf(syn_alone, table_flow);
}

// The capture times a pass moved toward the sender's, `shift_ns`: for
// the vantage it took from the handshake, or one the sender's echoes
// later showed next to the capture (Stats() of a single pass).
static std::string ShiftWarning(Vantage vantage, int64_t shift_ns) {
  const double shift_ms = static_cast<double>(shift_ns) / 1e6;
  if (vantage == Vantage::kSender) {
    return absl::StrFormat(
        "this pass took the capture for one in the middle until the "
        "sender's echoes showed otherwise, and shifted capture times by %.3f "
        "ms; `ccreplay timeline`, `replay` and `diagnose` of this flow take "
        "it as captured at the sender",
        shift_ms);
  }
  return absl::StrFormat(
      "captured at the %s side: sender times are estimated by shifting "
      "capture times by %.3f ms (half the handshake round trip to the "
      "sender), RTT samples include that estimate",
      VantageName(vantage), shift_ms);
}

TimelineStats AckTimelineBuilder::StatsOf(const FlowState& flow,
                                          const Flow& table_flow) {
  TimelineStats out;
  const int sender = table_flow.sender_side();
  const bool sender_opened = flow.opener == sender;
  // The whole flow's echo times, as the pass has seen them.
  VantageDetector vantage = flow.vantage;
  if (flow.opener >= 0) {
    vantage.SetEchoTimes(EchoTimesOf(table_flow, flow.opener),
                         EchoTimesOf(table_flow, 1 - flow.opener));
  }
  out.vantage = vantage.Decide(sender_opened);
  out.sender_window = SenderWindowFor(out.vantage);
  out.sender_window_reason = SenderWindowReason(
      out.vantage, 2 * flow.shift_ns[sender], flow.timestamps);
  out.vantage_note = vantage.Revision(sender_opened);
  const Direction* d = flow.direction[sender].get();
  if (flow.ecn_mode == EcnMode::kAccEcn) out.ce_fed_back_packets = 0;
  if (d == nullptr) return out;
  out.rtt_samples = d->rtt_summary.count();
  out.rtt_min_ms = static_cast<double>(d->rtt_summary.min_us()) / 1000.0;
  out.rtt_median_ms = d->rtt_summary.median_us() / 1000.0;
  out.rtt_max_ms = static_cast<double>(d->rtt_summary.max_us()) / 1000.0;
  std::copy(std::begin(d->retransmissions), std::end(d->retransmissions),
            std::begin(out.retransmissions));
  out.retransmissions[static_cast<int>(RetransmissionKind::kRto)] +=
      table_flow.side[sender].syn_repeats;
  out.spurious_retransmissions = d->spurious;
  out.ece_episodes = d->ece_episodes;
  if (flow.ecn_mode == EcnMode::kAccEcn)
    out.ce_fed_back_packets = d->accecn.ce_packets();
  out.ip_ce_data_packets = d->ip_ce_data_packets;
  out.bytes_acked = static_cast<uint64_t>(d->board.snd_una() - 1);
  out.acks = d->artefacts.acks;

  out.warnings = d->artefacts.Warnings(out.vantage == Vantage::kSender,
                                       flow.ecn_mode != EcnMode::kNone,
                                       flow.ecn_mode == EcnMode::kAccEcn);
  if (out.vantage == Vantage::kUnknown) {
    out.warnings.push_back(
        "the handshake was not captured: the vantage point is unknown and "
        "times are "
        "capture times");
  } else if (flow.shift_ns[sender] > 0) {
    out.warnings.push_back(ShiftWarning(out.vantage, flow.shift_ns[sender]));
  }
  if (flow.vantage.data_holes() > 0) {
    out.warnings.push_back(
        absl::StrFormat("%d %s in the sender's data over bytes never seen: "
                        "lost before the capture "
                        "point, or missed by the capture",
                        flow.vantage.data_holes(),
                        flow.vantage.data_holes() == 1 ? "jump" : "jumps"));
  }
  return out;
}

}  // namespace ccreplay
