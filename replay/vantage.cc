#include "replay/vantage.h"

#include <algorithm>

#include "absl/strings/str_format.h"

namespace ccreplay {

const char* VantageName(Vantage vantage) {
  switch (vantage) {
    case Vantage::kSender:
      return "sender";
    case Vantage::kReceiver:
      return "receiver";
    case Vantage::kMiddle:
      return "middle";
    case Vantage::kUnknown:
      break;
  }
  return "unknown";
}

const char* SenderWindowName(SenderWindow window) {
  switch (window) {
    case SenderWindow::kObserved:
      return "yes";
    case SenderWindow::kEstimated:
      return "estimated";
    case SenderWindow::kUnobservable:
      break;
  }
  return "no";
}

SenderWindow SenderWindowFor(Vantage vantage) {
  switch (vantage) {
    case Vantage::kSender:
      return SenderWindow::kObserved;
    case Vantage::kReceiver:
    case Vantage::kMiddle:
      return SenderWindow::kEstimated;
    case Vantage::kUnknown:
      break;
  }
  return SenderWindow::kUnobservable;
}

std::string SenderWindowReason(Vantage vantage, int64_t hold_ns,
                               bool timestamps) {
  switch (SenderWindowFor(vantage)) {
    case SenderWindow::kObserved:
      return "captured at the sender: flight is the sender's own";
    case SenderWindow::kEstimated:
      return absl::StrFormat(
          "captured at the %s side: the sender's flight is estimated as data "
          "seen minus the ACKs it had received, %s",
          VantageName(vantage),
          timestamps
              ? "each ACK held until the sender's timestamp echo shows it seen "
                "(exact to one timestamp tick)"
              : absl::StrFormat("in capture order (no timestamps show when "
                                "the sender took an ACK; a lower bound by up "
                                "to the %.3f ms handshake round trip's data)",
                                static_cast<double>(hold_ns) / 1e6));
    case SenderWindow::kUnobservable:
      break;
  }
  return "the handshake was not captured: where the capture sits is unknown, "
         "so the sender's window cannot be told and no interval is "
         "attributed to it";
}

bool AckHold::Pop(int64_t now_ns, bool echo, uint32_t ts_ecr, bool all) {
  if (empty()) return false;
  const Held& front = held_->front();
  const int64_t waited = now_ns - front.time_ns;
  // An echo of a later tick proves this ACK seen (ACKs reach the sender in
  // order); an echo of the same tick may be of an earlier ACK of that
  // tick, so it counts only once the handshake round trip has passed (no
  // answer comes sooner).
  const int32_t ahead = static_cast<int32_t>(ts_ecr - front.ts_val);
  const bool echoed = echo && front.has_timestamps &&
                      (ahead > 0 || (ahead == 0 && waited >= hold_ns_));
  const int64_t expiry =
      front.has_timestamps ? std::max(hold_ns_, 2 * measured_ns_) : hold_ns_;
  if (!echoed && !all && waited < expiry) return false;
  if (echoed) measured_ns_ = waited;
  held_->pop_front();
  return true;
}

void VantageDetector::OnHandshakeAck(int64_t time_ns) {
  if (syn_seen_ && syn_ack_seen_ && syn_ack_ns_ >= syn_ns_ &&
      time_ns >= syn_ack_ns_) {
    hs_ack_ns_ = time_ns;
    handshake_timed_ = true;
  }
}

// The host (0 client, 1 server) the echoes show next to the capture
// point, the nearer when both are; -1 when neither is.
int VantageDetector::NearHost() const {
  const bool near[2] = {echo_[0].quick >= kMinQuickEchoes,
                        echo_[1].quick >= kMinQuickEchoes};
  if (near[0] && near[1]) return echo_[1].min_ns < echo_[0].min_ns ? 1 : 0;
  return near[0] ? 0 : near[1] ? 1 : -1;
}

Vantage VantageDetector::FromHandshake(bool sender_opened) const {
  Vantage v = Vantage::kUnknown;
  if (handshake_timed()) {
    const int64_t to_server = syn_ack_ns_ - syn_ns_;
    const int64_t to_client = hs_ack_ns_ - syn_ack_ns_;
    const int64_t shorter = std::min(to_server, to_client);
    const int64_t longer = std::max(to_server, to_client);
    // shorter > longer / 10, as integers the same as shorter * 10 >
    // longer, which overflows for gaps of years (timeline_fuzzer: a
    // SYN-ACK 45 years after its SYN).
    if (shorter > kLocalReplyNs && shorter > longer / 10) {
      v = Vantage::kMiddle;  // Both hosts are a real round trip away.
    } else {
      const bool near_client = to_client < to_server;
      v = near_client == sender_opened ? Vantage::kSender : Vantage::kReceiver;
    }
  }
  return v;
}

Vantage VantageDetector::Decide(bool sender_opened) const {
  Vantage v = FromHandshake(sender_opened);
  const int near = NearHost();
  if (v == Vantage::kMiddle && near >= 0)
    v = (near == 0) == sender_opened ? Vantage::kSender : Vantage::kReceiver;
  // CE on data cannot be seen where the sender sends it.
  if (ce_marked_data_ > 0 && v == Vantage::kSender) v = Vantage::kMiddle;
  return v;
}

std::string VantageDetector::Revision(bool sender_opened) const {
  const Vantage v = Decide(sender_opened);
  if (v == FromHandshake(sender_opened) || v == Vantage::kMiddle) return "";
  const int near = NearHost();
  const bool sender = (near == 0) == sender_opened;
  const int64_t answer_ns =
      near == 0 ? hs_ack_ns_ - syn_ack_ns_ : syn_ack_ns_ - syn_ns_;
  const EchoTimes& e = echo_[near];
  return absl::StrFormat(
      "the %s answered the handshake %.3f ms after the packet before, as if "
      "a round trip away, but echoed the %s's timestamps within %.3f ms "
      "(%d of %d echoes under %.0f ms): it is next to the capture point, "
      "and answered the handshake slowly",
      sender ? "sender" : "receiver", static_cast<double>(answer_ns) / 1e6,
      sender ? "receiver" : "sender", static_cast<double>(e.min_ns) / 1e6,
      e.quick, e.echoes, kLocalReplyNs / 1e6);
}

int64_t VantageDetector::SenderOneWayNs(bool sender_opened) const {
  const Vantage v = Decide(sender_opened);
  if (!handshake_timed() || v == Vantage::kSender || v == Vantage::kUnknown)
    return 0;
  const int64_t round_trip =
      sender_opened ? hs_ack_ns_ - syn_ack_ns_ : syn_ack_ns_ - syn_ns_;
  return round_trip / 2;
}

std::vector<std::string> CaptureArtefacts::Warnings(bool sender_side,
                                                    bool ecn_negotiated,
                                                    bool accecn) const {
  std::vector<std::string> out;
  if (super_segments > 0) {
    out.push_back(absl::StrFormat(
        "%d %s larger than the MSS (up to %d bytes): %s super-segments, "
        "so packet "
        "counts and per-packet timing are coarser than on the wire",
        super_segments, super_segments == 1 ? "segment" : "segments",
        largest_super_segment_bytes, sender_side ? "TSO/GSO" : "GRO/LRO"));
  }
  // RFC 3168 receivers set ECE until CWR arrives, never on every ACK of a
  // long flow without CE; AccECN uses the bit as part of ACE.
  constexpr uint64_t kMinAcks = 100;
  if (!accecn && acks >= kMinAcks && ece_acks * 100 >= acks * 99) {
    out.push_back(absl::StrFormat(
        "ECE is set on %d of %d ACKs%s: likely a NIC or driver offload "
        "artefact, so ECN "
        "feedback in this flow is not trusted",
        ece_acks, acks,
        ecn_negotiated ? "" : " although ECN was not negotiated"));
  }
  if (acks_of_unseen_data > 0) {
    out.push_back(absl::StrFormat(
        "%d %s data the capture never showed "
        "sent: packets are missing "
        "from the capture",
        acks_of_unseen_data,
        acks_of_unseen_data == 1 ? "ACK acknowledges" : "ACKs acknowledge"));
  }
  return out;
}

}  // namespace ccreplay
