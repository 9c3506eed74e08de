#include "parsers/quicly_log.h"

#include <cmath>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/strings/ascii.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_replace.h"
#include "parsers/host_state_builder.h"
#include "parsers/input_file.h"
#include "parsers/json_stream.h"
#include "simdjson.h"

namespace ccreplay {
namespace {

namespace od = simdjson::ondemand;

constexpr uint64_t kLinesBeforeGivingUp = 1000;

// quicly epochs (lib/quicly.c QUICLY_EPOCH_*): 0 Initial, 1 0-RTT,
// 2 Handshake, 3 1-RTT.
PacketNumberSpace SpaceOfEpoch(double epoch) {
  if (epoch == 0) return PacketNumberSpace::kInitial;
  if (epoch == 2) return PacketNumberSpace::kHandshake;
  return PacketNumberSpace::kApplication;
}

// One log line: its type, time, connection and numeric fields.
struct QuiclyEvent {
  std::string type;
  std::string module;
  double time_ms = 0;
  std::string conn;
  absl::flat_hash_map<std::string, double> numbers;

  std::optional<double> Get(const char* key) const {
    auto it = numbers.find(key);
    if (it == numbers.end()) return std::nullopt;
    return it->second;
  }
};

// What the connection saw since its last cc_ack_received.
struct PendingAck {
  std::vector<AckRange> ranges;
  bool ranges_from_blocks = false;
  PacketNumberSpace space = PacketNumberSpace::kApplication;
  std::optional<uint64_t> ce_count;
};

class QuiclyReader {
 public:
  explicit QuiclyReader(const std::string& path) : warnings_(&log_.warnings) {
    log_.path = path;
  }

  void AddLine(std::string& line) {
    ++line_number_;
    size_t size = line.size();
    size_t first = line.find_first_not_of(" \t\r");
    if (first == std::string::npos) return;
    line.reserve(size + simdjson::SIMDJSON_PADDING);
    QuiclyEvent event;
    if (!Decode(line, &event)) {
      Warn("not a JSON object, skipped");
      return;
    }
    if (!(std::fabs(event.time_ms * 1000) <= kMaxQuicEventTimeUs)) {
      Warn(
          absl::StrCat("time ", event.time_ms, " ms is out of range, skipped"));
      return;
    }
    if (event.type.empty() ||
        (!event.module.empty() && event.module != "quicly"))
      return;
    ++quicly_lines_;
    Handle(event);
  }

  bool LooksWrong() const {
    return quicly_lines_ == 0 && line_number_ >= kLinesBeforeGivingUp;
  }

  absl::StatusOr<HostStateLog> Finish() {
    if (quicly_lines_ == 0) {
      return absl::InvalidArgumentError(absl::StrCat(
          log_.path,
          ": not a quicly event log: no JSON line with a quicly \"type\" in ",
          line_number_, " lines"));
    }
    for (HostTrace& trace : log_.traces) {
      trace.clock =
          "quicly now() in ms (the Unix epoch with quicly's default clock)";
    }
    warnings_.Finish();
    return std::move(log_);
  }

 private:
  void Warn(absl::string_view reason) {
    warnings_.Add(
        absl::StrFormat("%s:%d: %s", log_.path, line_number_, reason));
  }

  bool Decode(const std::string& line, QuiclyEvent* event) {
    od::document doc;
    od::object object;
    if (parser_.iterate(line.data(), line.size(), line.capacity()).get(doc) !=
            simdjson::SUCCESS ||
        doc.get_object().get(object) != simdjson::SUCCESS) {
      return false;
    }
    for (auto field_result : object) {
      od::field field;
      std::string_view raw_key;
      if (std::move(field_result).get(field) != simdjson::SUCCESS ||
          field.unescaped_key().get(raw_key) != simdjson::SUCCESS) {
        return false;
      }
      // h2olog writes kebab-case keys and types; cli -e snake_case.
      std::string key = absl::StrReplaceAll(AsAbsl(raw_key), {{"-", "_"}});
      od::value value = field.value();
      od::json_type type;
      if (value.type().get(type) != simdjson::SUCCESS) return false;
      if (type == od::json_type::string) {
        std::string_view text;
        if (value.get_string().get(text) != simdjson::SUCCESS) return false;
        if (key == "type") {
          event->type = absl::StrReplaceAll(AsAbsl(text), {{"-", "_"}});
        } else if (key == "module") {
          event->module = std::string(text);
        }
      } else if (type == od::json_type::number) {
        // Read the number's text once: the connection id is a pointer or
        // master_id that a double would round.
        absl::string_view text =
            absl::StripTrailingAsciiWhitespace(AsAbsl(value.raw_json_token()));
        double number;
        if (!absl::SimpleAtod(text, &number) || !std::isfinite(number)) {
          return false;
        }
        if (key == "time") {
          event->time_ms = number;
        } else if (key == "conn") {
          event->conn = std::string(text);
        } else {
          event->numbers[key] = number;
        }
      } else if (type == od::json_type::boolean) {
        bool flag;
        if (value.get_bool().get(flag) != simdjson::SUCCESS) return false;
        event->numbers[key] = flag ? 1 : 0;
      }
    }
    return true;
  }

