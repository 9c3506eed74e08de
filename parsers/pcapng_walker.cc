#include "parsers/pcapng_walker.h"

#include <limits>

#include "absl/strings/str_cat.h"

namespace ccreplay {
namespace {

// Block types (draft-ietf-opsawg-pcapng §4, §11.1).
constexpr uint32_t kSectionHeaderBlock = 0x0A0D0D0A;
constexpr uint32_t kInterfaceDescriptionBlock = 1;
constexpr uint32_t kObsoletePacketBlock = 2;
constexpr uint32_t kSimplePacketBlock = 3;
constexpr uint32_t kEnhancedPacketBlock = 6;
constexpr uint32_t kByteOrderMagic = 0x1A2B3C4D;
// A guard against nonsense lengths; real blocks are far smaller.
constexpr uint32_t kMaxBlockBytes = 64u << 20;
// Interface Description Block options (§4.2).
constexpr uint16_t kOptEndOfOpt = 0;
constexpr uint16_t kOptIfTsresol = 9;
constexpr uint16_t kOptIfTsoffset = 14;

}  // namespace

uint32_t PcapngWalker::Get32(const uint8_t* p) const {
  return big_endian_ ? (uint32_t{p[0]} << 24 | uint32_t{p[1]} << 16 |
                        uint32_t{p[2]} << 8 | p[3])
                     : (uint32_t{p[3]} << 24 | uint32_t{p[2]} << 16 |
                        uint32_t{p[1]} << 8 | p[0]);
}

uint16_t PcapngWalker::Get16(const uint8_t* p) const {
  return static_cast<uint16_t>(big_endian_ ? (p[0] << 8 | p[1])
                                           : (p[1] << 8 | p[0]));
}

absl::Status PcapngWalker::ReadExactly(uint8_t* buffer, size_t size) {
  size_t done = 0;
  while (done < size) {
    absl::StatusOr<size_t> n =
        read_(reinterpret_cast<char*>(buffer) + done, size - done);
    if (!n.ok()) return n.status();
    if (*n == 0) {
      return absl::DataLossError(absl::StrCat(
          "file ends inside the block starting at byte offset ", block_offset_,
          " (needed ", size - done, " more bytes at offset ", offset_, ")"));
    }
    done += *n;
    offset_ += *n;
  }
  return absl::OkStatus();
}

absl::Status PcapngWalker::ReadIntoBlock(size_t from, size_t size) {
  constexpr size_t kFirstBytes = 64 << 10;
  size_t filled = from;
  while (filled < size) {
    const size_t grown = std::min(size, std::max(kFirstBytes, 2 * filled));
    block_.resize(grown);
    absl::Status s = ReadExactly(block_.data() + filled, grown - filled);
    if (!s.ok()) {
      // As if the whole block had been asked for: the bytes still needed
      // count to its end.
      if (!absl::IsDataLoss(s) || grown == size) return s;
      return absl::DataLossError(absl::StrCat(
          "file ends inside the block starting at byte offset ", block_offset_,
          " (needed ", size - (offset_ - block_offset_ - 8),
          " more bytes at offset ", offset_, ")"));
    }
    filled = grown;
  }
  block_.resize(size);
  return absl::OkStatus();
}

absl::Status PcapngWalker::ParseSectionHeader(const uint8_t* body,
                                              size_t size) {
  if (size < 16)
    return absl::InvalidArgumentError("section header block too short");
  uint16_t major = Get16(body + 4);
  if (major != 1) {
    return absl::UnimplementedError(absl::StrCat("pcapng major version ", major,
                                                 " is not supported (only 1)"));
  }
  in_section_ = true;
  interfaces_.clear();  // Interface ids restart in each section (§4.1).
  return absl::OkStatus();
}

absl::Status PcapngWalker::ParseInterface(const uint8_t* body, size_t size) {
  if (size < 8)
    return absl::InvalidArgumentError("interface description block too short");
  Interface interface;
  interface.link_type = Get16(body);
  interface.snaplen = Get32(body + 4);
  size_t i = 8;
  while (i + 4 <= size) {
    uint16_t code = Get16(body + i);
    uint16_t length = Get16(body + i + 2);
    if (code == kOptEndOfOpt || i + 4 + length > size) break;
    const uint8_t* value = body + i + 4;
    if (code == kOptIfTsresol && length >= 1) {
      // Bit 7 clear: 10^-n seconds; set: 2^-n seconds (§4.2, if_tsresol).
      uint8_t n = value[0] & 0x7f;
      uint64_t units = 1;
      if (value[0] & 0x80) {
        units = n >= 63 ? (1ull << 62) : (1ull << n);
      } else {
        for (uint8_t k = 0; k < n && k < 19; ++k) units *= 10;
      }
      interface.units_per_second = units;
    } else if (code == kOptIfTsoffset && length >= 8) {
      uint64_t hi = Get32(value), lo = Get32(value + 4);
      interface.offset_seconds =
          static_cast<int64_t>(big_endian_ ? (hi << 32 | lo) : (lo << 32 | hi));
    }
    i += 4 + ((length + 3u) & ~3u);
  }
  interfaces_.push_back(interface);
  all_link_types_.push_back(interface.link_type);
  return absl::OkStatus();
}

int64_t PcapngWalker::TimestampNs(const Interface& interface,
                                  uint64_t units) const {
  const uint64_t ups = interface.units_per_second;
  __int128 ns = static_cast<__int128>(units / ups) * 1000000000 +
                static_cast<__int128>(units % ups) * 1000000000 / ups;
  ns += static_cast<__int128>(interface.offset_seconds) * 1000000000;
  // Beyond int64: -1, which the reader skips as out of range.
  if (ns < 0 || ns > std::numeric_limits<int64_t>::max()) return -1;
  return static_cast<int64_t>(ns);
}

absl::StatusOr<bool> PcapngWalker::ReadBlockHeader(uint8_t* header) {
  block_offset_ = offset_;
  absl::StatusOr<size_t> first = read_(reinterpret_cast<char*>(header), 8);
  if (!first.ok()) return first.status();
  if (*first == 0) return false;  // Clean end between blocks.
  offset_ += *first;
  if (*first < 8) {
    absl::Status rest = ReadExactly(header + *first, 8 - *first);
    if (!rest.ok()) return rest;
  }
  return true;
}

absl::Status PcapngWalker::ReadSectionHeader(const uint8_t* header) {
  // The byte-order magic decides how to read this section, including
  // this block's own length.
  uint8_t magic[4];
  absl::Status s = ReadExactly(magic, 4);
  if (!s.ok()) return s;
  uint32_t magic_le = uint32_t{magic[3]} << 24 | uint32_t{magic[2]} << 16 |
                      uint32_t{magic[1]} << 8 | magic[0];
  if (magic_le == kByteOrderMagic) {
    big_endian_ = false;
  } else if (magic_le == 0x4D3C2B1A) {
    big_endian_ = true;
  } else {
    return absl::InvalidArgumentError(
        absl::StrCat("bad byte-order magic in section header at byte offset ",
                     block_offset_));
  }
  uint32_t total = Get32(header + 4);
  if (total < 28 || total % 4 != 0 || total > kMaxBlockBytes) {
    return absl::InvalidArgumentError(absl::StrCat("bad section header length ",
                                                   total, " at byte offset ",
                                                   block_offset_));
  }
  block_.resize(4);
  std::copy(magic, magic + 4, block_.begin());
  s = ReadIntoBlock(4, total - 8);
  if (!s.ok()) return s;
  return ParseSectionHeader(block_.data(), total - 12);
}

absl::Status PcapngWalker::ReadBlockBody(const uint8_t* header,
                                         uint32_t* total) {
  *total = Get32(header + 4);
  if (*total < 12 || *total % 4 != 0 || *total > kMaxBlockBytes) {
    return absl::InvalidArgumentError(absl::StrCat(
        "bad block length ", *total, " at byte offset ", block_offset_));
  }
  return ReadIntoBlock(0, *total - 8);
}

absl::Status PcapngWalker::FillFromPacketBlock(uint32_t type,
                                               const uint8_t* body, size_t size,
                                               PcapngPacket* packet) {
  if (size < 20) return absl::InvalidArgumentError("packet block too short");
  uint32_t id = type == kEnhancedPacketBlock ? Get32(body) : Get16(body);
  if (id >= interfaces_.size()) {
    return absl::InvalidArgumentError(
        absl::StrCat("packet block at byte offset ", block_offset_,
                     " names unknown interface ", id));
  }
  uint32_t captured = Get32(body + 12);
  if (captured > size - 20) {
    return absl::InvalidArgumentError(
        absl::StrCat("packet block at byte offset ", block_offset_,
                     " claims more data than it holds"));
  }
  const Interface& interface = interfaces_[id];
  packet->link_type = interface.link_type;
  packet->interface_id = id;
  packet->time_ns =
      TimestampNs(interface, uint64_t{Get32(body + 4)} << 32 | Get32(body + 8));
  packet->captured_bytes = captured;
  packet->wire_bytes = Get32(body + 16);
  packet->data = body + 20;
  return absl::OkStatus();
}

absl::Status PcapngWalker::FillFromSimplePacketBlock(const uint8_t* body,
                                                     size_t size,
                                                     PcapngPacket* packet) {
  if (size < 4 || interfaces_.empty()) {
    return absl::InvalidArgumentError(
        absl::StrCat("simple packet block at byte offset ", block_offset_,
                     " without an interface"));
  }
  const Interface& interface = interfaces_[0];
  uint32_t wire = Get32(body);
  uint32_t captured = std::min<uint32_t>(wire, static_cast<uint32_t>(size - 4));
  if (interface.snaplen != 0) captured = std::min(captured, interface.snaplen);
  packet->link_type = interface.link_type;
  packet->interface_id = 0;
  packet->time_ns = 0;  // SPBs carry no timestamp (§4.4).
  packet->captured_bytes = captured;
  packet->wire_bytes = wire;
  packet->data = body + 4;
  return absl::OkStatus();
}

absl::StatusOr<bool> PcapngWalker::Next(PcapngPacket* packet) {
  while (true) {
    uint8_t header[8];
    absl::StatusOr<bool> more = ReadBlockHeader(header);
    if (!more.ok() || !*more) return more;
    uint32_t type_le = uint32_t{header[3]} << 24 | uint32_t{header[2]} << 16 |
                       uint32_t{header[1]} << 8 | header[0];
    if (type_le == kSectionHeaderBlock) {
      absl::Status s = ReadSectionHeader(header);
      if (!s.ok()) return s;
      continue;
    }
    if (!in_section_) {
      return absl::InvalidArgumentError(
          "not a pcapng file: no section header block first");
    }
    uint32_t type = Get32(header);
    uint32_t total = 0;
    absl::Status s = ReadBlockBody(header, &total);
    if (!s.ok()) return s;
    const uint8_t* body = block_.data();
    size_t size = total - 12;  // Without the trailing length copy.
    switch (type) {
      case kInterfaceDescriptionBlock:
        s = ParseInterface(body, size);
        if (!s.ok()) return s;
        continue;
      case kEnhancedPacketBlock:
      case kObsoletePacketBlock:
        s = FillFromPacketBlock(type, body, size, packet);
        if (!s.ok()) return s;
        return true;
      case kSimplePacketBlock:
        s = FillFromSimplePacketBlock(body, size, packet);
        if (!s.ok()) return s;
        return true;
      default:
        continue;  // Name resolution, statistics, secrets, custom: skipped.
    }
  }
}

}  // namespace ccreplay
