// What a capture can and cannot tell about a flow, and the one gate that
// holds back the findings whose evidence is too weak (issue 15): a flow
// under kMinDataPackets data packets or kMinFlowRtts RTTs gets no finding
// at all, and a check that compares the sender's congestion window gets
// none where the input does not show that window (a receiver-side
// capture). The verdict then says in words what could not be told.
#ifndef CCREPLAY_REPORTS_EVIDENCE_QUALITY_H_
#define CCREPLAY_REPORTS_EVIDENCE_QUALITY_H_

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "proto/report.pb.h"
#include "replay/vantage.h"

namespace ccreplay {

// Fewer data packets than this and a limiter, a divergence or a slow-start
// exit is a handful of events, not a behaviour (issue 15's rule).
inline constexpr uint64_t kMinDataPackets = 50;
// Fewer base RTTs than this and the flow is still in its first rounds of
// slow start: no controller has shown its steady behaviour (issue 15).
inline constexpr double kMinFlowRtts = 4;

// What a rule's findings rest on (FindingRule::evidence_need()).
enum class EvidenceNeed {
  kFlowLength,    // A long enough flow; every rule needs this.
  kSenderWindow,  // Also the sender's congestion window, seen.
};

// The facts the assessment reads, gathered by the diagnosis.
struct EvidenceFacts {
  Vantage vantage = Vantage::kUnknown;
  // An ss / tcp_probe / qlog trace gives the sender's cwnd itself.
  bool host_cwnd = false;
  uint64_t data_packets = 0;
  double duration_s = 0;
  double base_rtt_s = 0;  // 0: no RTT sample.
  bool path_busy = false;
  uint64_t acks = 0;             // ACKs from the receiver.
  uint64_t bytes_acked = 0;      // Cumulatively acknowledged.
  uint64_t bytes_seen_sent = 0;  // Unique payload the capture saw.
  std::optional<uint32_t> snaplen_bytes;
  uint64_t snaplen_cut_packets = 0;
  // Frames of the flow captured twice, both directions (left out of every
  // count), and the flow's frames that were not copies.
  uint64_t duplicate_frames = 0;
  uint64_t packets = 0;
};

// A flow of which more than this fraction of frames was captured twice is
// seen from a point that duplicates traffic (a SPAN port mirroring both
// directions, an "any" capture seeing a bridge and its veth): one copy in
// a hundred is past a stray; the note says so.
inline constexpr double kDuplicateFramesNoteFraction = 0.01;

struct EvidenceQuality {
  EvidenceFacts facts;
  bool sender_window_observable = false;
  std::optional<double> flow_rtts;
  bool long_enough = false;
  bool both_directions = false;
  uint64_t capture_loss_bytes = 0;
  // What cannot be told, one sentence each.
  std::vector<std::string> cannot_tell;
  // "kind: reason" for each finding held back (GateFindings fills it).
  std::vector<std::string> withheld;
};

EvidenceQuality AssessEvidence(const EvidenceFacts& facts);

// Why a finding resting on `need` cannot be trusted on `quality`; nullopt
// when it can.
std::optional<std::string> TooWeakFor(EvidenceNeed need,
                                      const EvidenceQuality& quality);

proto::EvidenceQuality EvidenceQualityProto(const EvidenceQuality& quality);

// Rows for the report's summary table and the terminal summary.
std::vector<std::pair<std::string, std::string>> EvidenceRows(
    const EvidenceQuality& quality);

}  // namespace ccreplay

#endif  // CCREPLAY_REPORTS_EVIDENCE_QUALITY_H_
