// The one place a figure becomes text for a person (terminal summary, HTML
// report, verdicts): a number that could not be computed (not finite)
// prints as "n/a", never "inf" or "nan". JSON prints it as null
// (proto/json_printer.h).
#ifndef CCREPLAY_REPORTS_FIGURE_FORMAT_H_
#define CCREPLAY_REPORTS_FIGURE_FORMAT_H_

#include <cstdint>
#include <string>

#include "absl/strings/string_view.h"

namespace ccreplay {

inline constexpr absl::string_view kNotAvailable = "n/a";

// `value` with `decimals` decimals and `unit` appended ("12.3 ms"), or
// "n/a" when it is not finite.
std::string Figure(double value, int decimals, absl::string_view unit = "");

// `fraction` as a percentage with `decimals` decimals ("42%"), or "n/a".
std::string Percent(double fraction, int decimals = 0);

// A share of two figures as a percentage, "n/a" when `whole` is not
// positive or either is not finite.
std::string PercentOf(double part, double whole, int decimals = 0);

// A count with its noun, singular for one: "1 data packet",
// "7 data packets" (the plural is the singular plus "s").
std::string Count(uint64_t n, absl::string_view singular);

// A rate in Mb/s with two decimals ("1.25 Mb/s"), or "n/a".
std::string Mbps(double bits_per_second);

}  // namespace ccreplay

#endif  // CCREPLAY_REPORTS_FIGURE_FORMAT_H_
