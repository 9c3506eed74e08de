#include "cc/congestion_controller.h"

#include <algorithm>

namespace ccreplay {

absl::string_view PhaseName(Phase phase) {
  switch (phase) {
    case Phase::kSlowStart:
      return "slow_start";
    case Phase::kCongestionAvoidance:
      return "congestion_avoidance";
    case Phase::kRecovery:
      return "recovery";
    case Phase::kCwr:
      return "cwr";
  }
  return "unknown";
}

namespace {
uint64_t CeilDiv(uint64_t a, uint64_t b) { return (a + b - 1) / b; }
}  // namespace

uint64_t PacketsDelivered(const AckEvent& ack, uint32_t mss_bytes) {
  if (ack.packets_delivered > 0) return ack.packets_delivered;
  return CeilDiv(ack.bytes_acked, std::max<uint32_t>(mss_bytes, 1));
}

uint64_t PerPacketSteps(const AckEvent& ack, uint32_t mss_bytes) {
  return std::clamp<uint64_t>(PacketsDelivered(ack, mss_bytes), 1,
                              kMaxPerAckSteps);
}

uint64_t PacketsCe(const AckEvent& ack, uint32_t mss_bytes) {
  if (ack.packets_ce > 0) return ack.packets_ce;
  if (ack.bytes_ce > 0) {
    return CeilDiv(ack.bytes_ce, std::max<uint32_t>(mss_bytes, 1));
  }
  return ack.ece ? PacketsDelivered(ack, mss_bytes) : 0;
}

}  // namespace ccreplay
