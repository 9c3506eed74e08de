// Shared-bottleneck detection (RFC 8382, "Shared Bottleneck Detection for
// Coupled Congestion Control for RTP Media"): which flows of a capture
// cross the same bottleneck, from the shape of their delay (skewness,
// variability and oscillation, section 3.1) and their loss or CE rate,
// grouped by the algorithm of section 3.3.1. Flows on different
// bottlenecks are not competitors; flows that cross none (application
// limited, or a path far longer than their window) are in no group.
//
// Input is a flow's delay samples. The RFC measures one-way delay (OWD) at
// the receiver; a capture at the sender gives RTT samples instead, so the
// return path's delay variation (and delayed ACKs) enter the statistics
// too. The statistics need only the delay's variation, not its absolute
// value (the RFC's OWD may carry any clock offset), which an RTT over a
// quiet return path gives; a congested return path adds its own skew and
// variability and can merge or split groups.
//
// Statistics are evaluated at the end of every base interval T (on the
// absolute grid floor(time_us / T), so all flows share instants), over the
// last M intervals (skew_est, var_est) and N intervals (freq_est,
// pkt_loss); the flows evaluable at an instant are grouped, and the groups
// reported are the flows grouped together at most of the instants at which
// all were congested.
#ifndef CCREPLAY_REPLAY_SHARED_BOTTLENECK_H_
#define CCREPLAY_REPLAY_SHARED_BOTTLENECK_H_

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "absl/types/span.h"
#include "replay/ack_timeline.h"

namespace ccreplay {

struct DelaySample {
  int64_t time_us = 0;
  int64_t delay_us = 0;  // OWD or RTT
};

// One base interval T of a flow, summed as RFC 8382 section 3.2 defines.
struct SbdInterval {
  int64_t index = 0;  // floor(time_us / T)
  int64_t num = 0;    // num_T(OWD)
  double sum_us = 0;  // sum_T(OWD)
  // The intervals before this one gave mean_delay and E_T(OWD) of the
  // previous T; without them (the flow's first samples) the two sums below
  // are not defined and the interval only seeds the next.
  bool has_reference = false;
  double mean_delay_us = 0;  // E_M(E_T(OWD)) of the previous intervals
  double skew_base = 0;      // skew_base_T, section 3.2.1
  double var_base_us = 0;    // var_base_T, section 3.2.2
  int64_t packets = 0;       // pkt_loss denominator, section 3.2.4
  int64_t losses = 0;
};

struct SbdFlowSeries {
  uint32_t flow_id = 0;                  // the caller's id (a flow index)
  std::vector<DelaySample> delays;       // time-ordered samples
  std::vector<int64_t> packet_times_us;  // data packets sent (loss-rate
                                         // denominator)
  std::vector<int64_t> loss_times_us;    // losses (retransmissions) and CE
                                         // marks
  // Already summed per base interval (SbdSeriesBuilder past its raw cap),
  // sorted by index, with the T and M they were summed with; the raw
  // vectors above are then empty.
  std::vector<SbdInterval> intervals;
  int64_t intervals_t_us = 0;
  int intervals_m = 0;
};

// RFC 8382 section 3.3 (parameter values as its table lists them).
struct SbdParams {
  int64_t t_us = 350'000;  // T: the base time interval
  int n = 50;              // N: intervals for freq_est and pkt_loss
  int m = 30;              // M: intervals for skew_est and var_est (M <= N)
  double c_s = -0.01;      // skew_est below it: congested (3.3.1 step 1)
  double c_h = 0.3;        // hysteresis for a flow congested last time
  double p_l = 0.1;        // pkt_loss above it: congested
  double p_v = 0.7;        // significant crossing: p_v * var_est (3.2.3)
  double p_f = 0.1;        // freq_est grouping threshold, absolute
  double p_mad = 0.1;      // var_est grouping threshold, relative
  double p_s = 0.15;       // skew_est grouping threshold, absolute
  double p_d = 0.1;        // pkt_loss grouping threshold, relative
  // Not in the RFC: a flow is evaluated at an instant only when its last M
  // intervals hold at least this many delay samples (on average one per T),
  // and M intervals have passed since its first sample.
  int64_t min_samples = 30;
};

struct SbdFlowStats {
  uint32_t flow_id = 0;
  // Medians over the flow's evaluations; absent: not computable.
  std::optional<double> skew_est, var_est_ms, freq_est, pkt_loss;
  bool congested = false;  // transits a bottleneck per the RFC's test
  std::string why_not;     // when not congested / too few samples: in words
  int evaluations = 0;     // instants at which the flow was evaluated
  int congested_evaluations = 0;  // ... and found congested
};

struct SbdGroup {
  std::vector<uint32_t> flow_ids;  // >= 1 congested flows
  // Fraction of the evaluation instants, among those where every member was
  // congested, at which they were grouped together (0..1). For a group of
  // one: the fraction of its congested instants at which it was grouped
  // with no other flow.
  double confidence = 0;
};

struct SbdResult {
  std::vector<SbdGroup> groups;
  std::vector<SbdFlowStats> flows;  // in the order of the input
};

SbdResult DetectSharedBottlenecks(absl::Span<const SbdFlowSeries> flows,
                                  const SbdParams& params = {});

// One flow's statistics at the end of one base interval (RFC 8382 section
// 3.2): skew_est and var_est over the last M intervals, freq_est and
// pkt_loss over the last N.
struct SbdEvaluation {
  int64_t index = 0;  // of the interval; it ends at (index + 1) * T
  double skew_est = 0;
  double var_est_us = 0;
  double freq_est = 0;
  std::optional<double> pkt_loss;  // absent: no packets counted
};

// The instants at which DetectSharedBottlenecks evaluates the flow, with its
// statistics there; empty with `why_not` set when it cannot be evaluated.
std::vector<SbdEvaluation> EvaluateSbdFlow(const SbdFlowSeries& flow,
                                           const SbdParams& params,
                                           std::string* why_not = nullptr);

// Sums a flow's samples per base interval, streaming: delays must come in
// time order; packets and losses may come in any order.
class SbdIntervalAccumulator {
 public:
  explicit SbdIntervalAccumulator(const SbdParams& params);
  void AddDelay(int64_t time_us, int64_t delay_us);
  void AddPackets(int64_t time_us, int64_t count);
  void AddLosses(int64_t time_us, int64_t count);
  // Sorted by index.
  std::vector<SbdInterval> Take();

