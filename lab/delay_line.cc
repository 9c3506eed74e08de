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

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <ctime>

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

}  // namespace

absl::StatusOr<std::unique_ptr<DelayLine>> DelayLine::Start(
    absl::string_view netns, absl::string_view device, absl::Duration delay,
    const ReorderSpec& reorder) {
  if (device.size() >= IFNAMSIZ) {
    return absl::InvalidArgumentError(
        absl::StrCat("device name too long: ", device));
  }
  std::unique_ptr<DelayLine> line(new DelayLine());
  line->delay_ns_ = absl::ToInt64Nanoseconds(delay);
  line->stats_.delay_us = line->delay_ns_ / 1000;
  line->reorder_ = reorder;
  line->stats_.reorder_fraction = reorder.fraction;
  line->stats_.reorder_extra_us = absl::ToInt64Microseconds(reorder.extra);
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

void DelayLine::Run() {
  prctl(PR_SET_TIMERSLACK, 1UL, 0, 0, 0);
  sched_param param = {};
  param.sched_priority = kFifoPriority;
  stats_.realtime_priority =
      pthread_setschedparam(pthread_self(), SCHED_FIFO, &param) == 0;
  std::vector<char> buffer(kMaxPacketBytes);
  while (!stop_.load(std::memory_order_relaxed)) {
    const int64_t due_ns = NextDueNs();
    int64_t wait_ns = due_ns < 0 ? kIdleWakeNs : due_ns - MonotonicNs();
    wait_ns = std::clamp<int64_t>(wait_ns, 0, kIdleWakeNs);
    timespec timeout = {static_cast<time_t>(wait_ns / 1'000'000'000),
                        static_cast<long>(wait_ns % 1'000'000'000)};
    pollfd fd = {fd_, POLLIN, 0};
    ppoll(&fd, 1, &timeout, nullptr);
    ReadArrivals(buffer);
    ReleaseDue();
  }
  if (stats_.packets > 0) stats_.late_mean_us = late_sum_us_ / stats_.packets;
}

int64_t DelayLine::NextDueNs() const {
  int64_t due_ns = -1;
  for (const std::deque<HeldPacket>& queue : held_) {
    if (!queue.empty() && (due_ns < 0 || queue.front().due_ns < due_ns))
      due_ns = queue.front().due_ns;
  }
  return due_ns;
}

void DelayLine::ReadArrivals(std::vector<char>& buffer) {
  // Stamp arrivals before releasing, so a burst read late still gets the
  // time it was read at.
  std::bernoulli_distribution reorder(reorder_.fraction);
  const int64_t extra_ns = absl::ToInt64Nanoseconds(reorder_.extra);
  for (;;) {
    ssize_t n = read(fd_, buffer.data(), buffer.size());
    if (n <= 0) break;
    const bool held_longer = reorder_.fraction > 0 && reorder(random_);
    if (held_longer) ++stats_.reordered_packets;
    held_[held_longer ? 1 : 0].push_back(HeldPacket{
        MonotonicNs() + delay_ns_ + (held_longer ? extra_ns : 0), arrivals_++,
        std::vector<char>(buffer.begin(), buffer.begin() + n)});
  }
  const auto backlog = static_cast<int64_t>(held_[0].size() + held_[1].size());
  stats_.max_backlog_packets = std::max(stats_.max_backlog_packets, backlog);
}

void DelayLine::ReleaseDue() {
  for (;;) {
    const int64_t release_ns = MonotonicNs();
    const int64_t due_ns = NextDueNs();
    if (due_ns < 0 || due_ns > release_ns) return;
    std::deque<HeldPacket>& queue =
        held_[0].empty() || held_[0].front().due_ns != due_ns ? held_[1]
                                                              : held_[0];
    const HeldPacket& packet = queue.front();
    if (write(fd_, packet.bytes.data(), packet.bytes.size()) !=
        static_cast<ssize_t>(packet.bytes.size())) {
      ++stats_.write_errors;
    }
    // It leaves ahead of a packet read before it, still held longer.
    if (&queue == &held_[0] && !held_[1].empty() &&
        held_[1].front().arrival < packet.arrival) {
      ++stats_.overtaking_packets;
    }
    int64_t late_us = (release_ns - packet.due_ns) / 1000;
    late_sum_us_ += late_us;
    if (late_us > stats_.late_max_us) stats_.late_max_us = late_us;
    if (late_us > 100) ++stats_.late_over_100us;
    if (late_us > 1000) ++stats_.late_over_1ms;
    int64_t write_us = (MonotonicNs() - release_ns) / 1000;
    if (write_us > stats_.write_max_us) stats_.write_max_us = write_us;
    ++stats_.packets;
    queue.pop_front();
  }
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
