#include "proto/json_printer.h"

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <type_traits>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "google/protobuf/descriptor.h"
#include "google/protobuf/util/json_util.h"

namespace ccreplay {
namespace {

using google::protobuf::FieldDescriptor;
using google::protobuf::Message;
using google::protobuf::Reflection;

void AppendString(absl::string_view value, std::string* out) {
  out->push_back('"');
  for (unsigned char c : value) {
    switch (c) {
      case '"':
        *out += "\\\"";
        break;
      case '\\':
        *out += "\\\\";
        break;
      case '\n':
        *out += "\\n";
        break;
      case '\r':
        *out += "\\r";
        break;
      case '\t':
        *out += "\\t";
        break;
      default:
        if (c < 0x20) {
          absl::StrAppendFormat(out, "\\u%04x", c);
        } else {
          out->push_back(static_cast<char>(c));
        }
    }
  }
  out->push_back('"');
}

// The shorter of 15 (float: 6) or 17 (float: 9) significant digits that
// reads back as the same value; null when not finite.
template <typename T>
void AppendFloating(T value, std::string* out) {
  if (!std::isfinite(value)) {
    *out += "null";
    return;
  }
  constexpr bool kFloat = std::is_same_v<T, float>;
  // A whole number under 10^precision prints as its digits in %g (C11
  // 7.21.6.1: style f when the exponent is below the precision) and reads
  // back exactly: written without formatting, the same bytes, much faster
  // (most counters of a row are whole). -0 keeps the general path ("-0").
  constexpr T kWholeLimit = kFloat ? 1e6f : 1e15;
  if (std::fabs(value) < kWholeLimit && value == std::trunc(value) &&
      !(value == 0 && std::signbit(value))) {
    absl::StrAppend(out, static_cast<int64_t>(value));
    return;
  }
  std::string s = absl::StrFormat("%.*g", kFloat ? 6 : 15, value);
  const bool exact = kFloat ? std::strtof(s.c_str(), nullptr) == value
                            : std::strtod(s.c_str(), nullptr) == value;
  if (!exact) s = absl::StrFormat("%.*g", kFloat ? 9 : 17, value);
  *out += s;
}

void NewLine(const JsonPrintOptions& options, int depth, std::string* out) {
  if (options.indent <= 0) return;
  out->push_back('\n');
  out->append(static_cast<size_t>(options.indent * depth), ' ');
}

class Printer {
 public:
  Printer(const JsonPrintOptions& options, std::string* out)
      : options_(options), out_(out) {}

  void Object(const Message& message, int depth) {
    const Reflection* reflection = message.GetReflection();
    const auto* descriptor = message.GetDescriptor();
    *out_ += '{';
    for (int i = 0; i < descriptor->field_count(); ++i) {
      const FieldDescriptor* field = descriptor->field(i);
      if (i > 0) *out_ += ',';
      NewLine(options_, depth + 1, out_);
      AppendString(field->name(), out_);
      *out_ += options_.indent > 0 ? ": " : ":";
      if (field->is_map()) {
        Map(message, field, depth + 1);
      } else if (field->is_repeated()) {
        Array(message, field, depth + 1);
      } else if (field->has_presence() &&
                 !reflection->HasField(message, field)) {
        *out_ += "null";
      } else {
        Value(message, field, -1, depth + 1);
      }
    }
    if (descriptor->field_count() > 0) NewLine(options_, depth, out_);
    *out_ += '}';
  }

 private:
  void Array(const Message& message, const FieldDescriptor* field, int depth) {
    const int size = message.GetReflection()->FieldSize(message, field);
    *out_ += '[';
    for (int i = 0; i < size; ++i) {
      if (i > 0) *out_ += ',';
      NewLine(options_, depth + 1, out_);
      Value(message, field, i, depth + 1);
    }
    if (size > 0) NewLine(options_, depth, out_);
    *out_ += ']';
  }

