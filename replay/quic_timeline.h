// The ACK timeline of a QUIC sender, from its own log (qlog or quicly):
// the packets it sent, the ACK frames it received and the packets it
// declared lost, turned into the same TimelineEvents the TCP reconstruction
// emits, so replay drives controllers the same way for both.
//
// An ACK frame of the Initial or Handshake space becomes an ACK event with
// the bytes it newly acknowledges and its RTT sample only (RFC 9002
// appendix B.5 grows cwnd for every space; ngtcp2 does, see
// OnHandshakeAck()). Per ACK frame of the application space:
// - bytes acked: the sizes of the packets in the acked ranges not acked or
//   declared lost before (RFC 9002 section 7: only in-flight packets count);
// - RTT sample when the largest acknowledged packet is newly acked (RFC 9002
//   section 5.1), and the RFC 9002 section 5.3 smoothed RTT, with the peer's
//   ack_delay subtracted when that keeps the sample above min_rtt;
// - CE feedback: the increase of the cumulative ECN-CE count (RFC 9000
//   section 19.3.2), a congestion event once per recovery period (RFC 9002
//   section 7.1 / appendix B.7);
// - flight: the ack-eliciting packets sent and neither acked nor lost.
// A packet declared lost that was sent after the current recovery period
// began starts a new congestion event (RFC 9002 section 7.3.2): it becomes a
// retransmission event with starts_episode. Persistent congestion (section
// 7.6) is not modelled.
#ifndef CCREPLAY_REPLAY_QUIC_TIMELINE_H_
#define CCREPLAY_REPLAY_QUIC_TIMELINE_H_

#include <cstdint>
#include <string>
#include <vector>

#include "parsers/host_state.h"
#include "replay/ack_timeline.h"

namespace ccreplay {

struct QuicTimelineStats {
  uint64_t acks = 0;               // ACK frames that acknowledged new data.
  uint64_t congestion_events = 0;  // Loss and CE episodes.
  uint64_t bytes_acked = 0;
  uint32_t max_packet_bytes = 0;
  bool ecn_counts = false;  // Some ACK frame carried ECN counts.
  std::vector<std::string> warnings;
};

// Streams the trace's events in time order to `sink` (flow_index 0, times
// in ns on the trace's clock).
QuicTimelineStats BuildQuicTimeline(const HostTrace& trace,
                                    const TimelineSink& sink);

}  // namespace ccreplay

#endif  // CCREPLAY_REPLAY_QUIC_TIMELINE_H_
