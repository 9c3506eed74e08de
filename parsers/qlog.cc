#include "parsers/qlog.h"

#include <algorithm>
#include <cmath>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "absl/strings/ascii.h"
#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"
#include "absl/time/time.h"
#include "parsers/host_state_builder.h"
#include "parsers/input_file.h"
#include "parsers/json_stream.h"
#include "simdjson.h"

namespace ccreplay {
namespace {

namespace od = simdjson::ondemand;

// The congestion-relevant events, whatever a dialect calls them
// (input-formats.md §2.3, §2.4).
enum class EventKind {
  kOther,
  kMetrics,
  kPacketSent,
  kPacketReceived,
  kPacketLost,
  kCcState
};

EventKind KindOf(absl::string_view name) {
  size_t colon = name.rfind(':');
  absl::string_view event =
      colon == absl::string_view::npos ? name : name.substr(colon + 1);
  if (event == "metrics_updated" || event == "metric_update" ||
      event == "recovery_metrics_updated" ||
      event == "congestion_metric_update") {
    return EventKind::kMetrics;
  }
  if (event == "packet_sent") return EventKind::kPacketSent;
  if (event == "packet_received") return EventKind::kPacketReceived;
  if (event == "packet_lost") return EventKind::kPacketLost;
  if (event == "congestion_state_updated") return EventKind::kCcState;
  return EventKind::kOther;
}

PacketNumberSpace SpaceOf(absl::string_view packet_type) {
  std::string type = absl::AsciiStrToLower(packet_type);
  if (type == "initial") return PacketNumberSpace::kInitial;
  if (type == "handshake") return PacketNumberSpace::kHandshake;
  return PacketNumberSpace::kApplication;
}

// RFC 9002 §2: ACK, PADDING and CONNECTION_CLOSE frames are not
// ack-eliciting.
bool IsAckElicitingFrame(absl::string_view frame_type) {
  return frame_type != "ack" && frame_type != "padding" &&
         frame_type != "connection_close";
}

// Versions whose layout this reader knows. draft-00…03 may use
// event_fields arrays; 0.x uses objects with "name". "draft-02-wip" is what
// qvis and pcap2qlog wrote while draft-02 was being written: draft-02's
// layout.
bool IsSupportedVersion(absl::string_view version) {
  return version == "draft-00" || version == "draft-01" ||
         version == "draft-02-wip" || version == "draft-02" ||
         version == "draft-03" || version == "0.1" || version == "0.2" ||
         version == "0.3" || version == "0.4";
}

// Same helpers for the DOM API, used for the (small) trace headers.
std::optional<double> DomNumber(simdjson::dom::element element) {
  double number;
  if (element.get_double().get(number) == simdjson::SUCCESS) return number;
  std::string_view text;
  if (element.get_string().get(text) == simdjson::SUCCESS &&
      absl::SimpleAtod(AsAbsl(text), &number) && std::isfinite(number)) {
    return number;
  }
  return std::nullopt;
}

std::string DomString(simdjson::dom::element element, const char* key) {
  std::string_view text;
  if (element[key].get_string().get(text) != simdjson::SUCCESS) return "";
  return std::string(text);
}

// How a trace's times and durations are written.
struct TraceClock {
  // µs per time unit: 1000 for ms (the default), 1 for "us".
  double unit_us = 1000;
  double time_offset = 0;
  bool delta = false;
  bool absolute = false;
  double reference_time = 0;
  double previous_time = 0;
  // draft-00/01 event_fields, lower case.
  std::vector<std::string> event_fields;
};

// One packet_sent / packet_received / packet_lost, gathered field by field.
struct PacketFields {
  std::string type;
  std::optional<uint64_t> number;
  std::optional<uint64_t> size_bytes;
  std::optional<uint64_t> raw_length_bytes;
  bool has_frames = false;
  bool ack_eliciting = false;
  std::string trigger;
  std::vector<QuicAckReceived> acks;
};

class QlogReader {
 public:
  QlogReader(const std::string& path, InputFile* file)
      : stream_(file), warnings_(&log_.warnings) {
    log_.path = path;
  }

