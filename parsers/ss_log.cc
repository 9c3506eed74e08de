#include "parsers/ss_log.h"

#include <cmath>
#include <optional>
#include <utility>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/container/flat_hash_set.h"
#include "absl/strings/ascii.h"
#include "absl/strings/escaping.h"
#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_split.h"
#include "absl/strings/strip.h"
#include "parsers/host_state_builder.h"
#include "parsers/input_file.h"
#include "parsers/text_scan.h"

namespace ccreplay {
namespace {

// A file with this many lines and no socket line is not an ss log.
constexpr uint64_t kLinesBeforeGivingUp = 1000;
// Times above this many seconds are Unix epoch times (2001-09-09 onwards),
// below it relative times.
constexpr double kEpochThresholdSeconds = 1e9;

// Socket states as ss prints them (iproute2 misc/ss.c, sstate_name).
const absl::flat_hash_set<absl::string_view>& SocketStates() {
  static const auto* states = new absl::flat_hash_set<absl::string_view>{
      "ESTAB",     "SYN-SENT", "SYN-RECV",   "FIN-WAIT-1", "FIN-WAIT-2",
      "TIME-WAIT", "UNCONN",   "CLOSE-WAIT", "LAST-ACK",   "LISTEN",
      "CLOSING",   "CLOSED",   "UNKNOWN"};
  return *states;
}

// Option flags ss prints inside `if (show_options)` plus app_limited
// (iproute2 misc/ss.c tcp_show_info); any other bare word is the
// congestion controller's name.
bool IsSsFlag(absl::string_view word) {
  return word == "ts" || word == "sack" || word == "ecn" || word == "ecnseen" ||
         word == "fastopen" || word == "usec_ts" || word == "app_limited";
}

// ss token name → series name with its unit (input-formats.md §1.2).
const absl::flat_hash_map<absl::string_view, absl::string_view>& SeriesNames() {
  static const auto* names =
      new absl::flat_hash_map<absl::string_view, absl::string_view>{
          {"rto", "rto_ms"},
          {"ato", "ato_ms"},
          {"mss", "mss_bytes"},
          {"pmtu", "pmtu_bytes"},
          {"rcvmss", "rcv_mss_bytes"},
          {"advmss", "adv_mss_bytes"},
          {"lastsnd", "lastsnd_ms"},
          {"lastrcv", "lastrcv_ms"},
          {"lastack", "lastack_ms"},
          {"unacked", "unacked_segments"},
          {"lost", "lost_segments"},
          {"sacked", "sacked_segments"},
          {"fackets", "fackets_segments"},
          {"reordering", "reordering_segments"},
          {"rcv_rtt", "rcv_rtt_ms"},
          {"rcv_space", "rcv_space_bytes"},
          {"rcv_ssthresh", "rcv_ssthresh_bytes"},
          {"notsent", "notsent_bytes"},
          {"snd_wnd", "snd_wnd_bytes"},
          {"rcv_wnd", "rcv_wnd_bytes"},
          {"send", "send_bps"},
          {"delivery_rate", "delivery_rate_bps"},
          {"bbr.mrtt", "bbr.mrtt_ms"},
      };
  return *names;
}

// The series name for a token: the table's, else the token with the unit
// its value was printed with.
std::string SeriesName(absl::string_view key, absl::string_view unit) {
  auto it = SeriesNames().find(key);
  if (it != SeriesNames().end()) return std::string(it->second);
  if (unit == "ms") return absl::StrCat(key, "_ms");
  if (unit == "%") return absl::StrCat(key, "_pct");
  if (absl::EndsWith(unit, "bps")) return absl::StrCat(key, "_bps");
  return std::string(key);
}

// Scales an SI-suffixed rate ("379802824bps", "3.99Gbps", "12.5Kbps") to
// bit/s. ss prints %.3g with k/M/G/T since iproute2 5.7 and %.1f with K/M
// before (input-formats.md §1.1).
std::optional<double> ParseRateBps(absl::string_view text) {
  std::optional<NumberAndUnit> parsed = SplitNumberAndUnit(text);
  if (!parsed.has_value() || !absl::EndsWith(parsed->unit, "bps"))
    return std::nullopt;
  absl::string_view prefix = parsed->unit.substr(0, parsed->unit.size() - 3);
  double scale = 1;
  if (prefix == "k" || prefix == "K") {
    scale = 1e3;
  } else if (prefix == "M") {
    scale = 1e6;
  } else if (prefix == "G") {
    scale = 1e9;
  } else if (prefix == "T") {
    scale = 1e12;
  } else if (!prefix.empty()) {
    return std::nullopt;
  }
  return parsed->value * scale;
}

// ss prints timers with print_ms_timer (iproute2 misc/ss.c): "[Nmin]",
// then seconds either as "S." followed by 3-digit milliseconds and "ms", or
// as "Ssec", then "MMMms" — so "1.200ms" is 1.2 s and "016ms" is 16 ms.
std::optional<double> ParseSsTimerMs(absl::string_view text) {
  double total_ms = 0;
  bool any = false;
  while (!text.empty()) {
    std::optional<NumberAndUnit> part = SplitNumberAndUnit(text);
    if (!part.has_value()) return std::nullopt;
    absl::string_view unit = part->unit;
    size_t unit_length = 0;
    if (absl::StartsWith(unit, "min")) {
      total_ms += part->value * 60000;
      unit_length = 3;
    } else if (absl::StartsWith(unit, "sec")) {
      total_ms += part->value * 1000;
      unit_length = 3;
    } else if (absl::StartsWith(unit, "ms")) {
      // "S.MMMms": the number parsed as S.MMM is seconds.
      bool seconds_and_ms =
          absl::StrContains(text.substr(0, text.size() - unit.size()), '.');
      total_ms += seconds_and_ms ? part->value * 1000 : part->value;
      unit_length = 2;
    } else {
      return std::nullopt;
    }
    any = true;
    text = unit.substr(unit_length);
  }
  if (!any) return std::nullopt;
  return total_ms;
}

// True for "ADDR:PORT" tokens: 10.0.0.1:5201, [::1]:22, [fe80::1%eth0]:22,
// *:*, ::ffff:10.0.0.1:80 (old ss), host:ssh (without -n).
bool LooksLikeEndpoint(absl::string_view token) {
  size_t colon = token.rfind(':');
  if (colon == absl::string_view::npos || colon == 0 ||
      colon + 1 == token.size())
    return false;
  return !absl::StrContains(token, '(') && !absl::StrContains(token, '=') &&
         !absl::StrContains(token, '/');
}

bool IsUnsignedInteger(absl::string_view token) {
  uint64_t ignored;
  return absl::SimpleAtoi(token, &ignored);
}

// Files a value of the `bbr:(...)` block in its own series; false for any
// other name. ss prints bw in bit/s, mrtt in ms (%g) and the gains as the
// kernel's <<8 fixed point divided by 256 (iproute2 misc/ss.c
// bbr_info print, 6.1).
bool AddBbrValue(absl::string_view name, SeriesPoint point,
                 CapturedSeries& series) {
  if (name == "bbr.bw_bps") {
    series.bbr_bw_bps.push_back(point);
  } else if (name == "bbr.mrtt_ms") {
    series.bbr_min_rtt_us.push_back({point.time_us, point.value * 1000});
  } else if (name == "bbr.pacing_gain") {
    series.bbr_pacing_gain.push_back(point);
  } else if (name == "bbr.cwnd_gain") {
    series.bbr_cwnd_gain.push_back(point);
  } else {
    return false;
  }
  return true;
}

// One socket's values in one snapshot.
struct Sample {
  std::string local;
  std::string remote;
  std::optional<int64_t> line_time_us;
  std::vector<std::pair<std::string, double>> values;
  std::vector<std::string> flags;
  std::string congestion_control;
};

}  // namespace

struct SsLogParser::State {
  HostStateLog log;
  TraceIndex<std::string> traces;
  WarningSink warnings;
  uint64_t line_number = 0;
  uint64_t socket_lines = 0;
  std::string first_unknown_line;
  uint64_t first_unknown_line_number = 0;
  // Time from the last time line, and the snapshot number (used as the
  // time when the log has no times at all).
  std::optional<int64_t> block_time_us;
  bool saw_time = false;
  bool epoch_times = false;
  int64_t snapshot = 0;
  absl::flat_hash_set<std::string> keys_in_snapshot;
  std::optional<Sample> pending;

