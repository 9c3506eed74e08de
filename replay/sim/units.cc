#include "replay/sim/units.h"

#include <cmath>
#include <initializer_list>
#include <utility>

#include "absl/status/status.h"
#include "absl/strings/ascii.h"
#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"

namespace ccreplay {
namespace {

struct Unit {
  absl::string_view suffix;
  int64_t multiplier;
};

// tc(8) rate units in bits per second, SI multiples.
constexpr Unit kRateUnits[] = {
    {"gbit", 1'000'000'000}, {"mbit", 1'000'000}, {"kbit", 1'000}, {"bit", 1}};
// Byte sizes, SI multiples as tc(8) writes them.
constexpr Unit kByteUnits[] = {{"MB", 1'000'000}, {"kB", 1'000}, {"B", 1}};

// "150kB" -> {"150", "kB"}: the unit is the trailing run of letters.
std::pair<absl::string_view, absl::string_view> SplitUnit(
    absl::string_view text) {
  size_t i = text.size();
  while (i > 0 && absl::ascii_isalpha(static_cast<unsigned char>(text[i - 1])))
    --i;
  return {text.substr(0, i), text.substr(i)};
}

bool PositiveNumber(absl::string_view number, double* value) {
  return !number.empty() && absl::SimpleAtod(number, value) &&
         std::isfinite(*value) && *value > 0;
}

bool IsBareNumber(absl::string_view text) {
  double value = 0;
  return SplitUnit(text).second.empty() && absl::SimpleAtod(text, &value);
}

absl::Status BadValue(absl::string_view what, absl::string_view text,
                      absl::string_view expected) {
  return absl::InvalidArgumentError(
      absl::StrCat("bad ", what, " '", text, "': ", expected));
}

}  // namespace

absl::StatusOr<BitRate> ParseBitRate(absl::string_view text) {
  constexpr absl::string_view kExpected =
      "expected a number and a unit: bit, kbit, mbit or gbit (bits per "
      "second, e.g. 50mbit)";
  if (IsBareNumber(text)) {
    return BadValue("rate", text,
                    absl::StrCat("a number needs a unit: write ", text,
                                 "mbit for megabits per second (units: bit, "
                                 "kbit, mbit, gbit)"));
  }
  const auto [number, suffix] = SplitUnit(text);
  if (absl::EndsWithIgnoreCase(suffix, "bps")) {
    return BadValue("rate", text,
                    "tc(8) reads 'bps' as bytes per second; write the rate in "
                    "bits: bit, kbit, mbit or gbit (50mbit)");
  }
  for (const Unit& unit : kRateUnits) {
    if (!absl::EqualsIgnoreCase(suffix, unit.suffix)) continue;
    double value = 0;
    if (!PositiveNumber(number, &value)) break;
    const int64_t bits = std::llround(value * unit.multiplier);
    if (bits <= 0) break;
    return BitRate{bits};
  }
  return BadValue("rate", text, kExpected);
}

std::string FormatBitRate(BitRate rate) {
  for (const Unit& unit : kRateUnits) {
    if (rate.bits_per_second % unit.multiplier == 0) {
      return absl::StrCat(rate.bits_per_second / unit.multiplier, unit.suffix);
    }
  }
  return absl::StrCat(rate.bits_per_second, "bit");
}

absl::StatusOr<absl::Duration> ParseDurationWithUnit(absl::string_view text) {
  if (text == "0") return absl::ZeroDuration();
  if (IsBareNumber(text)) {
    return BadValue(
        "duration", text,
        absl::StrCat("a number needs a unit: write ", text, "ms or ", text,
                     "s (units: ns, us, ms, s, m, h)"));
  }
  absl::Duration duration;
  if (!absl::ParseDuration(text, &duration) ||
      duration < absl::ZeroDuration() || duration == absl::InfiniteDuration()) {
    return BadValue("duration", text,
                    "expected a number and a unit: ns, us, ms, s, m or h "
                    "(10ms, 1.5s)");
  }
  return duration;
}

uint64_t BufferSize::Bytes(BitRate rate, uint32_t packet_bytes) const {
  switch (unit) {
    case Unit::kPackets:
      return static_cast<uint64_t>(count) * packet_bytes;
    case Unit::kBytes:
      return static_cast<uint64_t>(count);
    case Unit::kTime:
      return static_cast<uint64_t>(static_cast<double>(rate.bits_per_second) /
                                   8 * absl::ToDoubleSeconds(time));
  }
  return 0;
}

absl::StatusOr<BufferSize> ParseBufferSize(absl::string_view text) {
  constexpr absl::string_view kUnits =
      "p (packets), B, kB or MB (bytes), or a duration at the rate (50ms)";
  if (IsBareNumber(text)) {
    return BadValue(
        "buffer", text,
        absl::StrCat("a number needs a unit: ", kUnits, ", e.g. ", text, "p"));
  }
  const auto [number, suffix] = SplitUnit(text);
  BufferSize size;
  if (suffix == "p") {
    if (!absl::SimpleAtoi(number, &size.count) || size.count <= 0) {
      return BadValue("buffer", text, "expected a whole number of packets");
    }
    return size;
  }
  for (const Unit& unit : kByteUnits) {
    if (suffix != unit.suffix) continue;
    double value = 0;
    if (!PositiveNumber(number, &value)) break;
    size.unit = BufferSize::Unit::kBytes;
    size.count = std::llround(value * unit.multiplier);
    return size;
  }
  absl::StatusOr<absl::Duration> time = ParseDurationWithUnit(text);
  if (time.ok() && *time > absl::ZeroDuration()) {
    size.unit = BufferSize::Unit::kTime;
    size.time = *time;
    return size;
  }
  return BadValue("buffer", text, absl::StrCat("expected ", kUnits));
}

std::string FormatBufferSize(const BufferSize& size) {
  switch (size.unit) {
    case BufferSize::Unit::kPackets:
      return absl::StrCat(size.count, "p");
    case BufferSize::Unit::kBytes:
      return absl::StrCat(size.count, "B");
    case BufferSize::Unit::kTime:
      return absl::FormatDuration(size.time);
  }
  return "";
}

bool AbslParseFlag(absl::string_view text, BitRate* rate, std::string* error) {
  absl::StatusOr<BitRate> parsed = ParseBitRate(text);
  if (!parsed.ok()) {
    *error = std::string(parsed.status().message());
    return false;
  }
  *rate = *parsed;
  return true;
}

std::string AbslUnparseFlag(BitRate rate) { return FormatBitRate(rate); }

bool AbslParseFlag(absl::string_view text, BufferSize* size,
                   std::string* error) {
  absl::StatusOr<BufferSize> parsed = ParseBufferSize(text);
  if (!parsed.ok()) {
    *error = std::string(parsed.status().message());
    return false;
  }
  *size = *parsed;
  return true;
}

std::string AbslUnparseFlag(const BufferSize& size) {
  return FormatBufferSize(size);
}

}  // namespace ccreplay
