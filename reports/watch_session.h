// `ccreplay watch`: a live capture on an interface, its flows refreshed
// every interval on the terminal (a table) or as JSON Lines (one
// proto::WatchFlowInterval per flow per interval), until a duration ends or
// SIGINT/SIGTERM; then, if asked, the diagnosis of one flow from the
// packets captured so far (kept meanwhile in a pcap file in a private
// temporary directory, removed before returning).
#ifndef CCREPLAY_REPORTS_WATCH_SESSION_H_
#define CCREPLAY_REPORTS_WATCH_SESSION_H_

#include <cstdio>
#include <optional>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/time/time.h"
#include "parsers/flow_table.h"
#include "proto/watch.pb.h"
#include "replay/live_flows.h"
#include "reports/diagnose_session.h"

namespace ccreplay {

struct WatchOptions {
  std::string interface;
  std::string filter;                      // pcap-filter(7); empty: all.
  std::optional<absl::Duration> duration;  // None: until a signal.
  absl::Duration interval = absl::Seconds(1);
  bool json = false;
  // Read the local stack's state of the flows whose sender is a socket of
  // this host (parsers/inet_diag.h) at every interval's end.
  bool host = true;
  // A flow with no packet for this long leaves the table
  // (LiveFlowExpiry::idle_ns).
  absl::Duration idle = absl::Seconds(60);
  // Diagnose a flow when stopped: `flow` as --flow takes it (empty: the
  // largest by bytes).
  bool diagnose = false;
  std::string flow;
  // The temporary capture's cap (CappedPcapDump): the newest part is kept.
  // 200 MB: ~1.2 M packets at 256-byte snapshots (~160 bytes a packet on
  // average), 10 s of a 1 Gbit/s transfer; /tmp is often in memory
  // (tmpfs), and a diagnosis of that many packets takes seconds.
  uint64_t keep_bytes = 200'000'000;
};

struct WatchResult {
  uint64_t packets = 0;       // Frames the filter passed.
  uint64_t kernel_drops = 0;  // Frames the ring had no room for.
  size_t flows = 0;
  std::vector<std::string> warnings;
  // With WatchOptions::diagnose, when the capture held a flow.
  std::optional<DiagnoseRun> diagnosis;
  absl::Status diagnosis_status;  // Why there is none, if there is none.
};

// Errors are LiveCapture::Open's (permission, no such interface, filter).
// Writes the intervals to `out`; a terminal (isatty) gets the table redrawn
// in place.
absl::StatusOr<WatchResult> RunWatch(const WatchOptions& options, FILE* out);

// One row of `--json`, `end_s` into the capture; ages are taken at
// `now_ns` (capture clock: ns since 1970).
proto::WatchFlowInterval WatchFlowIntervalProto(const LiveFlowInterval& row,
                                                double end_s, double interval_s,
                                                int64_t now_ns);

// --flow as this watch numbered it (FlowTable of the live capture), as
// the kept capture's reading will find it: an index becomes that flow's
// endpoints "ADDR:PORT-ADDR:PORT", as expiry and the --keep cap number
// flows differently from a reading of the kept file; other specs as given.
std::string FlowSpecForKeptCapture(const FlowTable& table,
                                   const std::string& spec);

// When the --keep cap dropped packets of the capture kept for the report,
// the warning naming the time range the report covers (clock time, and
// seconds after the watch `started`): from the first packet kept to the
// last one (`last_ns`); "" when nothing was dropped.
std::string KeptCaptureWarning(uint64_t dropped_frames, int64_t kept_since_ns,
                               int64_t last_ns, absl::Time started,
                               uint64_t keep_bytes);

// The terminal table of one interval.
std::string WatchTable(const std::vector<LiveFlowInterval>& rows, double end_s,
                       int64_t now_ns);

}  // namespace ccreplay

#endif  // CCREPLAY_REPORTS_WATCH_SESSION_H_
