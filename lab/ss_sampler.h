// Samples `ss -tinoH` for the lab's flows from inside the sender namespace
// every 10 ms. Each sample is preceded by "# t=<epoch seconds>" taken from
// CLOCK_REALTIME, the clock of libpcap's packet timestamps, so ss samples
// and packets share one time axis. -i gives cwnd/ssthresh/rtt, -o the timers
// and the "ecn ecnseen" flags (iproute2 prints TCP option flags with -o).
#ifndef CCREPLAY_LAB_SS_SAMPLER_H_
#define CCREPLAY_LAB_SS_SAMPLER_H_

#include <atomic>
#include <cstdint>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "absl/time/time.h"

namespace ccreplay::lab {

struct SsSamplerStats {
  int64_t samples = 0;
  // Time between consecutive samples; ss itself takes a few ms to run.
  double mean_interval_ms = 0;
  double max_interval_ms = 0;
};

class SsSampler {
 public:
  // Samples connections towards `peer_address` into `path`.
  static absl::StatusOr<std::unique_ptr<SsSampler>> Start(
      absl::string_view netns, absl::string_view peer_address,
      absl::string_view path, absl::Duration interval);
  ~SsSampler();
  absl::StatusOr<SsSamplerStats> Stop();

 private:
  SsSampler() = default;
  // The sampling thread: enters `netns`, then runs `ss_argv` every
  // `interval_ns` until Stop(); the first error ends it in result_.
  void Loop(const std::string& netns, const std::vector<std::string>& ss_argv,
            int64_t interval_ns);
  // One sample: a "# t=" wall-clock stamp, then ss's output.
  absl::Status Sample(const std::vector<std::string>& ss_argv);

  std::atomic<bool> stop_{false};
  std::thread thread_;
  int fd_ = -1;
  absl::Status result_;
  SsSamplerStats stats_;
  // Spacing of the samples so far (for stats_).
  int64_t previous_ns_ = 0;
  double interval_sum_ms_ = 0;
};

}  // namespace ccreplay::lab

#endif  // CCREPLAY_LAB_SS_SAMPLER_H_
