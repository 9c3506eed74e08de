// The local TCP stack's own view of its connections, read as `ss -tin`
// reads it: a NETLINK_SOCK_DIAG dump of inet_diag_req_v2 requests
// (sock_diag(7)), asking for INET_DIAG_INFO (struct tcp_info) and
// INET_DIAG_CONG (the congestion control's name). Layouts are those of
// <linux/inet_diag.h>, <linux/netlink.h> and <linux/tcp.h> (linux-libc-dev
// 6.1); the kernel side is net/ipv4/inet_diag.c and tcp_get_info() in
// net/ipv4/tcp.c (Linux 6.18).
//
// The parser is a pure function of the reply's bytes, so it is tested on
// hand-built messages; ReadLocalTcpSockets() is the socket part. A process
// sees the sockets of the network namespace it runs in.
#ifndef CCREPLAY_PARSERS_INET_DIAG_H_
#define CCREPLAY_PARSERS_INET_DIAG_H_

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/status/statusor.h"
#include "absl/types/span.h"
#include "parsers/tcp_segment.h"

namespace ccreplay {

// One TCP socket as the kernel reports it. A field is absent when the reply
// did not carry it (an older kernel's shorter tcp_info, no INET_DIAG_CONG)
// or when the kernel's value means "none" (ssthresh still infinite, pacing
// unlimited).
struct HostTcpSocket {
  // IPv4-mapped IPv6 addresses (::ffff:a.b.c.d, a dual-stack socket) are
  // given as IPv4, as a capture shows them.
  IpAddress local_address;
  uint16_t local_port = 0;
  IpAddress remote_address;
  uint16_t remote_port = 0;
  uint8_t state = 0;  // TCP_ESTABLISHED (1), ... (include/net/tcp_states.h)
  std::optional<uint32_t> cwnd_segments;      // tcpi_snd_cwnd
  std::optional<uint32_t> mss_bytes;          // tcpi_snd_mss
  std::optional<uint32_t> ssthresh_segments;  // tcpi_snd_ssthresh
  std::optional<uint32_t> srtt_us;            // tcpi_rtt
  std::optional<double> pacing_rate_bps;      // tcpi_pacing_rate × 8
  std::optional<double> delivery_rate_bps;    // tcpi_delivery_rate × 8
  std::string cc;  // INET_DIAG_CONG: "cubic", "bbr", ...; "" when absent.

  // cwnd × mss, when both are known.
  std::optional<uint64_t> cwnd_bytes() const;
};

// What one reply buffer (one recv()) held.
struct InetDiagBatch {
  std::vector<HostTcpSocket> sockets;
  bool done = false;  // NLMSG_DONE seen: the dump is complete.
};

// Parses the netlink messages of one reply buffer to an inet_diag dump.
// Errors: an NLMSG_ERROR message (its errno), or a message whose lengths
// run past the buffer or are shorter than its headers (InvalidArgument,
// naming the offset). Messages of other types are skipped.
absl::StatusOr<InetDiagBatch> ParseInetDiagReply(
    absl::Span<const uint8_t> reply);

// The request for a dump of every TCP socket of `family` (AF_INET or
// AF_INET6) in any state but LISTEN, with tcp_info and the CC's name.
std::vector<uint8_t> InetDiagDumpRequest(uint8_t family, uint32_t sequence);

// Every TCP socket of this network namespace, IPv4 and IPv6. Errors:
// Unavailable when the netlink socket cannot be opened or read
// (sock_diag not built into the kernel, a seccomp filter, ...).
absl::StatusOr<std::vector<HostTcpSocket>> ReadLocalTcpSockets();

// Sockets by their local and remote endpoints, EndpointString() of each,
// "LOCAL>REMOTE": a captured flow whose sender is a local socket is found
// as "SENDER>RECEIVER".
using HostSocketIndex = absl::flat_hash_map<std::string, HostTcpSocket>;
HostSocketIndex IndexByEndpoints(std::vector<HostTcpSocket> sockets);
const HostTcpSocket* FindLocalSender(const HostSocketIndex& index,
                                     const std::string& sender,
                                     const std::string& receiver);

}  // namespace ccreplay

#endif  // CCREPLAY_PARSERS_INET_DIAG_H_