  explicit State(std::string path) : warnings(&log.warnings) {
    log.path = std::move(path);
  }

  void NewSnapshot() {
    ++snapshot;
    keys_in_snapshot.clear();
  }

  void SetTime(double seconds) {
    if (!saw_time) epoch_times = seconds >= kEpochThresholdSeconds;
    saw_time = true;
    block_time_us = static_cast<int64_t>(std::llround(seconds * 1e6));
    NewSnapshot();
  }

  void Warn(absl::string_view reason) {
    warnings.Add(absl::StrFormat("%s:%d: %s", log.path, line_number, reason));
  }

  void Add(Sample& sample, absl::string_view name, double value) {
    sample.values.emplace_back(std::string(name), value);
  }

  // A `key:value` token, or an item of a block (then `key` is prefixed,
  // "bbr.bw").
  void AddKeyValue(Sample& sample, absl::string_view key,
                   absl::string_view value) {
    if (absl::StartsWith(value, "(")) {
      AddBlock(sample, key, value);
      return;
    }
    if (key == "rtt") {
      // rtt:<srtt>/<rttvar> in ms, printed with %g ("rtt:5/2.5").
      std::pair<absl::string_view, absl::string_view> parts =
          absl::StrSplit(value, '/');
      double srtt_ms, rttvar_ms;
      if (absl::SimpleAtod(parts.first, &srtt_ms) &&
          absl::SimpleAtod(parts.second, &rttvar_ms)) {
        Add(sample, "srtt_us", srtt_ms * 1000);
        Add(sample, "rttvar_us", rttvar_ms * 1000);
      } else {
        Warn(absl::StrCat("unreadable rtt value ", QuoteInput(value)));
      }
      return;
    }
    if (key == "wscale" || key == "retrans") {
      // wscale:<snd>,<rcv>; retrans:<current>/<total>.
      char separator = key == "wscale" ? ',' : '/';
      std::pair<absl::string_view, absl::string_view> parts =
          absl::StrSplit(value, separator);
      double first, second;
      if (absl::SimpleAtod(parts.first, &first) &&
          absl::SimpleAtod(parts.second, &second)) {
        Add(sample, key == "wscale" ? "wscale_snd" : "retrans_segments", first);
        Add(sample, key == "wscale" ? "wscale_rcv" : "retrans_total_segments",
            second);
      } else {
        Warn(absl::StrCat("unreadable ", key, " value ", QuoteInput(value)));
      }
      return;
    }
    if (key == "sk" || key == "cgroup") return;  // -e socket identities.
    // busy:<ms>ms, rwnd_limited:<ms>ms(<p>%), sndbuf_limited:<ms>ms(<p>%).
    size_t paren = value.find('(');
    if (paren != absl::string_view::npos && absl::EndsWith(value, "%)")) {
      std::optional<NumberAndUnit> pct =
          SplitNumberAndUnit(value.substr(paren + 1, value.size() - paren - 2));
      if (pct.has_value() && pct->unit == "%")
        Add(sample, absl::StrCat(key, "_pct"), pct->value);
      value = value.substr(0, paren);
    }
    AddNumber(sample, key, value);
  }

