#include "parsers/text_scan.h"

#include <cmath>

#include "absl/strings/ascii.h"
#include "absl/strings/escaping.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"

namespace ccreplay {
namespace {

bool IsDigit(char c) { return c >= '0' && c <= '9'; }

}  // namespace

std::optional<NumberAndUnit> SplitNumberAndUnit(absl::string_view text) {
  size_t end = 0;
  if (end < text.size() && (text[end] == '-' || text[end] == '+')) ++end;
  size_t digits = 0;
  while (end < text.size() && IsDigit(text[end])) ++end, ++digits;
  if (end < text.size() && text[end] == '.') {
    ++end;
    while (end < text.size() && IsDigit(text[end])) ++end, ++digits;
  }
  if (digits == 0) return std::nullopt;
  // An exponent only when digits follow ("1e3", "2.5e-06"), so that units
  // starting with 'e' are left alone.
  if (end < text.size() && (text[end] == 'e' || text[end] == 'E')) {
    size_t exponent = end + 1;
    if (exponent < text.size() &&
        (text[exponent] == '-' || text[exponent] == '+'))
      ++exponent;
    if (exponent < text.size() && IsDigit(text[exponent])) {
      end = exponent;
      while (end < text.size() && IsDigit(text[end])) ++end;
    }
  }
  NumberAndUnit result;
  if (!absl::SimpleAtod(text.substr(0, end), &result.value) ||
      !std::isfinite(result.value)) {
    return std::nullopt;
  }
  result.unit = text.substr(end);
  return result;
}

std::string QuoteInput(absl::string_view text) {
  if (text.size() <= kMaxQuotedBytes)
    return absl::StrCat("'", absl::CEscape(text), "'");
  return absl::StrCat("'", absl::CEscape(text.substr(0, kMaxQuotedBytes)),
                      "...' (", text.size(), " bytes)");
}

std::vector<absl::string_view> SplitTopLevel(absl::string_view text,
                                             char separator) {
  std::vector<absl::string_view> pieces;
  int depth = 0;
  bool quoted = false;
  size_t begin = 0;
  auto is_separator = [separator](char c) {
    return separator == ' ' ? absl::ascii_isspace(static_cast<unsigned char>(c))
                            : c == separator;
  };
  for (size_t i = 0; i <= text.size(); ++i) {
    if (i < text.size()) {
      char c = text[i];
      if (quoted) {
        if (c == '\\') {
          ++i;
        } else if (c == '"') {
          quoted = false;
        }
        continue;
      }
      if (c == '"') {
        quoted = true;
        continue;
      }
      if (c == '(') ++depth;
      if (c == ')' && depth > 0) --depth;
      if (depth > 0 || !is_separator(c)) continue;
    }
    if (i > begin)
      pieces.push_back(text.substr(begin, std::min(i, text.size()) - begin));
    begin = i + 1;
  }
  return pieces;
}

}  // namespace ccreplay
