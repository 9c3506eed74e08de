#include "parsers/tcp_probe.h"

#include <algorithm>
#include <cmath>
#include <iterator>
#include <optional>
#include <utility>
#include <vector>

#include "absl/container/flat_hash_map.h"
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

constexpr uint64_t kLinesBeforeGivingUp = 1000;
// TCP_INFINITE_SSTHRESH (include/net/tcp.h): ssthresh not yet set.
constexpr uint64_t kInfiniteSsthresh = 0x7fffffff;

// enum tcp_ca_state (include/uapi/linux/tcp.h), the value of cong_state=.
const char* CaStateName(uint64_t state) {
  switch (state) {
    case 0:
      return "open";
    case 1:
      return "disorder";
    case 2:
      return "cwr";
    case 3:
      return "recovery";
    case 4:
      return "loss";
  }
  return "unknown";
}

// Parses a "%u" or "%#x" field.
std::optional<uint64_t> ParseUnsigned(absl::string_view text) {
  uint64_t value;
  if (absl::ConsumePrefix(&text, "0x")) {
    if (!absl::SimpleHexAtoi(text, &value)) return std::nullopt;
    return value;
  }
  if (!absl::SimpleAtoi(text, &value)) return std::nullopt;
  return value;
}

// Seconds with a fractional part ("5403.647220", "12.000000001") → µs.
std::optional<int64_t> ParseSecondsToUs(absl::string_view text) {
  double seconds;
  if (!absl::SimpleAtod(text, &seconds) || !std::isfinite(seconds) ||
      seconds < 0 || seconds > 1e12) {
    return std::nullopt;
  }
  return static_cast<int64_t>(std::llround(seconds * 1e6));
}

// Unwraps a 32-bit sequence number to 64 bits, relative to the first one
// seen on the socket.
class SequenceUnwrapper {
 public:
  int64_t Unwrap(uint32_t seq) {
    if (!have_) {
      have_ = true;
      last_ = seq;
      return 0;
    }
    offset_ += static_cast<int32_t>(seq - last_);
    last_ = seq;
    return offset_;
  }

 private:
  bool have_ = false;
  uint32_t last_ = 0;
  int64_t offset_ = 0;
};

// One probe sample, whichever format it came from.
struct ProbeFields {
  int64_t time_us = 0;
  std::string local;
  std::string remote;
  absl::flat_hash_map<std::string, absl::string_view> values;
};

}  // namespace

struct TcpProbeParser::State {
  HostStateLog log;
  TraceIndex<std::string> traces;
  WarningSink warnings;
  absl::flat_hash_map<std::string,
                      std::pair<SequenceUnwrapper, SequenceUnwrapper>>
      sequences;
  absl::flat_hash_map<std::string, uint64_t> data_len_sum;
  uint64_t line_number = 0;
  uint64_t probe_lines = 0;
  uint64_t first_unknown_line_number = 0;
  std::string first_unknown_line;
  std::string first_unknown_reason;
  bool module_format = false;
  std::optional<int64_t> clock_epoch_us;
  // The lab's clock pairs (trace clock, realtime - trace clock), µs: the
  // first and the last.
  struct ClockPair {
    int64_t trace_us;
    int64_t offset_us;
  };
  std::optional<ClockPair> first_pair, last_pair;

  explicit State(std::string path) : warnings(&log.warnings) {
    log.path = std::move(path);
  }

  void Warn(absl::string_view reason) {
    warnings.Add(absl::StrFormat("%s:%d: %s", log.path, line_number, reason));
  }

  HostTrace& Trace(const std::string& local, const std::string& remote) {
    return traces.Get(absl::StrCat(local, " ", remote), &log.traces,
                      [&](HostTrace& t) {
                        t.source = HostStateSource::kTcpProbe;
                        t.local_endpoint = local;
                        t.remote_endpoint = remote;
                      });
  }

  std::optional<uint64_t> Field(const ProbeFields& fields,
                                absl::string_view name) {
    auto it = fields.values.find(name);
    if (it == fields.values.end()) return std::nullopt;
    std::optional<uint64_t> value = ParseUnsigned(it->second);
    if (!value.has_value())
      Warn(absl::StrCat("unreadable ", name, "=", QuoteInput(it->second)));
    return value;
  }

