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

std::optional<FlowObserver::AckHold> FlowObserver::AckHoldUs(
    uint32_t segments, double service_us) const {
  const size_t split = std::clamp<size_t>(segments, 2, kMaxHoldSegments);
  // Each bound with the service time it subtracted.
  std::vector<std::pair<double, double>> holds_us;
  for (const HoldGap& g : hold_gaps_) {
    if (g.segments < split && g.previous_segments >= split) {
      const double service = g.segments * service_us;
      holds_us.push_back({g.gap_us - service, service});
    }
  }
  if (holds_us.size() < kMinHoldSamples) return std::nullopt;
  const auto middle = holds_us.begin() + holds_us.size() / 2;
  std::nth_element(holds_us.begin(), middle, holds_us.end());
  return AckHold{std::max<int64_t>(0, std::llround(middle->first)),
                 std::llround(middle->second)};
}

void FlowObserver::AddHoldGap(const TimelineEvent& e) {
  // No hole before or after this ACK: the receiver was free to hold it.
  const bool quiet = e.sacked_bytes == 0;
  if (quiet && previous_ack_quiet_ && e.packets_delivered > 0 &&
      e.packets_delivered < previous_ack_segments_ &&
      e.packets_delivered < kMaxHoldSegments && e.time_ns >= previous_ack_ns_) {
    HoldGap g;
    g.gap_us = static_cast<uint32_t>(
        std::min<int64_t>((e.time_ns - previous_ack_ns_) / 1000,
                          std::numeric_limits<uint32_t>::max()));
    g.segments = static_cast<uint8_t>(e.packets_delivered);
    g.previous_segments = static_cast<uint8_t>(
        std::min<uint64_t>(previous_ack_segments_, kMaxHoldSegments));
    ++hold_gaps_seen_;
    if (hold_gaps_.size() < kMaxHoldGaps) {
      hold_gaps_.push_back(g);
    } else {
      const uint64_t slot = std::uniform_int_distribution<uint64_t>(
          0, hold_gaps_seen_ - 1)(hold_gap_rng_);
      if (slot < kMaxHoldGaps) hold_gaps_[slot] = g;
    }
  }
  previous_ack_ns_ = e.time_ns;
  previous_ack_segments_ = e.packets_delivered;
  previous_ack_quiet_ = quiet;
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
  AddHoldGap(e);
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
