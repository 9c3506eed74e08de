#include "reports/watch_session.h"

#include <limits.h>
#include <signal.h>
#include <stdlib.h>
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <memory>

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/time/clock.h"
#include "parsers/live_capture.h"
#include "proto/json_printer.h"

namespace ccreplay {
namespace {

// Set by the first SIGINT / SIGTERM while a watch runs.
volatile sig_atomic_t g_stop_requested = 0;
// The temporary capture file and directory to remove if a second signal
// aborts the diagnosis ("" when none): fixed buffers, as the handler may
// only make async-signal-safe calls (signal-safety(7): unlink, rmdir,
// _exit).
char g_temp_pcap[PATH_MAX] = "";
char g_temp_older[PATH_MAX] = "";  // CappedPcapDump::OlderPath.
char g_temp_dir[PATH_MAX] = "";

void OnStopSignal(int signal) {
  if (g_stop_requested == 0) {
    g_stop_requested = 1;
    return;
  }
  static constexpr char kMessage[] =
      "ccreplay watch: interrupted again: no report\n";
  (void)!write(STDERR_FILENO, kMessage, sizeof(kMessage) - 1);
  if (g_temp_pcap[0] != '\0') unlink(g_temp_pcap);
  if (g_temp_older[0] != '\0') unlink(g_temp_older);
  if (g_temp_dir[0] != '\0') rmdir(g_temp_dir);
  _exit(128 + signal);  // The shell's convention for death by a signal.
}

// Catches SIGINT and SIGTERM for its lifetime: the first ends the capture
// loop (the capture's poll returns EINTR, as no SA_RESTART is set) instead
// of the process, so the capture is flushed and closed, the diagnosis
// written and the temporary directory removed; a second one during the
// diagnosis removes the directory and exits. The previous handlers come
// back afterwards.
class StopOnSignal {
 public:
  StopOnSignal() {
    g_stop_requested = 0;
    struct sigaction action = {};
    action.sa_handler = OnStopSignal;
    sigemptyset(&action.sa_mask);
    sigaction(SIGINT, &action, &old_int_);
    sigaction(SIGTERM, &action, &old_term_);
  }
  ~StopOnSignal() {
    sigaction(SIGINT, &old_int_, nullptr);
    sigaction(SIGTERM, &old_term_, nullptr);
  }
  bool requested() const { return g_stop_requested != 0; }

 private:
  struct sigaction old_int_ = {}, old_term_ = {};
};

// A private directory (mode 0700, mkdtemp) holding the capture's pcap
// file; both are removed when it goes, or by a second stop signal.
class TempCaptureDir {
 public:
  static absl::StatusOr<std::unique_ptr<TempCaptureDir>> Create() {
    const char* tmp = getenv("TMPDIR");
    std::string pattern = absl::StrCat(tmp != nullptr && *tmp ? tmp : "/tmp",
                                       "/ccreplay-watch-XXXXXX");
    if (pattern.size() + 16 >= PATH_MAX || mkdtemp(pattern.data()) == nullptr) {
      return absl::UnavailableError(
          absl::StrCat(pattern, ": cannot create a temporary directory"));
    }
    return std::unique_ptr<TempCaptureDir>(new TempCaptureDir(pattern));
  }
  ~TempCaptureDir() {
    g_temp_pcap[0] = g_temp_older[0] = g_temp_dir[0] = '\0';
    unlink(pcap_path().c_str());
    unlink(CappedPcapDump::OlderPath(pcap_path()).c_str());
    rmdir(dir_.c_str());
  }
  std::string pcap_path() const { return dir_ + "/live.pcap"; }

 private:
  explicit TempCaptureDir(std::string dir) : dir_(std::move(dir)) {
    std::snprintf(g_temp_pcap, sizeof(g_temp_pcap), "%s", pcap_path().c_str());
    std::snprintf(g_temp_older, sizeof(g_temp_older), "%s",
                  CappedPcapDump::OlderPath(pcap_path()).c_str());
    std::snprintf(g_temp_dir, sizeof(g_temp_dir), "%s", dir_.c_str());
  }
  std::string dir_;
};

int64_t NowNs() { return absl::ToUnixNanos(absl::Now()); }

// The age of an event at `now_ns`, or none without an event.
std::optional<double> EventAgeS(const LiveFlowInterval& row, int64_t now_ns) {
  if (row.newest_event.empty()) return std::nullopt;
  return std::max<int64_t>(0, now_ns - row.newest_event_time_ns) / 1e9;
}

// The local stack's sockets, read at each interval's end while reading
// works: the first failure turns it off, with a warning.
class HostStateReader {
 public:
  explicit HostStateReader(bool enabled) : enabled_(enabled) {}
  void Attach(std::vector<LiveFlowInterval>& rows,
              std::vector<std::string>& warnings) {
    if (!enabled_ || rows.empty()) return;
    absl::StatusOr<std::vector<HostTcpSocket>> sockets = ReadLocalTcpSockets();
    if (!sockets.ok()) {
      enabled_ = false;
      warnings.push_back(
          absl::StrCat("no host state (--host): ", sockets.status().message()));
      return;
    }
    AttachHostState(IndexByEndpoints(*std::move(sockets)), rows);
  }

