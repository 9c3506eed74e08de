// Where a capture was taken on a flow's path (next to the data sender, next
// to the receiver, or in the middle), from the handshake's timing and from
// what a sender-side capture cannot show; and the capture artefacts that
// limit what the timeline can know (TSO/GRO super-segments, NIC offloads
// that set ECE on every ACK, packets the capture missed).
#ifndef CCREPLAY_REPLAY_VANTAGE_H_
#define CCREPLAY_REPLAY_VANTAGE_H_

#include <cstdint>
#include <string>
#include <vector>

namespace ccreplay {

enum class Vantage { kUnknown, kSender, kReceiver, kMiddle };
const char* VantageName(Vantage vantage);  // "unknown", "sender", ...

class VantageDetector {
 public:
  // A host answers within this time: the capture sits next to a host whose
  // reply follows the packet it answers by less (a 1 ms scheduling
  // allowance; path RTTs we diagnose are longer, or both gaps are short and
  // the shorter one still names the nearer host).
  static constexpr int64_t kLocalReplyNs = 1000000;

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
  uint64_t ce_marked_data_ = 0;
  uint64_t data_holes_ = 0;
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
