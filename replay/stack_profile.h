// Which stack profile (cc/registry.h) a QUIC trace's own controller is:
// read from what the log says about its writer. ngtcp2's qlogs name the
// stack (vantage_point `name` "ngtcp2", or a title with it) but not the
// controller; its controller shows in the logged congestion_window: the
// first reduction halves it with Reno and keeps 0.7 of it with CUBIC
// (ngtcp2 0.12.1 lib/ngtcp2_cc.c ngtcp2_cc_{reno,cubic}_cc_congestion_event),
// and the initial window gives max_tx_udp_payload_size
// (ngtcp2_cc_compute_initcwnd(): 10 * mss below 1472 bytes).
#ifndef CCREPLAY_REPLAY_STACK_PROFILE_H_
#define CCREPLAY_REPLAY_STACK_PROFILE_H_

#include <optional>
#include <string>

#include "parsers/host_state.h"

namespace ccreplay {

struct StackProfile {
  std::string spec;  // "ngtcp2:cubic", "ngtcp2:reno,mss=1200"
  // For people: "controller profile: ngtcp2:cubic, from ...".
  std::string reason;
};

// Whether the QUIC trace's writer is ngtcp2 (vantage_point name or title).
bool IsNgtcp2Trace(const HostTrace& trace);

// nullopt when the trace names no stack that has a profile.
std::optional<StackProfile> DetectStackProfile(const HostTrace& trace);

}  // namespace ccreplay

#endif  // CCREPLAY_REPLAY_STACK_PROFILE_H_
