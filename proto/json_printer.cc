#include "proto/json_printer.h"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <tuple>
#include <type_traits>
#include <utility>
#include <vector>

#include "absl/container/node_hash_map.h"
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
  // Characters that need no escape are copied a run at a time.
  size_t run = 0;
  for (size_t i = 0; i < value.size(); ++i) {
    const unsigned char c = value[i];
    if (c >= 0x20 && c != '"' && c != '\\') continue;
    out->append(value.data() + run, i - run);
    run = i + 1;
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
        absl::StrAppendFormat(out, "\\u%04x", c);
    }
  }
  out->append(value.data() + run, value.size() - run);
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

// Indentation is appended from a constant run of spaces, not filled:
// faster.
constexpr absl::string_view kSpaces =
    "                                                                ";

void NewLine(const JsonPrintOptions& options, int depth, std::string* out) {
  if (options.indent <= 0) return;
  out->push_back('\n');
  for (size_t spaces = static_cast<size_t>(options.indent * depth);
       spaces > 0;) {
    const size_t n = std::min(spaces, kSpaces.size());
    out->append(kSpaces.data(), n);
    spaces -= n;
  }
}

class Printer {
 public:
  Printer(const JsonPrintOptions& options, std::string* out)
      : options_(options), out_(out) {}

  void Object(const Message& message, int depth) {
    const Reflection* reflection = message.GetReflection();
    const auto* descriptor = message.GetDescriptor();
    const std::vector<std::string>& prefixes = FieldPrefixes(descriptor, depth);
    *out_ += '{';
    for (int i = 0; i < descriptor->field_count(); ++i) {
      const FieldDescriptor* field = descriptor->field(i);
      *out_ += prefixes[i];
      if (field->is_map()) {
        Map(message, field, depth + 1);
      } else if (field->is_repeated()) {
        Array(message, field, depth + 1);
      } else if (field->has_presence() &&
                 !reflection->HasField(message, field)) {
        *out_ += "null";
      } else {
        Value(message, *reflection, field, -1, depth + 1);
      }
    }
    if (descriptor->field_count() > 0) NewLine(options_, depth, out_);
    *out_ += '}';
  }

 private:
  // What comes before each field's value in an object at `depth`: the
  // comma, the new line and indent, the quoted name and the colon. Made
  // once per message type, depth and indent (a listing prints the same
  // types a million times); per thread, as printers may run on several.
  const std::vector<std::string>& FieldPrefixes(
      const google::protobuf::Descriptor* descriptor, int depth) {
    // A node map: an object's prefixes stay put while the objects nested
    // in it add theirs.
    thread_local absl::node_hash_map<
        std::tuple<const google::protobuf::Descriptor*, int, int>,
        std::vector<std::string>>
        cache;
    auto [it, made] =
        cache.try_emplace(std::make_tuple(descriptor, depth, options_.indent));
    if (!made) return it->second;
    for (int i = 0; i < descriptor->field_count(); ++i) {
      std::string prefix = i > 0 ? "," : "";
      NewLine(options_, depth + 1, &prefix);
      AppendString(descriptor->field(i)->name(), &prefix);
      prefix += options_.indent > 0 ? ": " : ":";
      it->second.push_back(std::move(prefix));
    }
    return it->second;
  }

  void Array(const Message& message, const FieldDescriptor* field, int depth) {
    const Reflection& reflection = *message.GetReflection();
    const int size = reflection.FieldSize(message, field);
    *out_ += '[';
    for (int i = 0; i < size; ++i) {
      if (i > 0) *out_ += ',';
      NewLine(options_, depth + 1, out_);
      Value(message, reflection, field, i, depth + 1);
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
          .Value(entry, *entry.GetReflection(),
                 entry.GetDescriptor()->map_key(), -1, 0);
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
      Value(*entry, *entry->GetReflection(),
            entry->GetDescriptor()->map_value(), -1, depth + 1);
    }
    if (size > 0) NewLine(options_, depth, out_);
    *out_ += '}';
  }

