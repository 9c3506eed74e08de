#include "cc/byte_counting_sender.h"

#include <algorithm>
#include <cmath>
#include <limits>

#include "absl/base/macros.h"

namespace ccreplay {

ByteCountingSender::ByteCountingSender(const ControllerOptions& options)
    : cwnd_bytes_(static_cast<double>(options.initial_window_segments) *
                  options.mss_bytes),
      ssthresh_bytes_(std::numeric_limits<double>::infinity()),
      mss_bytes_(options.mss_bytes),
      options_(options) {
  // Every window below is a multiple of the MSS and is divided by it; the
  // registry rejects mss=0 and iw=0 (ParseCount with a minimum of 1).
  ABSL_ASSERT(options.mss_bytes > 0 && options.initial_window_segments > 0);
  if (options.hystart_plus_plus) hystart_.emplace();
}

void ByteCountingSender::OnAck(const AckEvent& ack) {
  now_us_ = ack.time_us;
  if (ack.mss_bytes > 0) mss_bytes_ = ack.mss_bytes;
  if (ack.srtt_us > 0) srtt_us_ = ack.srtt_us;
  bytes_in_flight_ = ack.bytes_in_flight;
  if (rounds_.OnAck(ack.bytes_acked)) {
    if (!InSlowStart()) ++rounds_outside_slow_start_;
    rounds_.StartRound(ack.bytes_in_flight);
  }
  const uint64_t delivered = rounds_.delivered_bytes();
  // A reduction lasts until data sent after it is acknowledged: the recovery
  // point itself (RFC 6582 section 3.2) or, for CWR, beyond it.
  if ((reduction_ == Reduction::kCwr && delivered > high_mark_bytes_) ||
      (reduction_ != Reduction::kCwr && delivered >= high_mark_bytes_)) {
    reduction_ = Reduction::kNone;
  }
  if (HasCeFeedback(ack) && reduction_ == Reduction::kNone) {
    // FlightSize before this ACK removed what it covers.
    Reduce(/*ecn=*/true, ack.bytes_in_flight + ack.bytes_acked);
    high_mark_bytes_ = delivered + ack.bytes_in_flight;
    reduction_ = Reduction::kCwr;
  }
  if (reduction_ == Reduction::kCwr || reduction_ == Reduction::kRecovery) {
    return;
  }
  std::optional<HyStartPlusPlus::Step> step;
  if (hystart_.has_value() && hystart_->active() && InSlowStart()) {
    step = hystart_->OnAck(ack, mss_bytes_);
  }
  if (!ack.cwnd_limited) {
    if (step.has_value() && step->enter_congestion_avoidance) {
      ssthresh_bytes_ = cwnd_bytes_;
    }
    OnAppLimited(ack);
    return;
  }
  uint64_t bytes_acked = ack.bytes_acked;
  if (InSlowStart()) bytes_acked = SlowStart(bytes_acked, step);
  if (bytes_acked > 0) CongestionAvoidance(ack, bytes_acked);
}

uint64_t ByteCountingSender::SlowStart(
    uint64_t bytes_acked, const std::optional<HyStartPlusPlus::Step>& step) {
  if (step.has_value()) {
    // RFC 9406 section 4.2: the whole ACK is slow start (or CSS) growth.
    cwnd_bytes_ += step->increase_bytes;
    if (step->enter_congestion_avoidance) ssthresh_bytes_ = cwnd_bytes_;
    return 0;
  }
  const double grow =
      std::min<double>(bytes_acked, ssthresh_bytes_ - cwnd_bytes_);
  cwnd_bytes_ += grow;
  return bytes_acked - static_cast<uint64_t>(grow);
}

void ByteCountingSender::Reduce(bool ecn, uint64_t flight_bytes) {
  const double flight = flight_bytes > 0 ? flight_bytes : cwnd_bytes_;
  // RFC 9406 section 4.2: loss or ECN ends slow start the usual way.
  if (hystart_.has_value()) hystart_->OnCongestionEvent();
  OnCongestionEvent(ecn);
  ssthresh_bytes_ = std::max(std::floor(flight * Beta(ecn)), 2 * mss_bytes_);
  cwnd_bytes_ = std::max(ssthresh_bytes_, MinWindowSegments(ecn) * mss_bytes_);
}

void ByteCountingSender::OnLoss(const LossEvent& loss) {
  now_us_ = loss.time_us;
  if (loss.bytes_in_flight > 0) bytes_in_flight_ = loss.bytes_in_flight;
  if (loss.kind == LossEvent::Kind::kFastRetransmit) {
    if (reduction_ == Reduction::kRecovery ||
        reduction_ == Reduction::kTimeout) {
      return;
    }
    // A loss in the window already reduced for ECN is the same event.
    if (reduction_ == Reduction::kNone) {
      Reduce(/*ecn=*/false, bytes_in_flight_);
    }
    reduction_ = Reduction::kRecovery;
  } else {
    if (reduction_ != Reduction::kTimeout) {
      Reduce(/*ecn=*/false, bytes_in_flight_);
      OnTimeout();
    }
    cwnd_bytes_ = mss_bytes_;
    reduction_ = Reduction::kTimeout;
  }
  high_mark_bytes_ = rounds_.delivered_bytes() + bytes_in_flight_;
}

void ByteCountingSender::OnPacketSent(const PacketSentEvent& sent) {
  now_us_ = sent.time_us;
  bytes_in_flight_ = sent.bytes_in_flight;
}

void ByteCountingSender::OnIdleRestart(const IdleRestartEvent& idle) {
  now_us_ = idle.time_us;
  if (idle.rto_us > 0 && idle.idle_us > idle.rto_us) {
    cwnd_bytes_ = std::min(
        cwnd_bytes_,
        static_cast<double>(options_.initial_window_segments) * mss_bytes_);
  }
  OnIdle(idle.idle_us);
}

uint64_t ByteCountingSender::cwnd_bytes() const {
  return static_cast<uint64_t>(cwnd_bytes_);
}

uint64_t ByteCountingSender::ssthresh_bytes() const {
  if (std::isinf(ssthresh_bytes_)) return kNoSsthreshBytes;
  return static_cast<uint64_t>(ssthresh_bytes_);
}

ControllerState ByteCountingSender::state() const {
  ControllerState s;
  switch (reduction_) {
    case Reduction::kCwr:
      s.phase = Phase::kCwr;
      break;
    case Reduction::kRecovery:
    case Reduction::kTimeout:
      s.phase = Phase::kRecovery;
      break;
    case Reduction::kNone:
      s.phase = InSlowStart() ? Phase::kSlowStart : Phase::kCongestionAvoidance;
      break;
  }
  s.rounds_since_slow_start = rounds_outside_slow_start_;
  return s;
}

}  // namespace ccreplay