  void AddNumber(Sample& sample, absl::string_view key,
                 absl::string_view value) {
    if (key == "timer.expire") {
      std::optional<double> ms = ParseSsTimerMs(value);
      if (ms.has_value()) Add(sample, "timer.expire_ms", *ms);
      return;
    }
    if (absl::EndsWith(value, "bps")) {
      std::optional<double> bps = ParseRateBps(value);
      if (bps.has_value()) {
        Add(sample, SeriesName(key, "bps"), *bps);
      } else {
        Warn(absl::StrCat("unreadable rate ", QuoteInput(value), " for ", key));
      }
      return;
    }
    std::optional<NumberAndUnit> number = SplitNumberAndUnit(value);
    if (!number.has_value() ||
        !(number->unit.empty() || number->unit == "ms")) {
      // A word value ("dctcp:fallback_mode"): keep it as a flag.
      sample.flags.push_back(absl::StrCat(key, ":", value));
      return;
    }
    Add(sample, SeriesName(key, number->unit), number->value);
  }

  // `name:(a,b:c,d=e,(nested))`: items become name.<key> series.
  void AddBlock(Sample& sample, absl::string_view name,
                absl::string_view block) {
    if (!absl::ConsumePrefix(&block, "(") ||
        !absl::ConsumeSuffix(&block, ")")) {
      Warn(absl::StrCat("unbalanced block ",
                        QuoteInput(absl::StrCat(name, ":", block))));
      return;
    }
    std::vector<absl::string_view> items = SplitTopLevel(block, ',');
    for (size_t i = 0; i < items.size(); ++i) {
      absl::string_view item = items[i];
      if (absl::StartsWith(item, "(")) {
        AddBlock(sample, name, item);
        continue;
      }
      if (name == "timer") {
        // timer:(<name>,<expire>,<retrans>) (iproute2 misc/ss.c
        // tcp_timer_print).
        if (i == 1) AddNumber(sample, "timer.expire", item);
        if (i == 2) AddNumber(sample, "timer.retrans", item);
        continue;
      }
      size_t separator = item.find_first_of(":=");
      if (separator != absl::string_view::npos) {
        AddKeyValue(sample, absl::StrCat(name, ".", item.substr(0, separator)),
                    item.substr(separator + 1));
        continue;
      }
      // skmem items are letters followed by a number: r0, rb131072, bl0.
      size_t digits = item.find_first_of("0123456789");
      if (digits != absl::string_view::npos && digits > 0 &&
          absl::ascii_isalpha(static_cast<unsigned char>(item[0]))) {
        AddNumber(sample, absl::StrCat(name, ".", item.substr(0, digits)),
                  item.substr(digits));
      }
      // Quoted process names and bare words carry no number.
    }
  }

