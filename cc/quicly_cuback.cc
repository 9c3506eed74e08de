#include "cc/quicly_cuback.h"

#include <algorithm>
#include <cmath>

#include "cc/quicly_cubic.h"

namespace ccreplay {
namespace {

constexpr double kMaxInterval = 4294967295.0;  // UINT32_MAX

struct Epoch {
  double w_epoch;
  double w_max;
  double k_s;
  double mtu;
  double ref;
  double alpha;
};

// bytes_sent(w) of the header comment.
double BytesSent(const QuiclyCuback::Curve& curve, const Epoch& e, double w) {
  const double bytes_cubic =
      (e.k_s + std::cbrt((w - e.w_max) / (QuiclyCubic::kC * e.ref))) *
      curve.bandwidth_bytes_per_s;
  // RFC 9438 section 4.3: alpha becomes 1 once the estimate reaches
  // cwnd_prior; bandwidth cancels out of the Reno time-to-bytes conversion.
  const double prior = curve.cwnd_prior_bytes;
  const double w_friendly = std::min(w, prior);
  double bytes_reno = (w_friendly - e.w_epoch) *
                      (w_friendly + e.w_epoch - e.mtu) / (2 * e.alpha * e.ref);
  if (w > prior) bytes_reno += (w - prior) * (w + prior - e.mtu) / (2 * e.ref);
  return std::max(std::min(bytes_cubic, bytes_reno), 0.0);
}

}  // namespace

QuiclyCuback::QuiclyCuback(const ControllerOptions& options)
    : QuiclySender(options) {}

uint64_t QuiclyCuback::BytesPerMtuIncrease(const Curve& curve,
                                           uint64_t cwnd_bytes,
                                           uint64_t cwnd_epoch_bytes,
                                           uint32_t mtu_bytes,
                                           double reference_mtu_bytes) {
  Epoch e;
  e.w_epoch = static_cast<double>(cwnd_epoch_bytes);
  e.w_max = curve.fast_convergence ? QuiclyCubic::FastConvergenceWMax(
                                         curve.cwnd_prior_bytes, e.w_epoch)
                                   : curve.cwnd_prior_bytes;
  e.mtu = mtu_bytes;
  e.ref = reference_mtu_bytes;
  e.k_s = std::cbrt((e.w_max - e.w_epoch) / (QuiclyCubic::kC * e.ref));
  e.alpha = curve.by_ecn ? QuiclyCubic::kAlphaEcn : QuiclyCubic::kAlphaLoss;
  const double cwnd = static_cast<double>(cwnd_bytes);
  double bytes = BytesSent(curve, e, cwnd + e.mtu) - BytesSent(curve, e, cwnd);
  // Past W_max, growth is capped at 50 % of cwnd per RTT, as in RFC 9438.
  if (cwnd > e.w_max) bytes = std::max(bytes, 2 * e.mtu);
  return static_cast<uint64_t>(std::clamp(bytes, 1.0, kMaxInterval));
}

uint64_t QuiclyCuback::CaBytesPerMtuIncrease() const {
  // No curve before the first congestion event: Reno's interval.
  if (curve_.bandwidth_bytes_per_s == 0) return cwnd_bytes_;
  return BytesPerMtuIncrease(curve_, cwnd_bytes_, ssthresh_bytes_, mtu_bytes_,
                             ReferenceMtu());
}

void QuiclyCuback::OnCongestion(const CongestionEvent& event) {
  const double bdp = static_cast<double>(event.bdp_bytes);
  if (num_loss_episodes_ == 1) {
    curve_.fast_convergence = false;
  } else {
    // RFC 9438 section 4.7: fast convergence when the BDP estimate falls
    // below the previous W_max.
    const double previous_w_max =
        curve_.fast_convergence
            ? QuiclyCubic::FastConvergenceWMax(
                  curve_.cwnd_prior_bytes,
                  static_cast<double>(event.previous_ssthresh_bytes))
            : curve_.cwnd_prior_bytes;
    curve_.fast_convergence = bdp < previous_w_max;
  }
  curve_.cwnd_prior_bytes = bdp;
  curve_.by_ecn = event.ecn;
  const double srtt_ms = static_cast<double>(srtt_us_) / 1000;
  curve_.bandwidth_bytes_per_s = srtt_ms > 0 ? bdp * 1000 / srtt_ms : 0;
}

}  // namespace ccreplay
