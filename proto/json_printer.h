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
