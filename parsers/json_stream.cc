#include "parsers/json_stream.h"

#include <cstring>

#include "absl/strings/str_cat.h"

namespace ccreplay {
namespace {

// Refill granularity. InputFile already buffers below (zlib's window and
// its own read buffer), so more buys nothing on big files; 1 MiB here made
// every parse allocate (and, under ASan, poison) a megabyte: a small qlog
// took 5 ms to open, which held the qlog fuzzer at ~190 runs/s.
constexpr size_t kBufferBytes = 1 << 16;

bool IsJsonSpace(char c) {
  return c == ' ' || c == '\n' || c == '\r' || c == '\t';
}

// CaptureValue's scan over one JSON value, a byte at a time: nesting depth,
// whether inside a string (and after a backslash there), and whether the
// value is a bare number / true / false / null.
struct ValueScanner {
  // The value goes on, ends with this byte, ended just before it (a
  // scalar's terminator), or this byte closes a bracket never opened.
  enum Step { kMore, kEndsAfter, kEndsBefore, kUnexpectedClose };

  Step Next(char c) {
    if (in_string) return InString(c);
    if (scalar) {
      return IsJsonSpace(c) || c == ',' || c == ']' || c == '}' ? kEndsBefore
                                                                : kMore;
    }
    switch (c) {
      case '"':
        in_string = true;
        return kMore;
      case '{':
      case '[':
        ++depth;
        return kMore;
      case '}':
      case ']':
        if (depth == 0) return kUnexpectedClose;
        return --depth == 0 ? kEndsAfter : kMore;
      default:
        if (depth == 0) scalar = true;
        return kMore;
    }
  }

  Step InString(char c) {
    if (escaped) {
      escaped = false;
    } else if (c == '\\') {
      escaped = true;
    } else if (c == '"') {
      in_string = false;
      if (depth == 0) return kEndsAfter;
    }
    return kMore;
  }

  int depth = 0;
  bool in_string = false;
  bool escaped = false;
  bool scalar = false;
};

}  // namespace

JsonStream::JsonStream(InputFile* file)
    : file_(file), buffer_(new char[kBufferBytes]) {}

absl::Status JsonStream::Error(absl::StatusCode code,
                               const std::string& reason) const {
  return absl::Status(code, absl::StrCat(file_->path(), ": byte offset ",
                                         offset(), ": ", reason));
}

bool JsonStream::Refill() {
  if (position_ < end_) return true;
  if (!status_.ok()) return false;
  consumed_ += end_;
  position_ = end_ = 0;
  absl::StatusOr<size_t> n = file_->Read(buffer_.get(), kBufferBytes);
  if (!n.ok()) {
    status_ = n.status();
    return false;
  }
  end_ = *n;
  return end_ > 0;
}

int JsonStream::PeekToken() {
  skipped_separator_ = false;
  while (Refill()) {
    char c = buffer_[position_];
    if (c == kRecordSeparator) {
      skipped_separator_ = true;
    } else if (!IsJsonSpace(c)) {
      return static_cast<unsigned char>(c);
    }
    ++position_;
  }
  return -1;
}

void JsonStream::Consume() {
  if (position_ < end_) ++position_;
}

absl::Status JsonStream::Expect(char c, const char* what) {
  int next = PeekToken();
  if (next != static_cast<unsigned char>(c)) {
    if (!status_.ok()) return status_;
    return Error(absl::StatusCode::kInvalidArgument,
                 next < 0
                     ? absl::StrCat("data ends where ", what, " was expected")
                     : absl::StrCat("expected ", what));
  }
  Consume();
  return absl::OkStatus();
}

absl::Status JsonStream::ReadRawString(std::string* text) {
  text->clear();
  if (absl::Status s = Expect('"', "a string"); !s.ok()) return s;
  bool escaped = false;
  while (Refill()) {
    char c = buffer_[position_++];
    if (escaped) {
      escaped = false;
    } else if (c == '\\') {
      escaped = true;
    } else if (c == '"') {
      return absl::OkStatus();
    }
    if (text->size() >= kMaxValueBytes) {
      return Error(absl::StatusCode::kResourceExhausted,
                   "string longer than 64 MiB");
    }
    text->push_back(c);
  }
  if (!status_.ok()) return status_;
  return Error(absl::StatusCode::kDataLoss,
               "data ends inside a string (file cut short?)");
}

absl::Status JsonStream::CaptureValue(std::string* value) {
  value->clear();
  if (PeekToken() < 0) {
    if (!status_.ok()) return status_;
    return Error(absl::StatusCode::kDataLoss,
                 "data ends where a value was expected");
  }
  ValueScanner scan;
  while (Refill()) {
    const char* begin = buffer_.get() + position_;
    const char* end = buffer_.get() + end_;
    const char* p = begin;
    bool done = false;
    for (; p < end; ++p) {
      if (*p == kRecordSeparator) {
        value->append(begin, p - begin);
        position_ += p - begin;
        return Error(absl::StatusCode::kDataLoss,
                     "record cut short by a record separator");
      }
      const ValueScanner::Step step = scan.Next(*p);
      if (step == ValueScanner::kUnexpectedClose) {
        return Error(absl::StatusCode::kInvalidArgument,
                     absl::StrCat("unexpected '", std::string(1, *p), "'"));
      }
      if (step == ValueScanner::kEndsAfter) ++p;
      if (step != ValueScanner::kMore) {
        done = true;
        break;
      }
    }
    value->append(begin, p - begin);
    position_ += p - begin;
    if (done) return absl::OkStatus();
    if (value->size() > kMaxValueBytes) {
      return Error(absl::StatusCode::kResourceExhausted,
                   "a single JSON value exceeds 64 MiB");
    }
  }
  if (!status_.ok()) return status_;
  if (scan.scalar && scan.depth == 0) return absl::OkStatus();
  return Error(absl::StatusCode::kDataLoss,
               "data ends inside a value (file cut short?)");
}

}  // namespace ccreplay
