#include "replay/rtt_summary.h"

#include <algorithm>
#include <cmath>

namespace ccreplay {

void RttSummary::Add(int64_t rtt_us) {
  rtt_us = std::max<int64_t>(rtt_us, 1);
  const int index =
      std::min(static_cast<int>(std::log2(static_cast<double>(rtt_us)) *
                                kBucketsPerOctave),
               kBucketsPerOctave * kOctaves - 1);
  const int octave = index / kBucketsPerOctave;
  if (buckets_.empty()) {
    first_octave_ = octave;
  } else if (octave < first_octave_) {
    buckets_.insert(
        buckets_.begin(),
        static_cast<size_t>(first_octave_ - octave) * kBucketsPerOctave, 0);
    first_octave_ = octave;
  }
  const size_t slot =
      static_cast<size_t>(index - first_octave_ * kBucketsPerOctave);
  if (slot >= buckets_.size()) {
    buckets_.resize((slot / kBucketsPerOctave + 1) * kBucketsPerOctave, 0);
  }
  ++buckets_[slot];
  min_us_ = count_ == 0 ? rtt_us : std::min(min_us_, rtt_us);
  max_us_ = count_ == 0 ? rtt_us : std::max(max_us_, rtt_us);
  ++count_;
}

double RttSummary::median_us() const {
  if (count_ == 0) return 0;
  const uint64_t rank = (count_ + 1) / 2;  // 1-based rank of the lower median.
  uint64_t seen = 0;
  for (size_t i = 0; i < buckets_.size(); ++i) {
    seen += buckets_[i];
    if (seen >= rank) {
      const double mid = std::exp2(
          (static_cast<double>(i) + 0.5) / kBucketsPerOctave + first_octave_);
      return std::clamp(mid, static_cast<double>(min_us_),
                        static_cast<double>(max_us_));
    }
  }
  return static_cast<double>(max_us_);
}

}  // namespace ccreplay
