#include "replay/sim/units.h"

#include "gtest/gtest.h"

namespace ccreplay {
namespace {

TEST(ParseBitRate, TcUnitsInBits) {
  // tc(8): "kbit" = 1000 bit/s, "mbit" = 10^6, "gbit" = 10^9.
  EXPECT_EQ(ParseBitRate("50mbit")->bits_per_second, 50'000'000);
  EXPECT_EQ(ParseBitRate("800kbit")->bits_per_second, 800'000);
  EXPECT_EQ(ParseBitRate("1.5gbit")->bits_per_second, 1'500'000'000);
  EXPECT_EQ(ParseBitRate("64000bit")->bits_per_second, 64'000);
  EXPECT_EQ(ParseBitRate("10Mbit")->bits_per_second, 10'000'000);
  EXPECT_FALSE(ParseBitRate("50mbps").ok());  // bytes/s to tc: refused
  EXPECT_FALSE(ParseBitRate("mbit").ok());
  EXPECT_FALSE(ParseBitRate("-5mbit").ok());
  EXPECT_FALSE(ParseBitRate("5furlong").ok());
}

TEST(ParseBitRate, BareNumberAsksForAUnit) {
  const absl::StatusOr<BitRate> bare = ParseBitRate("50");
  ASSERT_FALSE(bare.ok());
  EXPECT_NE(bare.status().message().find("write 50mbit"), std::string::npos)
      << bare.status();
  const absl::StatusOr<BitRate> bytes = ParseBitRate("50MBps");
  ASSERT_FALSE(bytes.ok());
  EXPECT_NE(bytes.status().message().find("bytes per second"),
            std::string::npos)
      << bytes.status();
}

TEST(FormatBitRate, ReadsBack) {
  for (const char* text : {"50mbit", "800kbit", "1gbit", "64001bit"}) {
    EXPECT_EQ(FormatBitRate(*ParseBitRate(text)), text);
  }
  EXPECT_EQ(FormatBitRate(*ParseBitRate("1.5gbit")), "1500mbit");
}

TEST(ParseDurationWithUnit, AbslSyntaxAndNoBareNumbers) {
  EXPECT_EQ(*ParseDurationWithUnit("10ms"), absl::Milliseconds(10));
  EXPECT_EQ(*ParseDurationWithUnit("1.5s"), absl::Milliseconds(1500));
  EXPECT_EQ(*ParseDurationWithUnit("400us"), absl::Microseconds(400));
  EXPECT_EQ(*ParseDurationWithUnit("0"), absl::ZeroDuration());
  EXPECT_FALSE(ParseDurationWithUnit("-1ms").ok());
  EXPECT_FALSE(ParseDurationWithUnit("inf").ok());
  EXPECT_FALSE(ParseDurationWithUnit("10 ms").ok());
  const absl::StatusOr<absl::Duration> bare = ParseDurationWithUnit("10");
  ASSERT_FALSE(bare.ok());
  EXPECT_NE(bare.status().message().find("write 10ms or 10s"),
            std::string::npos)
      << bare.status();
}

TEST(ParseBufferSize, PacketsBytesOrTime) {
  BufferSize packets = *ParseBufferSize("100p");
  EXPECT_EQ(packets.unit, BufferSize::Unit::kPackets);
  EXPECT_EQ(packets.count, 100);
  BufferSize bytes = *ParseBufferSize("150kB");
  EXPECT_EQ(bytes.unit, BufferSize::Unit::kBytes);
  EXPECT_EQ(bytes.count, 150'000);
  EXPECT_EQ(ParseBufferSize("2MB")->count, 2'000'000);
  EXPECT_EQ(ParseBufferSize("64000B")->count, 64'000);
  BufferSize time = *ParseBufferSize("50ms");
  EXPECT_EQ(time.unit, BufferSize::Unit::kTime);
  EXPECT_EQ(time.time, absl::Milliseconds(50));
  EXPECT_FALSE(ParseBufferSize("0p").ok());
  EXPECT_FALSE(ParseBufferSize("1.5p").ok());
  EXPECT_FALSE(ParseBufferSize("150kb").ok());  // b is not a byte unit
  EXPECT_FALSE(ParseBufferSize("0ms").ok());
  const absl::StatusOr<BufferSize> bare = ParseBufferSize("100");
  ASSERT_FALSE(bare.ok());
  EXPECT_NE(bare.status().message().find("needs a unit"), std::string::npos)
      << bare.status();
}

TEST(BufferSize, BytesAtRateAndPacketSize) {
  const BitRate rate{50'000'000};
  EXPECT_EQ(ParseBufferSize("100p")->Bytes(rate, 1500), 150'000u);
  EXPECT_EQ(ParseBufferSize("150kB")->Bytes(rate, 1500), 150'000u);
  // 50 Mbit/s x 20 ms = 1 Mbit = 125000 bytes.
  EXPECT_EQ(ParseBufferSize("20ms")->Bytes(rate, 1500), 125'000u);
}

}  // namespace
}  // namespace ccreplay
