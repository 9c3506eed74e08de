// `cubic:linux`: the kernel's CUBIC, net/ipv4/tcp_cubic.c (Linux 6.18)
// (module version 2.3, with the HyStart rework of 5.7 and the
// "cnt >= 2" cap of 4.x), in segments:
//
// - beta = 717/1024, C = bic_scale/1024 = 41/1024, fast convergence on;
// - K from the kernel's table-plus-one-Newton-step cubic_root() in units of
//   1/1024 s, the curve evaluated once per jiffy (HZ configurable);
// - TCP-friendliness estimated per ACK from ack_cnt (beta_scale = 15);
// - HyStart (hystart_detect = 3): the ACK-train heuristic (ACKs spaced by at
//   most 2 ms spanning more than delay_min/2 + ack_delay) and the delay
//   heuristic (the minimum of 8 RTT samples above delay_min +
//   clamp(delay_min/8, 4 ms, 16 ms)) set ssthresh = cwnd once cwnd >= 16;
//   the ACK-train threshold is halved only for an unpaced socket
//   (sk_pacing_status == SK_PACING_NONE), and its ack delay comes from the
//   device's GSO size (hystart_update(), hystart_ack_delay());
// - tcp_jiffies32 ticks on CLOCK_MONOTONIC when the capture clock's offset
//   from it is known (`mono_offset_us`);
// - idle restart shifts epoch_start (CA_EVENT_TX_START).
#ifndef CCREPLAY_CC_LINUX_CUBIC_H_
#define CCREPLAY_CC_LINUX_CUBIC_H_

#include <cstdint>
#include <memory>
#include <optional>

#include "cc/linux_tcp_sender.h"

namespace ccreplay {

struct LinuxCubicOptions {
  ControllerOptions base;
  // Kernel tick rate (CONFIG_HZ): 1000 on most distributions' desktop
  // kernels, 250 on Debian's.
  uint32_t hz = 1000;
  bool hystart = true;
  // Whether the socket is paced (sk_pacing_status != SK_PACING_NONE): set
  // once any controller it had asked for pacing (bbr as the namespace
  // default, then TCP_CONGESTION after connect(), as iperf3 does) or with
  // SO_MAX_PACING_RATE; tcp_reinit_congestion_control() does not clear it.
  bool paced = false;
  // The device's gso_max_size (sk_gso_max_size): GSO_LEGACY_MAX_SIZE by
  // default; 1500 on a veth with `gso_max_size 1500` (the lab's sender).
  uint32_t gso_max_size_bytes = 65536;
  // The capture clock minus the sender kernel's CLOCK_MONOTONIC, µs, modulo
  // 1 s (a lab trace's clockpair says it): where the jiffies tick, which
  // decides when bictcp_update() recomputes cnt (at most once per jiffy,
  // and with cwnd unchanged only after HZ / 32 jiffies). nullopt: unknown,
  // the capture clock's whole ticks stand in.
  std::optional<uint32_t> mono_offset_us;
};

// The kernel's cubic_root(): table lookup and one Newton-Raphson iteration
// (average error ~0.195 %).
uint32_t LinuxCubicRoot(uint64_t a);

class LinuxCubic final : public LinuxTcpSender {
 public:
  explicit LinuxCubic(const LinuxCubicOptions& options);

  std::unique_ptr<CongestionController> Clone() const override {
    return std::make_unique<LinuxCubic>(*this);
  }

  // bic_K in 1/1024 s and the origin point in segments of the epoch.
  uint32_t bic_k() const { return bic_k_; }
  uint32_t last_max_cwnd() const { return last_max_cwnd_; }
  bool hystart_found() const { return found_; }

 protected:
  uint32_t Ssthresh() override;
  void CongAvoid(const AckEvent& ack, uint32_t acked) override;
  void SetState(CaState new_state) override;
  // cubictcp's .undo_cwnd is tcp_reno_undo_cwnd() (tcp_cubic.c, 6.18): the
  // epoch and last_max_cwnd that .ssthresh set stay as they are.
  std::optional<uint32_t> UndoCwnd() override { return RenoUndoCwnd(); }
  void OnTxStart(const IdleRestartEvent& idle) override;
  void PktsAcked(const AckEvent& ack) override;

 private:
  uint32_t Jiffies() const;
  void Reset();
  void HystartReset();
  void HystartUpdate(uint32_t delay_us);
  void Update(uint32_t acked);

  uint32_t hz_;
  bool hystart_;
  bool paced_;
  uint32_t gso_max_size_bytes_;
  std::optional<uint32_t> mono_offset_us_;
  // struct bictcp
  uint32_t cnt_ = 0;
  uint32_t last_max_cwnd_ = 0;
  uint32_t last_cwnd_ = 0;
  uint32_t last_time_ = 0;
  uint32_t bic_origin_point_ = 0;
  uint32_t bic_k_ = 0;
  uint32_t delay_min_us_ = 0;
  uint32_t epoch_start_ = 0;  // jiffies, 0 = no epoch
  uint32_t ack_cnt_ = 0;
  uint32_t tcp_cwnd_ = 0;
  uint8_t sample_cnt_ = 0;
  bool found_ = false;
  int64_t round_start_us_ = 0;
  // The HyStart round's end: snd_nxt (end_seq_by_una_), else delivered
  // bytes.
  uint64_t end_seq_bytes_ = 0;
  bool end_seq_by_una_ = false;
  int64_t last_ack_us_ = 0;
  uint32_t curr_rtt_us_ = 0;
};

}  // namespace ccreplay

#endif  // CCREPLAY_CC_LINUX_CUBIC_H_
