// The testbed: three network namespaces joined by two veth pairs,
//
//   sender  [snd]---[rs]  router  [rd]---[rcv]  receiver
//   A.1/24          A.254       B.254          B.1/24
//
// with the bottleneck on the router's egress towards the receiver (HTB rate
// with a pfifo or bfifo under it, optionally the eBPF step CE marker on
// clsact egress) and the propagation delay on the ACK path (router towards
// sender): netem where the kernel has it, else the TUN delay line.
//
// A second bottleneck (flows with path=2) is a second HTB class on the same
// egress, with its own rate and fifo, that a u32 filter fills with the
// packets to a second receiver address B.2 (on the receiver veth); HTB
// classes without a common parent borrow nothing from each other
// (tc-htb(8)), so the two queues and rates are independent while both
// captures still see every flow on one interface. Its ACKs, from B.2, take
// their own delay line by a source rule ahead of the first path's. Names,
// addresses and ports derive from a per-run id, so labs can run side by
// side; every namespace is registered for cleanup as soon as it exists, and
// its name carries the owning process (lab_owner.h), so one that outlives a
// killed lab is found and removed (reaper.h).
#ifndef CCREPLAY_LAB_TOPOLOGY_H_
#define CCREPLAY_LAB_TOPOLOGY_H_

#include <string>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "lab/lab_config.h"

namespace ccreplay::lab {

struct LabTopology {
  std::string run_id;  // 4 hex digits
  // LabResourceName(owner, run_id, "snd" / "rtr" / "rcv").
  std::string sender_netns, router_netns, receiver_netns;
  // Interface names (at most 15 characters, IFNAMSIZ).
  std::string sender_device, router_sender_device, router_receiver_device,
      receiver_device, delay_device;
  std::string sender_address, router_sender_address, router_receiver_address,
      receiver_address;
  int prefix_length = 24;
  // Flow i uses receiver port base_port + i and sender port base_port + 10 + i;
  // ports stay below the ephemeral range (32768, ip-sysctl.rst).
  int base_port = 20000;
  // Routing table that steers the ACK path into the delay line.
  int delay_table = 100;
  // The second bottleneck: its receiver address (B.2), its ACK path's delay
  // line and routing table.
  std::string second_receiver_address, second_delay_device;
  int second_delay_table = 101;
  // The data path's reordering line (--reorder) and the table that steers
  // what the router receives from the sender into it.
  std::string reorder_device;
  int reorder_table = 102;
};

// Picks an id whose namespaces do not exist yet.
absl::StatusOr<LabTopology> PlanTopology();

// Creates namespaces, veths, addresses, routes, forwarding and the ECN
// sysctl; turns GSO off on the sender veth (one packet per MSS in the
// capture and in the queue).
absl::Status BuildTopology(const LabTopology& topology, EcnMode ecn);

// HTB + pfifo/bfifo on the router's egress towards the receiver; with a
// marker object, clsact + cls_bpf direct-action on the same egress.
absl::Status ShapeBottleneck(const LabTopology& topology,
                             const LabConfig& config,
                             absl::string_view marker_object_path);

// The second bottleneck: B.2 on the receiver veth, HTB class 1:20 of
// `path`'s rate with its fifo, and the u32 filter that sends B.2's packets
// into it. After ShapeBottleneck.
absl::Status AddSecondBottleneck(const LabTopology& topology,
                                 const PathSpec& path);

// Adds `delay_ms` to the ACK path with netem; false when the kernel has no
// netem (the caller then uses the delay line).
absl::StatusOr<bool> TryNetemDelay(const LabTopology& topology,
                                   double delay_ms);

// Routes the ACK path through the (already created) TUN device.
absl::Status RouteAckPathThroughDelayLine(const LabTopology& topology);

// Routes the second bottleneck's ACKs (from B.2) through its own (already
// created) TUN device, or, without one, past the first path's delay line.
absl::Status RouteSecondAckPath(const LabTopology& topology,
                                bool own_delay_line);

// Routes what the router receives from the sender (the data path) through
// the (already created) TUN device of the reordering line; what it writes
// back is routed as usual, to the bottleneck.
absl::Status RouteDataPathThroughReorderLine(const LabTopology& topology);

// `tc -s qdisc show` of the bottleneck, for the bundle.
std::string BottleneckQdiscStats(const LabTopology& topology);

}  // namespace ccreplay::lab

#endif  // CCREPLAY_LAB_TOPOLOGY_H_
