#include "lab/delay_line.h"

#include <fcntl.h>
#include <linux/if.h>
#include <linux/if_tun.h>
#include <poll.h>
#include <pthread.h>
#include <sched.h>
#include <sys/ioctl.h>
#include <sys/prctl.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <ctime>
#include <deque>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "lab/netns.h"

namespace ccreplay::lab {
namespace {

constexpr int kMaxPacketBytes = 65536;
// Wake at least this often to notice Stop().
constexpr int64_t kIdleWakeNs = 20'000'000;
// The shared bundles' delay line ran at SCHED_FIFO 20 (chrt -f 20).
constexpr int kFifoPriority = 20;

int64_t MonotonicNs() {
  timespec now;
  clock_gettime(CLOCK_MONOTONIC, &now);
  return now.tv_sec * 1'000'000'000LL + now.tv_nsec;
}

struct HeldPacket {
  int64_t due_ns;
  std::vector<char> bytes;
};

}  // namespace

absl::StatusOr<std::unique_ptr<DelayLine>> DelayLine::Start(
    absl::string_view netns, absl::string_view device, absl::Duration delay) {
  if (device.size() >= IFNAMSIZ) {
    return absl::InvalidArgumentError(
        absl::StrCat("device name too long: ", device));
  }
  std::unique_ptr<DelayLine> line(new DelayLine());
  line->delay_ns_ = absl::ToInt64Nanoseconds(delay);
  line->stats_.delay_us = line->delay_ns_ / 1000;
  // The TUN device belongs to the namespace of the task that opens the
  // clone device (drivers/net/tun.c, tun_set_iff uses the file's netns).
  absl::Status opened = RunInNetns(netns, [&]() -> absl::Status {
    line->fd_ = open("/dev/net/tun", O_RDWR | O_NONBLOCK | O_CLOEXEC);
    if (line->fd_ < 0) {
      return absl::FailedPreconditionError(absl::StrCat(
          "kernel feature missing: TUN (/dev/net/tun: ", std::strerror(errno),
          ")"));
    }
    ifreq request = {};
    request.ifr_flags = IFF_TUN | IFF_NO_PI;
    std::memcpy(request.ifr_name, device.data(), device.size());
    if (ioctl(line->fd_, TUNSETIFF, &request) != 0) {
      return absl::FailedPreconditionError(
          absl::StrCat("TUNSETIFF ", device, ": ", std::strerror(errno)));
    }
    return absl::OkStatus();
  });
  if (!opened.ok()) return opened;
  DelayLine* self = line.get();
  self->thread_ = std::thread([self] { self->Run(); });
  return line;
}

// long: one real-time loop; its wait, read and release phases share the
// held queue and the lateness figures.
void DelayLine::Run() {
  prctl(PR_SET_TIMERSLACK, 1UL, 0, 0, 0);
  sched_param param = {};
  param.sched_priority = kFifoPriority;
  stats_.realtime_priority =
      pthread_setschedparam(pthread_self(), SCHED_FIFO, &param) == 0;

  std::deque<HeldPacket> held;
  std::vector<char> buffer(kMaxPacketBytes);
  double late_sum_us = 0;
  while (!stop_.load(std::memory_order_relaxed)) {
    int64_t now_ns = MonotonicNs();
    int64_t wait_ns = held.empty() ? kIdleWakeNs : held.front().due_ns - now_ns;
    if (wait_ns > kIdleWakeNs) wait_ns = kIdleWakeNs;
    if (wait_ns < 0) wait_ns = 0;
    timespec timeout = {static_cast<time_t>(wait_ns / 1'000'000'000),
                        static_cast<long>(wait_ns % 1'000'000'000)};
    pollfd fd = {fd_, POLLIN, 0};
    ppoll(&fd, 1, &timeout, nullptr);
    // Stamp arrivals before releasing, so a burst read late still gets the
    // time it was read at.
    for (;;) {
      ssize_t n = read(fd_, buffer.data(), buffer.size());
      if (n <= 0) break;
      held.push_back(
          HeldPacket{MonotonicNs() + delay_ns_,
                     std::vector<char>(buffer.begin(), buffer.begin() + n)});
    }
    if (static_cast<int64_t>(held.size()) > stats_.max_backlog_packets) {
      stats_.max_backlog_packets = held.size();
    }
    while (!held.empty()) {
      int64_t release_ns = MonotonicNs();
      if (held.front().due_ns > release_ns) break;
      const HeldPacket& packet = held.front();
      if (write(fd_, packet.bytes.data(), packet.bytes.size()) !=
          static_cast<ssize_t>(packet.bytes.size())) {
        ++stats_.write_errors;
      }
      int64_t late_us = (release_ns - packet.due_ns) / 1000;
      late_sum_us += late_us;
      if (late_us > stats_.late_max_us) stats_.late_max_us = late_us;
      if (late_us > 100) ++stats_.late_over_100us;
      if (late_us > 1000) ++stats_.late_over_1ms;
      int64_t write_us = (MonotonicNs() - release_ns) / 1000;
      if (write_us > stats_.write_max_us) stats_.write_max_us = write_us;
      ++stats_.packets;
      held.pop_front();
    }
  }
  if (stats_.packets > 0) stats_.late_mean_us = late_sum_us / stats_.packets;
}

DelayLine::~DelayLine() {
  Stop();
  if (fd_ >= 0) close(fd_);
}

DelayLineStats DelayLine::Stop() {
  stop_.store(true);
  if (thread_.joinable()) thread_.join();
  return stats_;
}

}  // namespace ccreplay::lab
