// A pcapng block walker (draft-ietf-opsawg-pcapng): reads Section Header,
// Interface Description, Enhanced/Simple/obsolete Packet blocks and skips
// every other block. It exists for the pcapng files libpcap 1.10 refuses:
// several interfaces with different link types or snapshot lengths, which
// the format allows (§4.2) and real multi-interface captures contain.
#ifndef CCREPLAY_PARSERS_PCAPNG_WALKER_H_
#define CCREPLAY_PARSERS_PCAPNG_WALKER_H_

#include <cstdint>
#include <functional>
#include <vector>

#include "absl/status/statusor.h"

namespace ccreplay {

struct PcapngPacket {
  int link_type = 0;
  uint32_t interface_id = 0;
  int64_t time_ns = 0;
  const uint8_t* data = nullptr;  // Valid until the next call to Next().
  uint32_t captured_bytes = 0;
  uint32_t wire_bytes = 0;
};

class PcapngWalker {
 public:
  // `read(buffer, size)` returns the bytes read, 0 at the end of the data.
  using ReadFn = std::function<absl::StatusOr<size_t>(char*, size_t)>;
  explicit PcapngWalker(ReadFn read) : read_(std::move(read)) {}

  // Next packet: true with `packet` filled, false at the end of the file.
  // DataLoss when the file ends inside a block (block_offset() says where
  // that block starts), InvalidArgument for a malformed block, Unimplemented
  // for an unsupported major version.
  absl::StatusOr<bool> Next(PcapngPacket* packet);

  uint64_t block_offset() const { return block_offset_; }
  // Link types of the interfaces seen so far, by interface id, across
  // sections.
  const std::vector<int>& interface_link_types() const {
    return all_link_types_;
  }

 private:
  struct Interface {
    int link_type = 0;
    uint32_t snaplen = 0;
    // Timestamp units per second and offset (if_tsresol, if_tsoffset).
    uint64_t units_per_second = 1000000;
    int64_t offset_seconds = 0;
  };

  absl::Status ReadExactly(uint8_t* buffer, size_t size);
  // Resizes block_ to `size` and reads its bytes from `from` on, growing it
  // only as they arrive: a length field that claims up to the 64 MiB limit
  // in a short (cut or corrupt) file costs what the file holds.
  absl::Status ReadIntoBlock(size_t from, size_t size);
  uint32_t Get32(const uint8_t* p) const;
  uint16_t Get16(const uint8_t* p) const;
  absl::Status ParseSectionHeader(const uint8_t* body, size_t size);
  absl::Status ParseInterface(const uint8_t* body, size_t size);
  int64_t TimestampNs(const Interface& interface, uint64_t units) const;
  // Steps of Next(): the 8-byte block header (false at a clean end), a
  // Section Header Block after its header, another block's body into
  // block_, and a packet from an Enhanced/obsolete or Simple Packet Block.
  absl::StatusOr<bool> ReadBlockHeader(uint8_t* header);
  absl::Status ReadSectionHeader(const uint8_t* header);
  absl::Status ReadBlockBody(const uint8_t* header, uint32_t* total);
  absl::Status FillFromPacketBlock(uint32_t type, const uint8_t* body,
                                   size_t size, PcapngPacket* packet);
  absl::Status FillFromSimplePacketBlock(const uint8_t* body, size_t size,
                                         PcapngPacket* packet);

  ReadFn read_;
  uint64_t offset_ = 0;        // Bytes consumed.
  uint64_t block_offset_ = 0;  // Start of the block being read.
  bool big_endian_ = false;
  bool in_section_ = false;
  std::vector<Interface> interfaces_;  // Of the current section.
  std::vector<int> all_link_types_;
  std::vector<uint8_t> block_;
};

}  // namespace ccreplay

#endif  // CCREPLAY_PARSERS_PCAPNG_WALKER_H_