  // One value of `field`: the singular value when `index` < 0, else the
  // repeated field's element `index`.
  // `r`: the message's reflection (looked up once per message).
  void Value(const Message& message, const Reflection& reflection,
             const FieldDescriptor* field, int index, int depth) {
    const Reflection* r = &reflection;
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

constexpr JsonPrintOptions kWriterOptions{};  // Indent 2, as WriteFlowsJson.

}  // namespace

JsonObjectWriter::JsonObjectWriter(int depth, std::string* out)
    : JsonObjectWriter(depth, out, true) {}

JsonObjectWriter::JsonObjectWriter(int depth, std::string* out, bool open)
    : depth_(depth), out_(out) {
  if (open) out_->push_back('{');
}

// As Printer::FieldPrefixes makes them, with `value` (already JSON) after
// it, in one append (this runs for every field of a million rows): a name
// is a proto field's, letters, digits and '_', with nothing to escape.
void JsonObjectWriter::Field(absl::string_view name, absl::string_view value) {
  const size_t spaces = static_cast<size_t>(kWriterOptions.indent) *
                        static_cast<size_t>(depth_ + 1);
  char buffer[256];
  const size_t size = 2 + spaces + name.size() + 4 + value.size();
  if (size > sizeof(buffer) || spaces > kSpaces.size()) {
    Key(name);
    out_->append(value.data(), value.size());
    return;
  }
  char* p = buffer;
  if (!first_) *p++ = ',';
  first_ = false;
  *p++ = '\n';
  std::memcpy(p, kSpaces.data(), spaces);
  p += spaces;
  *p++ = '"';
  std::memcpy(p, name.data(), name.size());
  p += name.size();
  std::memcpy(p, "\": ", 3);
  p += 3;
  std::memcpy(p, value.data(), value.size());
  p += value.size();
  out_->append(buffer, static_cast<size_t>(p - buffer));
}

void JsonObjectWriter::Key(absl::string_view name) {
  if (!first_) out_->push_back(',');
  first_ = false;
  NewLine(kWriterOptions, depth_ + 1, out_);
  AppendString(name, out_);
  out_->append(": ");
}

void JsonObjectWriter::Uint(absl::string_view name, uint64_t value) {
  char digits[24];
  const std::to_chars_result r =
      std::to_chars(digits, digits + sizeof(digits), value);
  Field(name, absl::string_view(digits, static_cast<size_t>(r.ptr - digits)));
}

void JsonObjectWriter::Int(absl::string_view name, int64_t value) {
  char digits[24];
  const std::to_chars_result r =
      std::to_chars(digits, digits + sizeof(digits), value);
  Field(name, absl::string_view(digits, static_cast<size_t>(r.ptr - digits)));
}

void JsonObjectWriter::Double(absl::string_view name, double value) {
  Field(name, "");
  AppendFloating(value, out_);
}

void JsonObjectWriter::Bool(absl::string_view name, bool value) {
  Field(name, value ? "true" : "false");
}

void JsonObjectWriter::String(absl::string_view name, absl::string_view value) {
  Field(name, "");
  AppendString(value, out_);
}

void JsonObjectWriter::OptionalUint(absl::string_view name,
                                    const std::optional<uint64_t>& value) {
  if (value.has_value()) return Uint(name, *value);
  Field(name, "null");
}

void JsonObjectWriter::OptionalString(
    absl::string_view name, const std::optional<absl::string_view>& value) {
  if (value.has_value()) return String(name, *value);
  Field(name, "null");
}

// As Printer::Array.
void JsonObjectWriter::BeginArray() {
  out_->push_back('[');
  array_size_ = 0;
}

void JsonObjectWriter::ArrayString(absl::string_view value) {
  if (array_size_++ > 0) out_->push_back(',');
  NewLine(kWriterOptions, depth_ + 2, out_);
  AppendString(value, out_);
}

void JsonObjectWriter::EndArray() {
  if (array_size_ > 0) NewLine(kWriterOptions, depth_ + 1, out_);
  out_->push_back(']');
}

void JsonObjectWriter::EmptyArray(absl::string_view name) { Field(name, "[]"); }

JsonObjectWriter JsonObjectWriter::Object(absl::string_view name) {
  Field(name, "{");
  return JsonObjectWriter(depth_ + 1, out_, false);
}

// As Printer::Object's end.
void JsonObjectWriter::End() {
  if (!first_) NewLine(kWriterOptions, depth_, out_);
  out_->push_back('}');
}

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
