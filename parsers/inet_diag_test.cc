#include "parsers/inet_diag.h"

#include <arpa/inet.h>
#include <linux/inet_diag.h>
#include <linux/netlink.h>
#include <linux/sock_diag.h>
#include <linux/tcp.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cstddef>
#include <cstring>
#include <fstream>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "gtest/gtest.h"

namespace ccreplay {
namespace {

// The offsets the hand-built replies below rely on, as <linux/tcp.h> and
// <linux/inet_diag.h> of linux-libc-dev 6.1.187 lay them out.
static_assert(sizeof(inet_diag_msg) == 72);
static_assert(offsetof(tcp_info, tcpi_snd_mss) == 16);
static_assert(offsetof(tcp_info, tcpi_rtt) == 68);
static_assert(offsetof(tcp_info, tcpi_snd_ssthresh) == 76);
static_assert(offsetof(tcp_info, tcpi_snd_cwnd) == 80);
static_assert(offsetof(tcp_info, tcpi_pacing_rate) == 104);
static_assert(offsetof(tcp_info, tcpi_delivery_rate) == 160);

// Appends the bytes of `value` to `out`, padded to 4 bytes (NLMSG_ALIGN and
// NLA_ALIGN are both 4).
void Append(std::vector<uint8_t>& out, const void* value, size_t size) {
  const auto* bytes = static_cast<const uint8_t*>(value);
  out.insert(out.end(), bytes, bytes + size);
  out.resize(NLMSG_ALIGN(out.size()), 0);
}

void AppendAttribute(std::vector<uint8_t>& out, uint16_t type,
                     const void* payload, size_t size) {
  nlattr attr = {static_cast<uint16_t>(NLA_HDRLEN + size), type};
  Append(out, &attr, sizeof(attr));
  Append(out, payload, size);
}

// One netlink message of `type` around `body`.
void AppendMessage(std::vector<uint8_t>& out, uint16_t type,
                   const std::vector<uint8_t>& body) {
  nlmsghdr header = {};
  header.nlmsg_len = NLMSG_HDRLEN + body.size();
  header.nlmsg_type = type;
  header.nlmsg_flags = NLM_F_MULTI;
  Append(out, &header, sizeof(header));
  out.insert(out.end(), body.begin(), body.end());
}

// An inet_diag_msg of an IPv4 socket 10.0.0.1:40000 > 10.0.1.1:5201,
// ESTABLISHED, with `info_bytes` of `info` and the CC's name `cc`.
std::vector<uint8_t> SocketBody(const tcp_info& info, size_t info_bytes,
                                const char* cc) {
  inet_diag_msg msg = {};
  msg.idiag_family = AF_INET;
  msg.idiag_state = 1;  // TCP_ESTABLISHED
  msg.id.idiag_sport = htons(40000);
  msg.id.idiag_dport = htons(5201);
  inet_pton(AF_INET, "10.0.0.1", &msg.id.idiag_src[0]);
  inet_pton(AF_INET, "10.0.1.1", &msg.id.idiag_dst[0]);
  std::vector<uint8_t> body;
  Append(body, &msg, sizeof(msg));
  AppendAttribute(body, INET_DIAG_INFO, &info, info_bytes);
  if (cc != nullptr) AppendAttribute(body, INET_DIAG_CONG, cc, strlen(cc) + 1);
  return body;
}

tcp_info CubicInCongestionAvoidance() {
  tcp_info info = {};
  info.tcpi_snd_mss = 1448;
  info.tcpi_rtt = 20345;  // µs
  info.tcpi_snd_ssthresh = 31;
  info.tcpi_snd_cwnd = 42;
  info.tcpi_pacing_rate = 3'000'000;    // bytes/s
  info.tcpi_delivery_rate = 2'500'000;  // bytes/s
  return info;
}

std::vector<uint8_t> Done() {
  std::vector<uint8_t> out;
  AppendMessage(out, NLMSG_DONE, std::vector<uint8_t>(4, 0));
  return out;
}

TEST(InetDiagTest, ParsesTcpInfoAndCongestionControlOfEachSocket) {
  std::vector<uint8_t> reply;
  const tcp_info info = CubicInCongestionAvoidance();
  AppendMessage(reply, SOCK_DIAG_BY_FAMILY,
                SocketBody(info, sizeof(info), "cubic"));
  AppendMessage(reply, SOCK_DIAG_BY_FAMILY,
                SocketBody(info, sizeof(info), "bbr"));
  const std::vector<uint8_t> done = Done();
  reply.insert(reply.end(), done.begin(), done.end());
  absl::StatusOr<InetDiagBatch> batch = ParseInetDiagReply(reply);
  ASSERT_TRUE(batch.ok()) << batch.status();
  EXPECT_TRUE(batch->done);
  ASSERT_EQ(batch->sockets.size(), 2u);
  const HostTcpSocket& s = batch->sockets[0];
  EXPECT_EQ(EndpointString(s.local_address, s.local_port), "10.0.0.1:40000");
  EXPECT_EQ(EndpointString(s.remote_address, s.remote_port), "10.0.1.1:5201");
  EXPECT_EQ(s.state, 1);
  EXPECT_EQ(s.cwnd_segments, 42u);
  EXPECT_EQ(s.cwnd_bytes(), 42u * 1448u);
  EXPECT_EQ(s.ssthresh_segments, 31u);
  EXPECT_EQ(s.srtt_us, 20345u);
  EXPECT_EQ(s.pacing_rate_bps, 24e6);
  EXPECT_EQ(s.delivery_rate_bps, 20e6);
  EXPECT_EQ(s.cc, "cubic");
  EXPECT_EQ(batch->sockets[1].cc, "bbr");
}

TEST(InetDiagTest, NoneValuesAndAShortTcpInfoLeaveFieldsAbsent) {
  tcp_info info = CubicInCongestionAvoidance();
  info.tcpi_snd_ssthresh = 0x7fffffff;  // Still in slow start.
  info.tcpi_pacing_rate = ~0ULL;        // Unpaced.
  std::vector<uint8_t> reply;
  // A kernel before tcpi_pacing_rate (Linux 3.15) sends 104 bytes.
  AppendMessage(reply, SOCK_DIAG_BY_FAMILY, SocketBody(info, 104, nullptr));
  AppendMessage(reply, SOCK_DIAG_BY_FAMILY,
                SocketBody(info, sizeof(info), "cubic"));
  absl::StatusOr<InetDiagBatch> batch = ParseInetDiagReply(reply);
  ASSERT_TRUE(batch.ok()) << batch.status();
  EXPECT_FALSE(batch->done);
  ASSERT_EQ(batch->sockets.size(), 2u);
  const HostTcpSocket& old_kernel = batch->sockets[0];
  EXPECT_EQ(old_kernel.cwnd_segments, 42u);
  EXPECT_FALSE(old_kernel.ssthresh_segments.has_value());
  EXPECT_FALSE(old_kernel.pacing_rate_bps.has_value());
  EXPECT_FALSE(old_kernel.delivery_rate_bps.has_value());
  EXPECT_EQ(old_kernel.cc, "");
  EXPECT_FALSE(batch->sockets[1].pacing_rate_bps.has_value());
  EXPECT_EQ(batch->sockets[1].delivery_rate_bps, 20e6);
}

TEST(InetDiagTest, Ipv4MappedAddressesAreGivenAsIpv4) {
  inet_diag_msg msg = {};
  msg.idiag_family = AF_INET6;
  msg.id.idiag_sport = htons(5201);
  msg.id.idiag_dport = htons(40000);
  inet_pton(AF_INET6, "::ffff:10.0.1.1", msg.id.idiag_src);
  inet_pton(AF_INET6, "2001:db8::1", msg.id.idiag_dst);
  std::vector<uint8_t> body, reply;
  Append(body, &msg, sizeof(msg));
  AppendMessage(reply, SOCK_DIAG_BY_FAMILY, body);
  absl::StatusOr<InetDiagBatch> batch = ParseInetDiagReply(reply);
  ASSERT_TRUE(batch.ok()) << batch.status();
  ASSERT_EQ(batch->sockets.size(), 1u);
  const HostTcpSocket& s = batch->sockets[0];
  EXPECT_EQ(EndpointString(s.local_address, s.local_port), "10.0.1.1:5201");
  EXPECT_EQ(EndpointString(s.remote_address, s.remote_port),
            "[2001:db8::1]:40000");
  EXPECT_FALSE(s.cwnd_segments.has_value());  // No INET_DIAG_INFO.
}

TEST(InetDiagTest, KernelErrorsAndOverrunsAreErrors) {
  std::vector<uint8_t> error;
  const int minus_eperm = -EPERM;
  std::vector<uint8_t> errno_body(sizeof(nlmsgerr), 0);
  std::memcpy(errno_body.data(), &minus_eperm, sizeof(int));
  AppendMessage(error, NLMSG_ERROR, errno_body);
  absl::StatusOr<InetDiagBatch> batch = ParseInetDiagReply(error);
  ASSERT_FALSE(batch.ok());
  EXPECT_TRUE(absl::StrContains(batch.status().message(), std::strerror(EPERM)))
      << batch.status();

  const tcp_info info = CubicInCongestionAvoidance();
  std::vector<uint8_t> cut;
  AppendMessage(cut, SOCK_DIAG_BY_FAMILY,
                SocketBody(info, sizeof(info), "cubic"));
  cut.resize(cut.size() - 8);  // The message's length now runs past it.
  batch = ParseInetDiagReply(cut);
  ASSERT_FALSE(batch.ok());
  EXPECT_EQ(batch.status().code(), absl::StatusCode::kInvalidArgument);

  std::vector<uint8_t> attr_overrun = SocketBody(info, sizeof(info), nullptr);
  // The INET_DIAG_INFO attribute claims 8 bytes more than the message has.
  nlattr* attr = reinterpret_cast<nlattr*>(attr_overrun.data() +
                                           NLMSG_ALIGN(sizeof(inet_diag_msg)));
  attr->nla_len += 8;
  std::vector<uint8_t> reply;
  AppendMessage(reply, SOCK_DIAG_BY_FAMILY, attr_overrun);
  batch = ParseInetDiagReply(reply);
  ASSERT_FALSE(batch.ok());
  EXPECT_TRUE(absl::StrContains(batch.status().message(), "overruns"));
}

TEST(InetDiagTest, FindsALocalSenderByItsEndpointsOnly) {
  std::vector<uint8_t> reply;
  const tcp_info info = CubicInCongestionAvoidance();
  AppendMessage(reply, SOCK_DIAG_BY_FAMILY,
                SocketBody(info, sizeof(info), "cubic"));
  absl::StatusOr<InetDiagBatch> batch = ParseInetDiagReply(reply);
  ASSERT_TRUE(batch.ok());
  const HostSocketIndex index = IndexByEndpoints(batch->sockets);
  const HostTcpSocket* found =
      FindLocalSender(index, "10.0.0.1:40000", "10.0.1.1:5201");
  ASSERT_NE(found, nullptr);
  EXPECT_EQ(found->cwnd_segments, 42u);
  // The same connection seen from its receiver is not this host's sender.
  EXPECT_EQ(FindLocalSender(index, "10.0.1.1:5201", "10.0.0.1:40000"), nullptr);
}

// The running kernel's own answer for a loopback connection this test
// makes: a fresh socket's cwnd is the initial window, TCP_INIT_CWND = 10
// (include/net/tcp.h, RFC 6928), and its CC the namespace's default.
TEST(InetDiagTest, ReadsAConnectionOfThisProcessFromTheKernel) {
  const int listener = socket(AF_INET, SOCK_STREAM, 0);
  sockaddr_in address = {};
  address.sin_family = AF_INET;
  address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  socklen_t length = sizeof(address);
  ASSERT_EQ(bind(listener, reinterpret_cast<sockaddr*>(&address), length), 0);
  ASSERT_EQ(listen(listener, 1), 0);
  getsockname(listener, reinterpret_cast<sockaddr*>(&address), &length);
  const int client = socket(AF_INET, SOCK_STREAM, 0);
  ASSERT_EQ(connect(client, reinterpret_cast<sockaddr*>(&address), length), 0);
  sockaddr_in local = {};
  socklen_t local_length = sizeof(local);
  getsockname(client, reinterpret_cast<sockaddr*>(&local), &local_length);
  absl::StatusOr<std::vector<HostTcpSocket>> sockets = ReadLocalTcpSockets();
  close(client);
  close(listener);
  if (!sockets.ok()) GTEST_SKIP() << "no sock_diag here: " << sockets.status();
  const HostSocketIndex index = IndexByEndpoints(*std::move(sockets));
  const HostTcpSocket* found =
      FindLocalSender(index, absl::StrCat("127.0.0.1:", ntohs(local.sin_port)),
                      absl::StrCat("127.0.0.1:", ntohs(address.sin_port)));
  ASSERT_NE(found, nullptr);
  EXPECT_EQ(found->cwnd_segments, 10u);
  std::string default_cc;
  std::ifstream("/proc/sys/net/ipv4/tcp_congestion_control") >> default_cc;
  EXPECT_EQ(found->cc, default_cc);
  EXPECT_FALSE(found->ssthresh_segments.has_value());  // Slow start.
}

}  // namespace
}  // namespace ccreplay