  absl::StatusOr<HostStateLog> Read() {
    int first = stream_.PeekToken();
    if (first != '{') {
      if (!stream_.status().ok()) return stream_.status();
      return stream_.Error(
          absl::StatusCode::kInvalidArgument,
          first < 0 ? "not a qlog: the file is empty"
                    : "not a qlog: the data does not start with a JSON object");
    }
    if (absl::Status s = ReadTopObject(); !s.ok()) return s;
    if (absl::Status s = CheckDialect(); !s.ok()) return s;
    if (!contained_ && !truncated_) {
      if (absl::Status s = ReadSequentialEvents(); !s.ok()) return s;
    }
    FinishTraces();
    warnings_.Finish();
    return std::move(log_);
  }

 private:
  // The header's dialect, or why it is not qlog.
  absl::Status CheckDialect() {
    auto version = header_.find("qlog_version");
    auto schema = header_.find("file_schema");
    if (schema != header_.end()) {
      if (!absl::StartsWith(schema->second,
                            "urn:ietf:params:qlog:file:contained") &&
          !absl::StartsWith(schema->second,
                            "urn:ietf:params:qlog:file:sequential")) {
        return absl::UnimplementedError(
            absl::StrCat(log_.path, ": qlog file_schema \"", schema->second,
                         "\" is not supported"));
      }
      return absl::OkStatus();
    }
    if (version != header_.end()) {
      if (!IsSupportedVersion(version->second)) {
        return absl::UnimplementedError(
            absl::StrCat(log_.path, ": qlog_version \"", version->second,
                         "\" is not supported (known: draft-00 "
                         "to draft-03, 0.1 to 0.4, and the file_schema form)"));
      }
      return absl::OkStatus();
    }
    return absl::InvalidArgumentError(
        absl::StrCat(log_.path,
                     ": JSON but not qlog: the top-level object has neither "
                     "qlog_version nor "
                     "file_schema (keys: ",
                     absl::StrJoin(top_keys_, ", "), ")"));
  }

  absl::Status ReadTopObject() {
    if (absl::Status s = stream_.Expect('{', "'{'"); !s.ok()) return s;
    std::string key, value;
    while (true) {
      int next = stream_.PeekToken();
      if (next == '}') {
        stream_.Consume();
        return absl::OkStatus();
      }
      if (absl::Status s = stream_.ReadRawString(&key); !s.ok()) return s;
      if (top_keys_.size() < 20) top_keys_.push_back(key);
      if (absl::Status s = stream_.Expect(':', "':'"); !s.ok()) return s;
      if (key == "traces") {
        if (absl::Status s = CheckEarlyDialect(); !s.ok()) return s;
        contained_ = true;
        if (absl::Status s = ReadTraces(); !s.ok()) return s;
        if (truncated_) return absl::OkStatus();
      } else {
        if (absl::Status s = stream_.CaptureValue(&value); !s.ok()) return s;
        RememberHeader(key, value);
      }
      next = stream_.PeekToken();
      if (next == ',') {
        stream_.Consume();
      } else if (next != '}') {
        return stream_.Error(absl::StatusCode::kInvalidArgument,
                             "expected ',' or '}' in the top-level object");
      }
    }
  }

  // A dialect that is known to be unsupported is refused before its events
  // are read.
  absl::Status CheckEarlyDialect() {
    if (header_.count("qlog_version") || header_.count("file_schema"))
      return CheckDialect();
    return absl::OkStatus();
  }

  void RememberHeader(const std::string& key, const std::string& json) {
    if (key == "trace") {
      // The sequential header's single trace.
      HostTrace& trace = NewTrace();
      ApplyTraceObject(json, trace, clocks_.back());
      return;
    }
    simdjson::dom::element element;
    if (dom_.parse(json).get(element) != simdjson::SUCCESS) return;
    std::string_view text;
    if (element.get_string().get(text) == simdjson::SUCCESS)
      header_[key] = std::string(text);
  }

  HostTrace& NewTrace() {
    log_.traces.emplace_back();
    log_.traces.back().source = HostStateSource::kQlog;
    log_.traces.back().quic = true;
    clocks_.emplace_back();
    return log_.traces.back();
  }

  absl::Status ReadTraces() {
    return ReadArray("the traces array", /*cut_at_end=*/false,
                     [this] { return ReadTrace(); });
  }

