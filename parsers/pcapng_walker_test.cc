#include "parsers/pcapng_walker.h"

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <memory>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace ccreplay {
namespace {

void Put32(std::vector<uint8_t>& out, uint32_t v) {
  for (int i = 0; i < 4; ++i) out.push_back(static_cast<uint8_t>(v >> (8 * i)));
}

// A little-endian pcapng (draft-ietf-opsawg-pcapng §4.1 SHB, §4.2 IDB,
// §4.3 EPB): one Ethernet interface and one Enhanced Packet Block of
// `packet_bytes` bytes (byte i is i % 251).
std::vector<uint8_t> OnePacketCapture(uint32_t packet_bytes) {
  std::vector<uint8_t> out;
  for (uint32_t v : {0x0A0D0D0Au, 28u, 0x1A2B3C4Du, 1u}) Put32(out, v);
  Put32(out, 0xFFFFFFFF);  // Section length: unspecified (two words).
  Put32(out, 0xFFFFFFFF);
  Put32(out, 28);
  for (uint32_t v : {1u, 20u, 1u, 0u, 20u}) Put32(out, v);  // IDB, no options.
  const uint32_t padded = (packet_bytes + 3) / 4 * 4;
  const uint32_t total = 32 + padded;
  for (uint32_t v : {6u, total, 0u, 0u, 1000u, packet_bytes, packet_bytes})
    Put32(out, v);
  for (uint32_t i = 0; i < padded; ++i)
    out.push_back(i < packet_bytes ? static_cast<uint8_t>(i % 251) : 0);
  Put32(out, total);
  return out;
}

PcapngWalker::ReadFn ReaderOf(const std::vector<uint8_t>& bytes) {
  auto at = std::make_shared<size_t>(0);
  return [&bytes, at](char* buffer, size_t size) -> absl::StatusOr<size_t> {
    const size_t n = std::min(size, bytes.size() - *at);
    std::memcpy(buffer, bytes.data() + *at, n);
    *at += n;
    return n;
  };
}

// A block longer than the walker's first 64 KiB read of a block body is
// read whole as it grows.
TEST(PcapngWalkerTest, ReadsABlockLongerThanItsFirstRead) {
  const std::vector<uint8_t> bytes = OnePacketCapture(200000);
  PcapngWalker walker(ReaderOf(bytes));
  PcapngPacket packet;
  absl::StatusOr<bool> more = walker.Next(&packet);
  ASSERT_TRUE(more.ok()) << more.status();
  ASSERT_TRUE(*more);
  ASSERT_EQ(packet.captured_bytes, 200000u);
  EXPECT_EQ(packet.time_ns, 1000000);  // 1000 µs (default if_tsresol).
  for (uint32_t i = 0; i < packet.captured_bytes; ++i)
    ASSERT_EQ(packet.data[i], i % 251) << "byte " << i;
  more = walker.Next(&packet);
  ASSERT_TRUE(more.ok()) << more.status();
  EXPECT_FALSE(*more);
}

// The error reading the first packet of `bytes` gives (OK when it reads).
absl::Status FirstPacketError(const std::vector<uint8_t>& bytes) {
  PcapngWalker walker(ReaderOf(bytes));
  PcapngPacket packet;
  return walker.Next(&packet).status();
}

// Cut 1000 bytes into the packet block's body (which starts at byte 48,
// after the 28-byte SHB and the 20-byte IDB): the bytes still needed
// count to the block's end, whatever size the walker read it in.
TEST(PcapngWalkerTest, ACutBlockSaysHowManyBytesItStillNeeded) {
  std::vector<uint8_t> bytes = OnePacketCapture(200000);
  bytes.resize(48 + 8 + 1000);
  const absl::Status error = FirstPacketError(bytes);
  EXPECT_TRUE(absl::IsDataLoss(error)) << error;
  // The block is 32 + 200000 bytes: 200032 - 8 - 1000 = 199024 missing.
  EXPECT_THAT(std::string(error.message()),
              testing::HasSubstr("block starting at byte offset 48 (needed "
                                 "199024 more bytes at offset 1056)"));
}

// A length field claiming 60 MiB in a short file is the same DataLoss.
TEST(PcapngWalkerTest, AHugeClaimedLengthInAShortFileIsACut) {
  std::vector<uint8_t> bytes = OnePacketCapture(100);
  const uint32_t claimed = 60u << 20;
  std::memcpy(&bytes[48 + 4], &claimed, 4);  // Little-endian host.
  const absl::Status error = FirstPacketError(bytes);
  EXPECT_TRUE(absl::IsDataLoss(error)) << error;
  // 32 + 100 bytes of the block are there: 8 of header, 124 of body.
  EXPECT_THAT(std::string(error.message()),
              testing::HasSubstr(absl::StrCat("(needed ", claimed - 8 - 124,
                                              " more bytes at offset 180)")));
}

}  // namespace
}  // namespace ccreplay
