// Facts about the sender host that a capture cannot show but a replay of
// the kernel's controller depends on: the sender veth's GSO limits and the
// kernel's CONFIG_HZ. Each is read back from the system, not assumed.
#ifndef CCREPLAY_LAB_SENDER_HOST_H_
#define CCREPLAY_LAB_SENDER_HOST_H_

#include <cstdint>
#include <optional>
#include <string>

#include "absl/strings/string_view.h"

namespace ccreplay::lab {

struct SenderHostFacts {
  std::optional<int64_t> gso_max_size_bytes;
  std::optional<int64_t> gso_max_segs;
  std::optional<int> config_hz;
  // The namespace's net.ipv4.tcp_congestion_control: the controller whose
  // init() a socket meets first unless TCP_CONGESTION is set before
  // connect(); "" when it cannot be read.
  std::string default_controller;
};

// gso_max_size and gso_max_segs from `ip -d link show` output; each
// nullopt when absent.
void ParseGsoLimits(absl::string_view ip_link_details, SenderHostFacts* facts);

// CONFIG_HZ from kernel config text ("CONFIG_HZ=250"); nullopt when absent.
std::optional<int> ParseConfigHz(absl::string_view kernel_config);

// Reads all three for `device` in `netns` (`ip -n NETNS -d link show dev
// DEVICE`) and for the running kernel (/proc/config.gz, else
// /boot/config-RELEASE). What cannot be read stays nullopt.
SenderHostFacts ReadSenderHostFacts(const std::string& netns,
                                    const std::string& device,
                                    const std::string& kernel_release);

}  // namespace ccreplay::lab

#endif  // CCREPLAY_LAB_SENDER_HOST_H_
