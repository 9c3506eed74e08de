#include "lab/topology.h"

#include <unistd.h>

#include <string>
#include <vector>

#include "absl/random/random.h"
#include "absl/status/status.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "lab/cleanup_registry.h"
#include "lab/lab_owner.h"
#include "lab/netns.h"
#include "lab/subprocess.h"

namespace ccreplay::lab {
namespace {

// Runs an iproute2 command; on failure, says which kernel feature the step
// needs so a refusal names it.
absl::Status Ip(const std::vector<std::string>& argv,
                absl::string_view feature = "") {
  absl::StatusOr<std::string> output = RunProgram(argv);
  if (output.ok()) return absl::OkStatus();
  if (feature.empty()) return output.status();
  return absl::FailedPreconditionError(
      absl::StrCat("kernel feature missing or refused: ", feature, ": ",
                   output.status().message()));
}

}  // namespace

absl::StatusOr<LabTopology> PlanTopology() {
  absl::BitGen random;
  const LabOwner owner = SelfOwner();
  for (int attempt = 0; attempt < 16; ++attempt) {
    int id = absl::Uniform(random, 0, 8192);
    LabTopology t;
    t.run_id = absl::StrFormat("%04x", id);
    t.sender_netns = LabResourceName(owner, t.run_id, "snd");
    t.router_netns = LabResourceName(owner, t.run_id, "rtr");
    t.receiver_netns = LabResourceName(owner, t.run_id, "rcv");
    if (NetnsExists(t.sender_netns) || NetnsExists(t.router_netns) ||
        NetnsExists(t.receiver_netns)) {
      continue;
    }
    t.sender_device = absl::StrCat("ccl", t.run_id, "s");
    t.router_sender_device = absl::StrCat("ccl", t.run_id, "rs");
    t.router_receiver_device = absl::StrCat("ccl", t.run_id, "rd");
    t.receiver_device = absl::StrCat("ccl", t.run_id, "d");
    t.delay_device = absl::StrCat("ccl", t.run_id, "dly");
    // 10.64.0.0 - 10.127.255.255 (RFC 1918), two /24s per id.
    int second = 64 + (id >> 7);
    int third = (id & 127) * 2;
    t.sender_address = absl::StrCat("10.", second, ".", third, ".1");
    t.router_sender_address = absl::StrCat("10.", second, ".", third, ".254");
    t.router_receiver_address =
        absl::StrCat("10.", second, ".", third + 1, ".254");
    t.receiver_address = absl::StrCat("10.", second, ".", third + 1, ".1");
    t.second_receiver_address =
        absl::StrCat("10.", second, ".", third + 1, ".2");
    t.second_delay_device = absl::StrCat("ccl", t.run_id, "dl2");
    t.reorder_device = absl::StrCat("ccl", t.run_id, "ro");
    t.base_port = 20000 + (id % 630) * 20;
    return t;
  }
  return absl::ResourceExhaustedError(
      "no free lab id: too many lab namespaces exist");
}

namespace {

// The three namespaces, each with its loopback up.
absl::Status AddNamespaces(const LabTopology& t) {
  CleanupRegistry& registry = CleanupRegistry::Global();
  for (const std::string& netns :
       {t.sender_netns, t.router_netns, t.receiver_netns}) {
    absl::Status status;
    {
      // Registered first, so a half-created namespace is removed too; no
      // signal handler runs until `ip netns add` has returned (the `ip`
      // child inherits the blocked signals: Ctrl-C does not cut it short).
      SignalDeferral deferral;
      if (registry.Add(CleanupRegistry::Action::kDeleteNetns, netns) < 0) {
        return absl::ResourceExhaustedError("cleanup registry full");
      }
      status = Ip({"ip", "netns", "add", netns},
                  "network namespaces (CONFIG_NET_NS)");
    }
    if (!status.ok()) return status;
    status = Ip({"ip", "-n", netns, "link", "set", "lo", "up"});
    if (!status.ok()) return status;
  }
  return absl::OkStatus();
}

// The veth pairs sender-router and router-receiver, addressed and routed.
absl::Status AddLinks(const LabTopology& t) {
  std::string prefix = absl::StrCat("/", t.prefix_length);
  std::vector<std::vector<std::string>> commands = {
      {"ip", "link", "add", t.sender_device, "netns", t.sender_netns, "type",
       "veth", "peer", "name", t.router_sender_device, "netns", t.router_netns},
      {"ip", "link", "add", t.router_receiver_device, "netns", t.router_netns,
       "type", "veth", "peer", "name", t.receiver_device, "netns",
       t.receiver_netns},
      {"ip", "-n", t.sender_netns, "addr", "add", t.sender_address + prefix,
       "dev", t.sender_device},
      {"ip", "-n", t.router_netns, "addr", "add",
       t.router_sender_address + prefix, "dev", t.router_sender_device},
      {"ip", "-n", t.router_netns, "addr", "add",
       t.router_receiver_address + prefix, "dev", t.router_receiver_device},
      {"ip", "-n", t.receiver_netns, "addr", "add", t.receiver_address + prefix,
       "dev", t.receiver_device},
      // One packet per skb on the sender: no TSO/GSO super-packets in the
      // capture or the queue (what make-capture.sh validated on 6.18).
      {"ip", "-n", t.sender_netns, "link", "set", "dev", t.sender_device,
       "gso_max_size", "1500", "gso_max_segs", "1"},
      {"ip", "-n", t.sender_netns, "link", "set", t.sender_device, "up"},
      {"ip", "-n", t.router_netns, "link", "set", t.router_sender_device, "up"},
      {"ip", "-n", t.router_netns, "link", "set", t.router_receiver_device,
       "up"},
      {"ip", "-n", t.receiver_netns, "link", "set", t.receiver_device, "up"},
      {"ip", "-n", t.sender_netns, "route", "add", "default", "via",
       t.router_sender_address},
      {"ip", "-n", t.receiver_netns, "route", "add", "default", "via",
       t.router_receiver_address},
  };
  for (size_t i = 0; i < commands.size(); ++i) {
    absl::Status status = Ip(commands[i], i < 2 ? "veth (CONFIG_VETH)" : "");
    if (!status.ok()) return status;
  }
  return absl::OkStatus();
}

}  // namespace

absl::Status BuildTopology(const LabTopology& t, EcnMode ecn) {
  absl::Status status = AddNamespaces(t);
  if (!status.ok()) return status;
  status = AddLinks(t);
  if (!status.ok()) return status;
  for (auto [key, value] : std::vector<std::pair<const char*, const char*>>{
           {"net/ipv4/ip_forward", "1"},
           {"net/ipv4/conf/all/rp_filter", "0"},
           {"net/ipv4/conf/default/rp_filter", "0"}}) {
    absl::Status status = WriteNetnsSysctl(t.router_netns, key, value);
    if (!status.ok()) return status;
  }
  for (const std::string& netns : {t.sender_netns, t.receiver_netns}) {
    absl::Status status = WriteNetnsSysctl(netns, "net/ipv4/tcp_ecn",
                                           absl::StrCat(TcpEcnSysctl(ecn)));
    if (!status.ok()) {
      return absl::FailedPreconditionError(
          absl::StrCat(ecn == EcnMode::kAccEcn
                           ? "kernel feature missing: AccECN negotiation; "
                           : "",
                       status.message()));
    }
  }
  return absl::OkStatus();
}

namespace {

// HTB class 1:`minor` of `rate_bits_per_s` (ceil the same: it borrows
// nothing) with its fifo `minor`: under it.
absl::Status AddShapedClass(const LabTopology& t, int minor,
                            int64_t rate_bits_per_s, const QueueSpec& queue) {
  std::string rate = absl::StrCat(rate_bits_per_s, "bit");
  absl::Status status =
      Ip({"tc", "-n", t.router_netns, "class", "add", "dev",
          t.router_receiver_device, "parent", "1:", "classid",
          absl::StrCat("1:", minor), "htb", "rate", rate, "ceil", rate},
         "HTB qdisc (CONFIG_NET_SCH_HTB)");
  if (!status.ok()) return status;
  return Ip(
      {"tc", "-n", t.router_netns, "qdisc", "add", "dev",
       t.router_receiver_device, "parent", absl::StrCat("1:", minor), "handle",
       absl::StrCat(minor, ":"), queue.in_packets ? "pfifo" : "bfifo", "limit",
       absl::StrCat(queue.limit)},
      "pfifo/bfifo qdisc (CONFIG_NET_SCH_FIFO)");
}

}  // namespace

absl::Status ShapeBottleneck(const LabTopology& t, const LabConfig& config,
                             absl::string_view marker_object_path) {
  absl::Status status = Ip({"tc", "-n", t.router_netns, "qdisc", "add", "dev",
                            t.router_receiver_device, "root", "handle",
                            "1:", "htb", "default", "10", "r2q", "100"},
                           "HTB qdisc (CONFIG_NET_SCH_HTB)");
  if (!status.ok()) return status;
  status = AddShapedClass(t, 10, config.rate_bits_per_s, config.queue);
  if (!status.ok() || marker_object_path.empty()) return status;
  status = Ip({"tc", "-n", t.router_netns, "qdisc", "add", "dev",
               t.router_receiver_device, "clsact"},
              "clsact qdisc (CONFIG_NET_SCH_INGRESS)");
  if (!status.ok()) return status;
  return Ip({"tc", "-n", t.router_netns, "filter", "add", "dev",
             t.router_receiver_device, "egress", "bpf", "da", "obj",
             std::string(marker_object_path), "sec", "tc"},
            "cls_bpf with eBPF (CONFIG_NET_CLS_BPF, CONFIG_BPF_SYSCALL)");
}

absl::Status AddSecondBottleneck(const LabTopology& t, const PathSpec& path) {
  absl::Status status =
      Ip({"ip", "-n", t.receiver_netns, "addr", "add",
          absl::StrCat(t.second_receiver_address, "/", t.prefix_length), "dev",
          t.receiver_device});
  if (!status.ok()) return status;
  status = AddShapedClass(t, 20, path.rate_bits_per_s, path.queue);
  if (!status.ok()) return status;
  return Ip({"tc",
             "-n",
             t.router_netns,
             "filter",
             "add",
             "dev",
             t.router_receiver_device,
             "parent",
             "1:",
             "protocol",
             "ip",
             "prio",
             "1",
             "u32",
             "match",
             "ip",
             "dst",
             t.second_receiver_address + "/32",
             "flowid",
             "1:20"},
            "u32 classifier (CONFIG_NET_CLS_U32)");
}

absl::StatusOr<bool> TryNetemDelay(const LabTopology& t, double delay_ms) {
  absl::StatusOr<std::string> output = RunProgram(
      {"tc", "-n", t.router_netns, "qdisc", "add", "dev",
       t.router_sender_device, "root", "netem", "delay",
       absl::StrCat(std::llround(delay_ms * 1000), "us"), "limit", "100000"});
  if (output.ok()) return true;
  // "Specified qdisc kind is unknown" (kernel) or "Unknown qdisc" (tc).
  if (absl::StrContains(output.status().message(), "nknown")) return false;
  return output.status();
}

namespace {

// A TUN device of the delay line made ready for routing: no reverse-path
// filter, no IPv6 (its link-local autoconfiguration would send router
// solicitations into the delay line), up, the default route of `table`.
absl::Status PrepareDelayDevice(const LabTopology& t, const std::string& device,
                                int table) {
  absl::Status status = WriteNetnsSysctl(
      t.router_netns, absl::StrCat("net/ipv4/conf/", device, "/rp_filter"),
      "0");
  if (!status.ok()) return status;
  if (access("/proc/sys/net/ipv6", F_OK) == 0) {
    status = WriteNetnsSysctl(
        t.router_netns, absl::StrCat("net/ipv6/conf/", device, "/disable_ipv6"),
        "1");
    if (!status.ok()) return status;
  }
  for (const std::vector<std::string>& command :
       std::vector<std::vector<std::string>>{
           {"ip", "-n", t.router_netns, "link", "set", device, "up"},
           {"ip", "-n", t.router_netns, "route", "add", "default", "dev",
            device, "table", absl::StrCat(table)}}) {
    status = Ip(command, "policy routing (CONFIG_IP_MULTIPLE_TABLES)");
    if (!status.ok()) return status;
  }
  return absl::OkStatus();
}

// The second path's ACK rule is looked up before the first path's, whose
// `ip rule add` without a preference gets 32765 (below main's 32766).
constexpr int kSecondAckRulePreference = 1000;

}  // namespace

absl::Status RouteAckPathThroughDelayLine(const LabTopology& t) {
  absl::Status status = PrepareDelayDevice(t, t.delay_device, t.delay_table);
  if (!status.ok()) return status;
  return Ip({"ip", "-n", t.router_netns, "rule", "add", "iif",
             t.router_receiver_device, "lookup", absl::StrCat(t.delay_table)},
            "policy routing (CONFIG_IP_MULTIPLE_TABLES)");
}

absl::Status RouteSecondAckPath(const LabTopology& t, bool own_delay_line) {
  if (own_delay_line) {
    absl::Status status =
        PrepareDelayDevice(t, t.second_delay_device, t.second_delay_table);
    if (!status.ok()) return status;
  }
  return Ip(
      {"ip", "-n", t.router_netns, "rule", "add", "pref",
       absl::StrCat(kSecondAckRulePreference), "from",
       t.second_receiver_address, "iif", t.router_receiver_device, "lookup",
       own_delay_line ? absl::StrCat(t.second_delay_table) : "main"},
      "policy routing (CONFIG_IP_MULTIPLE_TABLES)");
}

absl::Status RouteDataPathThroughReorderLine(const LabTopology& t) {
  absl::Status status =
      PrepareDelayDevice(t, t.reorder_device, t.reorder_table);
  if (!status.ok()) return status;
  return Ip({"ip", "-n", t.router_netns, "rule", "add", "iif",
             t.router_sender_device, "lookup", absl::StrCat(t.reorder_table)},
            "policy routing (CONFIG_IP_MULTIPLE_TABLES)");
}

std::string BottleneckQdiscStats(const LabTopology& t) {
  absl::StatusOr<std::string> output =
      RunProgram({"tc", "-n", t.router_netns, "-s", "qdisc", "show", "dev",
                  t.router_receiver_device});
  return output.ok() ? *output : output.status().ToString();
}

}  // namespace ccreplay::lab
