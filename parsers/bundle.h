// A bundle: the directory `ccreplay lab` writes, read as one input. This is
// the one reader of a bundle's layout and of its meta.json
// (proto/bundle.proto); the lab writes the same file names.
#ifndef CCREPLAY_PARSERS_BUNDLE_H_
#define CCREPLAY_PARSERS_BUNDLE_H_

#include <cstdint>
#include <optional>
#include <string>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "proto/bundle.pb.h"

namespace ccreplay {

// File names inside a bundle, as the lab writes them. The reader also
// accepts each with ".gz" (checked-in bundles are compressed) and the
// captures as pcapng.
inline constexpr char kBundleSenderPcap[] = "sender.pcap";
inline constexpr char kBundleReceiverPcap[] = "receiver.pcap";
inline constexpr char kBundleSsLog[] = "ss.log";
inline constexpr char kBundleTcpProbe[] = "tcp_probe.txt";
inline constexpr char kBundleMetaJson[] = "meta.json";

struct Bundle {
  std::string dir;
  // Paths of the files present; empty when absent. sender_capture is
  // never empty.
  std::string sender_capture;
  std::string receiver_capture;
  std::string tcp_probe;
  std::string ss_log;
  proto::BundleMeta meta;

  // The per-ACK host state a replay compares with: tcp_probe (one line per
  // ACK) if present, else the ss log; empty when the bundle has neither.
  const std::string& host_state() const {
    return tcp_probe.empty() ? ss_log : tcp_probe;
  }
  // The controller the run used (meta.sender.controller): the kernel's
  // name, e.g. "cubic"; empty when the meta does not say.
  const std::string& controller() const { return meta.sender().controller(); }
  // False when the lab run was cut short (meta.complete false); bundles
  // from before the field count as complete.
  bool complete() const { return !meta.has_complete() || meta.complete(); }
};

// The warning for a bundle that is not complete(), naming its directory.
std::string IncompleteBundleWarning(const Bundle& bundle);

// meta.json of bundle directory `dir`. NotFound naming meta.json when it is
// missing (a bundle from before meta.json carries meta.txt, which is not
// read: convert it), InvalidArgument naming the file when it does not
// parse as proto::BundleMeta.
absl::StatusOr<proto::BundleMeta> ReadBundleMeta(const std::string& dir);

// Bundle directory `dir`: its files and meta.json. NotFound naming the
// directory when it has no sender capture; ReadBundleMeta's errors.
absl::StatusOr<Bundle> ReadBundle(const std::string& dir);

// The QUIC ground truth of a bundle from `lab --transfer ngtcp2`: the path
// of the server qlog (meta.flows[].server_qlog, or the same with ".gz") of
// the flow `flow` names (--flow: an index into meta.flows; empty: the flow
// with the largest qlog, the one that sent the most). "" for a bundle
// without qlogs (a TCP bundle); InvalidArgument for a bad index, NotFound
// naming a qlog meta.json names but the bundle lacks.
absl::StatusOr<std::string> BundleServerQlog(const Bundle& bundle,
                                             const std::string& flow);

// The queue at the bottleneck a flow crossed, as the bundle states it:
// tc-pfifo(8)'s pfifo admits while it holds fewer than `limit` packets,
// bfifo while the bytes queued plus the arrival's fit in `limit` bytes
// (net/sched/sch_fifo.c bfifo_enqueue()/pfifo_enqueue(), Linux 6.18).
struct BundleQueue {
  std::string qdisc;  // "pfifo" or "bfifo"
  int64_t limit = 0;  // packets (pfifo) or bytes (bfifo)
  bool counts_bytes() const { return qdisc == "bfifo"; }
};

// The queue of the path (meta.paths[], BundleFlow.path) the flow of `meta`
// whose sender is `sender` ("ADDR:PORT", meta.flows[].sender) crossed;
// with a single path, or a bundle from before paths[] (meta.bottleneck),
// that path's whatever `sender` is. nullopt when the meta names no qdisc,
// or names several paths and no flow has `sender`.
std::optional<BundleQueue> BundleFlowQueue(const proto::BundleMeta& meta,
                                           absl::string_view sender);

}  // namespace ccreplay

#endif  // CCREPLAY_PARSERS_BUNDLE_H_
