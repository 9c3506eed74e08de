#include "cc/rfc9002_newreno.h"

#include <algorithm>
#include <cmath>

namespace ccreplay {

uint64_t Rfc9002NewReno::InitialWindowBytes(uint32_t packets,
                                            uint32_t mds_bytes) {
  return std::min(uint64_t{packets} * mds_bytes,
                  std::max(kInitialWindowCapBytes, uint64_t{2} * mds_bytes));
}

Rfc9002NewReno::Rfc9002NewReno(const ControllerOptions& options)
    : QuiclySender(options, InitialWindowBytes(options.initial_window_segments,
                                               options.mss_bytes)) {
  if (options.hystart_plus_plus) hystart_.emplace();
}

void Rfc9002NewReno::AddGrowth(double bytes) {
  growth_carry_bytes_ += bytes;
  const double whole = std::floor(growth_carry_bytes_);
  cwnd_bytes_ += static_cast<uint64_t>(whole);
  growth_carry_bytes_ -= whole;
}

void Rfc9002NewReno::Grow(const AckEvent& ack) {
  if (hystart_.has_value() && hystart_->active() && InSlowStart()) {
    const HyStartPlusPlus::Step step = hystart_->OnAck(ack, mtu_bytes_);
    if (ack.cwnd_limited) AddGrowth(step.increase_bytes);  // section 7.8
    if (step.enter_congestion_avoidance) ssthresh_bytes_ = cwnd_bytes_;
    return;
  }
  if (!ack.cwnd_limited) return;  // section 7.8
  if (InSlowStart()) {
    cwnd_bytes_ += ack.bytes_acked;
    return;
  }
  // B.5, once per acknowledged packet of this ACK.
  const uint64_t packets = PerPacketSteps(ack, mtu_bytes_);
  const double packet_bytes =
      static_cast<double>(ack.bytes_acked) / static_cast<double>(packets);
  for (uint64_t i = 0; i < packets; ++i) {
    AddGrowth(mtu_bytes_ * packet_bytes / static_cast<double>(cwnd_bytes_));
  }
}

void Rfc9002NewReno::OnCongestion(const CongestionEvent& /*event*/) {
  // RFC 9406 section 4.2: loss or ECN ends slow start the usual way.
  if (hystart_.has_value()) hystart_->OnCongestionEvent();
}

void Rfc9002NewReno::OnTimeoutLoss() {
  cwnd_bytes_ = kMinCwndMtus * mtu_bytes_;
  growth_carry_bytes_ = 0;
  EndRecovery();
}

}  // namespace ccreplay