  absl::Status ReadTrace() {
    if (absl::Status s = stream_.Expect('{', "a trace object"); !s.ok())
      return s;
    NewTrace();
    size_t index = log_.traces.size() - 1;
    std::string key, value;
    while (true) {
      int next = stream_.PeekToken();
      if (next == '}') {
        stream_.Consume();
        return absl::OkStatus();
      }
      if (absl::Status s = stream_.ReadRawString(&key); !s.ok()) return s;
      if (absl::Status s = stream_.Expect(':', "':'"); !s.ok()) return s;
      if (key == "events") {
        if (absl::Status s = ReadEventsArray(index); !s.ok()) return s;
        if (truncated_) return absl::OkStatus();
      } else {
        if (absl::Status s = stream_.CaptureValue(&value); !s.ok()) return s;
        ApplyTraceMember(key, value, log_.traces[index], clocks_[index]);
      }
      next = stream_.PeekToken();
      if (next == ',') {
        stream_.Consume();
      } else if (next != '}') {
        return stream_.Error(absl::StatusCode::kInvalidArgument,
                             "expected ',' or '}' in a trace object");
      }
    }
  }

  // A JSON array, `name` its description ("the events array"): '[', then
  // elements that `read_element` reads (setting truncated_ to stop early),
  // separated by ',' up to ']'. With `cut_at_end`, the data ending where ','
  // or ']' was expected is a cut (a warning and truncated_), not an error.
  template <typename ReadElement>
  absl::Status ReadArray(const char* name, bool cut_at_end,
                         ReadElement read_element) {
    if (absl::Status s = stream_.Expect('[', name); !s.ok()) return s;
    if (stream_.PeekToken() == ']') {
      stream_.Consume();
      return absl::OkStatus();
    }
    while (true) {
      if (absl::Status s = read_element(); !s.ok()) return s;
      if (truncated_) return absl::OkStatus();
      int next = stream_.PeekToken();
      if (next < 0 && cut_at_end) {
        if (!stream_.status().ok()) return stream_.status();
        warnings_.Add(absl::StrCat(log_.path, ": byte offset ",
                                   stream_.offset(), ": the file ends inside ",
                                   name, " (cut short?)"));
        truncated_ = true;
        return absl::OkStatus();
      }
      stream_.Consume();
      if (next == ']') return absl::OkStatus();
      if (next != ',') {
        return stream_.Error(absl::StatusCode::kInvalidArgument,
                             absl::StrCat("expected ',' or ']' in ", name));
      }
    }
  }

  absl::Status ReadEventsArray(size_t trace_index) {
    return ReadArray("the events array", /*cut_at_end=*/true,
                     [&] { return ReadEvent(trace_index); });
  }

  // One element of the events array; a value cut short ends the reading
  // with a warning (truncated_).
  absl::Status ReadEvent(size_t trace_index) {
    uint64_t offset = stream_.offset();
    absl::Status s = stream_.CaptureValue(&event_);
    if (s.code() == absl::StatusCode::kDataLoss) {
      warnings_.Add(std::string(s.message()));
      truncated_ = true;
      return absl::OkStatus();
    }
    if (!s.ok()) return s;
    HandleEvent(trace_index, offset);
    return absl::OkStatus();
  }

  // JSON-SEQ / NDJSON: one event per record after the header.
  absl::Status ReadSequentialEvents() {
    if (log_.traces.empty()) NewTrace();
    while (stream_.PeekToken() >= 0) {
      uint64_t offset = stream_.offset();
      absl::Status s = stream_.CaptureValue(&event_);
      if (s.code() == absl::StatusCode::kDataLoss) {
        // RFC 7464 §2.4: a truncated record is dropped, the next one read.
        warnings_.Add(std::string(s.message()));
        continue;
      }
      if (!s.ok()) return s;
      HandleEvent(0, offset);
    }
    return stream_.status();
  }

