// Where a capture was taken on a flow's path (next to the data sender, next
// to the receiver, or in the middle), from the handshake's timing and from
// what a sender-side capture cannot show; and the capture artefacts that
// limit what the timeline can know (TSO/GRO super-segments, NIC offloads
// that set ECE on every ACK, packets the capture missed).
#ifndef CCREPLAY_REPLAY_VANTAGE_H_
#define CCREPLAY_REPLAY_VANTAGE_H_

#include <cstdint>
#include <deque>
#include <memory>
#include <string>
#include <vector>

#include "parsers/flow_table.h"

namespace ccreplay {

enum class Vantage { kUnknown, kSender, kReceiver, kMiddle };
const char* VantageName(Vantage vantage);  // "unknown", "sender", ...

// Whether the timeline's flight (and so any cwnd it implies) is the
// sender's own. Reports use it to decide what may be compared with a
// replayed cwnd and what may be called cwnd-limited.
enum class SenderWindow {
  // Captured at the sender: flight is snd_nxt - snd_una as it sent.
  kObserved,
  // Captured downstream with a timed handshake: the receiver's ACKs are
  // held until the sender can have seen them (AckHold), so flight is the
  // sender's as estimated, within the uncertainty SenderWindowReason gives.
  kEstimated,
  // Vantage unknown: flight is whatever passed the capture point; no
  // interval is attributed to a window (SendLimit kUnknown throughout).
  kUnobservable,
};
// "yes", "estimated", "no": the answer to "sender window observable?".
const char* SenderWindowName(SenderWindow window);
SenderWindow SenderWindowFor(Vantage vantage);
// One sentence for a person: how the flight was obtained and how far off
// it may be. `hold_ns`: the round trip from the capture point to the
// sender (the default hold); `timestamps` as for AckHold.
std::string SenderWindowReason(Vantage vantage, int64_t hold_ns,
                               bool timestamps);

class VantageDetector {
 public:
  // A host answers within this time: the capture sits next to a host whose
  // reply follows the packet it answers by less (a 1 ms scheduling
  // allowance; path RTTs we diagnose are longer, or both gaps are short and
  // the shorter one still names the nearer host).
  static constexpr int64_t kLocalReplyNs = kQuickAnswerNs;
  // Echoes under kLocalReplyNs that show a host next to the capture point
  // although its handshake answer was slow (SetEchoTimes()): more than a
  // few, since a capture that missed a tick's first segment times an echo
  // short by up to a tick.
  static constexpr uint64_t kMinQuickEchoes = 8;

  // Handshake: the SYN, the SYN-ACK, and the ACK that completes it, in
  // capture time. The gap SYN -> SYN-ACK is the round trip from the capture
  // point to the server, SYN-ACK -> ACK the one to the client.
  void OnSyn(int64_t time_ns) {
    syn_ns_ = time_ns;
    syn_seen_ = true;
  }
  void OnSynAck(int64_t time_ns) {
    syn_ack_ns_ = time_ns;
    syn_ack_seen_ = true;
  }
  void OnHandshakeAck(int64_t time_ns);
  // Evidence against a sender-side capture: data packets that arrive
  // CE-marked (marks are made downstream of the sender), and data that
  // jumps over bytes never seen (lost before the capture point, or missed).
  void OnCeMarkedData() { ++ce_marked_data_; }
  // How soon each host echoed the other's timestamps after the handshake
  // (EchoTimes, from the whole capture: a first pass, or the end of this
  // one). A host answering the handshake late (a busy or emulated CPU)
  // looks a round trip away; one that then echoes within kLocalReplyNs
  // kMinQuickEchoes times is next to the capture point, which Decide()
  // takes over a handshake that read `middle`.
  void SetEchoTimes(const EchoTimes& client, const EchoTimes& server) {
    echo_[0] = client;
    echo_[1] = server;
  }
  // Why the vantage is not what the handshake's timing alone gives (a
  // host it places a round trip away echoed at once); empty when it is.
  std::string Revision(bool sender_opened) const;
  void OnDataHole() { ++data_holes_; }

  bool handshake_timed() const { return handshake_timed_; }
  // `sender_opened`: the data sender sent the SYN (it is the client).
  Vantage Decide(bool sender_opened) const;
  // Half the round trip from the capture point to the sender and back:
  // what to add to an ACK's capture time (and subtract from a data
  // packet's) to get the sender's time. 0 at the sender or when unknown.
  int64_t SenderOneWayNs(bool sender_opened) const;

