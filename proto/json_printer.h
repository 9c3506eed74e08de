// The one JSON printer for every `--json` output: reflection over a proto
// message, so the message in proto/ is the schema.
//
// It differs from protobuf's own printer (google/protobuf/util/json_util.h)
// where the contracts need it to:
//  - every field is printed: an unset field with presence (a proto3
//    `optional` scalar or a message field) prints as `null`, a plain proto3
//    scalar prints its value even when it is the default;
//  - 64-bit integers are numbers, not strings;
//  - field names are the proto's own (snake_case), not lowerCamelCase;
//  - a double or float that is not finite prints as `null` (JSON has no
//    NaN or infinity, and ccreplay never reports a number it could not
//    compute);
//  - enums print as their value's name.
// Output parses back into the same message with ParseJson() below
// (protobuf's parser reads `null` as "unset" and unquoted 64-bit numbers).
#ifndef CCREPLAY_PROTO_JSON_PRINTER_H_
#define CCREPLAY_PROTO_JSON_PRINTER_H_

#include <cstdint>
#include <optional>
#include <string>

#include "absl/status/status.h"
#include "absl/strings/string_view.h"
#include "google/protobuf/message.h"

namespace ccreplay {

struct JsonPrintOptions {
  // Spaces per nesting level; 0 prints the whole message on one line (for
  // JSON Lines and streaming).
  int indent = 2;
};

// Appends `message` as a JSON object to `out`, starting at nesting `depth`
// (for a message printed inside a container the caller writes itself, as
// a streamed array does).
void AppendJson(const google::protobuf::Message& message,
                const JsonPrintOptions& options, int depth, std::string* out);

// Writes one JSON object a field at a time, byte for byte as AppendJson
// (indent 2) writes the message with those fields, without building the
// message: for a listing of a million rows (`flows --json`), where making
// and reflecting over the protos was most of the time. The caller writes
// every field of the message, in the proto's declaration order, with
// `null` for an unset field with presence; a test compares its output
// with AppendJson's on the same values.
class JsonObjectWriter {
 public:
  // Opens the object at nesting `depth` (as AppendJson's `depth`).
  JsonObjectWriter(int depth, std::string* out);
  JsonObjectWriter(const JsonObjectWriter&) = delete;
  JsonObjectWriter& operator=(const JsonObjectWriter&) = delete;

  void Uint(absl::string_view name, uint64_t value);
  void Int(absl::string_view name, int64_t value);
  void Double(absl::string_view name, double value);
  void Bool(absl::string_view name, bool value);
  // A string field, or an enum field's value name.
  void String(absl::string_view name, absl::string_view value);
  // An optional field: its value, or null when unset.
  void OptionalUint(absl::string_view name,
                    const std::optional<uint64_t>& value);
  void OptionalString(absl::string_view name,
                      const std::optional<absl::string_view>& value);
  // A repeated string field.
  template <typename Strings>
  void StringArray(absl::string_view name, const Strings& values) {
    Field(name, "");
    BeginArray();
    for (const auto& v : values) ArrayString(v);
    EndArray();
  }
  // A repeated field with no element: `[]`.
  void EmptyArray(absl::string_view name);
  // A message field: the nested object's writer; End() it before writing
  // this object's next field.
  JsonObjectWriter Object(absl::string_view name);
  // Closes the object.
  void End();

 private:
  JsonObjectWriter(int depth, std::string* out, bool open);
  // The field's name (as Key) and `value`, already JSON text.
  void Field(absl::string_view name, absl::string_view value);
  void Key(absl::string_view name);
  void BeginArray();
  void ArrayString(absl::string_view value);
  void EndArray();

  int depth_;
  std::string* out_;
  bool first_ = true;
  int array_size_ = 0;
};

// `message` as a JSON document, with a trailing newline.
std::string PrintJson(const google::protobuf::Message& message,
                      const JsonPrintOptions& options = {});

// Parses JSON written by PrintJson (or by hand, with the proto's field
// names) into `message`. Unknown fields are an error, so a test that parses
// an output back fails when output and schema drift apart.
absl::Status ParseJson(absl::string_view json,
                       google::protobuf::Message* message);

}  // namespace ccreplay

#endif  // CCREPLAY_PROTO_JSON_PRINTER_H_