  void ApplyTraceObject(const std::string& json, HostTrace& trace,
                        TraceClock& clock) {
    simdjson::dom::object object;
    if (dom_.parse(json).get(object) != simdjson::SUCCESS) {
      warnings_.Add(
          absl::StrCat(log_.path, ": the header's trace is not a JSON object"));
      return;
    }
    // Re-serialise each member so that ApplyTraceMember has one entry point.
    std::vector<std::pair<std::string, std::string>> members;
    for (auto [key, value] : object) {
      members.emplace_back(std::string(key), simdjson::minify(value));
    }
    for (const auto& [key, value] : members)
      ApplyTraceMember(key, value, trace, clock);
  }

  void ApplyTraceMember(const std::string& key, const std::string& json,
                        HostTrace& trace, TraceClock& clock) {
    simdjson::dom::element element;
    if (dom_.parse(json).get(element) != simdjson::SUCCESS) {
      warnings_.Add(absl::StrCat(log_.path, ": trace member \"", key,
                                 "\" is not valid JSON"));
      return;
    }
    if (key == "vantage_point") {
      std::string type = absl::AsciiStrToLower(DomString(element, "type"));
      if (type == "server") trace.vantage = TraceVantage::kServer;
      if (type == "client") trace.vantage = TraceVantage::kClient;
      if (trace.name.empty()) trace.name = DomString(element, "name");
    } else if (key == "title") {
      std::string_view title;
      if (element.get_string().get(title) == simdjson::SUCCESS)
        trace.name = std::string(title);
    } else if (key == "configuration") {
      if (absl::AsciiStrToLower(DomString(element, "time_units")) == "us")
        clock.unit_us = 1;
      simdjson::dom::element offset;
      if (element["time_offset"].get(offset) == simdjson::SUCCESS) {
        clock.time_offset = DomNumber(offset).value_or(0);
      }
    } else if (key == "event_fields") {
      simdjson::dom::array fields;
      if (element.get_array().get(fields) != simdjson::SUCCESS) return;
      clock.event_fields.clear();
      for (simdjson::dom::element field : fields) {
        std::string_view name;
        if (field.get_string().get(name) != simdjson::SUCCESS) name = "";
        clock.event_fields.push_back(absl::AsciiStrToLower(AsAbsl(name)));
      }
    } else if (key == "common_fields") {
      ApplyCommonFields(element, trace, clock);
    }
  }

  void ApplyCommonFields(simdjson::dom::element fields, HostTrace& trace,
                         TraceClock& clock) {
    std::string format =
        absl::AsciiStrToLower(DomString(fields, "time_format"));
    clock.delta = format == "delta" || format == "relative_to_previous_event";
    clock.absolute = format == "absolute";
    if (trace.name.empty()) trace.name = DomString(fields, "group_id");
    if (trace.name.empty()) trace.name = DomString(fields, "ODCID");
    // Absolute times without a reference are Unix epoch times.
    if (clock.absolute && !trace.clock_epoch_us.has_value())
      trace.clock_epoch_us = 0;
    simdjson::dom::element reference;
    if (fields["reference_time"].get(reference) != simdjson::SUCCESS) return;
    if (std::optional<double> number = DomNumber(reference)) {
      // A number (or numeric string) in the trace's time unit; 0.3 and the
      // drafts use ms since the Unix epoch.
      clock.reference_time = *number;
      if (*number > 0) {
        trace.clock_epoch_us =
            static_cast<int64_t>(std::llround(*number * clock.unit_us));
      }
      return;
    }
    // Current draft: {clock_type, epoch: RFC 3339 | "unknown", ...}.
    std::string epoch = DomString(reference, "epoch");
    absl::Time time;
    std::string error;
    if (!epoch.empty() && epoch != "unknown" &&
        absl::ParseTime(absl::RFC3339_full, epoch, &time, &error)) {
      trace.clock_epoch_us = absl::ToUnixMicros(time);
    }
  }

  // Converts an event's time to µs on the trace's clock; nullopt, with a
  // warning, beyond kMaxQuicEventTimeUs either way.
  std::optional<int64_t> EventTimeUs(TraceClock& clock, double time,
                                     uint64_t offset) {
    if (clock.delta) {
      time += clock.previous_time;
      clock.previous_time = time;
    }
    if (clock.absolute && clock.reference_time > 0)
      time -= clock.reference_time;
    const double us = (time + clock.time_offset) * clock.unit_us;
    if (!(std::fabs(us) <= kMaxQuicEventTimeUs)) {
      Warn(offset, absl::StrCat("event time ", time,
                                " is out of range, its data skipped"));
      return std::nullopt;
    }
    return static_cast<int64_t>(std::llround(us));
  }

