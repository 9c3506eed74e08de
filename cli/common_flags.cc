#include "cli/common_flags.h"

#include <fstream>

#include "absl/flags/flag.h"

// Each command documents what these mean for it (cli/command_table.cc);
// the texts below serve the commands that take the flag as it is.
ABSL_FLAG(bool, json, false, "write machine-readable JSON to stdout.");
ABSL_FLAG(bool, csv, false, "write CSV to stdout.");
ABSL_FLAG(std::string, flow, "",
          "the flow: its index in `ccreplay flows`, or ADDR:PORT-ADDR:PORT. "
          "Default: the flow with the most payload.");
ABSL_FLAG(std::string, o, "", "output path.");
ABSL_FLAG(std::string, cc, "", "congestion controller(s).");
ABSL_FLAG(std::optional<ccreplay::BitRate>, rate, std::nullopt,
          "bottleneck rate in bits per second (50mbit).");
ABSL_FLAG(std::optional<absl::Duration>, delay, std::nullopt,
          "delay with its unit (10ms).");
ABSL_FLAG(std::optional<absl::Duration>, duration, std::nullopt,
          "duration with its unit (5s).");
ABSL_FLAG(int, mss, 0, "MSS in bytes (0: default).");
ABSL_FLAG(std::string, ss, "",
          "ss -tin log of the sender (its cwnd is the ground truth).");
ABSL_FLAG(std::string, probe, "",
          "tcp_probe trace of the sender (per-ACK ground truth).");
ABSL_FLAG(std::vector<std::string>, flows, {},
          "comma-separated flows (`ccreplay lab` and `ccreplay diagnose` "
          "read them differently: see their --help).");
ABSL_FLAG(std::string, qlog, "",
          "QUIC: the sender's qlog; its ACK frames are replayed and its "
          "congestion_window is the ground truth (no CAPTURE needed).");

namespace ccreplay {

bool WriteFile(const std::string& path, const std::string& content) {
  std::ofstream out(path, std::ios::binary);
  out.write(content.data(), static_cast<std::streamsize>(content.size()));
  return static_cast<bool>(out);
}

}  // namespace ccreplay
