// A small random delay per packet at the sender, against drop-tail phase
// effects.
//
// A deterministic simulation of window-controlled flows through a drop-tail
// queue can lock the flows into phase: which flow's packet arrives at the
// moment the buffer is full is decided by the exact sending times, the same
// flow loses at every overflow, and throughput shares follow start offsets
// and packet sizes rather than the controllers. Floyd and Jacobson ("On
// Traffic Phase Effects in Packet-Switched Gateways", Internetworking:
// Research and Experience 3(3), 1992; an earlier version in CCR 21(2),
// 1991), section 4 ("Adding randomization"), remove the effect by adding a
// random processing time at each source, uniform between zero and the
// bottleneck service time of a maximum-sized packet (the paper's figures
// could not be consulted from here, so no figure number is cited; the
// bound is the one its text describes).
// quicly's t/simulator.c has no such term: its runs are deterministic except
// for the optional random loss (-r; h2o/quicly t/simulator.c @ b11d3634).
//
// Here a packet handed to the network at t leaves the sender host at
// t + U, U uniform on the integers [0, bound] ns, but never before the
// previous packet of the same flow: the per-flow FIFO order is kept (the
// random delay is a processing time of a serial host, not a reordering).
// Each flow draws from its own generator seeded from (seed, flow), so a run
// is a pure function of its seed and the draws of one flow do not depend on
// the other flows' traffic.
#ifndef CCREPLAY_REPLAY_SIM_SENDER_JITTER_H_
#define CCREPLAY_REPLAY_SIM_SENDER_JITTER_H_

#include <cstdint>
#include <limits>
#include <random>
#include <string>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"

namespace ccreplay {

// How the jitter bound is chosen.
struct SenderJitterSpec {
  enum class Kind {
    kOff,
    // One bottleneck service time of the largest packet any flow sends
    // (Floyd and Jacobson's choice).
    kServiceTime,
    kFixed,  // fixed_ns
  };
  Kind kind = Kind::kOff;
  int64_t fixed_ns = 0;

  // The bound in ns on a path of `rate_bps` whose largest packet is
  // `largest_packet_bytes`.
  int64_t BoundNs(int64_t rate_bps, uint32_t largest_packet_bytes) const;
};

// "off" (or "0"), "service" (one bottleneck service time of the largest
// packet), or a duration such as "50us" or "2ms". InvalidArgument otherwise.
absl::StatusOr<SenderJitterSpec> ParseSenderJitter(absl::string_view text);
// The text ParseSenderJitter() reads back.
std::string SenderJitterName(const SenderJitterSpec& spec);

// Time the last bit of `bytes` needs at `rate_bps`, rounded up to a ns.
int64_t ServiceTimeNs(uint32_t bytes, int64_t rate_bps);

class SenderJitter {
 public:
  // bound_ns 0: no delay and no random draws.
  SenderJitter(int64_t bound_ns, uint64_t seed, uint32_t flow);

  // When a packet handed over at `now_ns` leaves the host. Calls must come
  // in non-decreasing `now_ns` (the simulator's clock).
  int64_t Release(int64_t now_ns);

  int64_t bound_ns() const { return bound_ns_; }

 private:
  int64_t bound_ns_;
  std::mt19937_64 rng_;
  int64_t last_release_ns_ = std::numeric_limits<int64_t>::min();
};

}  // namespace ccreplay

#endif  // CCREPLAY_REPLAY_SIM_SENDER_JITTER_H_