  HostTrace& Trace(const std::string& conn) {
    return traces_.Get(conn, &log_.traces, [&](HostTrace& t) {
      t.source = HostStateSource::kQuicly;
      t.quic = true;
      t.name = absl::StrCat("conn ", conn);
    });
  }

  void AddRange(PendingAck& pending, uint64_t first, uint64_t last) {
    if (!pending.ranges.empty() && pending.ranges.back().last + 1 == first) {
      pending.ranges.back().last = last;
    } else {
      pending.ranges.push_back({first, last});
    }
  }

  void Handle(const QuiclyEvent& event) {
    HostTrace& trace = Trace(event.conn);
    ++trace.samples;
    ++trace.event_counts[event.type];
    int64_t t = static_cast<int64_t>(std::llround(event.time_ms * 1000));
    PendingAck& pending = pending_[event.conn];
    CapturedSeries& series = trace.series;
    QuicSenderEvents& quic = trace.quic_events;
    const std::string& type = event.type;
    if (type == "accept") {
      trace.vantage = TraceVantage::kServer;
    } else if (type == "connect") {
      trace.vantage = TraceVantage::kClient;
    } else if (type == "packet_sent") {
      AddPacketSent(event, t, quic);
    } else if (type == "packet_received") {
      ++quic.packets_received;
      // An ACK frame belongs to the space of the packet that carries it.
      pending.space = SpaceOfEpoch(event.Get("packet_type").value_or(3));
    } else if (type == "ack_block_received" || type == "packet_acked") {
      AddAckedPackets(event, pending);
    } else if (type == "cc_ack_received") {
      AddAckReceived(event, t, pending, trace);
    } else if (type == "packet_lost") {
      AddPacketLost(event, t, quic);
    } else if (type == "cc_congestion") {
      AddCwnd(trace, t, event.Get("cwnd"), event.Get("flight"));
      series.congestion_states.push_back({t, "recovery", "cc_congestion"});
    } else if (type == "ecn_congestion") {
      AddEcnCongestion(event, t, pending, series);
    } else if (type == "pto") {
      AddCwnd(trace, t, event.Get("cwnd"), event.Get("inflight"));
      if (std::optional<double> count = event.Get("pto_count")) {
        series.other["pto_count"].push_back({t, *count});
      }
    } else if (type == "conn_stats") {
      for (const auto& [key, value] : event.numbers) {
        series.other[absl::StrCat("conn_stats.", key)].push_back({t, value});
      }
    }
  }

  // cc_ack_received: the ACK frame the pending ranges and CE count make up,
  // and the window after it.
  void AddAckReceived(const QuiclyEvent& event, int64_t t, PendingAck& pending,
                      HostTrace& trace) {
    QuicAckReceived ack;
    ack.time_us = t;
    ack.space = pending.space;
    ack.acked_ranges = std::move(pending.ranges);
    ack.ce_packets = pending.ce_count;
    trace.quic_events.acks_received.push_back(std::move(ack));
    pending.ranges.clear();
    pending.ranges_from_blocks = false;
    AddCwnd(trace, t, event.Get("cwnd"), event.Get("inflight"));
    if (std::optional<double> acked = event.Get("bytes_acked")) {
      trace.series.other["bytes_acked"].push_back({t, *acked});
    }
  }

