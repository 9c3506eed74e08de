// Streams the TCP segments of a pcap or pcapng capture (gzip-compressed or
// not) to a consumer, one packet at a time: memory does not grow with the
// capture (but for a gzip capture's decompressed bytes, up to
// DecompressedCapture::kMaxBytes, when the caller asks to keep them). libpcap
// reads the file; pcapng files that libpcap 1.10 refuses (interfaces with
// different link types or snapshot lengths, or no interface at all) are read by
// a block walker of our own instead.
#ifndef CCREPLAY_PARSERS_PCAP_READER_H_
#define CCREPLAY_PARSERS_PCAP_READER_H_

#include <pcap/pcap.h>

#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "parsers/append_buffer.h"
#include "parsers/capture_filter.h"
#include "parsers/sequence_sanity.h"
#include "parsers/tcp_segment.h"

namespace ccreplay {

struct CaptureInfo {
  std::string path;
  std::string format;  // "pcap" or "pcapng".
  bool gzip = false;
  std::vector<std::string> link_types;  // Names, in order of appearance.
  // Every packet record read that the filter (CaptureReadOptions::filter)
  // passed: all of them without a filter.
  uint64_t packets = 0;
  uint64_t filtered_out_packets = 0;  // Records the filter rejected.
  int64_t first_packet_time_ns = 0;   // Of the first record not skipped.
  uint64_t tcp_packets = 0;           // Those decoded as TCP.
  uint64_t snaplen_cut_packets = 0;   // TCP packets whose payload was cut.
  // The file header's snaplen (libpcap's pcap_snapshot()); 0 when not
  // known (a pcapng file read by the block walker).
  uint32_t snaplen_bytes = 0;
  uint64_t big_tcp_packets = 0;      // IP length 0: length from capture.
  uint64_t undecodable_packets = 0;  // Headers cut or inconsistent.
  uint64_t bad_time_packets = 0;     // Timestamp outside 1970-2116: skipped.
  int64_t last_packet_time_ns = 0;   // Of the last record not skipped.
  // Records whose sub-second field is a second or more (invalid in pcap):
  // taken as the last nanosecond of their second.
  uint64_t bad_subsecond_packets = 0;
  // Records stamped more than a second before the record preceding them
  // (corrupt, not reordered): given that record's time.
  uint64_t backwards_time_packets = 0;
  // IPv6 packets with more extension headers than the decoder walks
  // (kMaxIpv6ExtensionHeaders): skipped, not guessed.
  uint64_t extension_chain_packets = 0;
  // MPLS packets whose label stack is followed by neither IPv4 nor IPv6, or
  // is deeper than kMaxMplsLabels: skipped.
  uint64_t mpls_not_ip_packets = 0;
  // Tunnelled packets not decoded, by UndecodedTunnel::Key() (which tunnel
  // and why): skipped, and named in a warning.
  std::map<uint32_t, uint64_t> undecoded_tunnel_packets;
  // TCP packets dropped because a sequence, acknowledgment or SACK number
  // was implausibly far from the connection's (SequenceSanity): corrupt.
  uint64_t corrupt_packets = 0;
  // TCP frames captured twice (DuplicateFrames): passed to
  // SegmentConsumer::OnDuplicateFrame only.
  uint64_t duplicate_frames = 0;
  // Set when the file ends inside a packet record: the flows up to the cut
  // are kept and `truncated_at_offset` is where the incomplete record starts
  // (byte offset in the decompressed data).
  bool truncated = false;
  uint64_t truncated_at_offset = 0;
  std::vector<std::string> warnings;
};

// The decompressed bytes of a gzip capture, kept by one ReadCapture for the
// next (CaptureReadOptions::reuse).
struct DecompressedCapture {
  // Beyond this the bytes are not kept and every read inflates the file:
  // 128 MiB, ten times the largest capture the tests read (9.6 MB).
  static constexpr size_t kMaxBytes = size_t{128} << 20;
  std::string path;               // The file they are of.
  AppendBuffer bytes{kMaxBytes};  // All its decompressed bytes, when `whole`.
  // The read that kept them reached the end of the data with no error: a
  // cut or corrupt stream is read from the file again, so that its
  // warnings name the offset in the file.
  bool whole = false;
};

class SegmentConsumer {
 public:
  virtual ~SegmentConsumer() = default;
  virtual void OnSegment(const TcpSegment& segment) = 0;
  // The same frame captured a second time (DuplicateFrames): not a segment
  // of its own; a consumer may count it.
  virtual void OnDuplicateFrame(const TcpSegment& /*segment*/) {}
  // The reader's per-connection state (SequenceSanity) for `segment`'s
  // connection, when the consumer keeps it in its own record of the
  // connection, and the index of the segment's sender in it; null when it
  // keeps none (the reader then holds the state itself). Asked before
  // OnSegment; also after it, so that a record the segment made takes the
  // state over.
  virtual ConnectionSanity* HeldSanity(const TcpSegment& /*segment*/,
                                       int* /*side*/) {
    return nullptr;
  }
  // The reader starts over from the first packet (libpcap refused a pcapng
  // file midway and the block walker takes over): forget all segments.
  virtual void Restart() = 0;
};

// "1234 packets of GRE protocol 0x88be (ERSPAN type I/II) not decoded",
// one clause per kind, joined by "; "; "" when every tunnel was decoded.
std::string UndecodedTunnelSummary(const CaptureInfo& info);

// Errors: NotFound / PermissionDenied / Unavailable when the file cannot be
// read, InvalidArgument when it is not a capture, Unimplemented for an
// unsupported link type or pcapng version, OutOfRange (a usage error) when
// `options.filter` does not compile for the capture's link type. A capture
// cut short is not an error: the result has `truncated` set and a warning.
// A frame `options.filter` rejects is as if it were not in the capture.
absl::StatusOr<CaptureInfo> ReadCapture(
    const std::string& path, SegmentConsumer& consumer,
    const CaptureReadOptions& options = CaptureReadOptions());

// The same for a capture held in memory (fuzzing, tests).
absl::StatusOr<CaptureInfo> ReadCaptureFromMemory(const std::string& name,
                                                  const uint8_t* data,
                                                  size_t size,
                                                  SegmentConsumer& consumer);

// Frames handed in one at a time, as a live capture (parsers/live_capture.h)
// delivers them: the same filter, decoder, time checks and sequence sanity
// as ReadCapture, counted in info() the same way.
class FrameReader {
 public:
  // `name` names the source in warnings; `filter` as
  // CaptureReadOptions::filter (empty: every frame).
  FrameReader(std::string name, std::string filter, SegmentConsumer& consumer);
  ~FrameReader();
  FrameReader(const FrameReader&) = delete;
  FrameReader& operator=(const FrameReader&) = delete;

  // Before the first frame: Unimplemented for a link type the decoder does
  // not read, OutOfRange when the filter does not compile for it.
  absl::Status SetLinkType(int link_type);
  // One record as libpcap hands it out, its time in ns
  // (PCAP_TSTAMP_PRECISION_NANO).
  void OnRecord(const pcap_pkthdr& header, const uint8_t* data);
  // The counts so far; with the summary warnings once Finish() is called.
  const CaptureInfo& info() const;
  void Finish();

 private:
  struct State;
  std::unique_ptr<State> state_;
};

}  // namespace ccreplay

#endif  // CCREPLAY_PARSERS_PCAP_READER_H_