  void AddInfoTokens(Sample& sample,
                     const std::vector<absl::string_view>& tokens,
                     size_t begin) {
    for (size_t i = begin; i < tokens.size(); ++i) {
      absl::string_view token = tokens[i];
      if ((token == "send" || token == "pacing_rate" ||
           token == "delivery_rate") &&
          i + 1 < tokens.size()) {
        absl::string_view value = tokens[++i];
        if (token == "pacing_rate") {
          // pacing_rate <rate>bps[/<max>bps].
          std::pair<absl::string_view, absl::string_view> parts =
              absl::StrSplit(value, '/');
          std::optional<double> bps = ParseRateBps(parts.first);
          std::optional<double> max_bps = ParseRateBps(parts.second);
          if (bps.has_value()) Add(sample, "pacing_rate_bps", *bps);
          if (max_bps.has_value()) Add(sample, "max_pacing_rate_bps", *max_bps);
          if (!bps.has_value())
            Warn(absl::StrCat("unreadable pacing_rate ", QuoteInput(value)));
        } else {
          AddNumber(sample, token, value);
        }
        continue;
      }
      size_t colon = token.find(':');
      if (colon != absl::string_view::npos && colon > 0) {
        AddKeyValue(sample, token.substr(0, colon), token.substr(colon + 1));
        continue;
      }
      if (token == "<->") continue;  // -e prints it after the socket identity.
      if (IsSsFlag(token)) {
        sample.flags.emplace_back(token);
      } else if (sample.congestion_control.empty() &&
                 absl::ascii_isalpha(static_cast<unsigned char>(token[0]))) {
        sample.congestion_control = std::string(token);
      } else {
        Warn(absl::StrCat("unknown ss token ", QuoteInput(token)));
      }
    }
  }