  void AddPacketLost(const QuiclyEvent& event, int64_t t,
                     QuicSenderEvents& quic) {
    std::optional<uint64_t> pn =
        Unsigned(event, "pn", kMaxQuicPacketNumber, /*required=*/true);
    if (!pn.has_value()) return;
    quic.packets_lost.push_back(
        {t, SpaceOfEpoch(event.Get("packet_type").value_or(3)), *pn, ""});
  }

  // ecn_congestion: the CE count the next cc_ack_received carries.
  void AddEcnCongestion(const QuiclyEvent& event, int64_t t,
                        PendingAck& pending, CapturedSeries& series) {
    if (!event.numbers.contains("ce_count")) return;
    std::optional<uint64_t> ce =
        Unsigned(event, "ce_count", kMaxQuicPacketNumber,
                 /*required=*/true);
    if (!ce.has_value()) return;
    pending.ce_count = *ce;
    series.other["ce_count"].push_back({t, static_cast<double>(*ce)});
  }

  void AddPacketSent(const QuiclyEvent& event, int64_t t,
                     QuicSenderEvents& quic) {
    std::optional<uint64_t> pn =
        Unsigned(event, "pn", kMaxQuicPacketNumber, /*required=*/true);
    std::optional<uint64_t> len =
        Unsigned(event, "len", UINT32_MAX, /*required=*/false);
    if (!pn.has_value() || !len.has_value()) return;
    QuicPacketSent sent;
    sent.time_us = t;
    sent.packet_number = *pn;
    sent.size_bytes = static_cast<uint32_t>(*len);
    sent.space = SpaceOfEpoch(event.Get("packet_type").value_or(3));
    sent.ack_eliciting = event.Get("ack_only").value_or(0) == 0;
    quic.packets_sent.push_back(sent);
  }

  // The packets an ack_block_received (a range) or packet_acked (one
  // packet, when no block was logged) adds to the next cc_ack_received.
  void AddAckedPackets(const QuiclyEvent& event, PendingAck& pending) {
    if (event.type == "packet_acked") {
      if (!event.numbers.contains("pn") || pending.ranges_from_blocks) return;
      std::optional<uint64_t> pn =
          Unsigned(event, "pn", kMaxQuicPacketNumber, /*required=*/true);
      if (pn.has_value()) AddRange(pending, *pn, *pn);
      return;
    }
    std::optional<uint64_t> begin = Unsigned(
        event, "ack_block_begin", kMaxQuicPacketNumber, /*required=*/true);
    std::optional<uint64_t> end =
        Unsigned(event, "ack_block_end", kMaxQuicPacketNumber,
                 /*required=*/true);
    if (!begin.has_value() || !end.has_value()) return;
    if (*begin > *end) {
      return Warn("ack_block_received without a valid range, skipped");
    }
    pending.ranges_from_blocks = true;
    AddRange(pending, *begin, *end);
  }

  // The integer field `key` of `event`, warned about and nullopt when it is
  // not an integer in [0, max]. An absent field is nullopt with a warning
  // when `required`, else 0.
  std::optional<uint64_t> Unsigned(const QuiclyEvent& event, const char* key,
                                   uint64_t max, bool required) {
    std::optional<double> value = event.Get(key);
    if (!value.has_value()) {
      if (!required) return 0;
      Warn(absl::StrCat(event.type, " without ", key, ", skipped"));
      return std::nullopt;
    }
    std::optional<uint64_t> exact = ExactUnsigned(*value, max);
    if (!exact.has_value()) {
      Warn(absl::StrFormat("%s with %s=%g, not an integer in [0, %d], skipped",
                           event.type, key, *value, max));
    }
    return exact;
  }

  void AddCwnd(HostTrace& trace, int64_t t, std::optional<double> cwnd,
               std::optional<double> inflight) {
    if (cwnd.has_value()) {
      trace.series.cwnd_bytes.push_back({t, *cwnd});
      ++trace.cwnd_updates;
    }
    if (inflight.has_value())
      trace.series.bytes_in_flight.push_back({t, *inflight});
  }

  HostStateLog log_;
  WarningSink warnings_;
  TraceIndex<std::string> traces_;
  absl::flat_hash_map<std::string, PendingAck> pending_;
  uint64_t line_number_ = 0;
  uint64_t quicly_lines_ = 0;
  od::parser parser_;
};

}  // namespace

absl::StatusOr<HostStateLog> ParseQuiclyLog(const std::string& path) {
  return ParseLineByLine<QuiclyReader>(path);
}

}  // namespace ccreplay
