// What the path could carry, estimated from the flow itself: the base RTT is
// the minimum RTT sample; the bottleneck rate is the highest delivery rate over
// sliding windows of a few RTTs, cross-checked with the delivery rate while a
// queue was building (ACK clocking at a busy bottleneck delivers at its rate);
// BDP = rate x base RTT. When the flow never showed the path busy, the rate is
// a lower bound and the estimate says so.
#ifndef CCREPLAY_REPORTS_PATH_ESTIMATES_H_
#define CCREPLAY_REPORTS_PATH_ESTIMATES_H_

#include <string>
#include <vector>

#include "reports/flow_observation.h"

namespace ccreplay {

struct PathEstimates {
  double base_rtt_s = 0;
  double bottleneck_rate_bps = 0;
  bool rate_is_lower_bound = true;
  double busy_delivery_rate_bps = 0;  // 0 when no bin was busy.
  double bdp_bytes = 0;
  // The largest standing queue the flow saw: the 99th percentile of the
  // per-interval mean RTT above the base RTT, at the bottleneck rate
  // (means, not single samples: one delayed ACK is not a queue; the
  // percentile, since a radio link's rare stalls are not a buffer).
  double max_queue_bytes = 0;
  // The RTT when the bottleneck's buffer overflowed: the median over loss
  // episodes of the largest RTT sample around each (the queue was full
  // then); 0 when nothing was lost.
  double rtt_at_loss_s = 0;
  // That median's standard error: 1.2533 sigma / sqrt(n) of a normal
  // sample, sigma from the episodes' interquartile range / 1.349 (Kendall
  // and Stuart, The Advanced Theory of Statistics, the median's sampling
  // variance); 0 with fewer than two episodes.
  double rtt_at_loss_se_s = 0;
  // The sliding window the rate was measured over.
  double window_s = 0;
  std::vector<std::string> notes;
};

// A bin is "busy" when its RTT samples sit well above the base RTT (a queue
// at the bottleneck), or it carried loss or CE feedback.
bool BinIsBusy(const ObservationBin& bin, int64_t base_rtt_us);

// `goodput_bps` is the flow's unique payload rate over its data phase: the
// path carried that much, so the bottleneck estimate is never below it (a
// flow shorter than one rate window would otherwise spread its bytes over
// empty time and "show" a path slower than what it delivered).
PathEstimates EstimatePath(const FlowObserver& observed, double goodput_bps);

// Delivery rate of each bin, averaged over `window_bins` bins ending there.
std::vector<double> SmoothedDeliveryRateBps(const FlowObserver& observed,
                                            size_t window_bins);

}  // namespace ccreplay

#endif  // CCREPLAY_REPORTS_PATH_ESTIMATES_H_
