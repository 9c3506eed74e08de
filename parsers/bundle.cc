#include "parsers/bundle.h"

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <utility>

#include "absl/status/status.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "proto/json_printer.h"

namespace ccreplay {
namespace {

// dir/NAME, dir/NAME.gz, then the same with the extension `alternative`
// (pcap -> pcapng): the first that is a regular file, or "".
std::string FindInBundle(const std::filesystem::path& dir,
                         const std::string& name,
                         const std::string& alternative = "") {
  for (const std::string& base : {name, alternative}) {
    if (base.empty()) continue;
    for (const char* suffix : {"", ".gz"}) {
      std::filesystem::path path = dir / (base + suffix);
      std::error_code error;
      if (std::filesystem::is_regular_file(path, error)) return path.string();
    }
  }
  return "";
}

}  // namespace

absl::StatusOr<proto::BundleMeta> ReadBundleMeta(const std::string& dir) {
  const std::filesystem::path path =
      std::filesystem::path(dir) / kBundleMetaJson;
  std::ifstream in(path);
  if (!in) {
    return absl::NotFoundError(absl::StrCat(
        path.string(),
        ": missing (a lab bundle describes its run in meta.json; meta.txt of "
        "older bundles is not read)"));
  }
  std::ostringstream text;
  text << in.rdbuf();
  proto::BundleMeta meta;
  absl::Status status = ParseJson(text.str(), &meta);
  if (!status.ok()) {
    return absl::InvalidArgumentError(absl::StrCat(
        path.string(), ": not a bundle meta.json (", status.message(), ")"));
  }
  return meta;
}

std::string IncompleteBundleWarning(const Bundle& bundle) {
  return absl::StrCat(bundle.dir,
                      ": incomplete bundle (meta.json complete=false): the lab "
                      "run was cut short, captures and logs may end early");
}

absl::StatusOr<Bundle> ReadBundle(const std::string& dir) {
  Bundle bundle;
  bundle.dir = dir;
  bundle.sender_capture = FindInBundle(dir, kBundleSenderPcap, "sender.pcapng");
  if (bundle.sender_capture.empty()) {
    return absl::NotFoundError(
        absl::StrCat(dir, ": no sender.pcap[.gz] in the bundle directory"));
  }
  bundle.receiver_capture =
      FindInBundle(dir, kBundleReceiverPcap, "receiver.pcapng");
  bundle.tcp_probe = FindInBundle(dir, kBundleTcpProbe);
  bundle.ss_log = FindInBundle(dir, kBundleSsLog);
  absl::StatusOr<proto::BundleMeta> meta = ReadBundleMeta(dir);
  if (!meta.ok()) return meta.status();
  bundle.meta = *std::move(meta);
  return bundle;
}

absl::StatusOr<std::string> BundleServerQlog(const Bundle& bundle,
                                             const std::string& flow) {
  std::vector<std::string> qlogs;  // Per flow; "" for a flow without one.
  for (const proto::BundleFlow& f : bundle.meta.flows()) {
    if (f.server_qlog().empty()) {
      qlogs.push_back("");
      continue;
    }
    qlogs.push_back(FindInBundle(bundle.dir, f.server_qlog()));
    if (qlogs.back().empty()) {
      return absl::NotFoundError(absl::StrCat(bundle.dir, ": meta.json names ",
                                              f.server_qlog(),
                                              ", which is missing"));
    }
  }
  if (std::all_of(qlogs.begin(), qlogs.end(),
                  [](const std::string& q) { return q.empty(); })) {
    return std::string();
  }
  size_t index = 0;
  if (!flow.empty()) {
    if (!absl::SimpleAtoi(flow, &index) || index >= qlogs.size()) {
      return absl::InvalidArgumentError(
          absl::StrCat(bundle.dir, ": --flow ", flow, " is not one of its ",
                       qlogs.size(), " flows (meta.json flows[].index)"));
    }
    return qlogs[index];
  }
  std::string largest;
  uintmax_t largest_bytes = 0;
  for (const std::string& qlog : qlogs) {
    std::error_code error;
    const uintmax_t bytes =
        qlog.empty() ? 0 : std::filesystem::file_size(qlog, error);
    if (!qlog.empty() && !error && (largest.empty() || bytes > largest_bytes)) {
      largest = qlog;
      largest_bytes = bytes;
    }
  }
  return largest;
}

namespace {

std::optional<BundleQueue> QueueOf(const std::string& qdisc,
                                   const std::optional<int64_t>& packets,
                                   const std::optional<int64_t>& bytes) {
  const std::optional<int64_t>& limit = qdisc == "bfifo" ? bytes : packets;
  if ((qdisc != "pfifo" && qdisc != "bfifo") || !limit.has_value() ||
      *limit <= 0) {
    return std::nullopt;
  }
  return BundleQueue{qdisc, *limit};
}

template <typename Message>
std::optional<BundleQueue> QueueOf(const Message& m) {
  return QueueOf(m.qdisc(),
                 m.has_limit_packets()
                     ? std::optional<int64_t>(m.limit_packets())
                     : std::nullopt,
                 m.has_limit_bytes() ? std::optional<int64_t>(m.limit_bytes())
                                     : std::nullopt);
}

}  // namespace

std::optional<BundleQueue> BundleFlowQueue(const proto::BundleMeta& meta,
                                           absl::string_view sender) {
  if (meta.paths_size() == 0) return QueueOf(meta.bottleneck());
  if (meta.paths_size() == 1) return QueueOf(meta.paths(0));
  for (const proto::BundleFlow& f : meta.flows()) {
    if (f.sender() != sender) continue;
    const int32_t path = f.has_path() ? f.path() : 1;
    for (const proto::BundlePath& p : meta.paths()) {
      if (p.path() == path) return QueueOf(p);
    }
  }
  return std::nullopt;
}

}  // namespace ccreplay
