#include "lab/builtin_transfer.h"

#include <arpa/inet.h>
#include <linux/sockios.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <cstring>
#include <fstream>
#include <future>
#include <thread>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "absl/time/clock.h"
#include "lab/netns.h"

namespace ccreplay::lab {
namespace {

constexpr size_t kChunkBytes = 64 * 1024;
// Paced writes of an application-limited flow.
constexpr size_t kAppChunkBytes = 16 * 1024;
// How long receivers wait for the last byte after the senders stop.
constexpr absl::Duration kDrainTimeout = absl::Seconds(20);
// SO_MAX_PACING_RATE in bytes/s for --paced on: any value but ~0U sets
// SK_PACING_NEEDED (sk_setsockopt(), net/core/sock.c, 6.18), and this one
// (34 Gbit/s) never lowers the rate tcp_update_pacing_rate() computes.
constexpr unsigned int kUncappedPacingRate = 0xFFFFFFFEu;

absl::Status Errno(absl::string_view what) {
  return absl::InternalError(absl::StrCat(what, ": ", std::strerror(errno)));
}

sockaddr_in Address(const std::string& ip, int port) {
  sockaddr_in address = {};
  address.sin_family = AF_INET;
  address.sin_port = htons(port);
  inet_pton(AF_INET, ip.c_str(), &address.sin_addr);
  return address;
}

absl::Status SetController(int fd, absl::string_view cc) {
  if (setsockopt(fd, IPPROTO_TCP, TCP_CONGESTION, cc.data(), cc.size()) == 0) {
    return absl::OkStatus();
  }
  std::ifstream available_file(
      "/proc/sys/net/ipv4/tcp_available_congestion_control");
  std::string available;
  std::getline(available_file, available);
  return absl::InvalidArgumentError(
      absl::StrCat("congestion control '", cc,
                   "' is not available in this kernel (", std::strerror(errno),
                   "); tcp_available_congestion_control: ", available));
}

// DCTCP sends its SYN ECT(0) (TCP_CONG_NEEDS_ECN); a listener grants ECN to
// an ECT SYN only when its own controller needs ECN
// (tcp_ecn_create_request(), net/ipv4/tcp_input.c, Linux 6.1 and 6.18), and
// DCTCP's receiver echoes CE per packet (dctcp_ece_ack_update()): both ends
// run DCTCP (RFC 8257 section 3). The accepted socket inherits the
// listener's controller. A namespace default would not do: outside the
// initial namespace only tcp_allowed_congestion_control may be the default
// (tcp_set_default_congestion_control(): EPERM). False (errno set) when
// the kernel refuses.
bool ListenerController(int listener, absl::string_view cc) {
  return cc != "dctcp" || setsockopt(listener, IPPROTO_TCP, TCP_CONGESTION,
                                     cc.data(), cc.size()) == 0;
}

// Accepts one connection and reads it to the end.
absl::Status Receive(const TransferPlan& plan, const PlannedFlow& flow,
                     std::promise<absl::Status>& listening,
                     const std::atomic<bool>& abort, absl::Time deadline,
                     FlowResult& result) {
  absl::Status entered = EnterNetns(plan.receiver_netns);
  int listener =
      entered.ok() ? socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0) : -1;
  sockaddr_in address = Address(flow.receiver_address, flow.receiver_port);
  int one = 1;
  if (!entered.ok()) {
    listening.set_value(entered);
    return entered;
  }
  // SO_RCVBUF before listen(): the accepted socket inherits it
  // (FlowSpec::rcvbuf_bytes).
  const int rcvbuf = flow.spec.rcvbuf_bytes;
  if (listener < 0 || !ListenerController(listener, flow.spec.cc) ||
      setsockopt(listener, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one)) != 0 ||
      (rcvbuf > 0 && setsockopt(listener, SOL_SOCKET, SO_RCVBUF, &rcvbuf,
                                sizeof(rcvbuf)) != 0) ||
      bind(listener, reinterpret_cast<sockaddr*>(&address), sizeof(address)) !=
          0 ||
      listen(listener, 1) != 0) {
    absl::Status error = Errno(absl::StrCat(
        "receiver listen on ", flow.receiver_address, ":", flow.receiver_port));
    if (listener >= 0) close(listener);
    listening.set_value(error);
    return error;
  }
  listening.set_value(absl::OkStatus());
  absl::Status status = absl::OkStatus();
  int connection = -1;
  pollfd fd = {listener, POLLIN, 0};
  std::vector<char> buffer(kChunkBytes);
  while (status.ok()) {
    if (abort.load()) break;
    if (absl::Now() > deadline) {
      status = absl::DeadlineExceededError(
          absl::StrCat("flow to port ", flow.receiver_port,
                       " did not finish within the drain timeout"));
      break;
    }
    if (poll(&fd, 1, 100) <= 0) continue;
    if (connection < 0) {
      connection = accept4(listener, nullptr, nullptr, SOCK_CLOEXEC);
      if (connection < 0) status = Errno("accept");
      fd.fd = connection;
      continue;
    }
    ssize_t n = read(connection, buffer.data(), buffer.size());
    if (n == 0) break;
    if (n < 0 && errno != EINTR) status = Errno("receiver read");
    if (n > 0) result.bytes_received += n;
  }
  if (connection >= 0) close(connection);
  close(listener);
  return status;
}