  void Warn(uint64_t offset, absl::string_view reason) {
    warnings_.Add(
        absl::StrCat(log_.path, ": byte offset ", offset, ": ", reason));
  }

  // On-Demand must not be used again once it met a structural error; every
  // access below goes through Good() and stops when the event is broken.
  bool Good(simdjson::error_code error) {
    if (error == simdjson::SUCCESS) return true;
    if (error != simdjson::NO_SUCH_FIELD && error != simdjson::INCORRECT_TYPE) {
      broken_ = true;
    }
    return false;
  }

  // A number, or a string holding one (aioquic writes "packet_number": "12").
  std::optional<double> NumberOf(od::value value) {
    od::json_type type;
    if (broken_ || !Good(value.type().get(type))) return std::nullopt;
    if (type == od::json_type::number) {
      double number;
      if (broken_ || !Good(value.get_double().get(number))) return std::nullopt;
      return number;
    }
    if (type == od::json_type::string) {
      std::string_view text;
      double number;
      if (broken_ || !Good(value.get_string().get(text))) return std::nullopt;
      if (!absl::SimpleAtod(AsAbsl(text), &number) || !std::isfinite(number))
        return std::nullopt;
      return number;
    }
    return std::nullopt;
  }

  // Packet numbers and counts: exact up to 2^64 − 1.
  std::optional<uint64_t> UnsignedOf(od::value value) {
    od::json_type type;
    if (broken_ || !Good(value.type().get(type))) return std::nullopt;
    uint64_t number;
    if (type == od::json_type::number) {
      if (!broken_ && Good(value.get_uint64().get(number))) return number;
      return std::nullopt;
    }
    if (type == od::json_type::string) {
      std::string_view text;
      if (broken_ || !Good(value.get_string().get(text))) return std::nullopt;
      if (absl::SimpleAtoi(AsAbsl(text), &number)) return number;
    }
    return std::nullopt;
  }

  std::optional<std::string> StringOf(od::value value) {
    std::string_view text;
    if (broken_ || !Good(value.get_string().get(text))) return std::nullopt;
    return std::string(text);
  }

  void HandleEvent(size_t trace_index, uint64_t offset) {
    HostTrace& trace = log_.traces[trace_index];
    TraceClock& clock = clocks_[trace_index];
    broken_ = false;
    size_t size = event_.size();
    event_.reserve(size + simdjson::SIMDJSON_PADDING);
    od::document doc;
    if (broken_ ||
        !Good(ondemand_.iterate(event_.data(), size, event_.capacity())
                  .get(doc))) {
      Warn(offset, "event is not valid JSON, skipped");
      return;
    }
    od::json_type type;
    if (broken_ || !Good(doc.type().get(type))) {
      Warn(offset, "event is not valid JSON, skipped");
      return;
    }
    bool handled = false;
    if (type == od::json_type::array) {
      od::array array;
      if (!broken_ && Good(doc.get_array().get(array))) {
        handled = HandleArrayEvent(array, trace, clock, offset);
      }
    } else if (type == od::json_type::object) {
      od::object object;
      if (!broken_ && Good(doc.get_object().get(object))) {
        handled = HandleObjectEvent(object, trace, clock, offset);
      }
    }
    if (broken_) {
      Warn(offset, "event is not valid JSON, read up to the error");
      return;
    }
    if (!handled)
      Warn(offset,
           "not a qlog event (expected an object or an event_fields array)");
  }