  uint64_t ce_marked_data() const { return ce_marked_data_; }
  uint64_t data_holes() const { return data_holes_; }

 private:
  int64_t syn_ns_ = 0;
  int64_t syn_ack_ns_ = 0;
  int64_t hs_ack_ns_ = 0;
  bool syn_seen_ = false;
  bool syn_ack_seen_ = false;
  bool handshake_timed_ = false;
  EchoTimes echo_[2];  // [0] the client's echoes, [1] the server's.
  uint64_t ce_marked_data_ = 0;
  uint64_t data_holes_ = 0;

  Vantage FromHandshake(bool sender_opened) const;
  int NearHost() const;
};

// Times a downstream capture's ACKs (from the receiver) at the sender:
// an ACK captured at t reaches the sender a one-way trip later, and the
// data the sender sends next passes the capture point a round trip `hold`
// after t, so data captured in between left the sender before it saw the
// ACK. An ACK is released (the sender has it) when
// - the sender echoes its TSval (RFC 7323 section 4.3: TSecr of the next
//   segment is the TSval of the last ACK it took, Linux
//   tcp_replace_ts_recent()); an echo of the same tick is ambiguous, so
//   such an ACK waits at least the handshake round trip; or
// - its hold expires: twice the last hold measured by an echo, at least
//   the handshake round trip (a sender with nothing to send echoes
//   nothing). AckTimelineBuilder starts it only when both SYNs carry
//   timestamps: without them the path's round trip, which may shrink or
//   grow from the handshake's, shows nowhere, and ACKs stay in capture
//   order.
// It keeps only the ACKs' times and TSvals; the caller keeps whatever it
// defers in a queue of its own, in the same order. Memory: the ACKs of
// one round trip.
class AckHold {
 public:
  // `hold_ns`: the handshake round trip from the capture point to the
  // sender; 0 (captured at the sender, or unknown) holds nothing.
  void Start(int64_t hold_ns) { hold_ns_ = measured_ns_ = hold_ns; }
  bool active() const { return hold_ns_ > 0; }
  bool empty() const { return held_ == nullptr || held_->empty(); }
  void Push(int64_t time_ns, bool has_timestamps, uint32_t ts_val) {
    if (held_ == nullptr) held_ = std::make_unique<std::deque<Held>>();
    held_->push_back({time_ns, has_timestamps, ts_val});
  }

  // Drops the oldest held ACK and returns true when the sender had seen
  // it before a segment captured at `now_ns` (`echo`: that one is the
  // sender's and echoes `ts_ecr`), or its hold expired, or with `all`.
  bool Pop(int64_t now_ns, bool echo, uint32_t ts_ecr, bool all);
  // The last hold an echo measured (the handshake's before any): the
  // round trip from the capture point to the sender and back, queueing
  // on the way included; what it exceeds the handshake's by is queueing
  // on the way from the sender.
  int64_t measured_ns() const { return measured_ns_; }

 private:
  struct Held {
    int64_t time_ns;
    bool has_timestamps;
    uint32_t ts_val;
  };
  int64_t hold_ns_ = 0;
  int64_t measured_ns_ = 0;
  // Made at the first Push: libstdc++'s std::deque allocates its first
  // block (over 500 bytes) when constructed, and most flows never hold an
  // ACK (a capture of 1 M SYN-only flows would spend 1 GB on empty ones).
  std::unique_ptr<std::deque<Held>> held_;
};

// Counts of capture artefacts for one flow, and the warnings they give.
struct CaptureArtefacts {
  uint64_t super_segments = 0;  // Payload above the peer's MSS.
  uint32_t largest_super_segment_bytes = 0;
  uint64_t acks = 0;      // ACKs from the receiver after the handshake.
  uint64_t ece_acks = 0;  // ... with ECE set.
  uint64_t acks_of_unseen_data = 0;  // ACKs above the highest byte seen sent.

  // `ecn_negotiated`: RFC 3168 or AccECN was negotiated. Each warning is a
  // sentence for a person.
  std::vector<std::string> Warnings(bool sender_side, bool ecn_negotiated,
                                    bool accecn) const;
};

}  // namespace ccreplay

#endif  // CCREPLAY_REPLAY_VANTAGE_H_
