#include "cli/common_flags.h"

#include "absl/flags/flag.h"

ABSL_FLAG(bool, json, false, "Write machine-readable JSON to stdout.");
ABSL_FLAG(bool, csv, false, "Write CSV to stdout.");
ABSL_FLAG(std::string, flow, "",
          "The flow: its index in `ccreplay flows`, or ADDR:PORT-ADDR:PORT. "
          "Default: the flow with the most payload.");
ABSL_FLAG(std::string, o, "", "Output path.");
ABSL_FLAG(std::string, cc, "",
          "Congestion controller(s). lab: the socket's controller (default "
          "cubic). replay/diagnose/simulate: reference controller specs from "
          "`ccreplay controllers`, separated by commas; an item key=value "
          "without ':' continues the previous spec "
          "(cubic,prague:v05,rtt_scaling=none).");
ABSL_FLAG(std::string, rate, "",
          "Bottleneck rate: Nkbit, Nmbit, Ngbit (lab default 50mbit).");
ABSL_FLAG(double, delay, 0,
          "Propagation delay in ms (lab: on the ACK path, netem or a TUN "
          "delay line).");
ABSL_FLAG(double, duration, 0, "Duration in seconds (lab default 5).");
ABSL_FLAG(int, mss, 0,
          "MSS in bytes for flows that do not set one (0: default).");
ABSL_FLAG(std::string, ss, "",
          "replay/diagnose: ss -tin log of the sender (its cwnd is the "
          "ground truth).");
ABSL_FLAG(std::string, probe, "",
          "replay/diagnose: tcp_probe trace of the sender (per-ACK ground "
          "truth).");
ABSL_FLAG(std::string, qlog, "",
          "replay/diagnose, QUIC: the sender's qlog; its ACK frames are "
          "replayed and its congestion_window is the ground truth (CAPTURE "
          "not needed).");
