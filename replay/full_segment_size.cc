#include "replay/full_segment_size.h"

#include <algorithm>
#include <cmath>

namespace ccreplay {

void FullSegmentSize::OnFullSegment(uint32_t payload_bytes,
                                    uint32_t mss_bytes) {
  // Under half the MSS, a segment that another followed at once is not a
  // full one cut short by options or a lower path MTU (IPv6's minimum,
  // 1,280 bytes, is 85 % of 1,500; RFC 8200 section 5) but a remainder
  // a middlebox split off (VirtualBox's NAT sends 1,448 bytes as 1,420 +
  // 28 in zeek_http_bro.org.pcap) or a write boundary: counting those
  // would drag a low quantile down to them, and no segment would be short.
  if (payload_bytes < mss_bytes / 2) return;
  const double size = payload_bytes;
  if (!seen_) {  // From the largest size known, down as the sizes say.
    seen_ = true;
    estimate_bytes_ = mss_bytes;
  }
  const double step = std::max(1.0, mss_bytes / kStepsPerMss);
  // Never past the size that moved it: the estimate stays within the
  // sizes seen.
  if (size < estimate_bytes_) {
    estimate_bytes_ = std::max(size, estimate_bytes_ - (1 - kQuantile) * step);
  } else {
    estimate_bytes_ = std::min(size, estimate_bytes_ + kQuantile * step);
  }
}

uint32_t FullSegmentSize::ShortBelowBytes(uint32_t mss_bytes) const {
  if (!seen_) return mss_bytes;
  return std::min(mss_bytes,
                  static_cast<uint32_t>(std::lround(estimate_bytes_)));
}

}  // namespace ccreplay