  // A map field is a repeated message of {key, value}; it prints as an
  // object keyed by the key's text, sorted by it (protobuf's map order is
  // unspecified, and outputs must not change from run to run).
  void Map(const Message& message, const FieldDescriptor* field, int depth) {
    const Reflection* reflection = message.GetReflection();
    const int size = reflection->FieldSize(message, field);
    std::vector<std::pair<std::string, const Message*>> entries;
    for (int i = 0; i < size; ++i) {
      const Message& entry = reflection->GetRepeatedMessage(message, field, i);
      std::string key_text;
      Printer(JsonPrintOptions{0}, &key_text)
          .Value(entry, entry.GetDescriptor()->map_key(), -1, 0);
      entries.emplace_back(std::move(key_text), &entry);
    }
    std::sort(entries.begin(), entries.end());
    *out_ += '{';
    for (size_t i = 0; i < entries.size(); ++i) {
      const auto& [key_text, entry] = entries[i];
      if (i > 0) *out_ += ',';
      NewLine(options_, depth + 1, out_);
      if (entry->GetDescriptor()->map_key()->cpp_type() ==
          FieldDescriptor::CPPTYPE_STRING) {
        *out_ += key_text;
      } else {
        AppendString(key_text, out_);
      }
      *out_ += options_.indent > 0 ? ": " : ":";
      Value(*entry, entry->GetDescriptor()->map_value(), -1, depth + 1);
    }
    if (size > 0) NewLine(options_, depth, out_);
    *out_ += '}';
  }

  // One value of `field`: the singular value when `index` < 0, else the
  // repeated field's element `index`.
  void Value(const Message& message, const FieldDescriptor* field, int index,
             int depth) {
    const Reflection* r = message.GetReflection();
    const bool rep = index >= 0;
    switch (field->cpp_type()) {
      case FieldDescriptor::CPPTYPE_INT32:
        absl::StrAppend(out_, rep ? r->GetRepeatedInt32(message, field, index)
                                  : r->GetInt32(message, field));
        break;
      case FieldDescriptor::CPPTYPE_INT64:
        absl::StrAppend(out_, rep ? r->GetRepeatedInt64(message, field, index)
                                  : r->GetInt64(message, field));
        break;
      case FieldDescriptor::CPPTYPE_UINT32:
        absl::StrAppend(out_, rep ? r->GetRepeatedUInt32(message, field, index)
                                  : r->GetUInt32(message, field));
        break;
      case FieldDescriptor::CPPTYPE_UINT64:
        absl::StrAppend(out_, rep ? r->GetRepeatedUInt64(message, field, index)
                                  : r->GetUInt64(message, field));
        break;
      case FieldDescriptor::CPPTYPE_DOUBLE:
        AppendFloating(rep ? r->GetRepeatedDouble(message, field, index)
                           : r->GetDouble(message, field),
                       out_);
        break;
      case FieldDescriptor::CPPTYPE_FLOAT:
        AppendFloating(rep ? r->GetRepeatedFloat(message, field, index)
                           : r->GetFloat(message, field),
                       out_);
        break;
      case FieldDescriptor::CPPTYPE_BOOL:
        *out_ += (rep ? r->GetRepeatedBool(message, field, index)
                      : r->GetBool(message, field))
                     ? "true"
                     : "false";
        break;
      case FieldDescriptor::CPPTYPE_ENUM: {
        const auto* value = rep ? r->GetRepeatedEnum(message, field, index)
                                : r->GetEnum(message, field);
        AppendString(value->name(), out_);
        break;
      }
      case FieldDescriptor::CPPTYPE_STRING: {
        std::string scratch;
        const std::string& value =
            rep ? r->GetRepeatedStringReference(message, field, index, &scratch)
                : r->GetStringReference(message, field, &scratch);
        AppendString(value, out_);
        break;
      }
      case FieldDescriptor::CPPTYPE_MESSAGE:
        Object(rep ? r->GetRepeatedMessage(message, field, index)
                   : r->GetMessage(message, field),
               depth);
        break;
    }
  }

  const JsonPrintOptions& options_;
  std::string* out_;
};

}  // namespace

void AppendJson(const Message& message, const JsonPrintOptions& options,
                int depth, std::string* out) {
  Printer(options, out).Object(message, depth);
}

std::string PrintJson(const Message& message, const JsonPrintOptions& options) {
  std::string out;
  AppendJson(message, options, 0, &out);
  out += '\n';
  return out;
}

absl::Status ParseJson(absl::string_view json, Message* message) {
  google::protobuf::util::JsonParseOptions options;
  options.ignore_unknown_fields = false;
  const auto status = google::protobuf::util::JsonStringToMessage(
      std::string(json), message, options);
  if (status.ok()) return absl::OkStatus();
  return absl::InvalidArgumentError(
      absl::StrCat("JSON does not match ", message->GetTypeName(), ": ",
                   std::string(status.message())));
}

}  // namespace ccreplay
