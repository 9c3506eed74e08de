#include "lab/ss_sampler.h"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <ctime>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "lab/netns.h"
#include "lab/subprocess.h"

namespace ccreplay::lab {
namespace {

int64_t MonotonicNs() {
  timespec now;
  clock_gettime(CLOCK_MONOTONIC, &now);
  return now.tv_sec * 1'000'000'000LL + now.tv_nsec;
}

}  // namespace

absl::StatusOr<std::unique_ptr<SsSampler>> SsSampler::Start(
    absl::string_view netns, absl::string_view peer_address,
    absl::string_view path, absl::Duration interval) {
  std::unique_ptr<SsSampler> sampler(new SsSampler());
  std::string file(path);
  sampler->fd_ = open(
      file.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_APPEND | O_CLOEXEC, 0644);
  if (sampler->fd_ < 0) {
    return absl::PermissionDeniedError(
        absl::StrCat("cannot create ", file, ": ", std::strerror(errno)));
  }
  if (FindProgram("ss").empty()) {
    return absl::FailedPreconditionError("ss (iproute2) is not installed");
  }
  SsSampler* self = sampler.get();
  self->thread_ =
      std::thread([self, netns = std::string(netns),
                   argv = std::vector<std::string>{"ss", "-tinoH", "dst",
                                                   std::string(peer_address)},
                   interval_ns = absl::ToInt64Nanoseconds(interval)] {
        self->Loop(netns, argv, interval_ns);
      });
  return sampler;
}

void SsSampler::Loop(const std::string& netns,
                     const std::vector<std::string>& ss_argv,
                     int64_t interval_ns) {
  result_ = EnterNetns(netns);
  if (!result_.ok()) return;
  int64_t next_ns = MonotonicNs();
  while (!stop_.load()) {
    result_ = Sample(ss_argv);
    if (!result_.ok()) return;
    // Fixed schedule; when ss overran a slot, start the next one now.
    next_ns += interval_ns;
    int64_t after_ns = MonotonicNs();
    if (next_ns < after_ns) next_ns = after_ns;
    timespec wake = {static_cast<time_t>(next_ns / 1'000'000'000),
                     static_cast<long>(next_ns % 1'000'000'000)};
    while (clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &wake, nullptr) ==
           EINTR) {
    }
  }
}

absl::Status SsSampler::Sample(const std::vector<std::string>& ss_argv) {
  timespec wall;
  clock_gettime(CLOCK_REALTIME, &wall);
  std::string stamp =
      absl::StrFormat("# t=%d.%06d\n", wall.tv_sec, wall.tv_nsec / 1000);
  if (write(fd_, stamp.data(), stamp.size()) !=
      static_cast<ssize_t>(stamp.size())) {
    return absl::InternalError(absl::StrCat("ss log: ", std::strerror(errno)));
  }
  int64_t now_ns = MonotonicNs();
  if (previous_ns_ != 0) {
    double gap_ms = (now_ns - previous_ns_) / 1e6;
    interval_sum_ms_ += gap_ms;
    if (gap_ms > stats_.max_interval_ms) stats_.max_interval_ms = gap_ms;
  }
  previous_ns_ = now_ns;
  absl::StatusOr<pid_t> pid = SpawnProgram(ss_argv, fd_, -1);
  if (!pid.ok()) return pid.status();
  absl::StatusOr<int> status = WaitProgram(*pid, absl::Seconds(2));
  if (!status.ok()) return status.status();
  ++stats_.samples;
  if (stats_.samples > 1) {
    stats_.mean_interval_ms = interval_sum_ms_ / (stats_.samples - 1);
  }
  return absl::OkStatus();
}

SsSampler::~SsSampler() {
  stop_.store(true);
  if (thread_.joinable()) thread_.join();
  if (fd_ >= 0) close(fd_);
}

absl::StatusOr<SsSamplerStats> SsSampler::Stop() {
  stop_.store(true);
  if (thread_.joinable()) thread_.join();
  if (!result_.ok()) return result_;
  return stats_;
}

}  // namespace ccreplay::lab