  void AddProbe(const ProbeFields& fields) {
    ++probe_lines;
    HostTrace& trace = Trace(fields.local, fields.remote);
    std::string key = absl::StrCat(fields.local, " ", fields.remote);
    ++trace.samples;
    CapturedSeries& series = trace.series;
    int64_t t = fields.time_us;
    if (std::optional<uint64_t> cwnd = Field(fields, "snd_cwnd")) {
      series.cwnd_segments.push_back({t, static_cast<double>(*cwnd)});
      ++trace.cwnd_updates;
    }
    if (std::optional<uint64_t> ssthresh = Field(fields, "ssthresh");
        ssthresh.has_value() && *ssthresh < kInfiniteSsthresh) {
      series.ssthresh_segments.push_back({t, static_cast<double>(*ssthresh)});
    }
    // srtt = srtt_us >> 3, in µs (include/trace/events/tcp.h, tcp_probe).
    if (std::optional<uint64_t> srtt = Field(fields, "srtt")) {
      series.srtt_us.push_back({t, static_cast<double>(*srtt)});
    }
    auto& [una, nxt] = sequences[key];
    std::optional<uint64_t> snd_una = Field(fields, "snd_una");
    std::optional<uint64_t> snd_nxt = Field(fields, "snd_nxt");
    if (snd_una.has_value() && snd_nxt.has_value()) {
      int64_t una_bytes = una.Unwrap(static_cast<uint32_t>(*snd_una));
      int64_t nxt_bytes = nxt.Unwrap(static_cast<uint32_t>(*snd_nxt));
      series.other["snd_una_bytes"].push_back(
          {t, static_cast<double>(una_bytes)});
      // As the wire carries it, to find the ACK in a capture of the flow.
      series.other["snd_una_wire"].push_back(
          {t, static_cast<double>(static_cast<uint32_t>(*snd_una))});
      series.other["snd_nxt_bytes"].push_back(
          {t, static_cast<double>(nxt_bytes)});
      // Sent and not yet cumulatively acknowledged; SACKed and lost
      // segments are not visible to the probe.
      series.other["unacked_bytes"].push_back(
          {t, static_cast<double>(static_cast<uint32_t>(*snd_nxt - *snd_una))});
    }
    // `data_len` (since Linux 4.16's tracepoint gained it) or `length`.
    std::optional<uint64_t> data_len = fields.values.contains("data_len")
                                           ? Field(fields, "data_len")
                                           : Field(fields, "length");
    if (data_len.has_value()) {
      series.other["data_len_bytes"].push_back(
          {t, static_cast<double>(*data_len)});
      data_len_sum[key] += *data_len;
    }
    for (absl::string_view name : {"snd_wnd", "rcv_wnd"}) {
      if (std::optional<uint64_t> value = Field(fields, name)) {
        series.other[absl::StrCat(name, "_bytes")].push_back(
            {t, static_cast<double>(*value)});
      }
    }
    if (std::optional<uint64_t> mark = Field(fields, "mark");
        mark.has_value() && *mark != 0) {
      series.other["mark"].push_back({t, static_cast<double>(*mark)});
    }
  }

  // key=value tokens after the event name.
  static absl::flat_hash_map<std::string, absl::string_view> KeyValues(
      absl::string_view text) {
    absl::flat_hash_map<std::string, absl::string_view> values;
    for (absl::string_view token :
         absl::StrSplit(text, ' ', absl::SkipEmpty())) {
      size_t equals = token.find('=');
      if (equals == absl::string_view::npos) continue;
      values[std::string(token.substr(0, equals))] = token.substr(equals + 1);
    }
    return values;
  }

  void AddCongStateSet(int64_t time_us, absl::string_view text) {
    absl::flat_hash_map<std::string, absl::string_view> values =
        KeyValues(text);
    bool ipv6 = values["family"] == "AF_INET6";
    absl::string_view saddr = values[ipv6 ? "saddrv6" : "saddr"];
    absl::string_view daddr = values[ipv6 ? "daddrv6" : "daddr"];
    std::optional<uint64_t> state = ParseUnsigned(values["cong_state"]);
    if (saddr.empty() || daddr.empty() || !state.has_value()) {
      Warn("tcp_cong_state_set line without saddr/daddr/cong_state, skipped");
      return;
    }
    std::string local = ipv6 ? absl::StrCat("[", saddr, "]:", values["sport"])
                             : absl::StrCat(saddr, ":", values["sport"]);
    std::string remote = ipv6 ? absl::StrCat("[", daddr, "]:", values["dport"])
                              : absl::StrCat(daddr, ":", values["dport"]);
    ++probe_lines;
    Trace(local, remote)
        .series.congestion_states.push_back({time_us, CaStateName(*state), ""});
  }

