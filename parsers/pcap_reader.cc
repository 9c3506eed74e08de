#include "parsers/pcap_reader.h"

#include <pcap/pcap.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <cstring>
#include <memory>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "parsers/duplicate_frames.h"
#include "parsers/input_file.h"
#include "parsers/packet_decoder.h"
#include "parsers/pcapng_walker.h"
#include "parsers/sequence_sanity.h"

namespace ccreplay {
namespace {

// Capture times are ns since 1970 below 2^62 (year 2116), so that every
// difference of two of them fits in int64. pcap's 32-bit seconds all do.
constexpr int64_t kMaxTimeNs = int64_t{1} << 62;
constexpr int64_t kNsPerSecond = 1000000000;
// How far a record may be stamped before its predecessor and still be taken
// as reordering (queues of one capture, merged captures): one second, far
// beyond any capture path's reordering.
constexpr int64_t kMaxBackwardsStepNs = kNsPerSecond;

// Size of the classic pcap file header and per-record header.
constexpr uint64_t kPcapFileHeaderBytes = 24;
constexpr uint64_t kPcapRecordHeaderBytes = 16;
// The stdio buffer of a plain capture file, as InputFile uses for gzip.
constexpr size_t kStdioBufferBytes = size_t{1} << 18;
// Records between two progress reports: a few hundred a second at the
// reader's rate of millions of records a second, few enough to cost nothing.
constexpr uint64_t kProgressPackets = 4096;

// Where the bytes come from: a file (possibly gzip) or memory. Each call of
// OpenStdio / ReadFn starts from the first byte again.
class ByteSource {
 public:
  virtual ~ByteSource() = default;
  // A FILE* at the first byte, for libpcap (which takes ownership).
  virtual absl::StatusOr<FILE*> OpenStdio() = 0;
  // A reader from the first byte, for the pcapng walker.
  virtual absl::StatusOr<PcapngWalker::ReadFn> OpenReader() = 0;
  virtual bool gzip() const { return false; }
  // Why the byte stream itself failed, if it did (a cut gzip stream).
  virtual absl::Status stream_status() const { return absl::OkStatus(); }
  // Bytes of the input as stored read so far, and its size (0: unknown).
  virtual uint64_t raw_bytes_read() const { return 0; }
  virtual uint64_t total_bytes() const { return 0; }
};

class FileSource : public ByteSource {
 public:
  // `keep` (may be null): where a gzip file's decompressed bytes are copied.
  FileSource(std::string path, DecompressedCapture* keep)
      : path_(std::move(path)), keep_(keep) {}
  ~FileSource() override {
    if (position_fd_ >= 0) ::close(position_fd_);
  }

  absl::Status Probe() {
    absl::StatusOr<std::unique_ptr<InputFile>> file = InputFile::Open(path_);
    if (!file.ok()) return file.status();
    gzip_ = (*file)->gzip();
    regular_ = (*file)->regular();
    struct stat st = {};
    if (regular_ && ::stat(path_.c_str(), &st) == 0) total_bytes_ = st.st_size;
    return absl::OkStatus();
  }

  absl::StatusOr<FILE*> OpenStdio() override {
    if (!gzip_ && regular_) {
      // Plain files go to libpcap through ordinary stdio: the fastest path.
      FILE* f = std::fopen(path_.c_str(), "rb");
      if (f == nullptr)
        return absl::UnavailableError(absl::StrCat(path_, ": cannot open"));
      // libpcap reads each record with two fread() calls; with stdio's
      // default 4 KiB buffer that is one read(2) per few packets. glibc
      // ignores the size unless it is given the buffer too (libio/
      // iosetvbuf.c). The FILE is closed (by pcap_close) before this source
      // goes.
      // A file smaller than the buffer gets a buffer its size (fuzz inputs,
      // tests): the same reads, without mapping 256 KiB for each.
      const size_t bytes = static_cast<size_t>(
          std::clamp<uint64_t>(total_bytes_ + 1, 4096, kStdioBufferBytes));
      stdio_buffer_ = std::make_unique<char[]>(bytes);
      std::setvbuf(f, stdio_buffer_.get(), _IOFBF, bytes);
      // How far the file has been read, asked after libpcap closed the
      // FILE too (the last progress report): a duplicate descriptor shares
      // the file offset and outlives it.
      position_fd_ = ::dup(::fileno(f));
      return f;
    }
    // gzip, or stdin / a FIFO / a pipe, whose InputStream hands the bytes
    // format detection peeked at to this reader again.
    absl::Status opened = OpenFile();
    if (!opened.ok()) return opened;
    FILE* f = file_->OpenStdio();
    if (f == nullptr)
      return absl::UnavailableError(absl::StrCat(path_, ": cannot open"));
    return f;
  }

