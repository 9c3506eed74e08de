// Propagation delay without netem: a TUN device in the router namespace.
// Packets routed into the device are read by a thread, held for the delay
// and written back, after which the router forwards them as if they had
// just arrived. The thread runs on CLOCK_MONOTONIC with ppoll's nanosecond
// timeout (hrtimers), a 1 ns timer slack and, when allowed, SCHED_FIFO; how
// late each release is (actual write time minus due time) is measured,
// because ground truth must say how good its delay is.
//
// With a reorder fraction the line also reorders: each packet is, with that
// probability, held `reorder_extra` longer than the others, so the packets
// read after it within that time leave before it. The draws come from a
// fixed-seed generator, so a run's choice of packets is reproducible given
// the same arrivals.
#ifndef CCREPLAY_LAB_DELAY_LINE_H_
#define CCREPLAY_LAB_DELAY_LINE_H_

#include <atomic>
#include <cstdint>
#include <deque>
#include <memory>
#include <random>
#include <string>
#include <thread>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "absl/time/time.h"

namespace ccreplay::lab {

// Reordering by the delay line: `fraction` of the packets (0..1) are held
// `extra` on top of the line's delay.
struct ReorderSpec {
  double fraction = 0;
  absl::Duration extra = absl::Milliseconds(1);
};

struct DelayLineStats {
  int64_t delay_us = 0;
  int64_t packets = 0;
  // The reordering asked for (ReorderSpec) and what it did: packets held
  // longer, and packets released before a packet read ahead of them.
  double reorder_fraction = 0;
  int64_t reorder_extra_us = 0;
  int64_t reordered_packets = 0;
  int64_t overtaking_packets = 0;
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
      absl::string_view netns, absl::string_view device, absl::Duration delay,
      const ReorderSpec& reorder = ReorderSpec());
  ~DelayLine();
  DelayLineStats Stop();

 private:
  struct HeldPacket {
    int64_t due_ns;
    int64_t arrival;  // Order read from the device.
    std::vector<char> bytes;
  };

  DelayLine() = default;
  void Run();
  // Reads what the device has, each packet into the queue of its delay.
  void ReadArrivals(std::vector<char>& buffer);
  // Writes back every held packet that is due, earliest due first.
  void ReleaseDue();
  // The earliest due time held, or -1.
  int64_t NextDueNs() const;

  int fd_ = -1;
  int64_t delay_ns_ = 0;
  ReorderSpec reorder_;
  // [0]: packets held for the delay; [1]: those held longer (reordered).
  // Each is in due order, as every packet of a queue waits alike.
  std::deque<HeldPacket> held_[2];
  int64_t arrivals_ = 0;
  std::minstd_rand random_{kReorderSeed};
  double late_sum_us_ = 0;
  static constexpr uint32_t kReorderSeed = 14;
  std::atomic<bool> stop_{false};
  std::thread thread_;
  DelayLineStats stats_;
};

}  // namespace ccreplay::lab

#endif  // CCREPLAY_LAB_DELAY_LINE_H_
