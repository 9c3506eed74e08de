// What a `ccreplay lab` run builds and measures: the parsed, validated form
// of the command line. Parsing lives here so that the cli/ layer only moves
// flag strings into ParseLabConfig().
#ifndef CCREPLAY_LAB_LAB_CONFIG_H_
#define CCREPLAY_LAB_LAB_CONFIG_H_

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "absl/time/time.h"
#include "replay/sim/units.h"

namespace ccreplay::lab {

// ECN negotiation mode, applied through net.ipv4.tcp_ecn in the sender and
// receiver namespaces (Documentation/networking/ip-sysctl.rst: 0 off,
// 1 request and accept RFC 3168 ECN; 3 request AccECN on kernels that have
// it).
enum class EcnMode { kOff, kRfc3168, kAccEcn };

// The bottleneck queue behind the HTB shaper: a packet-counted pfifo or a
// byte-counted bfifo (tc-pfifo(8)).
struct QueueSpec {
  bool in_packets = true;
  int64_t limit = 1000;  // packets when in_packets, else bytes
};

// One transfer from the sender namespace to the receiver namespace: a TCP
// connection, or with --transfer ngtcp2 a QUIC connection whose server (the
// data sender) runs in the sender namespace.
struct FlowSpec {
  std::string cc;     // per-socket TCP_CONGESTION; ngtcp2's --cc
  int mss_bytes = 0;  // TCP_MAXSEG before connect; 0 = path default
  // Application-limited: the sender writes at most this rate (bits/s);
  // 0 = bulk (always has data).
  int64_t app_rate_bits_per_s = 0;
  // ngtcp2 only: the server's --max-udp-payload-size (the largest UDP
  // payload it sends); 0 = ngtcp2's default (1200 bytes with PMTUD off).
  int max_udp_payload_bytes = 0;
  // The bottleneck the flow crosses: 1 (--rate/--queue/--delay) or 2
  // (--rate2/--queue2/--delay2, LabConfig::second_path).
  int path = 1;
  // How long app_rate_bits_per_s holds (`rate_for=`), after which the flow
  // sends bulk: an application-limited phase. Zero = the whole run.
  // Built-in sender only (iperf3's -b holds for the whole run). Last, so
  // that aggregate initializers of the fields above stay valid.
  absl::Duration app_rate_for = absl::ZeroDuration();
  // The receiver socket's SO_RCVBUF (`rcvbuf=`), set before listen() so
  // the accepted socket has it from the handshake: the kernel doubles it
  // for its overhead and locks it (SOCK_RCVBUF_LOCK, no autotuning:
  // sk_setsockopt(), net/core/sock.c; tcp_rcv_space_adjust(),
  // tcp_input.c, 6.18), so the advertised window stays near it: a
  // receive-window-limited flow. 0 = the namespace's tcp_rmem. Built-in
  // transfer only.
  int rcvbuf_bytes = 0;
};

// A bottleneck the lab can route flows through: an HTB class of this rate
// with a pfifo/bfifo under it on the router's egress towards the receiver,
// and the propagation delay of its ACK path.
struct PathSpec {
  int64_t rate_bits_per_s = 50'000'000;
  QueueSpec queue;
  double delay_ms = 0;
};

// kNgtcp2: Debian's ngtcp2 examples (gtlsserver/gtlsclient), an HTTP/3
// download from the sender namespace (lab/ngtcp2_transfer.h).
enum class TransferTool { kAuto, kIperf3, kBuiltin, kNgtcp2 };

// Whether the TCP sockets are paced (--paced). A Linux socket is paced when
// any controller it ever had set sk_pacing_status to SK_PACING_NEEDED
// (bbr_init(), tcp_bbr.c) or SO_MAX_PACING_RATE was set (sk_setsockopt(),
// net/core/sock.c, 6.18); tcp_reinit_congestion_control() (tcp_cong.c)
// never clears it, and it changes CUBIC's HyStart (hystart_update()).
// kAuto: as the transfer tool does it by default (the built-in sender
// sets TCP_CONGESTION before connect(): unpaced; iperf3 sets it after
// connect(): paced under a bbr namespace default). kOn: the built-in
// sender sets SO_MAX_PACING_RATE, iperf3 runs under a bbr namespace
// default. kOff: the built-in sender as kAuto, iperf3 under a reno
// namespace default (reno never paces).
enum class PacingMode { kAuto, kOn, kOff };

struct LabConfig {
  std::string cc = "cubic";
  EcnMode ecn = EcnMode::kOff;
  int64_t rate_bits_per_s = 50'000'000;
  QueueSpec queue;
  // CE marking threshold of the step marker in bytes of virtual backlog;
  // 0 = no marker.
  int64_t mark_step_bytes = 0;
  double delay_ms = 0;
  double duration_s = 5;
  std::vector<FlowSpec> flows;  // at least one after parsing
  // The second bottleneck; set exactly when a flow has path=2.
  std::optional<PathSpec> second_path;
  TransferTool transfer = TransferTool::kAuto;
  PacingMode paced = PacingMode::kAuto;
  std::string output_dir;
  // Reordering on the data path (router from the sender): this percentage
  // of the packets is held reorder_delay longer than the rest by a TUN
  // line of its own (lab/delay_line.h); 0 = none.
  double reorder_percent = 0;
  absl::Duration reorder_delay = absl::Milliseconds(1);
};

// The value of net.ipv4.tcp_ecn that selects `mode`.
int TcpEcnSysctl(EcnMode mode);

// Text forms, as accepted on the command line.
absl::string_view EcnModeName(EcnMode mode);
absl::string_view TransferToolName(TransferTool tool);
absl::string_view PacingModeName(PacingMode mode);

// "none" or "step:K" where K is bytes ("step:60000", "step:60kB").
absl::StatusOr<int64_t> ParseMarkStepBytes(absl::string_view text);
// "CC[:mss=BYTES][:rate=RATE[:rate_for=TIME]][:path=1|2][:rcvbuf=BYTES]
// [:max_udp_payload=BYTES]", e.g. "reno", "cubic:mss=1200:rate=10mbit",
// "bbr:rate=5mbit:rate_for=1500ms", "cubic:path=2",
// "reno:max_udp_payload=1280".
absl::StatusOr<FlowSpec> ParseFlowSpec(absl::string_view text);

// The command line, initialised to the lab's defaults (the cli overwrites a
// field only when its flag was given), its quantities typed
// (replay/sim/units.h); --flows empty means one flow of --cc/--mss.
struct LabFlagValues {
  std::string cc = "cubic";
  std::string ecn = "off";
  BitRate rate{50'000'000};
  // A time is the bytes the shaper sends in it (a bfifo).
  BufferSize queue{BufferSize::Unit::kPackets, 1000, absl::ZeroDuration()};
  std::string mark = "none";
  std::string transfer = "auto";
  std::string paced = "auto";
  std::string output_dir;
  absl::Duration delay = absl::ZeroDuration();
  absl::Duration duration = absl::Seconds(5);
  int mss_bytes = 0;
  std::vector<std::string> flows;
  // The second bottleneck (flows with path=2); unset = as the first. A
  // queue given as a time is the bytes the second shaper sends in it.
  std::optional<BitRate> rate2;
  std::optional<BufferSize> queue2;
  std::optional<absl::Duration> delay2;
  double reorder_percent = 0;
  absl::Duration reorder_delay = absl::Milliseconds(1);
};
absl::StatusOr<LabConfig> ParseLabConfig(const LabFlagValues& flags);

}  // namespace ccreplay::lab

#endif  // CCREPLAY_LAB_LAB_CONFIG_H_
