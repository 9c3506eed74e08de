#include "replay/accecn_feedback.h"

#include <cstdlib>

namespace ccreplay {
namespace {

constexpr uint8_t kAceMask = 7;                  // 3-bit ACE field.
constexpr uint32_t kByteCounterMask = 0xffffff;  // 24-bit option fields.

}  // namespace

uint64_t AccEcnFeedback::Decode(uint8_t ace_delta, uint64_t delivered_packets,
                                uint64_t delivered_bytes, bool has_ce_bytes,
                                uint64_t ce_bytes_delta) {
  if (delivered_packets <= kAceMask) return ace_delta;
  // The largest count congruent to ace_delta modulo 8 not above delivered.
  const uint64_t largest =
      delivered_packets - ((delivered_packets - ace_delta) & kAceMask);
  if (!has_ce_bytes || delivered_bytes == 0) return largest;
  // Estimate from the bytes: CE bytes over the mean delivered packet size.
  const double estimate = static_cast<double>(ce_bytes_delta) *
                          static_cast<double>(delivered_packets) /
                          static_cast<double>(delivered_bytes);
  uint64_t best = ace_delta;
  for (uint64_t candidate = ace_delta; candidate <= largest;
       candidate += kAceMask + 1) {
    if (std::abs(static_cast<double>(candidate) - estimate) <
        std::abs(static_cast<double>(best) - estimate)) {
      best = candidate;
    }
  }
  return best;
}

AccEcnFeedback::Update AccEcnFeedback::OnAck(uint8_t ace,
                                             uint64_t delivered_packets,
                                             uint64_t delivered_bytes,
                                             const AccEcnOption& option) {
  Update u;
  // The option's counters first: the ACE decoding may use the CE bytes.
  bool has_ce_bytes = false;
  if (option.kind != 0) {
    option_seen_ = true;
    const bool present[3] = {option.has_ee0b(), option.has_eceb(),
                             option.has_ee1b()};
    const uint32_t value[3] = {option.ee0b, option.eceb, option.ee1b};
    uint64_t* delta[3] = {&u.ect0_bytes, &u.ce_bytes, &u.ect1_bytes};
    for (int k = 0; k < 3; ++k) {
      if (!present[k]) continue;
      if (has_last_[k])
        *delta[k] = (value[k] - last_counter_[k]) & kByteCounterMask;
      has_last_[k] = true;
      last_counter_[k] = value[k];
    }
    has_ce_bytes = present[1] && has_last_[1];
    ce_bytes_ += u.ce_bytes;
    ect0_bytes_ += u.ect0_bytes;
    ect1_bytes_ += u.ect1_bytes;
  }
  if (!baseline_known_) {
    baseline_known_ = true;
    last_ace_ = ace;
  }
  const uint8_t ace_delta = static_cast<uint8_t>((ace - last_ace_) & kAceMask);
  last_ace_ = ace;
  u.wrap_possible = delivered_packets > kAceMask;
  u.ce_packets = Decode(ace_delta, delivered_packets, delivered_bytes,
                        has_ce_bytes, u.ce_bytes);
  ce_packets_ += u.ce_packets;
  return u;
}

}  // namespace ccreplay
