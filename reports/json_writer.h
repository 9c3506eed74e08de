// A small streaming JSON writer for the `--json` contracts. The contracts
// need explicit nulls and exact integers, which protobuf's JSON printer does
// not give (it omits unset fields and quotes 64-bit integers).
#ifndef CCREPLAY_REPORTS_JSON_WRITER_H_
#define CCREPLAY_REPORTS_JSON_WRITER_H_

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "absl/strings/string_view.h"

namespace ccreplay {

class JsonWriter {
 public:
  // Containers. Inside an object, call Key() before each value.
  JsonWriter& BeginObject();
  JsonWriter& EndObject();
  JsonWriter& BeginArray();
  JsonWriter& EndArray();
  JsonWriter& Key(absl::string_view key);

  // Values.
  JsonWriter& String(absl::string_view value);
  JsonWriter& Int(int64_t value);
  JsonWriter& Uint(uint64_t value);
  // Non-finite doubles are written as null (JSON has no NaN).
  JsonWriter& Double(double value);
  JsonWriter& Bool(bool value);
  JsonWriter& Null();
  template <typename T>
  JsonWriter& Optional(const std::optional<T>& value) {
    if (!value.has_value()) return Null();
    return Number(*value);
  }

  // Key and value in one call.
  template <typename T>
  JsonWriter& Field(absl::string_view key, const T& value) {
    Key(key);
    return Number(value);
  }
  JsonWriter& Field(absl::string_view key, absl::string_view value) {
    Key(key);
    return String(value);
  }
  JsonWriter& Field(absl::string_view key, const char* value) {
    Key(key);
    return String(value);
  }
  JsonWriter& Field(absl::string_view key, const std::string& value) {
    Key(key);
    return String(value);
  }
  JsonWriter& Field(absl::string_view key, bool value) {
    Key(key);
    return Bool(value);
  }

  // The document so far (complete once every container is closed).
  const std::string& str() const { return out_; }

 private:
  JsonWriter& Number(double v) { return Double(v); }
  JsonWriter& Number(float v) { return Double(v); }
  JsonWriter& Number(bool v) { return Bool(v); }
  JsonWriter& Number(int v) { return Int(v); }
  JsonWriter& Number(long v) { return Int(v); }
  JsonWriter& Number(long long v) { return Int(v); }
  JsonWriter& Number(unsigned v) { return Uint(v); }
  JsonWriter& Number(unsigned long v) { return Uint(v); }
  JsonWriter& Number(unsigned long long v) { return Uint(v); }
  template <typename T>
  JsonWriter& Number(const std::optional<T>& v) {
    return Optional(v);
  }
  void BeforeValue();

  std::string out_;
  // One entry per open container: true while no element has been written.
  std::vector<bool> first_in_container_;
  bool after_key_ = false;
};

}  // namespace ccreplay

#endif  // CCREPLAY_REPORTS_JSON_WRITER_H_
