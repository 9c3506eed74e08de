#include "replay/sim/bottleneck.h"

#include <algorithm>

#include "absl/strings/str_cat.h"
#include "parsers/tcp_segment.h"

namespace ccreplay {

absl::StatusOr<InServiceAccounting> ParseInServiceAccounting(
    absl::string_view name) {
  if (name == "until_last_bit") return InServiceAccounting::kUntilLastBit;
  if (name == "dequeue_at_start") return InServiceAccounting::kDequeueAtStart;
  return absl::InvalidArgumentError(
      absl::StrCat("unknown in-service accounting '", name,
                   "': expected until_last_bit or dequeue_at_start"));
}

absl::StatusOr<BottleneckDelivery> ParseBottleneckDelivery(
    absl::string_view name) {
  if (name == "at_last_bit") return BottleneckDelivery::kAtLastBit;
  if (name == "at_start") return BottleneckDelivery::kAtStart;
  return absl::InvalidArgumentError(absl::StrCat(
      "unknown delivery '", name, "': expected at_last_bit or at_start"));
}

bool Admits(AdmissionPolicy policy, uint64_t queued_bytes,
            uint32_t packet_bytes, uint64_t capacity_bytes,
            uint32_t largest_packet_bytes) {
  // quicly net_bottleneck_forward(): admission_size is admission_mtu, or the
  // packet's own size with -B.
  const uint64_t admission_bytes =
      policy == AdmissionPolicy::kPacketSizeNeutral
          ? std::max(largest_packet_bytes, packet_bytes)
          : packet_bytes;
  return queued_bytes + admission_bytes <= capacity_bytes;
}

Bottleneck::Bottleneck(const BottleneckConfig& config)
    : config_(config),
      queue_(1024),
      policer_tokens_bytes_(static_cast<double>(config.policer_burst_bytes)) {}

void Bottleneck::MarkCe(SimPacket& packet) {
  if (packet.ecn == kNotEct || packet.ecn == kCe) return;
  packet.ecn = kCe;
  ++ce_marks_;
}

uint64_t Bottleneck::admission_bytes() const {
  return config_.in_service == InServiceAccounting::kDequeueAtStart
             ? queued_bytes_ - in_service_bytes_
             : queued_bytes_;
}

bool Bottleneck::PolicerConforms(uint32_t bytes, int64_t now_ns) {
  if (config_.policer_rate_bps <= 0) return true;
  const double burst = static_cast<double>(config_.policer_burst_bytes);
  policer_tokens_bytes_ = std::min(
      burst, policer_tokens_bytes_ +
                 static_cast<double>(now_ns - policer_stamp_ns_) *
                     static_cast<double>(config_.policer_rate_bps) / 8e9);
  policer_stamp_ns_ = now_ns;
  if (policer_tokens_bytes_ < bytes) return false;
  policer_tokens_bytes_ -= bytes;
  return true;
}

bool Bottleneck::Enqueue(const SimPacket& packet, int64_t now_ns) {
  if (!PolicerConforms(packet.bytes, now_ns)) {
    ++policer_drops_;
    ++drops_;
    return false;
  }
  if (!Admits(config_.admission, admission_bytes(), packet.bytes,
              config_.buffer_bytes, config_.largest_packet_bytes)) {
    ++drops_;
    return false;
  }
  queue_.push_back(packet);
  SimPacket& queued = queue_.back();
  queued.arrival_ns = now_ns;
  if (config_.ce_backlog_threshold_bytes >= 0 &&
      queued_bytes_ >
          static_cast<uint64_t>(config_.ce_backlog_threshold_bytes)) {
    MarkCe(queued);
  }
  queued_bytes_ += packet.bytes;
  return true;
}

int64_t Bottleneck::StartTransmission(int64_t now_ns) {
  SimPacket& head = queue_.front();
  transmitting_ = true;
  in_service_bytes_ = head.bytes;
  if (config_.ce_sojourn_threshold_ns >= 0 && SojournMarks(head, now_ns)) {
    MarkCe(head);
  }
  const int64_t bits_ns =
      int64_t{head.bytes} * 8 * 1'000'000'000 + serialization_remainder_;
  const int64_t rate_bps = config_.RateAt(now_ns);
  serialization_remainder_ = bits_ns % rate_bps;
  return now_ns + bits_ns / rate_bps;
}

bool Bottleneck::SojournMarks(const SimPacket& head, int64_t now_ns) {
  const bool over = now_ns - head.arrival_ns > config_.ce_sojourn_threshold_ns;
  if (!config_.ce_per_skb || head.skb == 0) return over;
  if (head.flow != decided_flow_ || head.skb != decided_skb_) {
    decided_flow_ = head.flow;
    decided_skb_ = head.skb;
    decided_ce_ = over;
  }
  return decided_ce_;
}

SimPacket Bottleneck::FinishTransmission() {
  SimPacket packet = queue_.front();
  queue_.pop_front();
  queued_bytes_ -= packet.bytes;
  transmitted_bytes_ += packet.bytes;
  transmitting_ = false;
  in_service_bytes_ = 0;
  return packet;
}

}  // namespace ccreplay