  absl::StatusOr<PcapngWalker::ReadFn> OpenReader() override {
    absl::Status opened = OpenFile();
    if (!opened.ok()) return opened;
    InputFile* raw = file_.get();
    return PcapngWalker::ReadFn(
        [raw](char* buffer, size_t size) { return raw->Read(buffer, size); });
  }

  bool gzip() const override { return gzip_; }
  absl::Status stream_status() const override {
    return file_ ? file_->status() : absl::OkStatus();
  }
  uint64_t raw_bytes_read() const override {
    if (position_fd_ >= 0) {
      const off_t position = ::lseek(position_fd_, 0, SEEK_CUR);
      return position > 0 ? static_cast<uint64_t>(position) : 0;
    }
    return file_ ? file_->raw_bytes_read() : 0;
  }
  uint64_t total_bytes() const override { return total_bytes_; }
  // The last open copied every decompressed byte into `keep`.
  bool copied_whole() const { return file_ && file_->copy_whole(); }

 private:
  // Opens the file through InputFile (from its first byte), copying what it
  // decompresses into keep_ when it is gzip.
  absl::Status OpenFile() {
    absl::StatusOr<std::unique_ptr<InputFile>> file = InputFile::Open(path_);
    if (!file.ok()) return file.status();
    if (position_fd_ >= 0) ::close(position_fd_);
    position_fd_ = -1;
    file_ = std::move(*file);
    if (keep_ != nullptr && file_->gzip()) {
      keep_->path = path_;
      keep_->whole = false;
      keep_->bytes.Clear();
      file_->CopyTo(&keep_->bytes);
    }
    return absl::OkStatus();
  }

  std::string path_;
  DecompressedCapture* keep_;
  bool gzip_ = false;
  bool regular_ = true;
  uint64_t total_bytes_ = 0;
  // A duplicate of the plain file's descriptor libpcap reads (libpcap owns
  // and closes the FILE); -1 when the bytes come through file_.
  int position_fd_ = -1;
  std::unique_ptr<InputFile> file_;
  std::unique_ptr<char[]> stdio_buffer_;  // A plain file's, for stdio.
};

// Bytes in memory: a fuzzer's input, or a gzip capture's decompressed bytes
// an earlier read kept.
class MemorySource : public ByteSource {
 public:
  MemorySource(const uint8_t* data, size_t size, bool gzip)
      : data_(data), size_(size), gzip_(gzip) {}

  absl::StatusOr<FILE*> OpenStdio() override {
    if (size_ == 0) return absl::InvalidArgumentError("empty input");
    position_ = 0;
    // A stdio view whose position outlives the FILE libpcap closes.
    cookie_io_functions_t io = {CookieRead, nullptr, CookieSeek, nullptr};
    FILE* f = fopencookie(this, "rb", io);
    if (f == nullptr) return absl::InternalError("fopencookie failed");
    return f;
  }

  absl::StatusOr<PcapngWalker::ReadFn> OpenReader() override {
    position_ = 0;
    return PcapngWalker::ReadFn(
        [this](char* buffer, size_t size) -> absl::StatusOr<size_t> {
          return Take(buffer, size);
        });
  }

  bool gzip() const override { return gzip_; }
  uint64_t raw_bytes_read() const override { return position_; }
  uint64_t total_bytes() const override { return size_; }

 private:
  size_t Take(char* buffer, size_t size) {
    const size_t n = std::min(size, size_ - position_);
    if (n > 0) std::memcpy(buffer, data_ + position_, n);
    position_ += n;
    return n;
  }
  static ssize_t CookieRead(void* cookie, char* buffer, size_t size) {
    return static_cast<ssize_t>(
        static_cast<MemorySource*>(cookie)->Take(buffer, size));
  }
  static int CookieSeek(void* cookie, off64_t* position, int whence) {
    auto* self = static_cast<MemorySource*>(cookie);
    const off64_t base = whence == SEEK_SET ? 0
                         : whence == SEEK_CUR
                             ? static_cast<off64_t>(self->position_)
                             : static_cast<off64_t>(self->size_);
    const off64_t size = static_cast<off64_t>(self->size_);
    if (*position < -base || *position > size - base) {
      errno = EINVAL;
      return -1;
    }
    *position += base;
    self->position_ = static_cast<size_t>(*position);
    return 0;
  }

