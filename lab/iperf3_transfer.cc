#include "lab/iperf3_transfer.h"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <cmath>
#include <cstring>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "lab/cleanup_registry.h"
#include "lab/netns.h"
#include "lab/subprocess.h"

namespace ccreplay::lab {
namespace {

constexpr absl::Duration kListenTimeout = absl::Seconds(3);
constexpr absl::Duration kDrainTimeout = absl::Seconds(20);

// The iperf3 processes of a transfer, registered for cleanup at exit.
struct Iperf3Processes {
  std::vector<pid_t> servers;
  std::vector<pid_t> clients;
  std::vector<int> handles;
  // Per started client, its JSON report's name in the bundle.
  std::vector<std::string> reports;
};

// One listening server per flow in the receiver's namespace.
absl::Status StartServers(const TransferPlan& plan, Iperf3Processes* p) {
  CleanupRegistry& registry = CleanupRegistry::Global();
  for (const PlannedFlow& flow : plan.flows) {
    absl::StatusOr<pid_t> server =
        SpawnInNetns(plan.receiver_netns,
                     {"iperf3", "-s", "-1", "-B", flow.receiver_address, "-p",
                      absl::StrCat(flow.receiver_port)},
                     -1, -1);
    if (!server.ok()) return server.status();
    p->servers.push_back(*server);
    p->handles.push_back(registry.AddProcess(*server));
    absl::Status status = WaitForServerSocket(
        plan.receiver_netns, ServerSocket::kTcpListen, flow.receiver_port,
        "iperf3 server", kListenTimeout);
    if (!status.ok()) return status;
  }
  return absl::OkStatus();
}

std::vector<std::string> ClientArgv(const TransferPlan& plan,
                                    const PlannedFlow& flow) {
  // iperf3 3.12 reads -t with atoi(): whole seconds only.
  const std::string seconds = absl::StrCat(
      std::max<int64_t>(1, std::llround(absl::ToDoubleSeconds(plan.duration))));
  std::vector<std::string> argv = {"iperf3",
                                   "-c",
                                   flow.receiver_address,
                                   "-p",
                                   absl::StrCat(flow.receiver_port),
                                   "-B",
                                   plan.sender_address,
                                   "--cport",
                                   absl::StrCat(flow.sender_port),
                                   "-t",
                                   seconds,
                                   "-C",
                                   flow.spec.cc,
                                   "-J"};
  if (flow.spec.mss_bytes > 0) {
    argv.insert(argv.end(), {"-M", absl::StrCat(flow.spec.mss_bytes)});
  }
  if (flow.spec.app_rate_bits_per_s > 0) {
    argv.insert(argv.end(),
                {"-b", absl::StrCat(flow.spec.app_rate_bits_per_s)});
  }
  return argv;
}

// One client per flow in the sender's namespace, its JSON report (-J) to
// iperf3-flowN.json in the bundle.
absl::Status StartClients(const TransferPlan& plan,
                          absl::string_view bundle_dir, Iperf3Processes* p) {
  CleanupRegistry& registry = CleanupRegistry::Global();
  for (size_t i = 0; i < plan.flows.size(); ++i) {
    std::string report = absl::StrCat("iperf3-flow", i, ".json");
    std::string report_path = absl::StrCat(bundle_dir, "/", report);
    int fd = open(report_path.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC,
                  0644);
    if (fd < 0) {
      return absl::PermissionDeniedError(absl::StrCat(
          "cannot create ", report_path, ": ", std::strerror(errno)));
    }
    absl::StatusOr<pid_t> client = SpawnInNetns(
        plan.sender_netns, ClientArgv(plan, plan.flows[i]), fd, fd);
    close(fd);
    if (!client.ok()) return client.status();
    p->clients.push_back(*client);
    p->handles.push_back(registry.AddProcess(*client));
    p->reports.push_back(report);
  }
  return absl::OkStatus();
}

// Waits for the clients (at once after a failure) and then the servers;
// returns `status`, or the first client's failure.
absl::Status WaitForAll(const TransferPlan& plan, absl::string_view bundle_dir,
                        absl::Status status, const Iperf3Processes& p) {
  absl::Duration timeout = plan.duration + kDrainTimeout;
  for (size_t i = 0; i < p.clients.size(); ++i) {
    absl::StatusOr<int> exit =
        WaitProgram(p.clients[i], status.ok() ? timeout : absl::ZeroDuration());
    if (status.ok() && (!exit.ok() || *exit != 0)) {
      status = absl::InternalError(absl::StrCat(
          "iperf3 client of flow ", i, " failed (",
          exit.ok() ? DescribeExitStatus(*exit) : exit.status().ToString(),
          "); see ", bundle_dir, "/", p.reports[i]));
    }
  }
  for (pid_t server : p.servers) {
    WaitProgram(server, status.ok() ? absl::Seconds(5) : absl::ZeroDuration())
        .IgnoreError();
  }
  return status;
}

}  // namespace

absl::StatusOr<std::vector<std::string>> RunIperf3Transfer(
    const TransferPlan& plan, absl::string_view bundle_dir) {
  Iperf3Processes p;
  absl::Status status = StartServers(plan, &p);
  if (status.ok()) status = StartClients(plan, bundle_dir, &p);
  status = WaitForAll(plan, bundle_dir, status, p);
  for (int handle : p.handles) CleanupRegistry::Global().Dismiss(handle);
  if (!status.ok()) return status;
  return p.reports;
}

}  // namespace ccreplay::lab
