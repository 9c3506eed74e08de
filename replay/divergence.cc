#include "replay/divergence.h"

#include <algorithm>
#include <cmath>

namespace ccreplay {
namespace {

constexpr double kBinPct = 0.05;
constexpr double kMaxPct = 1000;
constexpr size_t kBins = static_cast<size_t>(kMaxPct / kBinPct);
// Bins per block of a Histogram (kBins is a multiple: bin kBins, the
// overflow, opens the last block).
constexpr size_t kBlockBins = 100;
static_assert(kBins % kBlockBins == 0);

}  // namespace

DivergencePhase DivergencePhaseOf(Phase phase) {
  switch (phase) {
    case Phase::kSlowStart:
      return DivergencePhase::kSlowStart;
    case Phase::kCongestionAvoidance:
      return DivergencePhase::kCongestionAvoidance;
    case Phase::kRecovery:
    case Phase::kCwr:
      return DivergencePhase::kRecovery;
  }
  return DivergencePhase::kCongestionAvoidance;
}

void DivergenceTracker::Histogram::Add(double pct) {
  // Bin kBins is the overflow. The blocks grow to the highest one used: a
  // short replay (most fuzz inputs) does not zero kBins bins for each of
  // its histograms and controllers.
  const size_t bin = std::min(kBins, static_cast<size_t>(pct / kBinPct));
  const size_t block = bin / kBlockBins;
  if (block >= block_counts_.size()) {
    block_counts_.resize(block + 1, 0);
    block_bins_.resize(block + 1);
  }
  std::vector<uint32_t>& bins = block_bins_[block];
  if (bins.empty()) bins.assign(kBlockBins, 0);
  ++bins[bin % kBlockBins];
  ++block_counts_[block];
  ++count_;
  max_pct_ = std::max(max_pct_, pct);
}

std::optional<double> DivergenceTracker::Histogram::Quantile(double q) const {
  if (count_ == 0) return std::nullopt;
  // The nearest-rank quantile: the smallest value with at least q*n
  // samples at or below it. Whole blocks first, then the bins of the block
  // that holds that sample.
  const uint64_t rank =
      std::max<uint64_t>(1, static_cast<uint64_t>(std::ceil(q * count_)));
  uint64_t seen = 0;
  size_t block = 0;
  while (block < block_counts_.size() && seen + block_counts_[block] < rank) {
    seen += block_counts_[block++];
  }
  if (block == block_counts_.size()) return max_pct_;
  for (size_t i = 0; i < kBlockBins; ++i) {
    const size_t bin = block * kBlockBins + i;
    if (bin >= kBins) break;  // The overflow bin: the largest value seen.
    seen += block_bins_[block][i];
    if (seen >= rank) {
      return std::min(max_pct_, (static_cast<double>(bin) + 0.5) * kBinPct);
    }
  }
  return max_pct_;
}

DivergenceTracker::DivergenceTracker(DivergenceOptions options)
    : options_(options) {}

void DivergenceTracker::Add(int64_t time_us, uint64_t model_bytes,
                            uint64_t captured_bytes, Phase phase,
                            int64_t srtt_us) {
  if (captured_bytes == 0) return;
  const double err_pct = 100.0 *
                         std::fabs(static_cast<double>(model_bytes) -
                                   static_cast<double>(captured_bytes)) /
                         static_cast<double>(captured_bytes);
  all_.Add(err_pct);
  const bool parted = model_bytes != captured_bytes;
  if (parted && !parted_) ++parting_runs_;
  parted_ = parted;
  by_phase_[static_cast<size_t>(DivergencePhaseOf(phase))].Add(err_pct);
  if (first_divergence_us_.has_value()) return;
  if (err_pct <= options_.band_pct) {
    out_since_us_.reset();
    return;
  }
  if (!out_since_us_.has_value()) {
    out_since_us_ = time_us;
    out_srtt_us_ = srtt_us;
  }
  const double limit_us =
      std::max<double>(static_cast<double>(options_.min_us),
                       options_.rtts * static_cast<double>(out_srtt_us_));
  if (static_cast<double>(time_us - *out_since_us_) > limit_us) {
    first_divergence_us_ = out_since_us_;
  }
}

DivergenceSummary DivergenceTracker::Summary() const {
  DivergenceSummary summary;
  summary.samples = all_.count();
  summary.median_abs_err_pct = all_.Quantile(0.5);
  summary.p95_abs_err_pct = all_.Quantile(0.95);
  summary.first_divergence_us = first_divergence_us_;
  summary.parting_runs = parting_runs_;
  for (size_t i = 0; i < by_phase_.size(); ++i) {
    summary.median_by_phase_pct[i] = by_phase_[i].Quantile(0.5);
    summary.p95_by_phase_pct[i] = by_phase_[i].Quantile(0.95);
  }
  return summary;
}

}  // namespace ccreplay
