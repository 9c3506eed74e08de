// The sender's retransmission timer estimate (RFC 6298 section 2): smoothed
// RTT, RTT variation and RTO from RTT samples, plus the minimum RTT seen.
#ifndef CCREPLAY_REPLAY_RTT_ESTIMATOR_H_
#define CCREPLAY_REPLAY_RTT_ESTIMATOR_H_

#include <cstdint>

namespace ccreplay {

class RttEstimator {
 public:
  // Linux's TCP_RTO_MIN (include/net/tcp.h): 200 ms. RFC 6298 (2.4) asks
  // for 1 s; captures come from Linux, so its floor is the default.
  static constexpr int64_t kLinuxMinRtoUs = 200000;
  // RFC 6298 (2.1): 1 s until the first sample.
  static constexpr int64_t kInitialRtoUs = 1000000;
  // RFC 6298 (2.4): a maximum of at least 60 s may be placed on the RTO.
  static constexpr int64_t kMaxRtoUs = 60000000;

  explicit RttEstimator(int64_t min_rto_us = kLinuxMinRtoUs)
      : min_rto_us_(min_rto_us) {}

  // RFC 6298 (2.2) for the first sample, (2.3) for the others, with
  // alpha = 1/8 and beta = 1/4; samples below 1 us count as 1 us.
  void AddSample(int64_t rtt_us);
  // The handshake's round trip as the first sample (RFC 6298 2.2), before
  // any data was acknowledged: Linux times its SYN or SYN-ACK
  // (tcp_ack_update_rtt() from tcp_rcv_synsent_state_process() and
  // tcp_synack_rtt_meas()), so its first data RTO is already derived from
  // it. Ignored once a sample was taken, and when 0
  // (none). Min RTT is left to data samples.
  void SeedFromHandshake(int64_t rtt_us);

  bool has_sample() const { return srtt_us_ > 0; }
  int64_t srtt_us() const { return srtt_us_; }
  int64_t rttvar_us() const { return rttvar_us_; }
  int64_t min_rtt_us() const { return min_rtt_us_; }
  // RTO = SRTT + max(G, 4 * RTTVAR), clamped to [min_rto, 60 s]; G, the
  // clock granularity, is taken as 1 us (capture timestamps).
  int64_t rto_us() const;

 private:
  // RFC 6298 2.2 (first sample) or 2.3 (the others) on SRTT and RTTVAR.
  void Smooth(int64_t rtt_us);

  int64_t min_rto_us_;
  int64_t srtt_us_ = 0;
  int64_t rttvar_us_ = 0;
  int64_t min_rtt_us_ = 0;
};

}  // namespace ccreplay

#endif  // CCREPLAY_REPLAY_RTT_ESTIMATOR_H_
