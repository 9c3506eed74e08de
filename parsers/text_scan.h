// Small scanners for the text logs the host-state parsers read (ss,
// tcp_probe): numbers followed by a unit, and splitting at a separator
// outside parentheses and quotes.
#ifndef CCREPLAY_PARSERS_TEXT_SCAN_H_
#define CCREPLAY_PARSERS_TEXT_SCAN_H_

#include <optional>
#include <string>
#include <vector>

#include "absl/strings/string_view.h"

namespace ccreplay {

struct NumberAndUnit {
  double value = 0;
  // What follows the number ("ms", "Mbps", "%", ""); a view into the input.
  absl::string_view unit;
};

// "16ms" → {16, "ms"}; "1.5e3x" → {1500, "x"}; "5/2.5" → {5, "/2.5"}.
// nullopt when `text` does not start with a finite decimal number.
std::optional<NumberAndUnit> SplitNumberAndUnit(absl::string_view text);

// Splits at `separator` (and, when it is ' ', at any ASCII whitespace)
// outside (...) and "..."; empty pieces are dropped.
// `a:(b c) d` → {"a:(b c)", "d"}.
std::vector<absl::string_view> SplitTopLevel(absl::string_view text,
                                             char separator);

// How a warning quotes input: C-escaped, at most kMaxQuotedBytes of it,
// with the full size when cut ("abc..." (1048576 bytes)"), so that no input
// can make a warning large.
constexpr size_t kMaxQuotedBytes = 80;
std::string QuoteInput(absl::string_view text);

}  // namespace ccreplay

#endif  // CCREPLAY_PARSERS_TEXT_SCAN_H_