  bool HandleObjectEvent(od::object& object, HostTrace& trace,
                         TraceClock& clock, uint64_t offset) {
    double time = 0;
    od::value value;
    if (!broken_ && Good(object.find_field_unordered("time").get(value))) {
      time = NumberOf(value).value_or(0);
    }
    std::string name;
    if (!broken_ && Good(object.find_field_unordered("name").get(value))) {
      name = StringOf(value).value_or("");
    } else {
      std::string category, event;
      if (!broken_ &&
          Good(object.find_field_unordered("category").get(value))) {
        category = StringOf(value).value_or("");
      }
      if ((!broken_ && Good(object.find_field_unordered("event").get(value))) ||
          (!broken_ &&
           Good(object.find_field_unordered("event_type").get(value)))) {
        event = StringOf(value).value_or("");
      }
      if (!event.empty()) name = absl::StrCat(category, ":", event);
    }
    if (name.empty()) return false;
    const std::optional<int64_t> time_us = EventTimeUs(clock, time, offset);
    std::string lower = CountEvent(trace, name);
    od::object data;
    if (!time_us.has_value() || broken_ ||
        !Good(object.find_field_unordered("data").get(value)) ||
        !Good(value.get_object().get(data))) {
      return true;  // An event without data (or a non-object data) is counted
                    // only.
    }
    HandleData(lower, data, *time_us, trace, clock, offset);
    return true;
  }

  // draft-00/01: [relative_time, category, event, (trigger,) data] as named
  // by the trace's event_fields.
  bool HandleArrayEvent(od::array& array, HostTrace& trace, TraceClock& clock,
                        uint64_t offset) {
    static const std::vector<std::string> kDefaultFields = {
        "relative_time", "category", "event", "data"};
    const std::vector<std::string>& fields =
        clock.event_fields.empty() ? kDefaultFields : clock.event_fields;
    double time = 0;
    bool delta_time = false;
    std::string category, event, lower;
    size_t index = 0;
    bool any = false;
    for (auto element : array) {
      if (broken_) break;
      any = true;
      od::value value;
      if (broken_ || !Good(element.get(value))) return false;
      absl::string_view field;
      if (index < fields.size()) field = fields[index];
      ++index;
      if (field == "relative_time" || field == "time" ||
          field == "delta_time") {
        time = NumberOf(value).value_or(0);
        delta_time = field == "delta_time";
      } else if (field == "category") {
        category = StringOf(value).value_or("");
      } else if (field == "event" || field == "event_type") {
        event = StringOf(value).value_or("");
      } else if (field == "data") {
        if (event.empty()) return false;
        lower = CountEvent(trace, absl::StrCat(category, ":", event));
        od::object data;
        clock.delta = clock.delta || delta_time;
        const std::optional<int64_t> time_us = EventTimeUs(clock, time, offset);
        if (time_us.has_value() && !broken_ &&
            Good(value.get_object().get(data))) {
          HandleData(lower, data, *time_us, trace, clock, offset);
        }
      }
    }
    if (!any) return true;  // "[]", as the last event of some converters.
    if (lower.empty() && !event.empty())
      CountEvent(trace, absl::StrCat(category, ":", event));
    return !event.empty();
  }

  std::string CountEvent(HostTrace& trace, absl::string_view name) {
    std::string lower = absl::AsciiStrToLower(name);
    ++trace.event_counts[lower];
    ++trace.samples;
    return lower;
  }

  void HandleData(const std::string& name, od::object& data, int64_t time_us,
                  HostTrace& trace, TraceClock& clock, uint64_t offset) {
    switch (KindOf(name)) {
      case EventKind::kMetrics:
        HandleMetrics(data, time_us, trace, clock, offset);
        break;
      case EventKind::kPacketSent:
      case EventKind::kPacketReceived:
      case EventKind::kPacketLost:
        HandlePacket(KindOf(name), data, time_us, trace, clock, offset);
        break;
      case EventKind::kCcState:
        HandleCcState(data, time_us, trace);
        break;
      case EventKind::kOther:
        break;
    }
  }

