// `reno:linux`: the kernel's Reno, i.e. tcp_reno_cong_avoid() and
// tcp_reno_ssthresh() (net/ipv4/tcp_cong.c, Linux 6.18): segment counting,
// +1 segment per cwnd segments acknowledged, halving on loss or ECE. This is
// what `ss -ti` reports for a Reno flow.
#ifndef CCREPLAY_CC_LINUX_RENO_H_
#define CCREPLAY_CC_LINUX_RENO_H_

#include <memory>
#include <optional>

#include "cc/linux_tcp_sender.h"

namespace ccreplay {

class LinuxReno final : public LinuxTcpSender {
 public:
  explicit LinuxReno(const ControllerOptions& options)
      : LinuxTcpSender(options) {}

  std::unique_ptr<CongestionController> Clone() const override {
    return std::make_unique<LinuxReno>(*this);
  }

 protected:
  uint32_t Ssthresh() override { return RenoSsthresh(); }
  // tcp_reno_undo_cwnd() (tcp_cong.c, 6.18).
  std::optional<uint32_t> UndoCwnd() override { return RenoUndoCwnd(); }
};

}  // namespace ccreplay

#endif  // CCREPLAY_CC_LINUX_RENO_H_
