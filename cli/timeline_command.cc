// `ccreplay timeline CAPTURE [--flow SEL] [--csv|--json]`: the ACK timeline
// of one flow's sender.
#include <cstdio>
#include <string>

#include "absl/flags/flag.h"
#include "cli/capture_flags.h"
#include "cli/commands.h"
#include "cli/common_flags.h"
#include "cli/exit_codes.h"
#include "parsers/flow_table.h"
#include "parsers/input_stream.h"
#include "parsers/pcap_reader.h"
#include "replay/ack_timeline.h"
#include "replay/flow_selection.h"
#include "replay/timeline_writer.h"

namespace ccreplay {
namespace {

TimelineWriter::Format FormatFromFlags() {
  return absl::GetFlag(FLAGS_json)  ? TimelineWriter::Format::kJson
         : absl::GetFlag(FLAGS_csv) ? TimelineWriter::Format::kCsv
                                    : TimelineWriter::Format::kText;
}

// The capture's warnings, then the flow's.
void PrintWarnings(const std::string& path, const CaptureInfo& info,
                   const TimelineStats& stats, uint32_t flow_index) {
  for (const std::string& warning : info.warnings) {
    std::fprintf(stderr, "ccreplay timeline: warning: %s: %s\n", path.c_str(),
                 warning.c_str());
  }
  for (const std::string& warning : stats.warnings) {
    std::fprintf(stderr, "ccreplay timeline: warning: flow %u: %s\n",
                 flow_index, warning.c_str());
  }
}

}  // namespace

int RunTimeline(const Args& args) {
  if (args.size() != 1 ||
      (absl::GetFlag(FLAGS_csv) && absl::GetFlag(FLAGS_json))) {
    std::fprintf(
        stderr,
        "usage: ccreplay timeline CAPTURE [--flow N|ADDR:PORT-ADDR:PORT] "
        "[--csv|--json] [--filter EXPR]  (see --help)\n");
    return kExitUsage;
  }
  const std::string& path = args[0];
  ProgressMeter meter = MeterFromFlags("timeline");
  CaptureReadOptions read_options;
  const int flags =
      CaptureOptionsFromFlags("timeline", path, meter, &read_options);
  if (flags != kExitOk) return flags;
  // Read twice: a pipe is spooled to a temporary file first.
  absl::StatusOr<std::string> spooled = SpoolForRereading(path);
  if (!spooled.ok()) return ReportFailure("timeline", spooled.status());
  if (!spooled->empty()) {
    std::fprintf(stderr, "ccreplay timeline: warning: %s\n", spooled->c_str());
  }
  // Pass 1: the flows, to choose one and its sender. A gzip capture's
  // decompressed bytes are kept for pass 2.
  read_options.reuse = std::make_shared<DecompressedCapture>();
  FlowTable table;
  absl::StatusOr<CaptureInfo> info = ReadCapture(path, table, read_options);
  if (!info.ok()) {
    return ReportFailure("timeline", info.status());
  }
  absl::StatusOr<SelectedFlow> selected =
      SelectCaptureFlow(table, *info, absl::GetFlag(FLAGS_flow));
  if (!selected.ok()) {
    std::fprintf(stderr, "ccreplay timeline: %s: %s\n", path.c_str(),
                 std::string(selected.status().message()).c_str());
    return selected.status().code() == absl::StatusCode::kInvalidArgument
               ? kExitUsage
               : ExitCodeForStatus(selected.status());
  }
  TimelineWriter writer(FormatFromFlags(), stdout, info->first_packet_time_ns);
  writer.Begin(path, table.flows()[selected->index]);
  // Pass 2: the timeline, streamed to the writer.
  AckTimelineBuilder builder(
      selected->index, selected->sender_side,
      [&writer](const TimelineEvent& e) { writer.Write(e); });
  builder.UseFirstPass(table.flows()[selected->index]);
  absl::StatusOr<CaptureInfo> second = ReadCapture(path, builder, read_options);
  builder.Finish();
  meter.Finish();
  if (!second.ok()) {
    return ReportFailure("timeline", second.status());
  }
  const TimelineStats stats = builder.Stats(selected->index);
  writer.End(stats);
  PrintWarnings(path, *info, stats, selected->index);
  return info->truncated ? kExitPartial : kExitOk;
}

}  // namespace ccreplay
