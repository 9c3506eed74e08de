// Walks a large JSON text from an InputFile without holding it whole: it
// steps through the outer structure (objects, keys) and copies out one
// value at a time — an event of a qlog's `events` array, or a record of a
// JSON-SEQ (RFC 7464) / newline-delimited file — for simdjson to parse.
// It tracks only strings, escapes and nesting depth; validating the copied
// value is simdjson's job.
#ifndef CCREPLAY_PARSERS_JSON_STREAM_H_
#define CCREPLAY_PARSERS_JSON_STREAM_H_

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>

#include "absl/status/status.h"
#include "absl/strings/string_view.h"
#include "parsers/input_file.h"

namespace ccreplay {

class JsonStream {
 public:
  // RFC 7464 record separator.
  static constexpr char kRecordSeparator = 0x1e;
  // A single value larger than this is refused (a qlog event is a few
  // hundred bytes; this bounds memory on hostile input).
  static constexpr size_t kMaxValueBytes = 64 << 20;

  explicit JsonStream(InputFile* file);

  // Skips whitespace and record separators. Returns the next byte without
  // consuming it, or -1 at the end of the data (or on a read error: see
  // status()).
  int PeekToken();
  // True if a record separator was skipped by the last PeekToken().
  bool skipped_record_separator() const { return skipped_separator_; }
  // Consumes the byte PeekToken() returned.
  void Consume();

  // Consumes `c` (after whitespace) or fails naming the offset.
  absl::Status Expect(char c, const char* what);
  // Reads a string token (after whitespace) as raw JSON text, without the
  // quotes and without unescaping.
  absl::Status ReadRawString(std::string* text);
  // Copies the next value (after whitespace) into `value`, replacing its
  // contents. A record separator or the end of data inside the value is
  // DataLoss ("cut short").
  absl::Status CaptureValue(std::string* value);

  // Offset of the next unread byte, in the decompressed data.
  uint64_t offset() const { return consumed_ + position_; }
  const absl::Status& status() const { return status_; }
  absl::Status Error(absl::StatusCode code, const std::string& reason) const;

 private:
  bool Refill();

  InputFile* file_;
  std::unique_ptr<char[]> buffer_;
  size_t position_ = 0;
  size_t end_ = 0;
  uint64_t consumed_ = 0;  // bytes before buffer_[0]
  bool skipped_separator_ = false;
  absl::Status status_;
};

// simdjson hands out std::string_view; Debian's Abseil has its own
// string_view type. Same bytes, no copy.
inline absl::string_view AsAbsl(std::string_view text) {
  return {text.data(), text.size()};
}

}  // namespace ccreplay

#endif  // CCREPLAY_PARSERS_JSON_STREAM_H_
