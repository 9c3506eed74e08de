#include "reports/path_estimates.h"

#include <algorithm>
#include <cmath>
#include <utility>

#include "absl/strings/str_format.h"
#include "replay/flow_index.h"
#include "reports/percentile.h"

namespace ccreplay {
namespace {

// A queue is building when RTT samples exceed the base RTT by this factor
// (and by at least a millisecond, against timer noise at tiny RTTs).
constexpr double kBusyRttFactor = 1.25;
constexpr int64_t kBusyRttMarginUs = 1000;
// The rate window: replay/flow_index.h's kRateWindowRtts smoothed RTTs,
// at least kMinRateWindowS (the index measures its rates the same way).
constexpr double kWindowRtts = kRateWindowRtts;
constexpr double kMinWindowS = kMinRateWindowS;

}  // namespace

bool BinIsBusy(const ObservationBin& bin, int64_t base_rtt_us) {
  if (bin.retransmissions > 0 || bin.ce_packets > 0 || bin.ece_acks > 0)
    return true;
  if (!bin.has_rtt() || base_rtt_us <= 0) return false;
  const int64_t mean = bin.rtt_sum_us / bin.rtt_samples;
  return mean > base_rtt_us * kBusyRttFactor &&
         mean > base_rtt_us + kBusyRttMarginUs;
}

std::vector<double> SmoothedDeliveryRateBps(const FlowObserver& observed,
                                            size_t window_bins) {
  const std::vector<ObservationBin>& bins = observed.bins();
  std::vector<double> rates(bins.size(), 0);
  window_bins = std::max<size_t>(window_bins, 1);
  uint64_t sum = 0;
  for (size_t i = 0; i < bins.size(); ++i) {
    sum += bins[i].delivered_bytes;
    if (i >= window_bins) sum -= bins[i - window_bins].delivered_bytes;
    const size_t span = std::min(i + 1, window_bins);
    rates[i] = sum * 8.0 / (span * observed.bin_width_s());
  }
  return rates;
}

namespace {

// The 99th percentile of the bins' mean queueing delay, at `rate_bps`.
double LargestQueueBytes(const FlowObserver& observed, double rate_bps) {
  const int64_t base_us = observed.min_rtt_us();
  std::vector<double> queue_s;
  for (const ObservationBin& b : observed.bins()) {
    if (b.has_rtt())
      queue_s.push_back((b.rtt_sum_us / b.rtt_samples - base_us) * 1e-6);
  }
  if (queue_s.empty()) return 0;
  return rate_bps / 8 * std::max(Percentile(std::move(queue_s), 0.99), 0.0);
}

// The RTT at which the buffer overflowed: at each loss episode (its first
// retransmission), the largest RTT sample from one smoothed RTT before it
// to half of one after (the dropped packet's neighbours, sent into the
// full queue, are acknowledged then); the median over the episodes, so
// that one sample held by a receiver's timer does not make a buffer. 0
// without a loss episode. Fills e->rtt_at_loss_s and its standard error.
void RttAtLoss(const FlowObserver& observed, double rtt_s, PathEstimates* e) {
  const std::vector<ObservationBin>& bins = observed.bins();
  const double width_s = observed.bin_width_s();
  const int64_t before = static_cast<int64_t>(std::ceil(rtt_s / width_s));
  const int64_t after = static_cast<int64_t>(std::ceil(rtt_s / 2 / width_s));
  const int64_t n = static_cast<int64_t>(bins.size());
  std::vector<int64_t> rtt_us;
  for (int64_t i = 0; i < n; ++i) {
    if (bins[i].recovery_episodes == 0) continue;
    int64_t max_us = 0;
    for (int64_t j = std::max<int64_t>(i - before, 0);
         j <= std::min(i + after, n - 1); ++j) {
      if (bins[j].has_rtt()) max_us = std::max(max_us, bins[j].rtt_max_us);
    }
    if (max_us > 0) rtt_us.push_back(max_us);
  }
  if (rtt_us.empty()) return;
  e->rtt_at_loss_s = Median(rtt_us) * 1e-6;
  if (rtt_us.size() < 2) return;
  const double iqr_s =
      (Percentile(rtt_us, 0.75) - Percentile(rtt_us, 0.25)) * 1e-6;
  e->rtt_at_loss_se_s = 1.2533 * (iqr_s / 1.349) / std::sqrt(rtt_us.size());
}

// How the rate was estimated, and its cross-check.
void AddNotes(double typical_rtt_s, PathEstimates* estimates) {
  PathEstimates& e = *estimates;
  e.notes.push_back(absl::StrFormat(
      "bottleneck rate: the highest delivery rate over sliding %.1f ms windows "
      "(%g RTTs of "
      "%.2f ms, at least %.0f ms)",
      e.window_s * 1e3, kWindowRtts, typical_rtt_s * 1e3, kMinWindowS * 1e3));
  if (e.rate_is_lower_bound) {
    e.notes.push_back(
        "the flow never showed the path busy (no queueing delay growth, loss "
        "or CE): the rate "
        "is a lower bound, and so is the BDP");
  } else {
    e.notes.push_back(absl::StrFormat(
        "cross-check: the median delivery rate while a queue was building is "
        "%.2f Mb/s (%.0f%% "
        "of the estimate)",
        e.busy_delivery_rate_bps / 1e6,
        e.bottleneck_rate_bps > 0
            ? 100 * e.busy_delivery_rate_bps / e.bottleneck_rate_bps
            : 0));
  }
}

}  // namespace

PathEstimates EstimatePath(const FlowObserver& observed, double goodput_bps) {
  PathEstimates e;
  const std::vector<ObservationBin>& bins = observed.bins();
  e.base_rtt_s = observed.min_rtt_us() * 1e-6;
  std::vector<double> srtts;
  for (const ObservationBin& b : bins) {
    if (b.srtt_us > 0) srtts.push_back(b.srtt_us * 1e-6);
  }
  const double typical_rtt_s = srtts.empty() ? e.base_rtt_s : Median(srtts);
  e.window_s = std::max(
      {kWindowRtts * typical_rtt_s, kMinWindowS, 4 * observed.bin_width_s()});
  const size_t window_bins =
      static_cast<size_t>(std::ceil(e.window_s / observed.bin_width_s()));
  e.window_s = window_bins * observed.bin_width_s();
  const std::vector<double> rates =
      SmoothedDeliveryRateBps(observed, window_bins);
  // Only full windows count for the maximum.
  for (size_t i = window_bins - 1; i < rates.size(); ++i) {
    e.bottleneck_rate_bps = std::max(e.bottleneck_rate_bps, rates[i]);
  }
  if (e.bottleneck_rate_bps == 0) {
    for (double r : rates)
      e.bottleneck_rate_bps = std::max(e.bottleneck_rate_bps, r);
  }
  if (std::isfinite(goodput_bps))
    e.bottleneck_rate_bps = std::max(e.bottleneck_rate_bps, goodput_bps);
  std::vector<double> busy;
  const int64_t base_us = observed.min_rtt_us();
  for (size_t i = window_bins - 1; i < rates.size() && i < bins.size(); ++i) {
    if (BinIsBusy(bins[i], base_us)) busy.push_back(rates[i]);
  }
  e.busy_delivery_rate_bps = Median(busy);
  e.rate_is_lower_bound = busy.empty();
  e.bdp_bytes = e.bottleneck_rate_bps / 8 * e.base_rtt_s;
  e.max_queue_bytes = LargestQueueBytes(observed, e.bottleneck_rate_bps);
  RttAtLoss(observed, typical_rtt_s, &e);
  AddNotes(typical_rtt_s, &e);
  return e;
}

}  // namespace ccreplay