  // A socket line, or false when `tokens` are not one.
  bool StartSample(const std::vector<absl::string_view>& tokens) {
    // [epoch] [netid] [state] Recv-Q Send-Q Local:Port Peer:Port [rest].
    size_t local_index = 0;
    for (size_t i = 2; i + 1 < tokens.size() && i < 6; ++i) {
      if (IsUnsignedInteger(tokens[i - 2]) &&
          IsUnsignedInteger(tokens[i - 1]) && LooksLikeEndpoint(tokens[i]) &&
          LooksLikeEndpoint(tokens[i + 1])) {
        local_index = i;
        break;
      }
    }
    if (local_index == 0) return false;
    Sample sample;
    for (size_t i = 0; i + 2 < local_index; ++i) {
      absl::string_view token = tokens[i];
      absl::ConsumeSuffix(&token, ",");
      double seconds;
      if (i == 0 && absl::SimpleAtod(token, &seconds) &&
          std::isfinite(seconds)) {
        if (!saw_time) epoch_times = seconds >= kEpochThresholdSeconds;
        saw_time = true;
        sample.line_time_us = static_cast<int64_t>(std::llround(seconds * 1e6));
      } else if (!SocketStates().contains(token) && token != "tcp") {
        return false;
      }
    }
    double recv_q_bytes = 0, send_q_bytes = 0;
    if (absl::SimpleAtod(tokens[local_index - 2], &recv_q_bytes)) {
      Add(sample, "recv_q_bytes", recv_q_bytes);
    }
    if (absl::SimpleAtod(tokens[local_index - 1], &send_q_bytes)) {
      Add(sample, "send_q_bytes", send_q_bytes);
    }
    sample.local = std::string(tokens[local_index]);
    sample.remote = std::string(tokens[local_index + 1]);
    AddInfoTokens(sample, tokens, local_index + 2);
    FlushPending();
    pending = std::move(sample);
    ++socket_lines;
    return true;
  }

  void FlushPending() {
    if (!pending.has_value()) return;
    Sample sample = std::move(*pending);
    pending.reset();
    std::string key = absl::StrCat(sample.local, " ", sample.remote);
    if (!sample.line_time_us.has_value() &&
        !keys_in_snapshot.insert(key).second) {
      // The same socket twice without a time line between: a new snapshot.
      NewSnapshot();
      keys_in_snapshot.insert(key);
    }
    int64_t time_us =
        sample.line_time_us.value_or(block_time_us.value_or(snapshot));
    HostTrace& trace = traces.Get(key, &log.traces, [&](HostTrace& t) {
      t.source = HostStateSource::kSs;
      t.local_endpoint = sample.local;
      t.remote_endpoint = sample.remote;
    });
    ++trace.samples;
    if (!sample.congestion_control.empty())
      trace.congestion_control = sample.congestion_control;
    for (std::string& flag : sample.flags) trace.flags.insert(std::move(flag));
    std::optional<double> mss_bytes;
    for (const auto& [name, value] : sample.values) {
      if (name == "mss_bytes") mss_bytes = value;
    }
    CapturedSeries& series = trace.series;
    for (const auto& [name, value] : sample.values) {
      SeriesPoint point{time_us, value};
      if (name == "cwnd") {
        series.cwnd_segments.push_back(point);
        ++trace.cwnd_updates;
        if (mss_bytes.has_value())
          series.cwnd_bytes.push_back({time_us, value * *mss_bytes});
      } else if (name == "ssthresh") {
        series.ssthresh_segments.push_back(point);
        if (mss_bytes.has_value())
          series.ssthresh_bytes.push_back({time_us, value * *mss_bytes});
      } else if (name == "srtt_us") {
        series.srtt_us.push_back(point);
      } else if (name == "rttvar_us") {
        series.rttvar_us.push_back(point);
      } else if (name == "minrtt") {
        series.min_rtt_us.push_back({time_us, value * 1000});
      } else if (name == "pacing_rate_bps") {
        series.pacing_rate_bps.push_back(point);
      } else if (name == "delivered") {
        series.delivered_segments.push_back(point);
      } else if (name == "delivered_ce") {
        series.delivered_ce_segments.push_back(point);
      } else if (!AddBbrValue(name, point, series)) {
        series.other[name].push_back(point);
      }
    }
  }

  void AddLine(absl::string_view line) {
    ++line_number;
    line = absl::StripTrailingAsciiWhitespace(line);
    if (line.empty()) return;
    bool indented = absl::ascii_isspace(static_cast<unsigned char>(line[0]));
    line = absl::StripLeadingAsciiWhitespace(line);
    if (indented && pending.has_value()) {
      AddInfoTokens(*pending, SplitTopLevel(line, ' '), 0);
      return;
    }
    if (ParseTimeLine(line)) return;
    if (absl::StartsWith(line, "#")) return;
    if (absl::StartsWith(line, "---")) {
      FlushPending();
      NewSnapshot();
      return;
    }
    if (absl::StartsWith(line, "State") || absl::StartsWith(line, "Netid") ||
        absl::StartsWith(line, "Recv-Q")) {
      FlushPending();
      if (!saw_time) NewSnapshot();
      return;
    }
    if (StartSample(SplitTopLevel(line, ' '))) return;
    if (first_unknown_line_number == 0) {
      first_unknown_line_number = line_number;
      first_unknown_line = std::string(line);
    }
    Warn("not an ss line, skipped");
  }

