// Reads a series of `ss -tin` snapshots (iproute2 misc/ss.c) as people
// record them: `ss -tin`, `-tino`, `-tinoe`, `-tinm`, `-tinp`, the `-O`
// one-line form and the two-line form (info on a tab-indented continuation
// line), IPv4 and IPv6 (brackets, %scope), bracketed blocks (`users:`,
// `timer:`, `skmem:`, `bbr:`, `dctcp:`, vendor blocks) kept as key/values,
// raw (`-n`) and SI-scaled rates, and the usual timestamp conventions:
//   `# t=<epoch s>` lines, Flent's `Time: <epoch s>`, `timestamp:<epoch s>`,
//   `==== Time N ====` blocks, a line holding only a number, and a leading
//   epoch column (`ts '%.s'` or `ts '%.s,'` prefixes).
// Samples are matched to their connection by local and peer address:port.
// Output: one HostTrace per connection with every numeric field as a series
// and cwnd/ssthresh also in bytes (× the sample's `mss:`).
#ifndef CCREPLAY_PARSERS_SS_LOG_H_
#define CCREPLAY_PARSERS_SS_LOG_H_

#include <cstdint>
#include <memory>
#include <string>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "parsers/host_state.h"

namespace ccreplay {

// Parses the ss log at `path` (gzip read transparently). InvalidArgument
// when the file holds no ss socket line (it is not an ss log); the error
// names the file and the first line that was not understood.
absl::StatusOr<HostStateLog> ParseSsLog(const std::string& path);

// The same parser fed line by line, for callers that already hold the text
// (the fuzzer, tests of single lines).
class SsLogParser {
 public:
  explicit SsLogParser(std::string path);
  ~SsLogParser();
  SsLogParser(const SsLogParser&) = delete;
  SsLogParser& operator=(const SsLogParser&) = delete;

  // `line` without its newline.
  void AddLine(absl::string_view line);
  // True once enough lines went by without a socket line that the input is
  // evidently not an ss log; Finish() then says so.
  bool LooksWrong() const;
  absl::StatusOr<HostStateLog> Finish();

 private:
  struct State;
  std::unique_ptr<State> state_;
};

}  // namespace ccreplay

#endif  // CCREPLAY_PARSERS_SS_LOG_H_
