// Named network namespaces (the /run/netns files `ip netns add` creates) and
// running code inside one. setns(2) changes the namespace of the calling
// thread only, so work for a namespace runs on a thread of its own: sockets,
// TUN devices, packet sockets and child processes created there belong to
// that namespace.
#ifndef CCREPLAY_LAB_NETNS_H_
#define CCREPLAY_LAB_NETNS_H_

#include <sys/types.h>

#include <cstdint>
#include <functional>
#include <map>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "absl/time/time.h"

namespace ccreplay::lab {

// True when /run/netns/NAME exists.
bool NetnsExists(absl::string_view name);

// Moves the calling thread into the named namespace for good.
absl::Status EnterNetns(absl::string_view name);

// Runs fn on a new thread inside the namespace and waits for it.
absl::Status RunInNetns(absl::string_view name,
                        const std::function<absl::Status()>& fn);

// Writes a sysctl of the namespace, e.g. ("net/ipv4/tcp_ecn", "1"); the
// /proc/sys/net files show the namespace of the task that opens them.
absl::Status WriteNetnsSysctl(absl::string_view netns, absl::string_view key,
                              absl::string_view value);

// Starts argv as a child process inside the namespace (see SpawnProgram).
absl::StatusOr<pid_t> SpawnInNetns(absl::string_view netns,
                                   const std::vector<std::string>& argv,
                                   int stdout_fd, int stderr_fd);

// Which socket a server opens: a listening TCP socket, or a bound UDP one.
enum class ServerSocket { kTcpListen, kUdp };

// Waits until the namespace has a `kind` socket on local `port` (its
// /proc/net/tcp or /proc/net/udp table, proc(5)); DeadlineExceeded naming
// `server` after `timeout`.
absl::Status WaitForServerSocket(absl::string_view netns, ServerSocket kind,
                                 int port, absl::string_view server,
                                 absl::Duration timeout);

// The namespace's non-zero Tcp (/proc/net/snmp) and TcpExt
// (/proc/net/netstat) counters, named as nstat(8) names them: the table's
// prefix and the counter ("TcpRetransSegs", "TcpExtTCPDSACKUndo").
absl::StatusOr<std::map<std::string, int64_t>> ReadTcpCounters(
    absl::string_view netns);

}  // namespace ccreplay::lab

#endif  // CCREPLAY_LAB_NETNS_H_