// The sender's socket options, bound to its address and connected.
absl::Status ConnectSender(int fd, const TransferPlan& plan,
                           const PlannedFlow& flow) {
  int one = 1;
  timeval send_timeout = {0, 200'000};  // wake to check the deadline
  sockaddr_in local = Address(plan.sender_address, flow.sender_port);
  sockaddr_in remote = Address(flow.receiver_address, flow.receiver_port);
  absl::Status status = SetController(fd, flow.spec.cc);
  if (!status.ok()) return status;
  if (plan.paced == PacingMode::kOn &&
      setsockopt(fd, SOL_SOCKET, SO_MAX_PACING_RATE, &kUncappedPacingRate,
                 sizeof(kUncappedPacingRate)) != 0) {
    return Errno("SO_MAX_PACING_RATE");
  }
  if (flow.spec.mss_bytes > 0 &&
      setsockopt(fd, IPPROTO_TCP, TCP_MAXSEG, &flow.spec.mss_bytes,
                 sizeof(flow.spec.mss_bytes)) != 0) {
    return Errno("TCP_MAXSEG");
  }
  if (setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one)) != 0 ||
      setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &send_timeout,
                 sizeof(send_timeout)) != 0 ||
      bind(fd, reinterpret_cast<sockaddr*>(&local), sizeof(local)) != 0) {
    return Errno(absl::StrCat("sender bind ", plan.sender_address, ":",
                              flow.sender_port));
  }
  if (connect(fd, reinterpret_cast<sockaddr*>(&remote), sizeof(remote)) != 0) {
    return Errno(absl::StrCat("connect to ", flow.receiver_address, ":",
                              flow.receiver_port));
  }
  return absl::OkStatus();
}

// Sends for the plan's duration, bulk or at the flow's application rate
// (for its first `app_rate_for` only, when set).
absl::Status SendFor(int fd, const TransferPlan& plan, const PlannedFlow& flow,
                     FlowResult& result) {
  std::vector<char> chunk(kChunkBytes, 'x');
  absl::Time start = absl::Now();
  absl::Time end = start + plan.duration;
  double bytes_per_s = flow.spec.app_rate_bits_per_s / 8.0;
  const absl::Time limited_until = flow.spec.app_rate_for > absl::ZeroDuration()
                                       ? start + flow.spec.app_rate_for
                                       : absl::InfiniteFuture();
  while (true) {
    absl::Time now = absl::Now();
    if (now >= end) return absl::OkStatus();
    size_t length = kChunkBytes;
    if (bytes_per_s > 0 && now < limited_until) {
      // Application-limited: never ahead of rate * elapsed.
      double allowed = bytes_per_s * absl::ToDoubleSeconds(now - start);
      if (result.bytes_sent + static_cast<int64_t>(kAppChunkBytes) > allowed) {
        absl::SleepFor(absl::Seconds(
            (result.bytes_sent + kAppChunkBytes - allowed) / bytes_per_s));
        continue;
      }
      length = kAppChunkBytes;
    }
    ssize_t n = send(fd, chunk.data(), length, MSG_NOSIGNAL);
    if (n > 0) result.bytes_sent += n;
    if (n < 0 && errno != EAGAIN && errno != EWOULDBLOCK && errno != EINTR) {
      return Errno("send");
    }
  }
}

absl::Status Send(const TransferPlan& plan, const PlannedFlow& flow,
                  FlowResult& result) {
  absl::Status status = EnterNetns(plan.sender_netns);
  if (!status.ok()) return status;
  int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
  if (fd < 0) return Errno("sender socket");
  status = ConnectSender(fd, plan, flow);
  if (status.ok()) status = SendFor(fd, plan, flow, result);
  // Wait until everything sent is acknowledged before closing, so every
  // ACK of the data reaches the socket while ESTABLISHED (tcp_probe fires in
  // tcp_rcv_established only) and the FIN comes after the data.
  absl::Time drain_deadline = absl::Now() + kDrainTimeout;
  int unacked_bytes = 0;
  while (status.ok() && ioctl(fd, SIOCOUTQ, &unacked_bytes) == 0 &&
         unacked_bytes > 0 && absl::Now() < drain_deadline) {
    absl::SleepFor(absl::Milliseconds(1));
  }
  close(fd);
  return status;
}

}  // namespace

absl::Status CheckControllerAvailable(absl::string_view sender_netns,
                                      absl::string_view cc) {
  return RunInNetns(sender_netns, [&]() -> absl::Status {
    int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
    if (fd < 0) return Errno("socket");
    absl::Status status = SetController(fd, cc);
    close(fd);
    return status;
  });
}

absl::StatusOr<std::vector<FlowResult>> RunBuiltinTransfer(
    const TransferPlan& plan) {
  size_t count = plan.flows.size();
  std::vector<FlowResult> results(count);
  std::vector<absl::Status> receive_status(count), send_status(count);
  std::vector<std::promise<absl::Status>> listening(count);
  std::atomic<bool> abort{false};
  absl::Time deadline = absl::Now() + plan.duration + kDrainTimeout;
  std::vector<std::thread> receivers;
  for (size_t i = 0; i < count; ++i) {
    receivers.emplace_back([&, i] {
      receive_status[i] = Receive(plan, plan.flows[i], listening[i], abort,
                                  deadline, results[i]);
    });
  }
  absl::Status ready = absl::OkStatus();
  for (auto& promise : listening) {
    absl::Status status = promise.get_future().get();
    if (ready.ok()) ready = status;
  }
  std::vector<std::thread> senders;
  if (ready.ok()) {
    for (size_t i = 0; i < count; ++i) {
      senders.emplace_back([&, i] {
        send_status[i] = Send(plan, plan.flows[i], results[i]);
        if (!send_status[i].ok()) abort.store(true);
      });
    }
  } else {
    abort.store(true);
  }
  for (std::thread& sender : senders) sender.join();
  for (std::thread& receiver : receivers) receiver.join();
  if (!ready.ok()) return ready;
  for (size_t i = 0; i < count; ++i) {
    if (!send_status[i].ok()) return send_status[i];
    if (!receive_status[i].ok()) return receive_status[i];
  }
  return results;
}

}  // namespace ccreplay::lab
