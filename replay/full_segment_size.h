// How large a full segment of a sender is, learnt from the segments that
// were full by the sender's own account: a new segment that another new
// segment followed at once (no ACK between) left while more data was
// queued, so it carried what one segment could (Linux tcp_write_xmit()
// cuts the queue at the current MSS, include/net/tcp.h at 6.18). Their
// sizes vary with the options each one carries (SACK blocks, RFC 2018
// section 3), with a path MTU change (RFC 8201) and with what a capture's
// anonymiser or offload did; the largest one alone would make every
// slightly smaller full segment look short, and the sender look
// application-limited (issue 15 item 3).
//
// The estimate is a low quantile of those sizes, tracked in constant
// memory by stochastic approximation (Robbins and Monro, 1951): each size
// moves it up by kQuantile steps when at or above, down by 1 - kQuantile
// steps when below, so it settles where kQuantile of the sizes lie below.
#ifndef CCREPLAY_REPLAY_FULL_SEGMENT_SIZE_H_
#define CCREPLAY_REPLAY_FULL_SEGMENT_SIZE_H_

#include <cstdint>

namespace ccreplay {

class FullSegmentSize {
 public:
  // The share of full segments allowed below the estimate: one in twenty
  // (a TLS record or a PSH boundary inside a burst) does not make a
  // sender's every segment short.
  static constexpr double kQuantile = 0.05;
  // The step is the MSS over this: a sender whose full segments vary by a
  // few SACK blocks (8 bytes each) is followed within a few segments.
  static constexpr double kStepsPerMss = 16;

  // A new segment of `payload_bytes` that another followed at once, sent
  // with `mss_bytes` the largest segment size known.
  void OnFullSegment(uint32_t payload_bytes, uint32_t mss_bytes);
  // A segment below this is short: the estimate, at most `mss_bytes`;
  // `mss_bytes` until a full segment was seen.
  uint32_t ShortBelowBytes(uint32_t mss_bytes) const;

 private:
  double estimate_bytes_ = 0;
  bool seen_ = false;
};

}  // namespace ccreplay

#endif  // CCREPLAY_REPLAY_FULL_SEGMENT_SIZE_H_