  // "# t=<s>", "Time: <s>", "timestamp:<s>", "==== Time <s> ====", "<s>".
  bool ParseTimeLine(absl::string_view line) {
    absl::string_view rest = line;
    bool marked = true;
    if (absl::ConsumePrefix(&rest, "#")) {
      rest = absl::StripLeadingAsciiWhitespace(rest);
      if (!absl::ConsumePrefix(&rest, "t=")) return false;
    } else if (absl::ConsumePrefix(&rest, "====")) {
      while (absl::ConsumeSuffix(&rest, "=")) {
      }
      rest = absl::StripAsciiWhitespace(rest);
      if (!absl::ConsumePrefix(&rest, "Time") &&
          !absl::ConsumePrefix(&rest, "time"))
        return false;
      absl::ConsumePrefix(&rest, ":");
    } else if (!absl::ConsumePrefix(&rest, "Time:") &&
               !absl::ConsumePrefix(&rest, "time:") &&
               !absl::ConsumePrefix(&rest, "timestamp:")) {
      marked = false;
    }
    double seconds;
    if (!absl::SimpleAtod(absl::StripAsciiWhitespace(rest), &seconds) ||
        !std::isfinite(seconds)) {
      if (marked) Warn("unreadable time line, skipped");
      return marked;
    }
    FlushPending();
    SetTime(seconds);
    return true;
  }
};

SsLogParser::SsLogParser(std::string path)
    : state_(new State(std::move(path))) {}
SsLogParser::~SsLogParser() = default;

void SsLogParser::AddLine(absl::string_view line) { state_->AddLine(line); }

bool SsLogParser::LooksWrong() const {
  return state_->socket_lines == 0 &&
         state_->line_number >= kLinesBeforeGivingUp;
}

absl::StatusOr<HostStateLog> SsLogParser::Finish() {
  State& s = *state_;
  s.FlushPending();
  if (s.socket_lines == 0) {
    if (s.first_unknown_line_number == 0) {
      return absl::InvalidArgumentError(
          absl::StrCat(s.log.path, ": not an ss log: no socket line in ",
                       s.line_number, " lines"));
    }
    return absl::InvalidArgumentError(
        absl::StrFormat("%s:%d: not an ss log: no socket line (first "
                        "unrecognised line: %s)",
                        s.log.path, s.first_unknown_line_number,
                        QuoteInput(s.first_unknown_line)));
  }
  if (!s.saw_time) {
    s.warnings.Add(absl::StrCat(
        s.log.path, ": no timestamps in the log; times are snapshot numbers"));
  }
  for (HostTrace& trace : s.log.traces) {
    if (!s.saw_time) {
      trace.clock = "snapshot number (no timestamps in the log)";
    } else if (s.epoch_times) {
      trace.clock = "unix epoch";
      trace.clock_epoch_us = 0;
    } else {
      trace.clock = "seconds as logged";
    }
    // The data sender's bytes_acked grows, the receiver's bytes_received;
    // for an idle socket (iperf3's control connection) compare the totals.
    double acked_growth = SeriesGrowth(trace.series.other, "bytes_acked");
    double received_growth = SeriesGrowth(trace.series.other, "bytes_received");
    trace.local_sends_data =
        acked_growth != received_growth
            ? acked_growth > received_growth
            : LastValue(trace.series.other, "bytes_acked") >
                  LastValue(trace.series.other, "bytes_received");
  }
  s.warnings.Finish();
  return std::move(s.log);
}

absl::StatusOr<HostStateLog> ParseSsLog(const std::string& path) {
  return ParseLineByLine<SsLogParser>(path);
}

}  // namespace ccreplay