  // The ccreplay lab writes "clockpair ... offset_ns=<realtime − trace
  // clock>" into the trace with trace_marker; it maps the trace clock to
  // the Unix epoch.
  void AddMark(absl::string_view text) {
    if (!absl::StrContains(text, "clockpair")) return;
    absl::flat_hash_map<std::string, absl::string_view> values =
        KeyValues(text);
    int64_t offset_ns, mono_ns;
    if (!absl::SimpleAtoi(values["offset_ns"], &offset_ns)) return;
    if (!clock_epoch_us.has_value()) clock_epoch_us = offset_ns / 1000;
    if (!absl::SimpleAtoi(values["mono_ns"], &mono_ns)) return;
    last_pair = ClockPair{mono_ns / 1000, offset_ns / 1000};
    if (!first_pair.has_value()) first_pair = last_pair;
  }

  // The realtime clock (that of the capture's timestamps) can move against
  // the trace clock during a run: by 17-24 ms in 4 s on this VM (meta.json
  // trace.clock_pairs), several ACKs at 20 ms RTT. Between the first and
  // the last pair the offset is taken to move linearly, so each probe time
  // gets the offset of its moment, not the first pair's.
  void ApplyClockDrift(HostTrace& trace) const {
    if (!first_pair.has_value() || !last_pair.has_value() ||
        last_pair->trace_us <= first_pair->trace_us ||
        last_pair->offset_us == first_pair->offset_us) {
      return;
    }
    const double span_us =
        static_cast<double>(last_pair->trace_us - first_pair->trace_us);
    const double drift_us =
        static_cast<double>(last_pair->offset_us - first_pair->offset_us);
    auto shift = [&](int64_t& time_us) {
      const double f = std::clamp(
          static_cast<double>(time_us - first_pair->trace_us) / span_us, 0.0,
          1.0);
      time_us += static_cast<int64_t>(std::llround(f * drift_us));
    };
    CapturedSeries& c = trace.series;
    for (Series* series :
         {&c.cwnd_bytes, &c.cwnd_segments, &c.ssthresh_bytes,
          &c.ssthresh_segments, &c.srtt_us, &c.rttvar_us, &c.min_rtt_us,
          &c.latest_rtt_us, &c.bytes_in_flight, &c.pacing_rate_bps,
          &c.delivered_segments, &c.delivered_ce_segments, &c.bbr_bw_bps,
          &c.bbr_min_rtt_us, &c.bbr_pacing_gain, &c.bbr_cwnd_gain}) {
      for (SeriesPoint& point : *series) shift(point.time_us);
    }
    for (auto& [name, series] : c.other) {
      for (SeriesPoint& point : series) shift(point.time_us);
    }
    for (CongestionStateChange& change : c.congestion_states) {
      shift(change.time_us);
    }
  }

  // "<task>-<pid> [cpu] <flags> <seconds>: <event>: <fields>".
  bool AddFtraceLine(absl::string_view line) {
    size_t colon_space = line.find(": ");
    while (colon_space != absl::string_view::npos) {
      absl::string_view before = line.substr(0, colon_space);
      size_t space = before.find_last_of(' ');
      absl::string_view stamp =
          space == absl::string_view::npos ? before : before.substr(space + 1);
      std::optional<int64_t> time_us = ParseSecondsToUs(stamp);
      if (time_us.has_value()) {
        absl::string_view rest = line.substr(colon_space + 2);
        size_t event_end = rest.find(": ");
        if (event_end == absl::string_view::npos) return false;
        absl::string_view event = rest.substr(0, event_end);
        absl::string_view fields = rest.substr(event_end + 2);
        if (event == "tcp_probe") {
          AddProbeFields(*time_us, fields);
        } else if (event == "tcp_cong_state_set") {
          AddCongStateSet(*time_us, fields);
        } else if (event == "tracing_mark_write") {
          AddMark(fields);
        }
        return true;
      }
      colon_space = line.find(": ", colon_space + 2);
    }
    return false;
  }

  void AddProbeFields(int64_t time_us, absl::string_view text) {
    ProbeFields fields;
    fields.time_us = time_us;
    fields.values = KeyValues(text);
    auto src = fields.values.find("src");
    auto dest = fields.values.find("dest");
    if (src == fields.values.end() || dest == fields.values.end()) {
      Warn("tcp_probe line without src= and dest=, skipped");
      return;
    }
    fields.local = std::string(src->second);
    fields.remote = std::string(dest->second);
    AddProbe(fields);
  }

