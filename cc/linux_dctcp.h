// `dctcp`: Linux net/ipv4/tcp_dctcp.c (torvalds/linux @ 01581a21), i.e.
// RFC 8257 with the kernel's integer arithmetic:
//
// - alpha in 1/1024, starting at 1024 (dctcp_alpha_on_init), gain
//   g = 1/2^4; once per window (snd_una >= next_seq):
//     alpha -= min_not_zero(alpha, alpha >> 4)
//     alpha = min(alpha + (ce << 6) / max(1, delivered), 1024)
//   with ce/delivered in packets over the window (tp->delivered(_ce));
// - on ECE (entering CWR): ssthresh = max(cwnd - (cwnd * alpha >> 11), 2),
//   then the PRR reduction with no increase until CWR ends;
// - on loss (Recovery, CA_EVENT_LOSS): ssthresh = max(cwnd / 2, 2);
// - an undo restores max(cwnd, loss_cwnd), loss_cwnd being the cwnd at the
//   last dctcp_ssthresh() or dctcp_react_to_loss() (dctcp_cwnd_undo(); the
//   same in Linux 6.1.192, Debian 12's tcp_dctcp.ko, and in 01581a21);
// - otherwise tcp_reno_cong_avoid().
#ifndef CCREPLAY_CC_LINUX_DCTCP_H_
#define CCREPLAY_CC_LINUX_DCTCP_H_

#include <algorithm>
#include <cstdint>
#include <memory>
#include <optional>

#include "cc/linux_tcp_sender.h"
#include "cc/round_tracker.h"

namespace ccreplay {

class LinuxDctcp final : public LinuxTcpSender {
 public:
  static constexpr uint32_t kMaxAlpha = 1024;  // DCTCP_MAX_ALPHA
  static constexpr uint32_t kShiftG = 4;       // dctcp_shift_g

  explicit LinuxDctcp(const ControllerOptions& options)
      : LinuxTcpSender(options) {}

  std::unique_ptr<CongestionController> Clone() const override {
    return std::make_unique<LinuxDctcp>(*this);
  }
  ControllerState state() const override;

  uint32_t alpha() const { return alpha_; }

 protected:
  uint32_t Ssthresh() override;
  void SetState(CaState new_state) override;
  void OnCaEventLoss() override { ReactToLoss(); }
  void InAckEvent(const AckEvent& ack) override;
  std::optional<uint32_t> UndoCwnd() override {
    // dctcp_cwnd_undo().
    return std::max(snd_cwnd_, loss_cwnd_);
  }

 private:
  void ReactToLoss();

  uint32_t alpha_ = kMaxAlpha;
  uint32_t loss_cwnd_ = 0;  // ca->loss_cwnd
  RoundTracker window_;
  uint64_t old_delivered_ = 0;
  uint64_t old_delivered_ce_ = 0;
};

}  // namespace ccreplay

#endif  // CCREPLAY_CC_LINUX_DCTCP_H_
