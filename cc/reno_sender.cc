#include "cc/reno_sender.h"

namespace ccreplay {

void RenoSender::CongestionAvoidance(const AckEvent& /*ack*/,
                                     uint64_t bytes_acked) {
  // RFC 3465 section 2.1: when bytes_acked reaches cwnd, subtract cwnd and
  // add one SMSS. Normalized, the threshold is cwnd * SMSS / reference, i.e.
  // bytes_acked * reference >= cwnd * SMSS.
  bytes_acked_ += static_cast<double>(bytes_acked) * growth_bytes();
  while (bytes_acked_ >= cwnd_bytes_ * mss_bytes_) {
    bytes_acked_ -= cwnd_bytes_ * mss_bytes_;
    cwnd_bytes_ += mss_bytes_;
  }
}

}  // namespace ccreplay