  const uint8_t* data_;
  size_t size_;
  bool gzip_;
  size_t position_ = 0;
};

void AddLinkType(CaptureInfo* info, int link_type) {
  std::string name = LinkTypeName(link_type);
  if (std::find(info->link_types.begin(), info->link_types.end(), name) ==
      info->link_types.end()) {
    info->link_types.push_back(name);
  }
}

// Passes on the segments SequenceSanity accepts; counts the others and
// warns about the first, naming its packet number (as tshark's
// frame.number). A frame captured twice goes to OnDuplicateFrame instead.
class SaneSegments : public SegmentConsumer {
 public:
  SaneSegments(SegmentConsumer& consumer, CaptureInfo* info)
      : consumer_(consumer), info_(info) {}
  void OnSegment(const TcpSegment& segment) override {
    if (duplicates_.IsDuplicate(segment)) {
      ++info_->duplicate_frames;
      consumer_.OnDuplicateFrame(segment);
      return;
    }
    int side;
    ConnectionSanity* held = consumer_.HeldSanity(segment, &side);
    std::string problem = held != nullptr ? sanity_.Check(segment, *held, side)
                                          : sanity_.Check(segment);
    if (problem.empty()) {
      consumer_.OnSegment(segment);
      if (held == nullptr) {
        held = consumer_.HeldSanity(segment, &side);
        if (held != nullptr) sanity_.HandOver(segment, *held, side);
      }
      return;
    }
    if (info_->corrupt_packets++ == 0) {
      info_->warnings.push_back(
          absl::StrCat("packet ", info_->packets, " (",
                       EndpointString(segment.src, segment.src_port), " -> ",
                       EndpointString(segment.dst, segment.dst_port),
                       "): ", problem, ": dropped as corrupt"));
    }
  }
  void Restart() override {
    sanity_.Reset();
    duplicates_.Reset();
    consumer_.Restart();
  }