 private:
  SbdInterval& At(int64_t index);
  void CloseInterval();

  SbdParams params_;
  std::map<int64_t, SbdInterval> intervals_;  // by index, with gaps
  // The interval delays are going into, its E_T(OWD) reference and the
  // E_T(OWD) of up to M previous intervals with samples.
  int64_t open_index_ = 0;
  bool open_ = false;
  std::vector<double> previous_means_us_;
  double previous_mean_us_ = 0;
};

// Streaming: collects one flow's SbdFlowSeries from its TimelineEvents
// (rtt_sample_us of ACKs; retransmissions, CE marks and congestion
// episodes as losses; packets delivered and retransmissions as packets
// sent). Memory bounded: past `max_raw_samples` raw entries, it sums per
// base interval instead (SbdFlowSeries::intervals).
class SbdSeriesBuilder {
 public:
  static constexpr size_t kDefaultMaxRawSamples = size_t{1} << 21;
  explicit SbdSeriesBuilder(uint32_t flow_id, const SbdParams& params = {},
                            size_t max_raw_samples = kDefaultMaxRawSamples);
  void Add(const TimelineEvent& e);
  SbdFlowSeries Take();

 private:
  size_t RawSize() const;
  void SwitchToIntervals();

  SbdParams params_;
  size_t max_raw_samples_;
  SbdFlowSeries series_;
  std::optional<SbdIntervalAccumulator> accumulator_;
};

}  // namespace ccreplay

#endif  // CCREPLAY_REPLAY_SHARED_BOTTLENECK_H_
