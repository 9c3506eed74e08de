// Reads kernel TCP probe text: the ftrace output of the `tcp:tcp_probe`
// tracepoint in its old and new field sets (with or without `family=`,
// `sock_cookie=`, `skbaddr=`, `skaddr=`; `length=` before it became
// `data_len=`), the `/proc/net/tcpprobe` lines of the old tcp_probe module,
// and `tcp:tcp_cong_state_set` lines (include/trace/events/tcp.h).
//
// A tcp_probe line is written at the top of tcp_rcv_established(), so its
// snd_cwnd / ssthresh / srtt / snd_una are the values BEFORE the received
// segment's ACK is processed (input-formats.md §3). The series keep the
// probe's time; replay/ must pair a sample with the ACK that follows it.
//
// One HostTrace per socket, keyed by its local (src) and remote (dest)
// address:port. snd_cwnd is in segments and the probe carries no MSS, so
// cwnd_bytes stays empty.
#ifndef CCREPLAY_PARSERS_TCP_PROBE_H_
#define CCREPLAY_PARSERS_TCP_PROBE_H_

#include <memory>
#include <string>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "parsers/host_state.h"

namespace ccreplay {

// InvalidArgument when the file holds no tcp_probe or tcp_cong_state_set
// line, naming the first line that was not understood.
absl::StatusOr<HostStateLog> ParseTcpProbe(const std::string& path);

class TcpProbeParser {
 public:
  explicit TcpProbeParser(std::string path);
  ~TcpProbeParser();
  TcpProbeParser(const TcpProbeParser&) = delete;
  TcpProbeParser& operator=(const TcpProbeParser&) = delete;

  void AddLine(absl::string_view line);
  // True once many lines went by without a probe line.
  bool LooksWrong() const;
  absl::StatusOr<HostStateLog> Finish();

 private:
  struct State;
  std::unique_ptr<State> state_;
};

}  // namespace ccreplay

#endif  // CCREPLAY_PARSERS_TCP_PROBE_H_
