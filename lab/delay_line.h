// Propagation delay without netem: a TUN device in the router namespace.
// Packets routed into the device are read by a thread, held for the delay
// and written back, after which the router forwards them as if they had
// just arrived. The thread runs on CLOCK_MONOTONIC with ppoll's nanosecond
// timeout (hrtimers), a 1 ns timer slack and, when allowed, SCHED_FIFO; how
// late each release is (actual write time minus due time) is measured,
// because ground truth must say how good its delay is.
#ifndef CCREPLAY_LAB_DELAY_LINE_H_
#define CCREPLAY_LAB_DELAY_LINE_H_

#include <atomic>
#include <cstdint>
#include <memory>
#include <string>
#include <thread>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "absl/time/time.h"

namespace ccreplay::lab {

struct DelayLineStats {
  int64_t delay_us = 0;
  int64_t packets = 0;
  int64_t max_backlog_packets = 0;
  double late_mean_us = 0;
  int64_t late_max_us = 0;
  int64_t late_over_100us = 0;  // releases more than 0.1 ms after due
  int64_t late_over_1ms = 0;
  int64_t write_errors = 0;
  // Longest write(2) to the device: forwarding, and the sender's processing
  // of the ACK, run inside that call (tun_get_user -> netif_receive_skb).
  int64_t write_max_us = 0;
  bool realtime_priority = false;  // SCHED_FIFO was granted
};

class DelayLine {
 public:
  // Creates TUN device `device` in `netns` and starts the delay thread.
  static absl::StatusOr<std::unique_ptr<DelayLine>> Start(
      absl::string_view netns, absl::string_view device, absl::Duration delay);
  ~DelayLine();
  DelayLineStats Stop();

 private:
  DelayLine() = default;
  void Run();

  int fd_ = -1;
  int64_t delay_ns_ = 0;
  std::atomic<bool> stop_{false};
  std::thread thread_;
  DelayLineStats stats_;
};

}  // namespace ccreplay::lab

#endif  // CCREPLAY_LAB_DELAY_LINE_H_
