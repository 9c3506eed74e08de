#include "replay/sim/sender_jitter.h"

#include <algorithm>

#include "absl/numeric/int128.h"
#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "absl/time/time.h"
#include "replay/sim/units.h"

namespace ccreplay {

int64_t SenderJitterSpec::BoundNs(int64_t rate_bps,
                                  uint32_t largest_packet_bytes) const {
  switch (kind) {
    case Kind::kOff:
      return 0;
    case Kind::kServiceTime:
      return ServiceTimeNs(largest_packet_bytes, rate_bps);
    case Kind::kFixed:
      return fixed_ns;
  }
  return 0;
}

absl::StatusOr<SenderJitterSpec> ParseSenderJitter(absl::string_view text) {
  SenderJitterSpec spec;
  if (text == "off" || text == "0") return spec;
  if (text == "service") {
    spec.kind = SenderJitterSpec::Kind::kServiceTime;
    return spec;
  }
  absl::StatusOr<absl::Duration> duration = ParseDurationWithUnit(text);
  if (!duration.ok()) {
    return absl::InvalidArgumentError(
        absl::StrCat("bad sender jitter '", text,
                     "': expected off, service, or a duration such as 50us (",
                     duration.status().message(), ")"));
  }
  spec.fixed_ns = absl::ToInt64Nanoseconds(*duration);
  spec.kind = spec.fixed_ns > 0 ? SenderJitterSpec::Kind::kFixed
                                : SenderJitterSpec::Kind::kOff;
  return spec;
}

std::string SenderJitterName(const SenderJitterSpec& spec) {
  switch (spec.kind) {
    case SenderJitterSpec::Kind::kOff:
      return "off";
    case SenderJitterSpec::Kind::kServiceTime:
      return "service";
    case SenderJitterSpec::Kind::kFixed:
      return absl::FormatDuration(absl::Nanoseconds(spec.fixed_ns));
  }
  return "off";
}

int64_t ServiceTimeNs(uint32_t bytes, int64_t rate_bps) {
  const int64_t bits_ns = int64_t{bytes} * 8 * 1'000'000'000;
  return (bits_ns + rate_bps - 1) / rate_bps;
}

SenderJitter::SenderJitter(int64_t bound_ns, uint64_t seed, uint32_t flow)
    : bound_ns_(bound_ns) {
  std::seed_seq sequence{static_cast<uint32_t>(seed),
                         static_cast<uint32_t>(seed >> 32), flow};
  rng_.seed(sequence);
}

int64_t SenderJitter::Release(int64_t now_ns) {
  if (bound_ns_ <= 0) return now_ns;
  // A 64-bit draw scaled to [0, bound] by multiply-and-shift (no division
  // on the per-packet path); the bias is below bound / 2^64.
  const auto delay_ns = static_cast<int64_t>(absl::Uint128High64(
      absl::uint128(rng_()) * (static_cast<uint64_t>(bound_ns_) + 1)));
  last_release_ns_ = std::max(last_release_ns_, now_ns + delay_ns);
  return last_release_ns_;
}

}  // namespace ccreplay
