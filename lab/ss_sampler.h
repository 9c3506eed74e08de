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
  std::atomic<bool> stop_{false};
  std::thread thread_;
  int fd_ = -1;
  absl::Status result_;
  SsSamplerStats stats_;
};

}  // namespace ccreplay::lab

#endif  // CCREPLAY_LAB_SS_SAMPLER_H_
