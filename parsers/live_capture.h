// A live capture on a network interface (libpcap's pcap_create /
// pcap_activate), its frames handed one at a time through the same filter,
// decoder and sanity checks as a capture file (FrameReader), and optionally
// written to a pcap file as they come (pcap_dump), for reading again later.
#ifndef CCREPLAY_PARSERS_LIVE_CAPTURE_H_
#define CCREPLAY_PARSERS_LIVE_CAPTURE_H_

#include <pcap/pcap.h>

#include <cstdint>
#include <memory>
#include <string>

#include "absl/status/statusor.h"
#include "absl/time/time.h"
#include "parsers/capped_pcap_dump.h"
#include "parsers/pcap_reader.h"

namespace ccreplay {

// Enough for every header the decoder reads: Ethernet with two VLAN tags
// (22 bytes), IPv6 with a few extension headers (40 + a few 8-byte ones)
// and TCP with its longest options (60): payload is counted from the IP
// length, never read.
inline constexpr int kLiveSnaplenBytes = 256;
// The kernel ring (pcap_set_buffer_size): 32 MiB holds about 1.5 s of a
// 1 Gbit/s link's full-size frames, so a slow terminal does not drop.
inline constexpr int kLiveBufferBytes = 32 << 20;

struct LiveCaptureOptions {
  std::string interface;  // As `ip link` names it; "any" for all.
  std::string filter;     // pcap-filter(7); empty: every frame.
  // Where every frame captured (filtered or not) is also written, as pcap;
  // empty: nowhere.
  std::string dump_path;
  // At most this many bytes of it are kept (CappedPcapDump); 0: all.
  uint64_t dump_cap_bytes = 0;
};

class LiveCapture {
 public:
  // Errors: PermissionDenied (not root, no CAP_NET_RAW), NotFound (no such
  // interface), Unavailable (the interface is down, or another failure
  // libpcap reports), Unimplemented (a link type the decoder does not
  // read), OutOfRange (the filter does not compile).
  static absl::StatusOr<std::unique_ptr<LiveCapture>> Open(
      const LiveCaptureOptions& options, SegmentConsumer& consumer);
  ~LiveCapture();  // Close()s.
  LiveCapture(const LiveCapture&) = delete;
  LiveCapture& operator=(const LiveCapture&) = delete;

  // Waits up to `timeout` for frames and hands every frame waiting to the
  // consumer: how many. Returns early (0) when a signal interrupts the
  // wait. Unavailable when the interface went away.
  absl::StatusOr<int> Poll(absl::Duration timeout);
  // Frames the kernel dropped because the ring was full (pcap_stats).
  uint64_t kernel_drops() const;
  // Flushes and closes the dump and the handle; the counts stay readable.
  void Close();
  const CaptureInfo& info() const { return reader_.info(); }
  // The dump, when one was asked for (its dropped frames, errors).
  const CappedPcapDump* dump() const { return dump_.get(); }

 private:
  LiveCapture(const LiveCaptureOptions& options, SegmentConsumer& consumer);
  static void OnFrame(u_char* user, const pcap_pkthdr* header,
                      const u_char* data);

  std::string interface_;
  FrameReader reader_;
  pcap_t* pcap_ = nullptr;
  std::unique_ptr<CappedPcapDump> dump_;
};

}  // namespace ccreplay

#endif  // CCREPLAY_PARSERS_LIVE_CAPTURE_H_