  // /proc/net/tcpprobe (net/ipv4/tcp_probe.c, removed in Linux 4.16):
  // "%lu.%09lu %pISpc %pISpc %d %#x %#x %u %u %u %u %u" = time, src, dst,
  // length, snd_nxt, snd_una, snd_cwnd, ssthresh, snd_wnd, srtt, rcv_wnd.
  // Older kernels printed "%lu.%09lu %pI4:%u %pI4:%u %d %#x %#x %u %u %u %u"
  // without rcv_wnd (e.g. the 2.6.32-based fastsocket kernel's
  // net/ipv4/tcp_probe.c, tcpprobe_sprint): 10 tokens instead of 11. No
  // kernel printed any other count; such a line is skipped with a warning.
  bool AddModuleLine(absl::string_view line) {
    static constexpr absl::string_view kNames[] = {
        "length",   "snd_nxt", "snd_una", "snd_cwnd",
        "ssthresh", "snd_wnd", "srtt",    "rcv_wnd"};
    constexpr size_t kLeadingTokens = 3;  // Time, src, dst.
    constexpr size_t kMaxTokens = kLeadingTokens + std::size(kNames);
    std::vector<absl::string_view> tokens =
        absl::StrSplit(line, ' ', absl::SkipEmpty());
    if (tokens.size() < kLeadingTokens) return false;
    std::optional<int64_t> time_us = ParseSecondsToUs(tokens[0]);
    if (!time_us.has_value() || !absl::StrContains(tokens[1], ':') ||
        !absl::StrContains(tokens[2], ':')) {
      return false;
    }
    if (tokens.size() != kMaxTokens && tokens.size() != kMaxTokens - 1) {
      SkipUnknownLine(
          line, absl::StrFormat("tcpprobe line with %d fields (the module "
                                "printed %d, or %d before rcv_wnd), skipped",
                                tokens.size(), kMaxTokens, kMaxTokens - 1));
      return true;
    }
    ProbeFields fields;
    fields.time_us = *time_us;
    fields.local = std::string(tokens[1]);
    fields.remote = std::string(tokens[2]);
    for (size_t i = kLeadingTokens; i < tokens.size(); ++i)
      fields.values[std::string(kNames[i - kLeadingTokens])] = tokens[i];
    module_format = true;
    AddProbe(fields);
    return true;
  }

  void AddLine(absl::string_view line) {
    ++line_number;
    line = absl::StripAsciiWhitespace(line);
    if (line.empty() || line[0] == '#') return;
    if (AddFtraceLine(line) || AddModuleLine(line)) return;
    SkipUnknownLine(line, "not a tcp_probe line, skipped");
  }

  // Remembers the first line not understood (for Finish's error) and warns.
  void SkipUnknownLine(absl::string_view line, absl::string_view reason) {
    if (first_unknown_line_number == 0) {
      first_unknown_line_number = line_number;
      first_unknown_line = std::string(line);
      first_unknown_reason = std::string(reason);
    }
    Warn(reason);
  }
};

TcpProbeParser::TcpProbeParser(std::string path)
    : state_(new State(std::move(path))) {}
TcpProbeParser::~TcpProbeParser() = default;

void TcpProbeParser::AddLine(absl::string_view line) { state_->AddLine(line); }

bool TcpProbeParser::LooksWrong() const {
  return state_->probe_lines == 0 &&
         state_->line_number >= kLinesBeforeGivingUp;
}

absl::StatusOr<HostStateLog> TcpProbeParser::Finish() {
  State& s = *state_;
  if (s.probe_lines == 0) {
    std::string where =
        s.first_unknown_line_number == 0
            ? absl::StrCat(s.log.path, ": ", s.line_number, " lines")
            : absl::StrFormat("%s:%d: first unrecognised line %s: %s",
                              s.log.path, s.first_unknown_line_number,
                              QuoteInput(s.first_unknown_line),
                              s.first_unknown_reason);
    return absl::InvalidArgumentError(absl::StrCat(
        "not a tcp_probe trace: no tcp_probe or tcp_cong_state_set line (",
        where, ")"));
  }
  for (HostTrace& trace : s.log.traces) {
    trace.clock =
        s.module_format
            ? "tcpprobe module clock (seconds since the module loaded)"
            : "ftrace trace_clock";
    trace.clock_epoch_us = s.clock_epoch_us;
    s.ApplyClockDrift(trace);
    // The data sender's snd_una advances by more than the payload it
    // receives; the receiver's barely moves.
    double acked = SeriesGrowth(trace.series.other, "snd_una_bytes");
    std::string key =
        absl::StrCat(trace.local_endpoint, " ", trace.remote_endpoint);
    trace.local_sends_data = acked > static_cast<double>(s.data_len_sum[key]);
  }
  s.warnings.Finish();
  return std::move(s.log);
}

absl::StatusOr<HostStateLog> ParseTcpProbe(const std::string& path) {
  return ParseLineByLine<TcpProbeParser>(path);
}

}  // namespace ccreplay
