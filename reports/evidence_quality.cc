#include "reports/evidence_quality.h"

#include <utility>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "reports/figure_format.h"

namespace ccreplay {
namespace {

// The sender's window passes a capture next to the sender or on the path
// (its flight is the data between the capture point and the receiver's
// ACKs); a receiver-side capture sees the data only after the bottleneck,
// and a capture of unknown vantage may be one. (Hook: when replay/vantage.h
// exposes its "sender window observable" flag, this reads it.)
bool SenderWindowObservable(const EvidenceFacts& f) {
  return f.host_cwnd || f.vantage == Vantage::kSender ||
         f.vantage == Vantage::kMiddle;
}

std::string TooShortSentence(const EvidenceQuality& q) {
  const std::string length =
      q.flow_rtts.has_value()
          ? absl::StrCat(Count(q.facts.data_packets, "data packet"), " over ",
                         Figure(*q.flow_rtts, 1), " RTTs")
          : absl::StrCat(Count(q.facts.data_packets, "data packet"),
                         ", no RTT sample");
  return absl::StrFormat("too short to tell: %s (a diagnosis needs %d over %s)",
                         length, kMinDataPackets, Figure(kMinFlowRtts, 0));
}

// What cannot be told, the most limiting first. (A snaplen that cuts the
// payload is not among them: sequence numbers and IP lengths tell the
// sizes, so header-only captures lose nothing the diagnosis reads.)
std::vector<std::string> CannotTell(const EvidenceQuality& q) {
  const EvidenceFacts& f = q.facts;
  std::vector<std::string> out;
  if (!q.both_directions) {
    out.push_back(
        "one direction only: the capture holds the data but no ACK from the "
        "receiver, so neither the delivery rate nor the sender's window can "
        "be told");
  }
  if (!q.long_enough) out.push_back(TooShortSentence(q));
  if (!q.sender_window_observable) {
    out.push_back(absl::StrCat(
        "the sender's congestion window cannot be seen from this capture "
        "(vantage point: ",
        VantageName(f.vantage),
        ") without an ss, tcp_probe or qlog trace of the sender: the checks "
        "that compare it are not reported"));
  }
  if (q.both_directions && !f.path_busy) {
    out.push_back(
        "the path never looked busy (no queue growth, loss or CE): its rate "
        "is only a lower bound");
  }
  if (f.packets > 0 &&
      static_cast<double>(f.duplicate_frames) >
          kDuplicateFramesNoteFraction * static_cast<double>(f.packets)) {
    out.push_back(absl::StrFormat(
        "%d frames were captured twice (a SPAN port or an \"any\" capture "
        "seeing a bridge and its veth?): the copies are left out of every "
        "count, and each packet's time is its first copy's",
        f.duplicate_frames));
  }
  if (q.capture_loss_bytes > 0) {
    out.push_back(absl::StrFormat(
        "the capture missed %d bytes the receiver acknowledged: packet and "
        "retransmission counts are low",
        q.capture_loss_bytes));
  }
  return out;
}

}  // namespace

EvidenceQuality AssessEvidence(const EvidenceFacts& facts) {
  EvidenceQuality q;
  q.facts = facts;
  q.sender_window_observable = SenderWindowObservable(facts);
  if (facts.base_rtt_s > 0 && facts.duration_s >= 0)
    q.flow_rtts = facts.duration_s / facts.base_rtt_s;
  q.long_enough = facts.data_packets >= kMinDataPackets &&
                  q.flow_rtts.has_value() && *q.flow_rtts >= kMinFlowRtts;
  q.both_directions = facts.acks > 0;
  // One sequence number of slack: an acknowledged FIN carries no payload.
  if (facts.bytes_acked > facts.bytes_seen_sent + 1)
    q.capture_loss_bytes = facts.bytes_acked - facts.bytes_seen_sent - 1;
  q.cannot_tell = CannotTell(q);
  return q;
}

std::optional<std::string> TooWeakFor(EvidenceNeed need,
                                      const EvidenceQuality& q) {
  if (!q.both_directions) return "no ACK from the receiver";
  if (!q.long_enough) return TooShortSentence(q);
  if (need == EvidenceNeed::kSenderWindow && !q.sender_window_observable) {
    return absl::StrCat("the sender's congestion window cannot be seen (",
                        VantageName(q.facts.vantage), "-side capture)");
  }
  return std::nullopt;
}

proto::EvidenceQuality EvidenceQualityProto(const EvidenceQuality& q) {
  proto::EvidenceQuality out;
  out.set_vantage(VantageName(q.facts.vantage));
  out.set_sender_window_observable(q.sender_window_observable);
  out.set_data_packets(q.facts.data_packets);
  if (q.flow_rtts.has_value()) out.set_flow_rtts(*q.flow_rtts);
  out.set_long_enough(q.long_enough);
  out.set_path_busy(q.facts.path_busy);
  out.set_both_directions(q.both_directions);
  out.set_capture_loss_bytes(q.capture_loss_bytes);
  if (q.facts.snaplen_bytes.has_value())
    out.set_snaplen_bytes(*q.facts.snaplen_bytes);
  out.set_snaplen_cut_packets(q.facts.snaplen_cut_packets);
  for (const std::string& s : q.cannot_tell) out.add_cannot_tell(s);
  for (const std::string& s : q.withheld) out.add_withheld_findings(s);
  return out;
}

std::vector<std::pair<std::string, std::string>> EvidenceRows(
    const EvidenceQuality& q) {
  const EvidenceFacts& f = q.facts;
  return {
      {"vantage point",
       absl::StrCat(VantageName(f.vantage), "; sender's window ",
                    q.sender_window_observable ? "seen" : "not seen")},
      {"flow length",
       absl::StrCat(Count(f.data_packets, "data packet"), " over ",
                    q.flow_rtts ? Figure(*q.flow_rtts, 1) : "n/a", " RTTs",
                    q.long_enough ? "" : " (too short to judge)")},
      {"path busy",
       f.path_busy ? "yes (queue growth, loss or CE seen)" : "never seen busy"},
      {"directions", q.both_directions ? "both (data and ACKs)"
                                       : "data only: no ACK captured"},
      {"capture loss", absl::StrFormat("%d bytes acknowledged but never seen",
                                       q.capture_loss_bytes)},
      {"snaplen",
       absl::StrCat(f.snaplen_bytes ? absl::StrCat(*f.snaplen_bytes, " bytes")
                                    : "not recorded",
                    "; ", f.snaplen_cut_packets, " packets cut")},
  };
}

}  // namespace ccreplay
