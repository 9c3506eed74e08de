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

void VantageDetector::OnHandshakeAck(int64_t time_ns) {
  if (syn_seen_ && syn_ack_seen_ && syn_ack_ns_ >= syn_ns_ &&
      time_ns >= syn_ack_ns_) {
    hs_ack_ns_ = time_ns;
    handshake_timed_ = true;
  }
}

Vantage VantageDetector::Decide(bool sender_opened) const {
  Vantage v = Vantage::kUnknown;
  if (handshake_timed()) {
    const int64_t to_server = syn_ack_ns_ - syn_ns_;
    const int64_t to_client = hs_ack_ns_ - syn_ack_ns_;
    const int64_t shorter = std::min(to_server, to_client);
    const int64_t longer = std::max(to_server, to_client);
    if (shorter > kLocalReplyNs && shorter * 10 > longer) {
      v = Vantage::kMiddle;  // Both hosts are a real round trip away.
    } else {
      const bool near_client = to_client < to_server;
      v = near_client == sender_opened ? Vantage::kSender : Vantage::kReceiver;
    }
  }
  // CE on data cannot be seen where the sender sends it.
  if (ce_marked_data_ > 0 && v == Vantage::kSender) v = Vantage::kMiddle;
  return v;
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
        "%d segments larger than the MSS (up to %d bytes): %s super-segments, "
        "so packet "
        "counts and per-packet timing are coarser than on the wire",
        super_segments, largest_super_segment_bytes,
        sender_side ? "TSO/GSO" : "GRO/LRO"));
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
    out.push_back(
        absl::StrFormat("%d ACKs acknowledge data the capture never showed "
                        "sent: packets are missing "
                        "from the capture",
                        acks_of_unseen_data));
  }
  return out;
}

}  // namespace ccreplay
