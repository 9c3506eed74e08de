#include "cc/linux_dctcp.h"

#include <algorithm>

namespace ccreplay {

void LinuxDctcp::InAckEvent(const AckEvent& ack) {
  // dctcp_update_alpha().
  if (!window_.OnAck(ack.bytes_acked)) return;
  uint64_t delivered_ce = delivered_ce_packets() - old_delivered_ce_;
  // alpha = (1 - g) * alpha + g * F; min_not_zero lets alpha reach 0.
  const uint32_t decay = alpha_ >> kShiftG;
  alpha_ -= decay != 0 ? decay : alpha_;
  if (delivered_ce > 0) {
    const uint64_t delivered = delivered_packets() - old_delivered_;
    delivered_ce <<= (10 - kShiftG);
    delivered_ce /= std::max<uint64_t>(1, delivered);
    alpha_ = static_cast<uint32_t>(
        std::min<uint64_t>(alpha_ + delivered_ce, kMaxAlpha));
  }
  // dctcp_reset().
  window_.StartRound(ack.bytes_in_flight);
  old_delivered_ = delivered_packets();
  old_delivered_ce_ = delivered_ce_packets();
}

uint32_t LinuxDctcp::Ssthresh() {
  // dctcp_ssthresh(): cwnd * (1 - alpha / 2), remembering cwnd for an undo.
  loss_cwnd_ = snd_cwnd_;
  return std::max(snd_cwnd_ - ((snd_cwnd_ * alpha_) >> 11u), 2u);
}

void LinuxDctcp::SetState(CaState new_state) {
  if (new_state == CaState::kRecovery) ReactToLoss();
}

void LinuxDctcp::ReactToLoss() {
  // dctcp_react_to_loss().
  loss_cwnd_ = snd_cwnd_;
  snd_ssthresh_ = std::max(snd_cwnd_ >> 1, 2u);
}

ControllerState LinuxDctcp::state() const {
  ControllerState s = LinuxTcpSender::state();
  s.alpha = static_cast<double>(alpha_) / kMaxAlpha;
  return s;
}

}  // namespace ccreplay
