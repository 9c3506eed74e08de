#include "cc/quicly_sender.h"

#include <algorithm>

#include "absl/base/macros.h"

namespace ccreplay {

uint64_t QuiclySender::InitialWindowBytes(uint32_t packets,
                                          uint32_t mtu_bytes) {
  // lib/cc-pico.c @ 01aa5e7c quicly_cc_calc_initial_cwnd(): mtu_max 1472.
  return uint64_t{std::max<uint32_t>(packets, kMinCwndMtus)} *
         std::min<uint32_t>(mtu_bytes, 1472);
}

QuiclySender::QuiclySender(const ControllerOptions& options,
                           uint64_t initial_window_bytes)
    : cwnd_bytes_(initial_window_bytes),
      mtu_bytes_(options.mss_bytes),
      normalize_bytes_(options.normalize_bytes) {
  // The registry rejects mss=0 (ParseCount with a minimum of 1).
  ABSL_ASSERT(options.mss_bytes > 0);
}

void QuiclySender::OnAck(const AckEvent& ack) {
  now_us_ = ack.time_us;
  if (ack.mss_bytes > 0) mtu_bytes_ = ack.mss_bytes;
  if (ack.srtt_us > 0) srtt_us_ = ack.srtt_us;
  bytes_in_flight_ = ack.bytes_in_flight;
  if (rounds_.OnAck(ack.bytes_acked)) {
    if (!InSlowStart()) ++rounds_outside_slow_start_;
    rounds_.StartRound(ack.bytes_in_flight);
  }
  // quicly: `largest_acked < recovery_end` keeps cwnd; the first ACK beyond
  // it grows with all its bytes.
  if (in_recovery_ && rounds_.delivered_bytes() >= recovery_end_bytes_) {
    in_recovery_ = false;
  }
  if (in_recovery_) return;
  // quicly reports an increased CE count after cc_on_acked, as a zero-byte
  // cc_on_lost keyed on the largest newly acked packet (lib/quicly.c).
  const bool ce = HasCeFeedback(ack);
  if (ce && CeBeforeGrowth()) {
    OnCongestionSignal(/*ecn=*/true, ack.bytes_in_flight);
    return;
  }
  Grow(ack);
  if (ce) OnCongestionSignal(/*ecn=*/true, ack.bytes_in_flight);
}

void QuiclySender::Grow(const AckEvent& ack) {
  if (!ack.cwnd_limited) return;
  CountAckedBytes(ack.bytes_acked);
}

void QuiclySender::CountAckedBytes(uint64_t bytes) {
  // Slow start is not normalized: one MTU per MTU acknowledged.
  auto interval = [this] {
    const uint64_t bytes = InSlowStart() ? mtu_bytes_ : CaBytesPerMtuIncrease();
    return std::max<uint64_t>(bytes, 1);
  };
  if (bytes_to_mtu_increase_ == 0) bytes_to_mtu_increase_ = interval();
  // One increase per pass; at most kMaxPerAckSteps of them for one ACK.
  // replay_fuzzer found a CUBIC curve so steep that an increase took 1
  // byte (MTU 536) and an ACK of more than 65,536 bytes: one pass per byte,
  // 2 s under the sanitizers. What an ACK acknowledges beyond that many
  // increases is not counted.
  for (uint64_t passes = 0;
       bytes >= bytes_to_mtu_increase_ && passes < kMaxPerAckSteps; ++passes) {
    // In slow start every increase takes one MTU: the increases up to
    // ssthresh at once (an ACK of a capture gap can cover millions).
    uint64_t steps = 1;
    if (InSlowStart() && mtu_bytes_ > 0) {
      const uint64_t gap = ssthresh_bytes_ - cwnd_bytes_;
      const uint64_t to_ssthresh =
          gap / mtu_bytes_ + (gap % mtu_bytes_ != 0 ? 1 : 0);
      steps = std::min((bytes - bytes_to_mtu_increase_) / mtu_bytes_ + 1,
                       std::max<uint64_t>(to_ssthresh, 1));
    }
    bytes -= bytes_to_mtu_increase_ + (steps - 1) * mtu_bytes_;
    cwnd_bytes_ += steps * mtu_bytes_;
    bytes_to_mtu_increase_ = interval();
  }
  bytes_to_mtu_increase_ -= std::min(bytes, bytes_to_mtu_increase_ - 1);
}

void QuiclySender::OnCongestionSignal(bool ecn, uint64_t flight_bytes) {
  in_recovery_ = true;
  recovery_end_bytes_ = rounds_.delivered_bytes() + flight_bytes;
  ++num_loss_episodes_;
  const uint64_t min_cwnd = kMinCwndMtus * mtu_bytes_;
  CongestionEvent event;
  event.ecn = ecn;
  event.beta = Beta(ecn);
  event.cwnd_before_bytes = cwnd_bytes_;
  event.previous_ssthresh_bytes = ssthresh_bytes_;
  event.bdp_bytes = num_loss_episodes_ == 1
                        ? std::max(cwnd_bytes_ / 2, min_cwnd)
                        : cwnd_bytes_;
  // Leaving slow start: 0.5 whatever the signal, as slow start overshoots
  // by 2x (lib/cc-pico.c pico_on_lost()); quicly truncates to an integer.
  const double factor = InSlowStart() ? 0.5 : event.beta;
  cwnd_bytes_ =
      std::max(static_cast<uint64_t>(static_cast<double>(cwnd_bytes_) * factor),
               min_cwnd);
  bytes_to_mtu_increase_ = 0;  // recomputed at the next ACK, as in quicly
  OnCongestion(event);
  ssthresh_bytes_ = cwnd_bytes_;
  last_signal_ecn_ = ecn;
}

void QuiclySender::OnLoss(const LossEvent& loss) {
  now_us_ = loss.time_us;
  if (loss.bytes_in_flight > 0) bytes_in_flight_ = loss.bytes_in_flight;
  // quicly: `lost_pn < recovery_end` is part of the episode already open.
  if (!in_recovery_) OnCongestionSignal(/*ecn=*/false, bytes_in_flight_);
  if (loss.kind == LossEvent::Kind::kRto) OnTimeoutLoss();
}

void QuiclySender::OnPacketSent(const PacketSentEvent& sent) {
  now_us_ = sent.time_us;
  bytes_in_flight_ = sent.bytes_in_flight;
}

void QuiclySender::OnIdleRestart(const IdleRestartEvent& idle) {
  now_us_ = idle.time_us;
}

ControllerState QuiclySender::state() const {
  ControllerState s;
  if (in_recovery_) {
    s.phase = last_signal_ecn_ ? Phase::kCwr : Phase::kRecovery;
  } else {
    s.phase = InSlowStart() ? Phase::kSlowStart : Phase::kCongestionAvoidance;
  }
  s.rounds_since_slow_start = rounds_outside_slow_start_;
  return s;
}

}  // namespace ccreplay
