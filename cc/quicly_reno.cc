#include "cc/quicly_reno.h"

#include <algorithm>

namespace ccreplay {

QuiclyReno::QuiclyReno(const ControllerOptions& options)
    : QuiclySender(options) {}

uint64_t QuiclyReno::CaBytesPerMtuIncrease() const {
  if (normalize_bytes_ == 0) return cwnd_bytes_;
  return std::max<uint64_t>(cwnd_bytes_ * mtu_bytes_ / normalize_bytes_, 1);
}

}  // namespace ccreplay
