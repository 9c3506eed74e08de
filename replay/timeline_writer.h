// Writes the ACK timeline as it streams: a compact table for people, CSV
// with every field, or one JSON document (proto::AckTimelineReport,
// proto/timeline.proto) whose "events" array is written event by event
// (never held whole).
#ifndef CCREPLAY_REPLAY_TIMELINE_WRITER_H_
#define CCREPLAY_REPLAY_TIMELINE_WRITER_H_

#include <cstdint>
#include <cstdio>
#include <string>

#include "parsers/flow_table.h"
#include "proto/json_printer.h"
#include "proto/timeline.pb.h"
#include "replay/ack_timeline.h"

namespace ccreplay {

// The flow's totals as `timeline --json` ("summary") and `flows --json`
// ("timeline") print them.
proto::AckTimelineSummary AckTimelineSummaryProto(const TimelineStats& stats);
// The same message written straight as JSON into the object `out` opened,
// field for field as AckTimelineSummaryProto sets it (`flows --json`
// writes a million; timeline_writer_test compares the two).
void WriteAckTimelineSummaryJson(const TimelineStats& stats,
                                 JsonObjectWriter& out);
// One event, its time in seconds since `origin_ns`.
proto::AckTimelineEvent AckTimelineEventProto(const TimelineEvent& event,
                                              int64_t origin_ns);

class TimelineWriter {
 public:
  enum class Format { kText, kCsv, kJson };
  // Times are written in seconds since `origin_ns` (the capture's first
  // packet).
  TimelineWriter(Format format, std::FILE* out, int64_t origin_ns);

  // The header: the flow as `ccreplay flows` identifies it.
  void Begin(const std::string& capture_path, const Flow& flow);
  void Write(const TimelineEvent& event);
  // The trailer: the flow's totals and warnings.
  void End(const TimelineStats& stats);

  // The CSV header line (the JSON event's field names, in order) and one
  // row (without newline), for tests.
  static std::string CsvHeader();
  std::string CsvRow(const TimelineEvent& event) const;

 private:
  void Put(const std::string& text);

  Format format_;
  std::FILE* out_;
  int64_t origin_ns_;
  bool first_event_ = true;
};

}  // namespace ccreplay

#endif  // CCREPLAY_REPLAY_TIMELINE_WRITER_H_