  void HandleMetrics(od::object& data, int64_t time_us, HostTrace& trace,
                     TraceClock& clock, uint64_t offset) {
    CapturedSeries& series = trace.series;
    const uint64_t order = trace.samples;  // This event's log_order.
    bool cwnd_seen = false;
    for (auto field_result : data) {
      if (broken_) break;
      od::field field;
      std::string_view key;
      if (broken_ || !Good(std::move(field_result).get(field)) ||
          !Good(field.unescaped_key().get(key))) {
        return;
      }
      std::optional<double> number = NumberOf(field.value());
      if (!number.has_value()) continue;
      double rtt_us = *number * clock.unit_us;
      if (key == "congestion_window" || key == "cwnd") {
        if (!ExactUnsigned(*number, kMaxByteCount).has_value()) {
          Warn(offset, absl::StrFormat("%s=%g is not a byte count in [0, "
                                       "2^53], skipped",
                                       key, *number));
          continue;
        }
        series.cwnd_bytes.push_back({time_us, *number, order});
        cwnd_seen = true;
      } else if (key == "bytes_in_flight") {
        series.bytes_in_flight.push_back({time_us, *number, order});
      } else if (key == "ssthresh") {
        series.ssthresh_bytes.push_back({time_us, *number, order});
      } else if (key == "smoothed_rtt") {
        series.srtt_us.push_back({time_us, rtt_us, order});
      } else if (key == "rtt_variance") {
        series.rttvar_us.push_back({time_us, rtt_us, order});
      } else if (key == "min_rtt") {
        series.min_rtt_us.push_back({time_us, rtt_us, order});
      } else if (key == "latest_rtt") {
        series.latest_rtt_us.push_back({time_us, rtt_us, order});
      } else if (key == "pacing_rate") {
        series.pacing_rate_bps.push_back({time_us, *number, order});
      } else {
        series.other[std::string(key)].push_back({time_us, *number, order});
      }
    }
    if (cwnd_seen) ++trace.cwnd_updates;
  }

  void HandleCcState(od::object& data, int64_t time_us, HostTrace& trace) {
    CongestionStateChange change;
    change.time_us = time_us;
    for (auto field_result : data) {
      if (broken_) break;
      od::field field;
      std::string_view key;
      if (broken_ || !Good(std::move(field_result).get(field)) ||
          !Good(field.unescaped_key().get(key))) {
        return;
      }
      if (key == "new") change.state = StringOf(field.value()).value_or("");
      if (key == "trigger")
        change.trigger = StringOf(field.value()).value_or("");
    }
    if (!change.state.empty())
      trace.series.congestion_states.push_back(std::move(change));
  }

  // header {packet_type, packet_number, packet_size}, raw {length},
  // frames [...], and the draft-00 placement of packet_type/packet_number
  // directly in data.
  void ReadPacketFields(od::object& object, PacketFields& packet,
                        TraceClock& clock, bool nested) {
    for (auto field_result : object) {
      if (broken_) break;
      od::field field;
      std::string_view key;
      if (broken_ || !Good(std::move(field_result).get(field)) ||
          !Good(field.unescaped_key().get(key))) {
        return;
      }
      od::value value = field.value();
      if (key == "packet_type") {
        packet.type = StringOf(value).value_or(packet.type);
      } else if (key == "packet_number") {
        packet.number = UnsignedOf(value);
      } else if (key == "packet_size") {
        packet.size_bytes = UnsignedOf(value);
      } else if (key == "trigger") {
        packet.trigger = StringOf(value).value_or("");
      } else if (!nested && (key == "header" || key == "raw")) {
        od::object inner;
        if (broken_ || !Good(value.get_object().get(inner))) continue;
        if (key == "header") {
          ReadPacketFields(inner, packet, clock, true);
        } else {
          od::value length;
          if (!broken_ &&
              Good(inner.find_field_unordered("length").get(length))) {
            packet.raw_length_bytes = UnsignedOf(length);
          }
        }
      } else if (!nested && key == "frames") {
        od::array frames;
        if (broken_ || !Good(value.get_array().get(frames))) continue;
        packet.has_frames = true;
        for (auto frame_result : frames) {
          if (broken_) break;
          od::object frame;
          if (broken_ || !Good(frame_result.get_object().get(frame))) continue;
          ReadFrame(frame, packet, clock);
        }
      }
    }
  }

