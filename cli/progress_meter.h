// The progress line a long read draws on stderr: bytes read of the total,
// rate and time left (records and their rate when the input's size is not
// known, as for stdin). Drawn only when stderr is a terminal, not before
// the work has taken a second, and never under --quiet.
#ifndef CCREPLAY_CLI_PROGRESS_METER_H_
#define CCREPLAY_CLI_PROGRESS_METER_H_

#include <cstdio>
#include <string>

#include "absl/strings/string_view.h"
#include "absl/time/time.h"
#include "parsers/capture_filter.h"

namespace ccreplay {

// "12.3 MB of 45.6 MB (27%), 8.1 MB/s, 4 s left", or
// "1234567 packets, 310000 packets/s" when the total is not known. Rate
// and time left are left out when `elapsed` is zero or nothing was read.
std::string FormatProgress(const ReadProgress& progress,
                           absl::Duration elapsed);

class ProgressMeter {
 public:
  // How long the work runs before the line appears: a read that ends sooner
  // leaves stderr untouched.
  static constexpr absl::Duration kQuietStart = absl::Seconds(1);
  // The shortest time between two redraws.
  static constexpr absl::Duration kRedrawInterval = absl::Milliseconds(200);

  // Draws "ccreplay COMMAND: ..." on `out` when `enabled`.
  ProgressMeter(absl::string_view command, bool enabled, FILE* out,
                absl::Time start = absl::Now());
  // Finish().
  ~ProgressMeter();
  ProgressMeter(const ProgressMeter&) = delete;
  ProgressMeter& operator=(const ProgressMeter&) = delete;

  // For CaptureReadOptions::progress; holds no function when disabled.
  ProgressCallback Callback();

  // A reader's report at `now`. A report behind the one before (the next
  // pass over the input) starts the rate afresh.
  void Update(const ReadProgress& progress, absl::Time now);

  // The reading is over: clears the line if one was drawn (before the
  // command prints its results and warnings); draws nothing after.
  void Finish();

 private:
  std::string command_;
  bool enabled_;
  FILE* out_;
  absl::Time start_;
  absl::Time pass_start_;
  absl::Time last_draw_ = absl::InfinitePast();
  uint64_t last_packets_ = 0;
  bool drawn_ = false;
};

// Whether progress may be drawn: stderr is a terminal and not `quiet`.
bool ProgressWanted(bool quiet);

}  // namespace ccreplay

#endif  // CCREPLAY_CLI_PROGRESS_METER_H_
