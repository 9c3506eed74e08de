// The typed quantities of a command line — rates, buffer sizes and
// durations — and the one parser of each. The lab and the simulator both
// read them; cli/ only hands flag text over (the AbslParseFlag hooks below
// make them flag types).
//
// Units follow tc(8) ("Parameters"): rates in bits per second with SI
// multiples (kbit = 1000 bit/s); sizes in bytes with SI multiples
// (kB = 1000 bytes). tc reads "mbps" as megaBYTES per second, so the
// "bps" spellings are refused with a hint rather than guessed. A number
// without a unit is refused too, with the units to add.
#ifndef CCREPLAY_REPLAY_SIM_UNITS_H_
#define CCREPLAY_REPLAY_SIM_UNITS_H_

#include <cstdint>
#include <string>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "absl/time/time.h"

namespace ccreplay {

// A data rate in bits per second.
struct BitRate {
  int64_t bits_per_second = 0;
};

// "50mbit", "800kbit", "1.5gbit", "64000bit". Positive.
absl::StatusOr<BitRate> ParseBitRate(absl::string_view text);
// The shortest exact text ParseBitRate reads back ("50mbit").
std::string FormatBitRate(BitRate rate);

// A duration with its unit: absl::ParseDuration's syntax ("10ms", "1.5s",
// "250us", "1m"), non-negative. "0" alone is accepted (zero needs no unit);
// any other bare number is an error that names the units.
absl::StatusOr<absl::Duration> ParseDurationWithUnit(absl::string_view text);

// A queue or window size: packets, bytes, or time at a rate.
struct BufferSize {
  enum class Unit { kPackets, kBytes, kTime };
  Unit unit = Unit::kPackets;
  int64_t count = 0;    // packets or bytes
  absl::Duration time;  // kTime
  // Bytes at `rate` with packets of `packet_bytes`.
  uint64_t Bytes(BitRate rate, uint32_t packet_bytes) const;
};

// "100p" (packets), "150kB", "2MB", "64000B" (bytes, SI multiples) or a
// duration ("50ms", "1.5s": the bytes the bottleneck sends in that time).
absl::StatusOr<BufferSize> ParseBufferSize(absl::string_view text);
std::string FormatBufferSize(const BufferSize& size);

// Flag hooks (absl/flags/marshalling.h), found by argument-dependent lookup.
bool AbslParseFlag(absl::string_view text, BitRate* rate, std::string* error);
std::string AbslUnparseFlag(BitRate rate);
bool AbslParseFlag(absl::string_view text, BufferSize* size,
                   std::string* error);
std::string AbslUnparseFlag(const BufferSize& size);

}  // namespace ccreplay

#endif  // CCREPLAY_REPLAY_SIM_UNITS_H_
