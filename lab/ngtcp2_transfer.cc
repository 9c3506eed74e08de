#include "lab/ngtcp2_transfer.h"

#include <signal.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <filesystem>

#include "absl/status/status.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/time/clock.h"
#include "lab/cleanup_registry.h"
#include "lab/lab_owner.h"
#include "lab/netns.h"
#include "lab/subprocess.h"

namespace ccreplay::lab {
namespace {

constexpr absl::Duration kListenTimeout = absl::Seconds(3);
// A download slowed by an unfair share still ends: up to four times the
// planned duration, plus the handshake and the idle connection's close.
constexpr int kDurationsBeforeTimeout = 4;
constexpr absl::Duration kDrainTimeout = absl::Seconds(20);
// After its client exits, the server has the client's CONNECTION_CLOSE to
// read (RFC 9000 section 10.2.2: it then only drains) before it is
// stopped; SIGINT ends its event loop and exit(3) flushes the qlog.
constexpr absl::Duration kServerCloseGrace = absl::Milliseconds(300);
constexpr char kQlogDir[] = "server-qlog";

absl::Status MakeDirectory(const std::string& path) {
  if (mkdir(path.c_str(), 0755) != 0 && errno != EEXIST) {
    return absl::PermissionDeniedError(
        absl::StrCat("cannot create ", path, ": ", std::strerror(errno)));
  }
  return absl::OkStatus();
}

// The processes and files of a transfer, registered for cleanup at exit.
struct Ngtcp2Processes {
  std::string scratch_dir, key_path, cert_path;
  std::vector<pid_t> servers, clients;
  std::vector<int> handles;
};

// A scratch directory named for its owner (reaped after a kill -9) with a
// throwaway self-signed P-256 key pair for the servers' TLS 1.3.
absl::Status MakeKeyPair(absl::string_view run_id, Ngtcp2Processes* p) {
  CleanupRegistry& registry = CleanupRegistry::Global();
  p->scratch_dir = absl::StrCat(
      "/tmp/", LabResourceName(SelfOwner(), run_id, "ngtcp2-XXXXXX"));
  {
    SignalDeferral deferral;
    if (mkdtemp(p->scratch_dir.data()) == nullptr) {
      return absl::InternalError(
          absl::StrCat("mkdtemp: ", std::strerror(errno)));
    }
    registry.Add(CleanupRegistry::Action::kRemoveDir, p->scratch_dir);
  }
  p->key_path = p->scratch_dir + "/key.pem";
  p->cert_path = p->scratch_dir + "/cert.pem";
  registry.Add(CleanupRegistry::Action::kUnlink, p->key_path);
  registry.Add(CleanupRegistry::Action::kUnlink, p->cert_path);
  absl::StatusOr<std::string> made = RunProgram(
      {kOpenssl, "req", "-x509", "-newkey", "ec", "-pkeyopt",
       "ec_paramgen_curve:prime256v1", "-nodes", "-keyout", p->key_path, "-out",
       p->cert_path, "-days", "1", "-subj", "/CN=ccreplay-lab"});
  return made.status();
}

std::string FlowQlogDir(absl::string_view bundle_dir, size_t flow) {
  return absl::StrCat(bundle_dir, "/", kQlogDir, "/flow", flow);
}

std::vector<std::string> ServerArgv(const TransferPlan& plan,
                                    const PlannedFlow& flow,
                                    const std::string& qlog_dir,
                                    int64_t download_bytes,
                                    const Ngtcp2Processes& p) {
  // PMTUD off: the flow keeps the payload size it was given.
  std::vector<std::string> argv = {kNgtcp2Server,
                                   "-q",
                                   "--cc",
                                   flow.spec.cc,
                                   "--qlog-dir",
                                   qlog_dir,
                                   "--no-pmtud",
                                   "--max-dyn-length",
                                   absl::StrCat(download_bytes),
                                   "-d",
                                   p.scratch_dir};
  if (flow.spec.max_udp_payload_bytes > 0) {
    argv.insert(argv.end(), {"--max-udp-payload-size",
                             absl::StrCat(flow.spec.max_udp_payload_bytes)});
  }
  argv.insert(argv.end(), {plan.sender_address, absl::StrCat(flow.sender_port),
                           p.key_path, p.cert_path});
  return argv;
}

// One server per flow in the sender's namespace. A request for the path
// "/N" makes gtlsserver send a generated body of N bytes (ngtcp2 0.12.1
// examples/server.cc, up to --max-dyn-length).
absl::Status StartServers(const TransferPlan& plan,
                          absl::string_view bundle_dir, int64_t download_bytes,
                          Ngtcp2Processes* p) {
  CleanupRegistry& registry = CleanupRegistry::Global();
  absl::Status status = MakeDirectory(absl::StrCat(bundle_dir, "/", kQlogDir));
  for (size_t i = 0; status.ok() && i < plan.flows.size(); ++i) {
    const std::string qlog_dir = FlowQlogDir(bundle_dir, i);
    status = MakeDirectory(qlog_dir);
    if (!status.ok()) break;
    absl::StatusOr<pid_t> server = SpawnInNetns(
        plan.sender_netns,
        ServerArgv(plan, plan.flows[i], qlog_dir, download_bytes, *p), -1, -1);
    if (!server.ok()) return server.status();
    p->servers.push_back(*server);
    p->handles.push_back(registry.AddProcess(*server));
    status = WaitForServerSocket(plan.sender_netns, ServerSocket::kUdp,
                                 plan.flows[i].sender_port, kNgtcp2Server,
                                 kListenTimeout);
  }
  return status;
}

// One client per flow in the receiver's namespace; it exits when the
// download's stream closes.
absl::Status StartClients(const TransferPlan& plan, int64_t download_bytes,
                          Ngtcp2Processes* p) {
  CleanupRegistry& registry = CleanupRegistry::Global();
  for (const PlannedFlow& flow : plan.flows) {
    const std::string port = absl::StrCat(flow.sender_port);
    std::vector<std::string> argv = {
        kNgtcp2Client,
        "-q",
        "--no-quic-dump",
        "--no-http-dump",
        "--exit-on-all-streams-close",
        "--no-pmtud",
        plan.sender_address,
        port,
        absl::StrCat("https://", plan.sender_address, ":", port, "/",
                     download_bytes)};
    absl::StatusOr<pid_t> client =
        SpawnInNetns(plan.receiver_netns, argv, -1, -1);
    if (!client.ok()) return client.status();
    p->clients.push_back(*client);
    p->handles.push_back(registry.AddProcess(*client));
  }
  return absl::OkStatus();
}

// Waits for the clients (at once after a failure), then stops the servers;
// returns `status`, or the first client's failure.
absl::Status WaitForAll(const TransferPlan& plan, absl::Status status,
                        const Ngtcp2Processes& p) {
  absl::Duration timeout =
      kDurationsBeforeTimeout * plan.duration + kDrainTimeout;
  for (size_t i = 0; i < p.clients.size(); ++i) {
    absl::StatusOr<int> exit =
        WaitProgram(p.clients[i], status.ok() ? timeout : absl::ZeroDuration());
    if (status.ok() && (!exit.ok() || *exit != 0)) {
      status = absl::InternalError(absl::StrCat(
          kNgtcp2Client, " of flow ", i, " failed (",
          exit.ok() ? DescribeExitStatus(*exit) : exit.status().ToString(),
          ")"));
    }
  }
  if (status.ok()) absl::SleepFor(kServerCloseGrace);
  for (pid_t server : p.servers) {
    kill(server, SIGINT);
    WaitProgram(server, absl::Seconds(5)).IgnoreError();
  }
  return status;
}

// Moves the one qlog the flow's server wrote (named by its connection ID)
// to server-qlog/flowN.sqlog; returns that name.
absl::StatusOr<std::string> CollectQlog(absl::string_view bundle_dir,
                                        size_t flow) {
  const std::string dir = FlowQlogDir(bundle_dir, flow);
  std::vector<std::filesystem::path> qlogs;
  std::error_code error;
  for (const auto& entry : std::filesystem::directory_iterator(dir, error)) {
    if (absl::EndsWith(entry.path().string(), ".sqlog"))
      qlogs.push_back(entry.path());
  }
  if (qlogs.size() != 1) {
    return absl::InternalError(
        absl::StrCat(kNgtcp2Server, " of flow ", flow, " wrote ", qlogs.size(),
                     " qlogs in ", dir, " (expected one connection)"));
  }
  const std::string name = absl::StrCat(kQlogDir, "/flow", flow, ".sqlog");
  std::filesystem::rename(qlogs[0], absl::StrCat(bundle_dir, "/", name), error);
  if (!error) std::filesystem::remove(dir, error);
  if (error) {
    return absl::InternalError(
        absl::StrCat("cannot move ", qlogs[0].string(), ": ", error.message()));
  }
  return name;
}

}  // namespace

int64_t Ngtcp2DownloadBytes(const TransferPlan& plan,
                            int64_t bottleneck_rate_bits_per_s) {
  const double bytes = bottleneck_rate_bits_per_s / 8.0 *
                       absl::ToDoubleSeconds(plan.duration) /
                       std::max<size_t>(1, plan.flows.size());
  return std::max<int64_t>(1, static_cast<int64_t>(bytes));
}

absl::StatusOr<std::vector<Ngtcp2FlowResult>> RunNgtcp2Transfer(
    const TransferPlan& plan, int64_t download_bytes, absl::string_view run_id,
    absl::string_view bundle_dir) {
  Ngtcp2Processes p;
  absl::Status status = MakeKeyPair(run_id, &p);
  if (status.ok()) status = StartServers(plan, bundle_dir, download_bytes, &p);
  if (status.ok()) status = StartClients(plan, download_bytes, &p);
  status = WaitForAll(plan, status, p);
  for (int handle : p.handles) CleanupRegistry::Global().Dismiss(handle);
  if (!status.ok()) return status;
  std::vector<Ngtcp2FlowResult> results;
  for (size_t i = 0; i < plan.flows.size(); ++i) {
    absl::StatusOr<std::string> qlog = CollectQlog(bundle_dir, i);
    if (!qlog.ok()) return qlog.status();
    results.push_back(Ngtcp2FlowResult{*qlog, download_bytes});
  }
  return results;
}

}  // namespace ccreplay::lab
