// Count, minimum, median and maximum of a flow's RTT samples in constant
// memory: samples go into logarithmic buckets 1/64 of an octave wide, so
// the median is known to within 0.55 % (half a bucket) whatever the number
// of samples; minimum and maximum are exact.
#ifndef CCREPLAY_REPLAY_RTT_SUMMARY_H_
#define CCREPLAY_REPLAY_RTT_SUMMARY_H_

#include <cstdint>
#include <vector>

namespace ccreplay {

class RttSummary {
 public:
  static constexpr int kBucketsPerOctave = 64;
  static constexpr int kOctaves = 32;  // 1 us to 2^32 us (71 minutes).

  void Add(int64_t rtt_us);

  uint64_t count() const { return count_; }
  int64_t min_us() const { return min_us_; }
  int64_t max_us() const { return max_us_; }
  // The geometric middle of the bucket holding the median sample (the
  // lower median for an even count), clamped to [min, max]. 0 when empty.
  double median_us() const;

 private:
  // The octaves from first_octave_ to the highest sample's, kBucketsPerOctave
  // buckets each: a flow's samples span a few octaves, so a summary takes
  // a few hundred bytes, not all kOctaves.
  std::vector<uint32_t> buckets_;
  int first_octave_ = 0;
  uint64_t count_ = 0;
  int64_t min_us_ = 0;
  int64_t max_us_ = 0;
};

}  // namespace ccreplay

#endif  // CCREPLAY_REPLAY_RTT_SUMMARY_H_
