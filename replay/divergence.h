// How far a replayed cwnd strays from the captured one: error statistics
// over the samples where the real sender was cwnd-limited (elsewhere its
// cwnd is not what limited it, and Linux does not grow it either), the
// first lasting departure from a tolerance band, and the error by phase.
//
// Memory is constant: errors go into fixed histograms (0.05 % bins up to
// 1000 %), so a percentile is exact to half a bin.
#ifndef CCREPLAY_REPLAY_DIVERGENCE_H_
#define CCREPLAY_REPLAY_DIVERGENCE_H_

#include <array>
#include <cstdint>
#include <optional>
#include <vector>

#include "cc/congestion_controller.h"

namespace ccreplay {

struct DivergenceOptions {
  // The model is "out" when |model - captured| > band_pct % of captured.
  double band_pct = 25;
  // ...and diverged once it stays out for more than this many smoothed
  // RTTs (the srtt at the start of the excursion)...
  double rtts = 4;
  // ...and at least this long (sub-millisecond RTTs would make a few
  // RTTs shorter than the gap between ss samples).
  int64_t min_us = 50'000;
};

// The three groups of the report: slow start, congestion avoidance, and
// window reduction (loss recovery or ECN CWR).
enum class DivergencePhase { kSlowStart, kCongestionAvoidance, kRecovery };
DivergencePhase DivergencePhaseOf(Phase phase);

struct DivergenceSummary {
  uint64_t samples = 0;  // Compared samples (cwnd-limited only).
  std::optional<double> median_abs_err_pct;
  std::optional<double> p95_abs_err_pct;
  // Time (the clock of Add()) where the lasting excursion began.
  std::optional<int64_t> first_divergence_us;
  // Median absolute error per DivergencePhase; nullopt without samples.
  std::array<std::optional<double>, 3> median_by_phase_pct;
  // ...and its 95th percentile.
  std::array<std::optional<double>, 3> p95_by_phase_pct;
  // Runs of consecutive samples on which the model's cwnd differs from
  // the captured one: how many times the model parted from the stack,
  // however far and however long.
  uint64_t parting_runs = 0;
};

class DivergenceTracker {
 public:
  explicit DivergenceTracker(DivergenceOptions options = {});

  // One aligned sample: the model's cwnd in `phase` against the captured
  // cwnd (> 0), at `time_us`, with the sender's srtt then.
  void Add(int64_t time_us, uint64_t model_bytes, uint64_t captured_bytes,
           Phase phase, int64_t srtt_us);

  DivergenceSummary Summary() const;

 private:
  class Histogram {
   public:
    void Add(double pct);
    std::optional<double> Quantile(double q) const;
    uint64_t count() const { return count_; }

   private:
    // The bins in blocks of kBlockBins (divergence.cc): each block's count,
    // and its bins, allocated at the block's first sample. A quantile walks
    // the block counts, then one block's bins: at most ~300 steps, where a
    // flat walk took up to 20,001 (per quantile, histogram and controller,
    // 40% of a short replay's time), and a short replay zeroes only the
    // blocks it uses.
    std::vector<uint64_t> block_counts_;
    std::vector<std::vector<uint32_t>> block_bins_;
    uint64_t count_ = 0;
    double max_pct_ = 0;
  };

  DivergenceOptions options_;
  Histogram all_;
  std::array<Histogram, 3> by_phase_;
  // The excursion out of the band in progress: its start and srtt there.
  std::optional<int64_t> out_since_us_;
  int64_t out_srtt_us_ = 0;
  std::optional<int64_t> first_divergence_us_;
  bool parted_ = false;  // The last sample differed.
  uint64_t parting_runs_ = 0;
};

}  // namespace ccreplay

#endif  // CCREPLAY_REPLAY_DIVERGENCE_H_
