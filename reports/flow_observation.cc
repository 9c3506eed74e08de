#include "reports/flow_observation.h"

#include <algorithm>
#include <cmath>

namespace ccreplay {

void ObservationBin::Merge(const ObservationBin& later) {
  delivered_bytes += later.delivered_bytes;
  acks += later.acks;
  max_pipe_bytes = std::max(max_pipe_bytes, later.max_pipe_bytes);
  max_outstanding_bytes =
      std::max(max_outstanding_bytes, later.max_outstanding_bytes);
  if (later.acks > 0) rwnd_bytes = later.rwnd_bytes;
  rtt_min_us = std::min(rtt_min_us, later.rtt_min_us);
  rtt_max_us = std::max(rtt_max_us, later.rtt_max_us);
  rtt_sum_us += later.rtt_sum_us;
  rtt_samples += later.rtt_samples;
  if (later.srtt_us > 0) srtt_us = later.srtt_us;
  ce_packets += later.ce_packets;
  ece_acks += later.ece_acks;
  congestion_episodes += later.congestion_episodes;
  retransmissions += later.retransmissions;
  recovery_episodes += later.recovery_episodes;
  for (int i = 0; i < 4; ++i) limit_acks[i] += later.limit_acks[i];
  highest_ack = std::max(highest_ack, later.highest_ack);
  highest_seq_sent = std::max(highest_seq_sent, later.highest_seq_sent);
  if (later.mss_bytes > 0) mss_bytes = later.mss_bytes;
}

std::optional<int64_t> FlowObserver::AckHoldUs(uint32_t segments) const {
  // The median of rows [from, to), in microseconds.
  auto median_us = [this](size_t from, size_t to) -> std::optional<double> {
    std::array<uint64_t, kHoldBuckets> sum{};
    uint64_t total = 0;
    for (size_t row = from; row < to; ++row) {
      for (size_t b = 0; b < kHoldBuckets; ++b) {
        sum[b] += hold_histogram_[row][b];
        total += hold_histogram_[row][b];
      }
    }
    if (total < kMinHoldSamples) return std::nullopt;
    // Interpolated within the median's bucket, geometrically (the buckets
    // are a quarter octave wide: its centre alone is up to 9 % off).
    uint64_t seen = 0;
    for (size_t b = 0; b < kHoldBuckets; ++b) {
      if (2 * (seen + sum[b]) >= total) {
        const double within = (total / 2.0 - seen) / sum[b];
        return std::exp2((b + within) / 4) - 1;
      }
      seen += sum[b];
    }
    return std::nullopt;
  };
  const size_t split = std::clamp<size_t>(segments, 2, kMaxHoldSegments);
  const std::optional<double> partial = median_us(1, split);
  const std::optional<double> full = median_us(split, kMaxHoldSegments + 1);
  if (!partial || !full) return std::nullopt;
  return std::max<int64_t>(0, std::llround(*partial - *full));
}

uint32_t FlowObserver::TypicalSegmentsPerAck() const {
  uint64_t total = 0;
  for (uint64_t n : segments_by_ack_size_) total += n;
  uint64_t seen = 0;
  for (size_t k = 1; k < segments_by_ack_size_.size(); ++k) {
    seen += segments_by_ack_size_[k];
    if (total > 0 && 2 * seen >= total) return static_cast<uint32_t>(k);
  }
  return 0;
}

ObservationBin& FlowObserver::BinAt(int64_t time_ns) {
  const int64_t offset = std::max<int64_t>(0, time_ns - start_ns_);
  size_t index = static_cast<size_t>(offset / bin_width_ns_);
  while (index >= kMaxBins) {
    // Double the bin width: merge pairs.
    std::vector<ObservationBin> merged((bins_.size() + 1) / 2);
    for (size_t i = 0; i < bins_.size(); ++i) {
      if (i % 2 == 0) {
        merged[i / 2] = bins_[i];
      } else {
        merged[i / 2].Merge(bins_[i]);
      }
    }
    bins_ = std::move(merged);
    bin_width_ns_ *= 2;
    index = static_cast<size_t>(offset / bin_width_ns_);
  }
  if (index >= bins_.size()) bins_.resize(index + 1);
  return bins_[index];
}

void FlowObserver::AddRetransmission(const TimelineEvent& e,
                                     ObservationBin& bin) {
  ++bin.retransmissions;
  ++total_retransmissions_;
  if (e.starts_episode) ++bin.recovery_episodes;
  if (marks_.size() < kMaxMarks) {
    const int64_t seq =
        counting_ == Counting::kSequence ? e.seq_start : delivered_mark_;
    marks_.push_back({(e.time_ns - start_ns_) * 1e-9, seq, e.kind});
  }
}

void FlowObserver::AddRttSample(const TimelineEvent& e, ObservationBin& bin) {
  bin.rtt_min_us = std::min(bin.rtt_min_us, e.rtt_sample_us);
  bin.rtt_max_us = std::max(bin.rtt_max_us, e.rtt_sample_us);
  bin.rtt_sum_us += e.rtt_sample_us;
  ++bin.rtt_samples;
  if (min_rtt_us_ == 0 || e.rtt_sample_us < min_rtt_us_)
    min_rtt_us_ = e.rtt_sample_us;
  // While a hole is open the receiver ACKs every segment at once (RFC 5681
  // section 4.2): no timer held those ACKs.
  if (e.packets_delivered > 0 && e.sacked_bytes == 0) {
    const size_t row =
        std::min<uint64_t>(e.packets_delivered, kMaxHoldSegments);
    const double excess_us = static_cast<double>(e.rtt_sample_us - min_rtt_us_);
    const size_t bucket = std::min<size_t>(
        static_cast<size_t>(4 * std::log2(1 + excess_us)), kHoldBuckets - 1);
    ++hold_histogram_[row][bucket];
  }
}

void FlowObserver::Add(const TimelineEvent& e) {
  ObservationBin& bin = BinAt(e.time_ns);
  if (e.type == TimelineEvent::Type::kRetransmission) {
    AddRetransmission(e, bin);
    return;
  }
  ++total_acks_;
  ++bin.acks;
  // Delivered = cumulative ACK plus SACKed data above it: counting
  // bytes_acked + bytes_sacked would count SACKed data twice when the
  // cumulative ACK later covers it.
  const bool by_bytes = counting_ == Counting::kBytesAcked;
  const int64_t delivered =
      by_bytes ? delivered_mark_ + static_cast<int64_t>(e.bytes_acked)
               : e.ack + static_cast<int64_t>(e.sacked_bytes);
  if (delivered_mark_ == 0 && !by_bytes) {
    delivered_mark_ = e.ack - static_cast<int64_t>(e.bytes_acked);
  }
  if (e.packets_delivered > 0) {
    segments_by_ack_size_[std::min<uint64_t>(
        e.packets_delivered, kMaxHoldSegments)] += e.packets_delivered;
  }
  if (delivered > delivered_mark_) {
    bin.delivered_bytes += static_cast<uint64_t>(delivered - delivered_mark_);
    delivered_mark_ = delivered;
  }
  bin.max_pipe_bytes = std::max(bin.max_pipe_bytes, e.pipe_bytes);
  bin.max_outstanding_bytes =
      std::max(bin.max_outstanding_bytes, e.outstanding_bytes);
  bin.rwnd_bytes = e.rwnd_bytes;
  if (e.rtt_sample_us > 0) AddRttSample(e, bin);
  if (e.srtt_us > 0) bin.srtt_us = e.srtt_us;
  bin.ce_packets += e.ce_packets;
  bin.ece_acks += e.ece ? 1 : 0;
  bin.congestion_episodes += e.congestion_episode ? 1 : 0;
  ++bin.limit_acks[static_cast<int>(e.limit)];
  const int64_t acked = by_bytes ? delivered_mark_ : e.ack;
  bin.highest_ack = std::max(bin.highest_ack, acked);
  bin.highest_seq_sent = std::max(
      bin.highest_seq_sent, acked + static_cast<int64_t>(e.outstanding_bytes));
  if (e.mss_bytes > 0) bin.mss_bytes = e.mss_bytes;
}

}  // namespace ccreplay
