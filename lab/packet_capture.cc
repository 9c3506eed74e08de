#include "lab/packet_capture.h"

#include <pcap/pcap.h>
#include <poll.h>

#include <future>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "lab/netns.h"

namespace ccreplay::lab {
namespace {

// Large enough that a bottleneck of a few hundred Mbit/s never fills the
// ring between two polls.
constexpr int kBufferBytes = 32 << 20;
constexpr int kPollTimeoutMs = 20;

struct DumpTarget {
  pcap_dumper_t* dumper;
  uint64_t* packets_written;
};

void DumpPacket(u_char* user, const pcap_pkthdr* header, const u_char* bytes) {
  auto* target = reinterpret_cast<DumpTarget*>(user);
  pcap_dump(reinterpret_cast<u_char*>(target->dumper), header, bytes);
  ++*target->packets_written;
}

struct OpenCapture {
  pcap_t* handle;
  pcap_dumper_t* dumper;
};

// On the calling thread, already in the namespace: `device` capturing
// through `filter`, non-blocking, into a new pcap file at `path`.
absl::StatusOr<OpenCapture> Open(const std::string& netns,
                                 const std::string& device,
                                 const std::string& filter,
                                 const std::string& path) {
  char errbuf[PCAP_ERRBUF_SIZE] = {};
  pcap_t* handle = pcap_create(device.c_str(), errbuf);
  auto fail = [&](absl::string_view what) {
    absl::Status error = absl::InternalError(
        absl::StrCat("capture on ", device, " (netns ", netns, "): ", what,
                     ": ", handle != nullptr ? pcap_geterr(handle) : errbuf));
    if (handle != nullptr) pcap_close(handle);
    return error;
  };
  if (handle == nullptr) return fail("pcap_create");
  pcap_set_snaplen(handle, PacketCapture::kSnaplenBytes);
  pcap_set_immediate_mode(handle, 1);
  pcap_set_buffer_size(handle, kBufferBytes);
  if (pcap_activate(handle) < 0) return fail("pcap_activate");
  bpf_program program;
  if (pcap_compile(handle, &program, filter.c_str(), 1, PCAP_NETMASK_UNKNOWN) !=
      0) {
    return fail(absl::StrCat("filter '", filter, "'"));
  }
  int set_filter = pcap_setfilter(handle, &program);
  pcap_freecode(&program);
  if (set_filter != 0) return fail("pcap_setfilter");
  pcap_dumper_t* dumper = pcap_dump_open(handle, path.c_str());
  if (dumper == nullptr) return fail(absl::StrCat("pcap_dump_open ", path));
  if (pcap_setnonblock(handle, 1, errbuf) != 0) {
    pcap_dump_close(dumper);
    return fail("pcap_setnonblock");
  }
  return OpenCapture{handle, dumper};
}

// Writes packets until `stop` (then one last round), fills `stats` and
// closes the capture; `result` holds an error of the statistics or flush.
void DumpUntilStopped(OpenCapture capture, const std::string& path,
                      const std::atomic<bool>& stop, CaptureStats* stats,
                      absl::Status* result) {
  DumpTarget target{capture.dumper, &stats->packets_written};
  pollfd fd = {pcap_get_selectable_fd(capture.handle), POLLIN, 0};
  for (bool last_round = false; !last_round;) {
    last_round = stop.load();
    poll(&fd, 1, last_round ? 0 : kPollTimeoutMs);
    while (pcap_dispatch(capture.handle, -1, DumpPacket,
                         reinterpret_cast<u_char*>(&target)) > 0) {
    }
  }
  pcap_stat pstats = {};
  if (pcap_stats(capture.handle, &pstats) == 0) {
    stats->ps_recv = pstats.ps_recv;
    stats->ps_drop = pstats.ps_drop;
    stats->ps_ifdrop = pstats.ps_ifdrop;
  } else {
    *result = absl::InternalError(
        absl::StrCat("pcap_stats: ", pcap_geterr(capture.handle)));
  }
  if (pcap_dump_flush(capture.dumper) != 0) {
    *result = absl::InternalError(absl::StrCat("cannot write ", path));
  }
  pcap_dump_close(capture.dumper);
  pcap_close(capture.handle);
}

}  // namespace

absl::StatusOr<std::unique_ptr<PacketCapture>> PacketCapture::Start(
    absl::string_view netns, absl::string_view device, absl::string_view filter,
    absl::string_view path) {
  std::unique_ptr<PacketCapture> capture(new PacketCapture());
  std::promise<absl::Status> ready;
  std::future<absl::Status> ready_future = ready.get_future();
  PacketCapture* self = capture.get();
  self->thread_ = std::thread([self, &ready, netns = std::string(netns),
                               device = std::string(device),
                               filter = std::string(filter),
                               path = std::string(path)] {
    absl::Status entered = EnterNetns(netns);
    if (!entered.ok()) {
      ready.set_value(entered);
      return;
    }
    absl::StatusOr<OpenCapture> open = Open(netns, device, filter, path);
    ready.set_value(open.status());
    if (!open.ok()) return;
    DumpUntilStopped(*open, path, self->stop_, &self->stats_, &self->result_);
  });
  absl::Status started = ready_future.get();
  if (!started.ok()) {
    capture->thread_.join();
    return started;
  }
  return capture;
}

PacketCapture::~PacketCapture() {
  stop_.store(true);
  if (thread_.joinable()) thread_.join();
}

absl::StatusOr<CaptureStats> PacketCapture::Stop() {
  stop_.store(true);
  if (thread_.joinable()) thread_.join();
  if (!result_.ok()) return result_;
  return stats_;
}

}  // namespace ccreplay::lab