 private:
  bool enabled_;
};

// Writes one interval's rows to `out`: JSON Lines, or the table (redrawn
// in place on a terminal).
void WriteInterval(const std::vector<LiveFlowInterval>& rows, double end_s,
                   double interval_s, bool json, FILE* out) {
  const int64_t now_ns = NowNs();
  if (json) {
    for (const LiveFlowInterval& row : rows) {
      std::fputs(
          PrintJson(WatchFlowIntervalProto(row, end_s, interval_s, now_ns),
                    JsonPrintOptions{0})
              .c_str(),
          out);
    }
  } else {
    // ANSI: cursor home, clear screen (ECMA-48 CUP and ED).
    if (isatty(fileno(out))) std::fputs("\033[H\033[2J", out);
    std::fputs(WatchTable(rows, end_s, now_ns).c_str(), out);
  }
  std::fflush(out);
}

// Captures until the duration ends or a signal comes, writing an interval
// of rows every options.interval (and the last, shorter one at the end).
absl::Status WatchLoop(const WatchOptions& options, const StopOnSignal& stop,
                       LiveCapture& capture, LiveFlowMonitor& monitor,
                       std::vector<std::string>& warnings, FILE* out) {
  const absl::Time start = absl::Now();
  const absl::Time end = options.duration.has_value()
                             ? start + *options.duration
                             : absl::InfiniteFuture();
  absl::Time interval_start = start;
  HostStateReader host(options.host);
  // Closes the interval at `now` and writes it.
  auto write_interval = [&](absl::Time now) {
    std::vector<LiveFlowInterval> rows =
        monitor.EndInterval(absl::ToInt64Nanoseconds(now - interval_start));
    host.Attach(rows, warnings);
    WriteInterval(rows, absl::ToDoubleSeconds(now - start),
                  absl::ToDoubleSeconds(now - interval_start), options.json,
                  out);
    // Packet times are the kernel's wall clock (ns since 1970).
    monitor.ExpireFlows(absl::ToUnixNanos(now));
    interval_start = now;
  };
  absl::Status status;
  while (!stop.requested()) {
    const absl::Time now = absl::Now();
    const absl::Time tick = std::min(interval_start + options.interval, end);
    if (now >= tick) {
      write_interval(now);
      if (now >= end) return status;
      continue;
    }
    absl::StatusOr<int> polled =
        capture.Poll(std::min(tick - now, absl::Milliseconds(100)));
    if (!polled.ok()) {
      status = polled.status();  // The interface went away: stop, keep all.
      break;
    }
  }
  write_interval(absl::Now());
  return status;
}

// The WatchFlowInterval host_* fields of `socket`, each only when known.
void SetHostFields(const HostTcpSocket& socket,
                   proto::WatchFlowInterval& message) {
  if (socket.cwnd_segments.has_value())
    message.set_host_cwnd_segments(*socket.cwnd_segments);
  if (socket.cwnd_bytes().has_value())
    message.set_host_cwnd_bytes(*socket.cwnd_bytes());
  if (socket.ssthresh_segments.has_value())
    message.set_host_ssthresh(*socket.ssthresh_segments);
  if (socket.srtt_us.has_value())
    message.set_host_srtt_ms(*socket.srtt_us / 1e3);
  if (socket.pacing_rate_bps.has_value())
    message.set_host_pacing_rate_bps(*socket.pacing_rate_bps);
  if (socket.delivery_rate_bps.has_value())
    message.set_host_delivery_rate_bps(*socket.delivery_rate_bps);
  if (!socket.cc.empty()) message.set_host_cc(socket.cc);
}

}  // namespace

proto::WatchFlowInterval WatchFlowIntervalProto(const LiveFlowInterval& row,
                                                double end_s, double interval_s,
                                                int64_t now_ns) {
  proto::WatchFlowInterval message;
  message.set_interval_end_s(end_s);
  message.set_interval_s(interval_s);
  message.set_flow_index(row.flow_index);
  message.set_sender(row.sender);
  message.set_receiver(row.receiver);
  if (row.rate_bps.has_value()) message.set_rate_bps(*row.rate_bps);
  message.set_send_rate_bps(row.send_rate_bps);
  if (row.srtt_ms.has_value()) message.set_srtt_ms(*row.srtt_ms);
  message.set_packets(row.packets);
  message.set_data_bytes(row.data_bytes);
  message.set_retransmissions(row.retransmissions);
  message.set_limit(row.limit);
  message.set_newest_event(row.newest_event);
  std::optional<double> age = EventAgeS(row, now_ns);
  if (age.has_value()) message.set_newest_event_age_s(*age);
  if (row.host.has_value()) SetHostFields(*row.host, message);
  return message;
}

std::string WatchTable(const std::vector<LiveFlowInterval>& rows, double end_s,
                       int64_t now_ns) {
  std::string text = absl::StrFormat(
      "%.1f s, active flows: %d\n%4s  %-45s %11s %11s %9s %9s %7s %7s %9s  "
      "%s\n",
      end_s, rows.size(), "#", "flow", "goodput", "sending", "srtt", "packets",
      "retx", "limit", "host cwnd", "newest event");
  for (const LiveFlowInterval& row : rows) {
    const std::string goodput =
        row.rate_bps.has_value()
            ? absl::StrFormat("%.2f Mb/s", *row.rate_bps / 1e6)
            : "n/a";
    const std::string srtt = row.srtt_ms.has_value()
                                 ? absl::StrFormat("%.2f ms", *row.srtt_ms)
                                 : "n/a";
    std::optional<double> age = EventAgeS(row, now_ns);
    const std::string event =
        age.has_value()
            ? absl::StrFormat("%s (%.1f s ago)", row.newest_event, *age)
            : "-";
    // The kernel's own cwnd in segments, when the sender is local.
    const std::string host_cwnd =
        row.host.has_value() && row.host->cwnd_segments.has_value()
            ? absl::StrCat(*row.host->cwnd_segments)
            : "n/a";
    absl::StrAppendFormat(
        &text, "%4u  %-45s %11s %6.2f Mb/s %9s %9u %7u %7s %9s  %s\n",
        row.flow_index, absl::StrCat(row.sender, " > ", row.receiver), goodput,
        row.send_rate_bps / 1e6, srtt, row.packets, row.retransmissions,
        row.limit, host_cwnd, event);
  }
  return text;
}

absl::StatusOr<WatchResult> RunWatch(const WatchOptions& options, FILE* out) {
  StopOnSignal stop;  // Before the directory exists, until it is gone.
  std::unique_ptr<TempCaptureDir> temp;
  if (options.diagnose) {
    absl::StatusOr<std::unique_ptr<TempCaptureDir>> made =
        TempCaptureDir::Create();
    if (!made.ok()) return made.status();
    temp = *std::move(made);
  }
  LiveFlowMonitor monitor(
      LiveFlowExpiry{absl::ToInt64Nanoseconds(options.idle)});
  LiveCaptureOptions capture_options{options.interface, options.filter,
                                     temp ? temp->pcap_path() : "",
                                     options.keep_bytes};
  absl::StatusOr<std::unique_ptr<LiveCapture>> capture =
      LiveCapture::Open(capture_options, monitor);
  if (!capture.ok()) return capture.status();
  WatchResult result;
  const absl::Time started = absl::Now();
  absl::Status looped =
      WatchLoop(options, stop, **capture, monitor, result.warnings, out);
  if (!looped.ok()) result.warnings.push_back(std::string(looped.message()));
  result.kernel_drops = (*capture)->kernel_drops();
  (*capture)->Close();
  const CaptureInfo& info = (*capture)->info();
  result.packets = info.packets;
  result.flows = monitor.flow_table().flows().size();
  result.warnings.insert(result.warnings.end(), info.warnings.begin(),
                         info.warnings.end());
  if (!options.diagnose) return result;
  const CappedPcapDump& dump = *(*capture)->dump();
  if (!dump.error().empty()) {
    result.warnings.push_back(absl::StrCat(
        "the capture for the report stopped early: ", dump.error()));
  }
  std::string kept =
      KeptCaptureWarning(dump.dropped_frames(), dump.kept_since_ns(),
                         info.last_packet_time_ns, started, options.keep_bytes);
  if (!kept.empty()) result.warnings.push_back(std::move(kept));
  DiagnoseOptions diagnose;
  diagnose.input = temp->pcap_path();
  diagnose.flow = FlowSpecForKeptCapture(monitor.flow_table(), options.flow);
  diagnose.capture.filter = options.filter;
  absl::StatusOr<DiagnoseRun> run = DiagnoseInput(diagnose);
  if (run.ok()) {
    result.diagnosis = *std::move(run);
  } else {
    result.diagnosis_status = run.status();
  }
  return result;
}

std::string FlowSpecForKeptCapture(const FlowTable& table,
                                   const std::string& spec) {
  uint32_t index = 0;
  if (!absl::SimpleAtoi(spec, &index) || index >= table.flows().size())
    return spec;
  const Flow& flow = table.flows()[index];
  return absl::StrCat(EndpointString(flow.address[0], flow.port[0]), "-",
                      EndpointString(flow.address[1], flow.port[1]));
}

std::string KeptCaptureWarning(uint64_t dropped_frames, int64_t kept_since_ns,
                               int64_t last_ns, absl::Time started,
                               uint64_t keep_bytes) {
  if (dropped_frames == 0) return "";
  const absl::Time from = absl::FromUnixNanos(kept_since_ns);
  const absl::Time to = absl::FromUnixNanos(std::max(last_ns, kept_since_ns));
  return absl::StrFormat(
      "the report covers only the capture from %s to %s (%.1f s to %.1f s "
      "into the watch): --keep %g MB dropped the %d packets before it",
      absl::FormatTime("%H:%M:%E3S", from, absl::LocalTimeZone()),
      absl::FormatTime("%H:%M:%E3S", to, absl::LocalTimeZone()),
      absl::ToDoubleSeconds(from - started),
      absl::ToDoubleSeconds(to - started), keep_bytes / 1e6, dropped_frames);
}

}  // namespace ccreplay