 private:
  SegmentConsumer& consumer_;
  CaptureInfo* info_;
  SequenceSanity sanity_;
  DuplicateFrames duplicates_;
};

// Where every frame of one read goes: through the filter and the decoder
// to the consumer, counted in `info`, its progress reported.
struct FrameSink {
  CaptureInfo* info;
  SegmentConsumer* consumer;
  FrameFilter* filter;
  const ProgressCallback* progress;  // May hold no function.
  const ByteSource* source;
  TcpSegment segment;
};

void ReportProgress(const FrameSink& sink) {
  if (!*sink.progress) return;
  (*sink.progress)({sink.source->raw_bytes_read(), sink.source->total_bytes(),
                    sink.info->packets + sink.info->filtered_out_packets});
}

// Filters and decodes one frame and hands a TCP segment to the consumer.
inline void HandleFrame(int link_type, int64_t time_ns, const uint8_t* data,
                        uint32_t captured, uint32_t wire, FrameSink& sink) {
  CaptureInfo* info = sink.info;
  if ((info->packets + info->filtered_out_packets + 1) % kProgressPackets ==
      0) {
    ReportProgress(sink);
  }
  if (!sink.filter->Matches(link_type, data, captured, wire)) {
    ++info->filtered_out_packets;
    return;
  }
  TcpSegment* segment = &sink.segment;
  ++info->packets;
  // Times outside [1970, 2116) are a corrupt record header: skipped, so
  // that every difference of two capture times downstream fits in int64.
  if (time_ns < 0 || time_ns >= kMaxTimeNs) {
    ++info->bad_time_packets;
    return;
  }
  if (info->packets - info->bad_time_packets == 1) {
    info->first_packet_time_ns = time_ns;
  } else if (time_ns < info->last_packet_time_ns - kMaxBackwardsStepNs) {
    // A record stamped far before the one preceding it is a corrupt time,
    // not reordering: it takes that record's time, so no duration comes
    // out negative. Small steps back (multi-queue capture, merged files,
    // the simulator's export) are real order and are kept.
    ++info->backwards_time_packets;
    time_ns = info->last_packet_time_ns;
  }
  info->last_packet_time_ns = time_ns;
  DecodeResult result = DecodeFrame(link_type, data, captured, wire, segment);
  if (result == DecodeResult::kTcp) {
    segment->time_ns = time_ns;
    ++info->tcp_packets;
    if (segment->captured_payload_bytes < segment->payload_bytes &&
        !segment->in_outer_fragment)
      ++info->snaplen_cut_packets;
    if (segment->length_from_capture) ++info->big_tcp_packets;
    sink.consumer->OnSegment(*segment);
  } else if (result == DecodeResult::kTooManyExtensionHeaders) {
    ++info->extension_chain_packets;
  } else if (result == DecodeResult::kMplsPayloadNotIp) {
    ++info->mpls_not_ip_packets;
  } else if (result == DecodeResult::kTunnelNotDecoded) {
    ++info->undecoded_tunnel_packets[segment->undecoded_tunnel.Key()];
  } else if (result != DecodeResult::kNotTcp) {
    ++info->undecodable_packets;
  }
}

// The record's sub-second field in ns (opened with
// PCAP_TSTAMP_PRECISION_NANO, libpcap passes a nanosecond file's field
// through and scales a microsecond file's by 1000, checking neither). A
// field of a second or more is invalid (pcap-savefile(5): "the number of
// nanoseconds ... since that second"): counted, and taken as the last
// nanosecond of its second.
int64_t SubSecondNs(int64_t field, CaptureInfo* info) {
  if (field >= 0 && field < kNsPerSecond) return field;
  ++info->bad_subsecond_packets;
  return field < 0 ? 0 : kNsPerSecond - 1;
}

// A record's time in ns, read with PCAP_TSTAMP_PRECISION_NANO. An absurd
// timestamp (the fuzzer made a pcapng one) is kept out of the product,
// which would overflow, and becomes -1: out of range.
int64_t RecordTimeNs(const pcap_pkthdr& header, CaptureInfo* info) {
  const bool plausible =
      header.ts.tv_sec >= 0 && header.ts.tv_sec < kMaxTimeNs / kNsPerSecond;
  return plausible ? static_cast<int64_t>(header.ts.tv_sec) * kNsPerSecond +
                         SubSecondNs(header.ts.tv_usec, info)
                   : -1;
}

// What the libpcap callback needs. pcap_loop() runs libpcap's read loop
// once for the whole file; pcap_next_ex() enters it once per record.
struct LibpcapLoop {
  int link_type;
  bool pcapng;
  FILE* file;
  uint64_t good_offset;  // End of the last complete record.
  FrameSink* sink;