  void ReadFrame(od::object& frame, PacketFields& packet, TraceClock& clock) {
    std::string frame_type;
    QuicAckReceived ack;
    for (auto field_result : frame) {
      if (broken_) break;
      od::field field;
      std::string_view key;
      if (broken_ || !Good(std::move(field_result).get(field)) ||
          !Good(field.unescaped_key().get(key))) {
        return;
      }
      od::value value = field.value();
      if (key == "frame_type") {
        frame_type = absl::AsciiStrToLower(StringOf(value).value_or(""));
      } else if (key == "ack_delay") {
        if (std::optional<double> delay = NumberOf(value))
          ack.ack_delay_us = *delay * clock.unit_us;
      } else if (key == "ect0") {
        ack.ect0_packets = UnsignedOf(value);
      } else if (key == "ect1") {
        ack.ect1_packets = UnsignedOf(value);
      } else if (key == "ce") {
        ack.ce_packets = UnsignedOf(value);
      } else if (key == "acked_ranges") {
        od::array ranges;
        if (broken_ || !Good(value.get_array().get(ranges))) continue;
        for (auto range_result : ranges) {
          if (broken_) break;
          od::array range;
          if (broken_ || !Good(range_result.get_array().get(range))) continue;
          std::vector<uint64_t> ends;
          for (auto end_result : range) {
            if (broken_) break;
            od::value end;
            if (broken_ || !Good(end_result.get(end))) break;
            if (std::optional<uint64_t> number = UnsignedOf(end))
              ends.push_back(*number);
          }
          // [n] is a single packet, [a, b] the inclusive range a..b.
          if (ends.size() == 1) ack.acked_ranges.push_back({ends[0], ends[0]});
          if (ends.size() == 2 && ends[0] <= ends[1]) {
            ack.acked_ranges.push_back({ends[0], ends[1]});
          }
        }
      }
    }
    if (frame_type == "ack") {
      packet.acks.push_back(std::move(ack));
    } else if (IsAckElicitingFrame(frame_type)) {
      packet.ack_eliciting = true;
    }
  }

  void HandlePacket(EventKind kind, od::object& data, int64_t time_us,
                    HostTrace& trace, TraceClock& clock, uint64_t offset) {
    PacketFields packet;
    ReadPacketFields(data, packet, clock, false);
    QuicSenderEvents& events = trace.quic_events;
    PacketNumberSpace space = SpaceOf(packet.type);
    if (kind == EventKind::kPacketReceived) {
      ++events.packets_received;
      for (QuicAckReceived& ack : packet.acks) {
        ack.time_us = time_us;
        ack.space = space;
        ack.log_order = trace.samples;
        std::sort(ack.acked_ranges.begin(), ack.acked_ranges.end(),
                  [](const AckRange& a, const AckRange& b) {
                    return a.first < b.first;
                  });
        events.acks_received.push_back(std::move(ack));
      }
      return;
    }
    if (!packet.number.has_value()) {
      Warn(offset, "packet event without a packet_number, skipped");
      return;
    }
    if (kind == EventKind::kPacketLost) {
      QuicPacketLost lost;
      lost.time_us = time_us;
      lost.space = space;
      lost.packet_number = *packet.number;
      lost.trigger = packet.trigger;
      lost.log_order = trace.samples;
      events.packets_lost.push_back(std::move(lost));
      return;
    }
    QuicPacketSent sent;
    sent.time_us = time_us;
    sent.space = space;
    sent.packet_number = *packet.number;
    sent.size_bytes = static_cast<uint32_t>(std::min<uint64_t>(
        packet.raw_length_bytes.value_or(packet.size_bytes.value_or(0)),
        UINT32_MAX));
    // Without a frame list the log cannot say; count the packet in flight.
    sent.ack_eliciting = !packet.has_frames || packet.ack_eliciting;
    sent.log_order = trace.samples;
    events.packets_sent.push_back(sent);
  }

  void FinishTraces() {
    for (HostTrace& trace : log_.traces) {
      trace.clock = trace.clock_epoch_us.has_value()
                        ? "qlog reference_time"
                        : "qlog time (reference unknown)";
    }
  }

  JsonStream stream_;
  HostStateLog log_;
  WarningSink warnings_;
  std::vector<TraceClock> clocks_;
  std::map<std::string, std::string> header_;
  std::vector<std::string> top_keys_;
  bool contained_ = false;
  bool truncated_ = false;
  bool broken_ = false;
  std::string event_;
  od::parser ondemand_;
  simdjson::dom::parser dom_;
};

}  // namespace

absl::StatusOr<HostStateLog> ParseQlog(const std::string& path) {
  absl::StatusOr<std::unique_ptr<InputFile>> file = InputFile::Open(path);
  if (!file.ok()) return file.status();
  QlogReader reader(path, file->get());
  return reader.Read();
}

}  // namespace ccreplay
