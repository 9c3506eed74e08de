#include "cc/quicly_pico.h"

#include <algorithm>
#include <cmath>

namespace ccreplay {
namespace {

// (1 + 2 * cbrt(0.5)) / 2, the literal of lib/cc-pico.c @ 01aa5e7c.
constexpr double kFastConvergenceAmortization = 1.293700525984;
constexpr double kMaxInterval = 4294967295.0;  // UINT32_MAX

}  // namespace

QuiclyPico::QuiclyPico(const ControllerOptions& options)
    : QuiclySender(options),
      // pico_init_pico_state(): cwnd * QUICLY_BETA_LOSS, truncated.
      bytes_per_mtu_increase_(
          static_cast<uint64_t>(static_cast<double>(cwnd_bytes_) * kBetaLoss)) {
}

uint64_t QuiclyPico::BytesPerMtuIncrease(uint64_t bdp_bytes, double srtt_ms,
                                         uint32_t mtu_bytes, double beta) {
  const double w = static_cast<double>(bdp_bytes);
  // Reno: the window after reduction (uint32_t in quicly).
  const double reno = std::floor(w * beta);
  // CUBIC: K * MTU / ((1 - beta) * RTT) with K in seconds.
  const double cubic = kFastConvergenceAmortization / (1 - beta) * 1000 *
                       std::cbrt((1 - beta) / 0.4 * w / mtu_bytes) / srtt_ms *
                       mtu_bytes;
  const double bytes = std::min(reno, cubic);
  return static_cast<uint64_t>(std::clamp(bytes, 1.0, kMaxInterval));
}

void QuiclyPico::OnCongestion(const CongestionEvent& event) {
  bytes_per_mtu_increase_ =
      BytesPerMtuIncrease(event.bdp_bytes, static_cast<double>(srtt_us_) / 1000,
                          mtu_bytes_, event.beta);
  bytes_to_mtu_increase_ = bytes_per_mtu_increase_;
}

}  // namespace ccreplay