  static void OnRecord(u_char* user, const pcap_pkthdr* header,
                       const u_char* data) {
    LibpcapLoop& loop = *reinterpret_cast<LibpcapLoop*>(user);
    HandleFrame(loop.link_type, RecordTimeNs(*header, loop.sink->info), data,
                header->caplen, header->len, *loop.sink);
    if (loop.pcapng) {
      loop.good_offset = static_cast<uint64_t>(std::ftell(loop.file));
    } else {
      loop.good_offset += kPcapRecordHeaderBytes + header->caplen;
    }
  }
};

void MarkTruncated(CaptureInfo* info, uint64_t offset,
                   absl::string_view reason) {
  info->truncated = true;
  info->truncated_at_offset = offset;
  info->warnings.push_back(absl::StrCat("capture cut short: ", reason,
                                        "; the flows up to byte offset ",
                                        offset, " are kept"));
}

void AddSummaryWarnings(CaptureInfo* info) {
  if (info->big_tcp_packets > 0) {
    info->warnings.push_back(
        absl::StrCat(info->big_tcp_packets,
                     " packets had IP length 0 (BIG TCP / TSO super-segments): "
                     "length taken from the "
                     "captured frame"));
  }
  if (info->bad_time_packets > 0) {
    info->warnings.push_back(
        absl::StrCat(info->bad_time_packets,
                     " packets had a timestamp outside 1970-2116 and were "
                     "skipped"));
  }
  if (info->bad_subsecond_packets > 0) {
    info->warnings.push_back(absl::StrCat(
        info->bad_subsecond_packets,
        " packets had an invalid sub-second timestamp field (a second or "
        "more): taken as the last nanosecond of their second"));
  }
  if (info->backwards_time_packets > 0) {
    info->warnings.push_back(absl::StrCat(
        info->backwards_time_packets,
        " packets were timestamped more than a second before the packet "
        "preceding them: taken as that packet's time"));
  }
  if (info->undecodable_packets > 0) {
    info->warnings.push_back(
        absl::StrCat(info->undecodable_packets,
                     " packets had cut or inconsistent IP/TCP headers and "
                     "were skipped"));
  }
  if (info->corrupt_packets > 1) {
    info->warnings.push_back(absl::StrCat(
        info->corrupt_packets, " TCP packets in all were dropped as corrupt"));
  }
  if (info->extension_chain_packets > 0) {
    info->warnings.push_back(absl::StrCat(
        info->extension_chain_packets, " IPv6 packets had more than ",
        kMaxIpv6ExtensionHeaders, " extension headers and were skipped"));
  }
  if (info->mpls_not_ip_packets > 0) {
    info->warnings.push_back(absl::StrCat(
        info->mpls_not_ip_packets,
        " MPLS packets carried neither IPv4 nor IPv6 after their label stack "
        "(a pseudowire or Ethernet over MPLS?) and were skipped"));
  }
  const std::string tunnels = UndecodedTunnelSummary(*info);
  if (!tunnels.empty()) info->warnings.push_back(tunnels);
}

// The interfaces the walker met since `*seen`: their link types noted, the
// filter compiled for each one decoded.
absl::Status NoteInterfaces(const PcapngWalker& walker, size_t* seen,
                            FrameSink& sink) {
  const std::vector<int>& link_types = walker.interface_link_types();
  for (; *seen < link_types.size(); ++*seen) {
    const int link_type = link_types[*seen];
    AddLinkType(sink.info, link_type);
    if (IsSupportedLinkType(link_type)) {
      absl::Status prepared = sink.filter->Prepare(link_type);
      if (!prepared.ok()) return prepared;
      continue;
    }
    sink.info->warnings.push_back(absl::StrCat(
        "interface ", *seen, " has link type ", LinkTypeName(link_type), " (",
        link_type,
        "), which ccreplay does not decode: its packets are skipped"));
  }
  return absl::OkStatus();
}

}  // namespace

std::string UndecodedTunnelSummary(const CaptureInfo& info) {
  std::vector<std::string> clauses;
  for (const auto& [key, packets] : info.undecoded_tunnel_packets) {
    clauses.push_back(absl::StrCat(packets, " packets of ",
                                   UndecodedTunnel::FromKey(key).Describe(),
                                   " not decoded"));
  }
  return absl::StrJoin(clauses, "; ");
}

namespace {

// The pcapng path of our own, for files libpcap refuses.
absl::Status ReadWithWalker(ByteSource& source, FrameSink& sink) {
  CaptureInfo* info = sink.info;
  absl::StatusOr<PcapngWalker::ReadFn> read = source.OpenReader();
  if (!read.ok()) return read.status();
  PcapngWalker walker(std::move(*read));
  PcapngPacket packet;
  size_t interfaces_seen = 0;
  while (true) {
    absl::StatusOr<bool> more = walker.Next(&packet);
    absl::Status noted = NoteInterfaces(walker, &interfaces_seen, sink);
    if (!noted.ok()) return noted;
    if (!more.ok()) {
      if (absl::IsDataLoss(more.status())) {
        MarkTruncated(info, walker.block_offset(), more.status().message());
        return absl::OkStatus();
      }
      if (info->packets > 0 && absl::IsInvalidArgument(more.status())) {
        // Damage after good packets: keep them, as for a cut.
        MarkTruncated(info, walker.block_offset(), more.status().message());
        return absl::OkStatus();
      }
      return more.status();
    }
    if (!*more) return absl::OkStatus();
    HandleFrame(packet.link_type, packet.time_ns, packet.data,
                packet.captured_bytes, packet.wire_bytes, sink);
  }
}

bool LibpcapRefusesInterfaces(absl::string_view message) {
  return absl::StrContains(message, "different from the") ||
         absl::StrContains(message, "no Interface Description Blocks");
}

// libpcap could not open the capture: read it with the walker when libpcap
// refuses its interfaces, otherwise say why it is not readable.
absl::Status ReadUnopened(const std::string& name, ByteSource& source,
                          absl::string_view message, FrameSink& sink) {
  if (LibpcapRefusesInterfaces(message)) {
    sink.info->format = "pcapng";
    absl::Status s = ReadWithWalker(source, sink);
    if (!s.ok())
      return absl::Status(s.code(), absl::StrCat(name, ": ", s.message()));
    return absl::OkStatus();
  }
  if (absl::StrContains(message, "major version")) {
    return absl::UnimplementedError(absl::StrCat(name, ": ", message));
  }
  if (absl::StrContains(message, "unknown file format")) {
    return absl::InvalidArgumentError(absl::StrCat(
        name, ": not a pcap or pcapng capture (unknown file format)"));
  }
  return absl::InvalidArgumentError(
      absl::StrCat(name, ": not a readable capture: ", message));
}

// pcap_loop stopped on an error after the records before `good_offset`:
// start over with the walker when libpcap refuses a later interface (closing
// libpcap's handle first), otherwise keep those records and say why reading
// stopped.
absl::Status HandleLoopFailure(
    const std::string& name, ByteSource& source, bool pcapng,
    uint64_t good_offset, std::unique_ptr<pcap_t, void (*)(pcap_t*)>& closer,
    FrameSink& sink) {
  CaptureInfo* info = sink.info;
  absl::string_view message = pcap_geterr(closer.get());
  if (pcapng && LibpcapRefusesInterfaces(message)) {
    // Start over with the walker; the consumer forgets what it got.
    sink.consumer->Restart();
    CaptureInfo fresh;
    fresh.path = name;
    fresh.gzip = info->gzip;
    fresh.format = "pcapng";
    *info = std::move(fresh);
    closer.reset();
    absl::Status s = ReadWithWalker(source, sink);
    if (!s.ok())
      return absl::Status(s.code(), absl::StrCat(name, ": ", s.message()));
  } else if (absl::StrContains(message, "major version")) {
    // A later section of an unsupported version: keep what came before.
    info->truncated = true;
    info->truncated_at_offset = good_offset;
    info->warnings.push_back(absl::StrCat("reading stopped at byte offset ",
                                          good_offset, ": ", message,
                                          "; the flows before it are kept"));
  } else {
    const absl::Status stream = source.stream_status();
    MarkTruncated(info, good_offset, stream.ok() ? message : stream.message());
  }
  return absl::OkStatus();
}

// Before the first frame of `link_type` from `name`: Unimplemented when the
// decoder does not read it, OutOfRange when `filter` does not compile for it.
absl::Status PrepareLinkType(const std::string& name, int link_type,
                             FrameFilter& filter) {
  if (!IsSupportedLinkType(link_type)) {
    return absl::UnimplementedError(
        absl::StrCat(name, ": unsupported link type ", LinkTypeName(link_type),
                     " (", link_type, ")"));
  }
  absl::Status prepared = filter.Prepare(link_type);
  if (!prepared.ok()) {
    return absl::Status(prepared.code(),
                        absl::StrCat(name, ": ", prepared.message()));
  }
  return absl::OkStatus();
}

// Reads the capture libpcap opened as `closer`.
absl::Status ReadWithLibpcap(const std::string& name, ByteSource& source,
                             std::unique_ptr<pcap_t, void (*)(pcap_t*)>& closer,
                             FrameSink& sink) {
  pcap_t* pcap = closer.get();
  CaptureInfo& info = *sink.info;
  // libpcap reports a pcapng file's byte-order magic as its "major version"
  // 1; a classic pcap file has version 2.
  const bool pcapng = pcap_major_version(pcap) == 1;
  info.format = pcapng ? "pcapng" : "pcap";
  const int link_type = pcap_datalink(pcap);
  AddLinkType(&info, link_type);
  info.snaplen_bytes = static_cast<uint32_t>(std::max(0, pcap_snapshot(pcap)));
  absl::Status prepared = PrepareLinkType(name, link_type, *sink.filter);
  if (!prepared.ok()) return prepared;
  LibpcapLoop loop;
  loop.link_type = link_type;
  loop.pcapng = pcapng;
  loop.file = pcap_file(pcap);
  loop.good_offset = kPcapFileHeaderBytes;
  loop.sink = &sink;
  // 0 at the end of the file, -1 on an error, after the records before it.
  const int rc = pcap_loop(pcap, -1, &LibpcapLoop::OnRecord,
                           reinterpret_cast<u_char*>(&loop));
  if (rc == 0) return absl::OkStatus();
  return HandleLoopFailure(name, source, pcapng, loop.good_offset, closer,
                           sink);
}

absl::StatusOr<CaptureInfo> Read(const std::string& name, ByteSource& source,
                                 SegmentConsumer& all_segments,
                                 const CaptureReadOptions& options) {
  CaptureInfo info;
  SaneSegments consumer(all_segments, &info);
  FrameFilter filter(options.filter);
  FrameSink sink{&info, &consumer, &filter, &options.progress, &source, {}};
  info.path = name;
  info.gzip = source.gzip();
  absl::StatusOr<FILE*> stdio = source.OpenStdio();
  if (!stdio.ok()) return stdio.status();
  char errbuf[PCAP_ERRBUF_SIZE] = {};
  pcap_t* pcap = pcap_fopen_offline_with_tstamp_precision(
      *stdio, PCAP_TSTAMP_PRECISION_NANO, errbuf);
  absl::Status read;
  if (pcap == nullptr) {
    std::fclose(*stdio);
    read = ReadUnopened(name, source, errbuf, sink);
  } else {
    std::unique_ptr<pcap_t, void (*)(pcap_t*)> closer(pcap, pcap_close);
    read = ReadWithLibpcap(name, source, closer, sink);
  }
  if (!read.ok()) return read;
  ReportProgress(sink);
  AddSummaryWarnings(&info);
  return info;
}

}  // namespace

absl::StatusOr<CaptureInfo> ReadCapture(const std::string& path,
                                        SegmentConsumer& consumer,
                                        const CaptureReadOptions& options) {
  DecompressedCapture* keep = options.reuse.get();
  if (keep != nullptr && keep->whole && keep->path == path) {
    const absl::string_view bytes = keep->bytes.view();
    MemorySource source(reinterpret_cast<const uint8_t*>(bytes.data()),
                        bytes.size(), /*gzip=*/true);
    return Read(path, source, consumer, options);
  }
  FileSource source(path, keep);
  absl::Status probe = source.Probe();
  if (!probe.ok()) return probe;
  absl::StatusOr<CaptureInfo> info = Read(path, source, consumer, options);
  if (keep != nullptr && keep->path == path) {
    keep->whole = info.ok() && !info->truncated && source.copied_whole();
    if (!keep->whole) keep->bytes.Clear();
  }
  return info;
}

absl::StatusOr<CaptureInfo> ReadCaptureFromMemory(const std::string& name,
                                                  const uint8_t* data,
                                                  size_t size,
                                                  SegmentConsumer& consumer) {
  MemorySource source(data, size, /*gzip=*/false);
  return Read(name, source, consumer, CaptureReadOptions());
}

struct FrameReader::State {
  State(std::string name, std::string filter_expression,
        SegmentConsumer& consumer)
      : sane(consumer, &info), filter(std::move(filter_expression)) {
    info.path = std::move(name);
    info.format = "live";
  }
  CaptureInfo info;
  SaneSegments sane;
  FrameFilter filter;
  ProgressCallback no_progress;  // A live capture has no total to show.
  FrameSink sink{&info, &sane, &filter, &no_progress, nullptr, {}};
  int link_type = -1;
};

FrameReader::FrameReader(std::string name, std::string filter,
                         SegmentConsumer& consumer)
    : state_(std::make_unique<State>(std::move(name), std::move(filter),
                                     consumer)) {}

FrameReader::~FrameReader() = default;

absl::Status FrameReader::SetLinkType(int link_type) {
  AddLinkType(&state_->info, link_type);
  absl::Status prepared =
      PrepareLinkType(state_->info.path, link_type, state_->filter);
  if (prepared.ok()) state_->link_type = link_type;
  return prepared;
}

void FrameReader::OnRecord(const pcap_pkthdr& header, const uint8_t* data) {
  HandleFrame(state_->link_type, RecordTimeNs(header, &state_->info), data,
              header.caplen, header.len, state_->sink);
}

const CaptureInfo& FrameReader::info() const { return state_->info; }

void FrameReader::Finish() { AddSummaryWarnings(&state_->info); }

}  // namespace ccreplay
