#include "cli/progress_meter.h"

#include <unistd.h>

#include <algorithm>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"

namespace ccreplay {
namespace {

// Bytes in SI megabytes with one decimal ("12.3 MB"): for the eye; exact
// counts are in the command's output.
std::string Megabytes(double bytes) {
  return absl::StrFormat("%.1f MB", bytes / 1e6);
}

// "4 s", "2 min 05 s", "1 h 03 min".
std::string TimeLeft(double seconds) {
  const int64_t s = static_cast<int64_t>(seconds + 0.5);
  if (s < 60) return absl::StrCat(s, " s");
  if (s < 3600) return absl::StrFormat("%d min %02d s", s / 60, s % 60);
  return absl::StrFormat("%d h %02d min", s / 3600, (s % 3600) / 60);
}

}  // namespace

std::string FormatProgress(const ReadProgress& progress,
                           absl::Duration elapsed) {
  const double seconds = absl::ToDoubleSeconds(elapsed);
  if (progress.total_bytes == 0) {
    std::string line = absl::StrCat(progress.packets, " packets");
    if (seconds > 0 && progress.packets > 0) {
      absl::StrAppend(&line, ", ",
                      static_cast<uint64_t>(progress.packets / seconds),
                      " packets/s");
    }
    return line;
  }
  // A file that grew while it was read: never past 100 %.
  const uint64_t read = std::min(progress.bytes_read, progress.total_bytes);
  std::string line =
      absl::StrCat(Megabytes(read), " of ", Megabytes(progress.total_bytes),
                   " (", read * 100 / progress.total_bytes, "%)");
  if (seconds > 0 && read > 0) {
    const double rate = read / seconds;
    absl::StrAppend(&line, ", ", Megabytes(rate), "/s, ",
                    TimeLeft((progress.total_bytes - read) / rate), " left");
  }
  return line;
}

ProgressMeter::ProgressMeter(absl::string_view command, bool enabled, FILE* out,
                             absl::Time start)
    : command_(command),
      enabled_(enabled),
      out_(out),
      start_(start),
      pass_start_(start) {}

ProgressMeter::~ProgressMeter() { Finish(); }

void ProgressMeter::Finish() {
  // "\r" and erase-to-end-of-line (ECMA-48 EL, CSI K): the line goes.
  if (drawn_) std::fputs("\r\033[K", out_);
  drawn_ = false;
  enabled_ = false;
}

ProgressCallback ProgressMeter::Callback() {
  if (!enabled_) return ProgressCallback();
  return
      [this](const ReadProgress& progress) { Update(progress, absl::Now()); };
}

void ProgressMeter::Update(const ReadProgress& progress, absl::Time now) {
  if (!enabled_) return;
  if (progress.packets < last_packets_) pass_start_ = now;
  last_packets_ = progress.packets;
  if (now - start_ < kQuietStart || now - last_draw_ < kRedrawInterval) return;
  last_draw_ = now;
  drawn_ = true;
  std::fprintf(out_, "\rccreplay %s: %s\033[K", command_.c_str(),
               FormatProgress(progress, now - pass_start_).c_str());
  std::fflush(out_);
}

bool ProgressWanted(bool quiet) { return !quiet && isatty(STDERR_FILENO); }

}  // namespace ccreplay
