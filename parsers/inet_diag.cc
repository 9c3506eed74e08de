#include "parsers/inet_diag.h"

#include <linux/inet_diag.h>
#include <linux/netlink.h>
#include <linux/sock_diag.h>
#include <linux/tcp.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cerrno>
#include <cstddef>
#include <cstring>

#include "absl/strings/str_cat.h"

namespace ccreplay {
namespace {

// The kernel's "no threshold yet" (TCP_INFINITE_SSTHRESH, include/net/tcp.h).
constexpr uint32_t kInfiniteSsthresh = 0x7fffffff;
// Every state but TCP_LISTEN (10): the states are bits 1 << TCP_*.
constexpr uint32_t kAllButListen = ~(1u << 10);
// One recv() of a dump: the kernel fills up to about 32 KiB per message
// batch (netlink_dump()), so 64 KiB always holds one.
constexpr size_t kReplyBufferBytes = 64 << 10;

// Reads a `T` at `offset` of `bytes`, unaligned.
template <typename T>
T Load(absl::Span<const uint8_t> bytes, size_t offset) {
  T value;
  std::memcpy(&value, bytes.data() + offset, sizeof(T));
  return value;
}

// An inet_diag address (network order, IPv4 in the first word) as a capture
// decodes it; an IPv4-mapped IPv6 address as IPv4.
IpAddress DiagAddress(uint8_t family, const uint32_t words[4]) {
  IpAddress address;
  uint8_t raw[16];
  std::memcpy(raw, words, 16);
  static constexpr uint8_t kMappedPrefix[12] = {0, 0, 0, 0, 0,    0,
                                                0, 0, 0, 0, 0xff, 0xff};
  if (family == AF_INET6 && std::memcmp(raw, kMappedPrefix, 12) != 0) {
    address.family = 6;
    std::memcpy(address.bytes, raw, 16);
  } else {
    address.family = 4;
    std::memcpy(address.bytes, family == AF_INET6 ? raw + 12 : raw, 4);
  }
  return address;
}

// Whether a tcp_info of `length` bytes reaches past `end` (the offset just
// after a field): older kernels send shorter ones (tcp_get_info() fills
// what the running kernel knows; inet_diag copies sizeof its own struct).
#define CCREPLAY_HAS(length, field) \
  ((length) >= offsetof(tcp_info, field) + sizeof(tcp_info::field))

// Fills `socket`'s tcp_info fields from an INET_DIAG_INFO payload.
void TakeTcpInfo(absl::Span<const uint8_t> payload, HostTcpSocket& socket) {
  tcp_info info = {};
  const size_t length = std::min(payload.size(), sizeof(info));
  std::memcpy(&info, payload.data(), length);
  if (CCREPLAY_HAS(length, tcpi_snd_mss)) socket.mss_bytes = info.tcpi_snd_mss;
  if (CCREPLAY_HAS(length, tcpi_rtt)) socket.srtt_us = info.tcpi_rtt;
  if (CCREPLAY_HAS(length, tcpi_snd_cwnd)) {
    socket.cwnd_segments = info.tcpi_snd_cwnd;
    if (info.tcpi_snd_ssthresh < kInfiniteSsthresh)
      socket.ssthresh_segments = info.tcpi_snd_ssthresh;
  }
  // Bytes per second; ~0 is "no pacing limit" (sk_pacing_rate's default,
  // tcp_get_info() copies it as is).
  if (CCREPLAY_HAS(length, tcpi_pacing_rate) && info.tcpi_pacing_rate != ~0ULL)
    socket.pacing_rate_bps = info.tcpi_pacing_rate * 8.0;
  if (CCREPLAY_HAS(length, tcpi_delivery_rate))
    socket.delivery_rate_bps = info.tcpi_delivery_rate * 8.0;
}
#undef CCREPLAY_HAS

// One SOCK_DIAG_BY_FAMILY message's body (inet_diag_msg and its
// attributes), `body_offset` into the reply for error messages.
absl::StatusOr<HostTcpSocket> ParseDiagMessage(absl::Span<const uint8_t> body,
                                               size_t body_offset) {
  if (body.size() < sizeof(inet_diag_msg)) {
    return absl::InvalidArgumentError(absl::StrCat(
        "inet_diag reply: message at ", body_offset, " too short"));
  }
  const inet_diag_msg msg = Load<inet_diag_msg>(body, 0);
  HostTcpSocket socket;
  socket.state = msg.idiag_state;
  socket.local_address = DiagAddress(msg.idiag_family, msg.id.idiag_src);
  socket.remote_address = DiagAddress(msg.idiag_family, msg.id.idiag_dst);
  socket.local_port = ntohs(msg.id.idiag_sport);
  socket.remote_port = ntohs(msg.id.idiag_dport);
  // Attributes (struct nlattr, NLA_ALIGN'ed) follow the message.
  size_t at = NLMSG_ALIGN(sizeof(inet_diag_msg));
  while (at + sizeof(nlattr) <= body.size()) {
    const nlattr attr = Load<nlattr>(body, at);
    if (attr.nla_len < sizeof(nlattr) || at + attr.nla_len > body.size()) {
      return absl::InvalidArgumentError(absl::StrCat(
          "inet_diag reply: attribute at ", body_offset + at, " overruns"));
    }
    const absl::Span<const uint8_t> payload =
        body.subspan(at + NLA_HDRLEN, attr.nla_len - NLA_HDRLEN);
    if (attr.nla_type == INET_DIAG_INFO) TakeTcpInfo(payload, socket);
    if (attr.nla_type == INET_DIAG_CONG) {
      // A NUL-terminated name (inet_diag.c: nla_put_string()).
      const auto* text = reinterpret_cast<const char*>(payload.data());
      socket.cc.assign(text, strnlen(text, payload.size()));
    }
    at += NLA_ALIGN(attr.nla_len);
  }
  return socket;
}

// The status an NLMSG_ERROR body carries (struct nlmsgerr, errno negated).
absl::Status NetlinkError(absl::Span<const uint8_t> body) {
  const int error = body.size() >= sizeof(int) ? -Load<int>(body, 0) : EIO;
  return absl::UnavailableError(
      absl::StrCat("inet_diag: the kernel answered ", std::strerror(error)));
}

// Sends the dump request for `family` on `fd` and reads its replies to the
// end, appending the sockets to `sockets`.
absl::Status DumpFamily(int fd, uint8_t family,
                        std::vector<HostTcpSocket>& sockets) {
  const std::vector<uint8_t> request = InetDiagDumpRequest(family, family);
  sockaddr_nl kernel = {};
  kernel.nl_family = AF_NETLINK;
  if (sendto(fd, request.data(), request.size(), 0,
             reinterpret_cast<const sockaddr*>(&kernel), sizeof(kernel)) < 0) {
    return absl::UnavailableError(
        absl::StrCat("inet_diag: send: ", std::strerror(errno)));
  }
  std::vector<uint8_t> buffer(kReplyBufferBytes);
  for (;;) {
    const ssize_t got = recv(fd, buffer.data(), buffer.size(), 0);
    if (got < 0 && errno == EINTR) continue;
    if (got <= 0) {
      return absl::UnavailableError(
          absl::StrCat("inet_diag: recv: ", std::strerror(errno)));
    }
    absl::StatusOr<InetDiagBatch> batch = ParseInetDiagReply(
        absl::MakeConstSpan(buffer.data(), static_cast<size_t>(got)));
    if (!batch.ok()) return batch.status();
    for (HostTcpSocket& socket : batch->sockets)
      sockets.push_back(std::move(socket));
    if (batch->done) return absl::OkStatus();
  }
}

}  // namespace

std::optional<uint64_t> HostTcpSocket::cwnd_bytes() const {
  if (!cwnd_segments.has_value() || !mss_bytes.has_value()) return std::nullopt;
  return static_cast<uint64_t>(*cwnd_segments) * *mss_bytes;
}

absl::StatusOr<InetDiagBatch> ParseInetDiagReply(
    absl::Span<const uint8_t> reply) {
  InetDiagBatch batch;
  size_t at = 0;
  while (at + sizeof(nlmsghdr) <= reply.size() && !batch.done) {
    const nlmsghdr header = Load<nlmsghdr>(reply, at);
    if (header.nlmsg_len < NLMSG_HDRLEN ||
        at + header.nlmsg_len > reply.size()) {
      return absl::InvalidArgumentError(absl::StrCat(
          "inet_diag reply: message at ", at, " has length ", header.nlmsg_len,
          " of ", reply.size() - at, " bytes left"));
    }
    const absl::Span<const uint8_t> body =
        reply.subspan(at + NLMSG_HDRLEN, header.nlmsg_len - NLMSG_HDRLEN);
    if (header.nlmsg_type == NLMSG_DONE) batch.done = true;
    if (header.nlmsg_type == NLMSG_ERROR) return NetlinkError(body);
    if (header.nlmsg_type == SOCK_DIAG_BY_FAMILY) {
      absl::StatusOr<HostTcpSocket> socket =
          ParseDiagMessage(body, at + NLMSG_HDRLEN);
      if (!socket.ok()) return socket.status();
      batch.sockets.push_back(*std::move(socket));
    }
    at += NLMSG_ALIGN(header.nlmsg_len);
  }
  return batch;
}

std::vector<uint8_t> InetDiagDumpRequest(uint8_t family, uint32_t sequence) {
  struct {
    nlmsghdr header;
    inet_diag_req_v2 request;
  } message = {};
  message.header.nlmsg_len = sizeof(message);
  message.header.nlmsg_type = SOCK_DIAG_BY_FAMILY;
  message.header.nlmsg_flags = NLM_F_REQUEST | NLM_F_DUMP;
  message.header.nlmsg_seq = sequence;
  message.request.sdiag_family = family;
  message.request.sdiag_protocol = IPPROTO_TCP;
  message.request.idiag_states = kAllButListen;
  // Extensions are requested as bits 1 << (INET_DIAG_x - 1).
  message.request.idiag_ext =
      (1 << (INET_DIAG_INFO - 1)) | (1 << (INET_DIAG_CONG - 1));
  const auto* bytes = reinterpret_cast<const uint8_t*>(&message);
  return std::vector<uint8_t>(bytes, bytes + sizeof(message));
}

absl::StatusOr<std::vector<HostTcpSocket>> ReadLocalTcpSockets() {
  const int fd =
      socket(AF_NETLINK, SOCK_DGRAM | SOCK_CLOEXEC, NETLINK_SOCK_DIAG);
  if (fd < 0) {
    return absl::UnavailableError(
        absl::StrCat("inet_diag: netlink socket: ", std::strerror(errno)));
  }
  std::vector<HostTcpSocket> sockets;
  const absl::Status status = DumpFamily(fd, AF_INET, sockets);
  // A kernel without IPv6 answers its dump with an error (EAFNOSUPPORT or
  // ENOENT, inet_diag_lock_handler()): it has no IPv6 socket to show.
  if (status.ok()) DumpFamily(fd, AF_INET6, sockets).IgnoreError();
  close(fd);
  if (!status.ok()) return status;
  return sockets;
}

HostSocketIndex IndexByEndpoints(std::vector<HostTcpSocket> sockets) {
  HostSocketIndex index;
  for (HostTcpSocket& socket : sockets) {
    std::string key = absl::StrCat(
        EndpointString(socket.local_address, socket.local_port), ">",
        EndpointString(socket.remote_address, socket.remote_port));
    // A TIME_WAIT socket (no tcp_info) may share the endpoints of a newer
    // connection: the one with a window wins.
    auto [it, added] = index.try_emplace(std::move(key), socket);
    if (!added && !it->second.cwnd_segments.has_value())
      it->second = std::move(socket);
  }
  return index;
}

const HostTcpSocket* FindLocalSender(const HostSocketIndex& index,
                                     const std::string& sender,
                                     const std::string& receiver) {
  auto found = index.find(absl::StrCat(sender, ">", receiver));
  return found == index.end() ? nullptr : &found->second;
}

}  // namespace ccreplay
