// Live capture of one interface inside a network namespace with libpcap,
// written to a pcap file: a thread enters the namespace, opens the device
// with snaplen 128 and immediate mode, and dumps until stopped.
#ifndef CCREPLAY_LAB_PACKET_CAPTURE_H_
#define CCREPLAY_LAB_PACKET_CAPTURE_H_

#include <atomic>
#include <cstdint>
#include <memory>
#include <string>
#include <thread>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"

namespace ccreplay::lab {

// libpcap's pcap_stats(3PCAP) at the end of the capture; on Linux ps_recv
// counts packets that passed the filter and ps_drop those the kernel ring
// had no room for (PACKET_STATISTICS).
struct CaptureStats {
  uint64_t packets_written = 0;
  uint64_t ps_recv = 0;
  uint64_t ps_drop = 0;
  uint64_t ps_ifdrop = 0;
};

class PacketCapture {
 public:
  inline static constexpr int kSnaplenBytes = 128;

  // Returns once the device is capturing (or with the reason it could not).
  static absl::StatusOr<std::unique_ptr<PacketCapture>> Start(
      absl::string_view netns, absl::string_view device,
      absl::string_view filter, absl::string_view path);
  ~PacketCapture();

  // Stops, flushes and closes the file.
  absl::StatusOr<CaptureStats> Stop();

 private:
  PacketCapture() = default;

  std::atomic<bool> stop_{false};
  std::thread thread_;
  absl::Status result_;
  CaptureStats stats_;
};

}  // namespace ccreplay::lab

#endif  // CCREPLAY_LAB_PACKET_CAPTURE_H_
