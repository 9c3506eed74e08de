#include "parsers/live_capture.h"

#include <poll.h>

#include <cerrno>
#include <cstring>

#include "absl/strings/str_cat.h"

namespace ccreplay {
namespace {

// The status for pcap_activate()'s result `rc` (< 0), per pcap_activate(3PCAP).
absl::Status ActivationError(const std::string& interface, int rc,
                             pcap_t* pcap) {
  const std::string detail = pcap_geterr(pcap);
  switch (rc) {
    case PCAP_ERROR_PERM_DENIED:
    case PCAP_ERROR_PROMISC_PERM_DENIED:
      return absl::PermissionDeniedError(absl::StrCat(
          interface,
          ": capturing needs root or CAP_NET_RAW (e.g. sudo ccreplay watch, "
          "or setcap cap_net_raw+ep on the binary); libpcap: ",
          detail));
    case PCAP_ERROR_NO_SUCH_DEVICE:
      return absl::NotFoundError(
          absl::StrCat(interface, ": no such interface; libpcap: ", detail));
    case PCAP_ERROR_IFACE_NOT_UP:
      return absl::UnavailableError(
          absl::StrCat(interface, ": the interface is down"));
    default:
      return absl::UnavailableError(absl::StrCat(
          interface, ": cannot capture: ", pcap_statustostr(rc), ": ", detail));
  }
}

// Sets the handle's options before activation; libpcap refuses them only on
// an activated handle, which `pcap` is not.
void Configure(pcap_t* pcap) {
  pcap_set_snaplen(pcap, kLiveSnaplenBytes);
  pcap_set_promisc(pcap, 0);
  pcap_set_buffer_size(pcap, kLiveBufferBytes);
  // Each frame as soon as it arrives, not when a kernel block fills
  // (pcap_set_immediate_mode(3PCAP)): the table is refreshed every second.
  pcap_set_immediate_mode(pcap, 1);
  pcap_set_tstamp_precision(pcap, PCAP_TSTAMP_PRECISION_NANO);
}

}  // namespace

LiveCapture::LiveCapture(const LiveCaptureOptions& options,
                         SegmentConsumer& consumer)
    : interface_(options.interface),
      reader_(options.interface, options.filter, consumer) {}

absl::StatusOr<std::unique_ptr<LiveCapture>> LiveCapture::Open(
    const LiveCaptureOptions& options, SegmentConsumer& consumer) {
  std::unique_ptr<LiveCapture> capture(new LiveCapture(options, consumer));
  char errbuf[PCAP_ERRBUF_SIZE] = {};
  capture->pcap_ = pcap_create(options.interface.c_str(), errbuf);
  if (capture->pcap_ == nullptr) {
    return absl::UnavailableError(
        absl::StrCat(options.interface, ": cannot capture: ", errbuf));
  }
  Configure(capture->pcap_);
  const int rc = pcap_activate(capture->pcap_);
  if (rc < 0) return ActivationError(options.interface, rc, capture->pcap_);
  absl::Status link =
      capture->reader_.SetLinkType(pcap_datalink(capture->pcap_));
  if (!link.ok()) return link;
  if (pcap_setnonblock(capture->pcap_, 1, errbuf) != 0) {
    return absl::UnavailableError(
        absl::StrCat(options.interface, ": ", errbuf));
  }
  if (!options.dump_path.empty()) {
    absl::StatusOr<std::unique_ptr<CappedPcapDump>> dump = CappedPcapDump::Open(
        capture->pcap_, options.dump_path, options.dump_cap_bytes);
    if (!dump.ok()) return dump.status();
    capture->dump_ = *std::move(dump);
  }
  return capture;
}

LiveCapture::~LiveCapture() { Close(); }

void LiveCapture::OnFrame(u_char* user, const pcap_pkthdr* header,
                          const u_char* data) {
  LiveCapture& capture = *reinterpret_cast<LiveCapture*>(user);
  if (capture.dump_ != nullptr) {
    // Nanosecond timestamps (Configure()): tv_usec holds nanoseconds.
    capture.dump_->Write(
        *header, data,
        static_cast<int64_t>(header->ts.tv_sec) * 1'000'000'000 +
            header->ts.tv_usec);
  }
  capture.reader_.OnRecord(*header, data);
}

absl::StatusOr<int> LiveCapture::Poll(absl::Duration timeout) {
  if (pcap_ == nullptr) return absl::FailedPreconditionError("closed");
  pollfd fd = {pcap_get_selectable_fd(pcap_), POLLIN, 0};
  const int ready = ::poll(&fd, 1, absl::ToInt64Milliseconds(timeout));
  if (ready < 0 && errno != EINTR) {
    return absl::UnavailableError(
        absl::StrCat(interface_, ": poll: ", std::strerror(errno)));
  }
  if (ready <= 0) return 0;
  // Non-blocking: every frame waiting, then 0 (pcap_dispatch(3PCAP)).
  const int frames = pcap_dispatch(pcap_, -1, &LiveCapture::OnFrame,
                                   reinterpret_cast<u_char*>(this));
  if (frames < 0) {
    return absl::UnavailableError(
        absl::StrCat(interface_, ": capture stopped: ", pcap_geterr(pcap_)));
  }
  return frames;
}

uint64_t LiveCapture::kernel_drops() const {
  pcap_stat stats = {};
  if (pcap_ == nullptr || pcap_stats(pcap_, &stats) != 0) return 0;
  return stats.ps_drop;
}

void LiveCapture::Close() {
  if (dump_ != nullptr) dump_->Close();  // Before the handle it uses.
  if (pcap_ != nullptr) {
    pcap_close(pcap_);
    pcap_ = nullptr;
    reader_.Finish();
  }
}

}  // namespace ccreplay
