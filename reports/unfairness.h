// Why one of two flows sharing a bottleneck got less than the other: each
// cause quantified by a stated model (packet size, RTT) or by a closed-loop
// counterfactual on the fitted path (controller mix, start order, MTU
// normalization of the small-packet flow), in words a person reads.
#ifndef CCREPLAY_REPORTS_UNFAIRNESS_H_
#define CCREPLAY_REPORTS_UNFAIRNESS_H_

#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "parsers/bundle.h"
#include "reports/fitted_simulation.h"

namespace ccreplay {

// One flow as the attribution sees it, from its own diagnosis
// (reports/diagnose_session.h fills all but throughput_bps).
struct CompetitorFacts {
  uint32_t flow_index = 0;
  std::string label;          // "flow 2 (10.0.0.1:40000)"
  uint32_t packet_bytes = 0;  // full-size payload / QUIC datagram
  // The spec it was replayed as, e.g. "cubic:linux".
  std::string controller;
  // The controller normalizes congestion-avoidance growth to this size.
  std::optional<uint32_t> normalize_bytes;
  // Whether normalize_bytes is the claimed controller's (its normalize=
  // option), not a measurement: the captured growth could not tell
  // normalization on from off (CaGrowth::Decisive), or was not measured.
  bool normalization_claimed = false;
  double start_s = 0;  // first data, seconds on the common axis
  double end_s = 0;    // last data delivered, same axis
  std::optional<double> min_rtt_ms;
  // Measured from the captured cwnd (reports/ca_growth.h).
  std::optional<double> ca_growth_bytes_per_rtt;
  // Over the common interval (CommonIntervalThroughput fills it).
  std::optional<double> throughput_bps;
  // Cumulative bytes delivered at times on the common axis, ascending.
  std::vector<std::pair<double, uint64_t>> delivered;
  // The mean RTT sample of each observation bin that had one, ms, at the
  // bin's end on the same axis, ascending.
  std::vector<std::pair<double, double>> rtt_ms;
  // The bottleneck's queue as the input states it (a lab bundle's
  // meta.json); a capture does not show which arrival a queue refused
  // for its size.
  std::optional<BundleQueue> queue;
};

struct UnfairnessCause {
  // packet_size, rtt, controller, start_order, admission
  std::string kind;
  // The lesser's share of the greater's throughput this cause alone
  // predicts (1: none).
  double explained_ratio = 1;
  std::string message;
};

// The queue a BBR flow and a loss-based one (Reno, CUBIC) kept between
// them over their common interval: both flows' RTT samples above the
// smaller minimum RTT of the two, the path's round trip without a queue.
struct StandingQueue {
  std::string bbr_label, loss_based_label;
  std::string bbr_controller, loss_based_controller;
  double min_rtt_ms = 0;
  // Over both flows' observation bins in the common interval.
  double median_ms = 0, p10_ms = 0, p90_ms = 0;
  size_t bins = 0;
  // Each flow's share of the pair's throughput, 0-1.
  double bbr_share = 0, loss_based_share = 0;
  std::string message;
};

// nullopt unless one flow ran BBR and the other a loss-based controller
// and both have throughput and RTT samples in [the later start, the
// earlier end].
std::optional<StandingQueue> BbrQueueAgainstLossBased(const CompetitorFacts& a,
                                                      const CompetitorFacts& b);

// A closed-loop prediction of the lesser's throughput over the greater's,
// over the paths the capture cannot tell apart from the fitted one
// (reports/fitted_simulation.h PathsWithinUncertainty).
struct PredictedRatio {
  double mean = 0;  // over every run of every path
  // The 10th and 90th percentile of the paths' own ratios.
  double low = 0, high = 0;
  int paths = 0;
};

struct UnfairnessAttribution {
  uint32_t lesser = 0, greater = 0;  // flow indices
  double share_ratio = 0;            // lesser / greater
  std::vector<UnfairnessCause> causes;
  // The fitted simulation's lesser / greater with both flows as they ran,
  // and with the small-packet flow's growth normalized to 1462 bytes.
  std::optional<PredictedRatio> predicted_ratio_as_is,
      predicted_ratio_normalized;
  // The queue both flows' inputs state (CompetitorFacts::queue), and with
  // a byte-fit one, the fitted simulation admitting by packet count.
  std::optional<BundleQueue> queue;
  std::optional<PredictedRatio> predicted_ratio_packet_count_admission;
  // A BBR flow against a loss-based one: the queue they kept.
  std::optional<StandingQueue> standing_queue;
  std::string message;
};

// Fills both flows' throughput_bps over [the later start, the earlier
// end], from their delivered series; leaves them unset when the interval
// is empty. Returns the interval's length in seconds (0 when empty).
double CommonIntervalThroughput(CompetitorFacts& a, CompetitorFacts& b);

// The path both flows crossed, from each flow's own fit: the larger rate
// (at least the two throughputs together), the smaller base RTT (each
// flow's service time taken at the shared rate), the smaller of the two
// fits' queueing delays at loss as the buffer at the shared rate, the
// longer delayed-ACK hold, and both flows' whole span as the duration;
// byte-fit admission when both flows' inputs state the same queue and it
// counts bytes.
// nullopt when neither flow has a fit.
std::optional<FittedPath> SharedFittedPath(
    const CompetitorFacts& a, const CompetitorFacts& b,
    const std::optional<FittedPath>& a_path,
    const std::optional<FittedPath>& b_path);

// Needs both flows' throughput_bps; with `simulate` and a `path` the
// closed-loop counterfactuals run (each a two-flow simulation).
UnfairnessAttribution AttributeUnfairness(const CompetitorFacts& a,
                                          const CompetitorFacts& b,
                                          const std::optional<FittedPath>& path,
                                          bool simulate);

}  // namespace ccreplay

#endif  // CCREPLAY_REPORTS_UNFAIRNESS_H_
