#include "cli/progress_meter.h"

#include <cstdio>
#include <string>

#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace ccreplay {
namespace {

using ::testing::HasSubstr;

TEST(FormatProgressTest, BytesOfTotalRateAndTimeLeft) {
  // 12.5 MB of 50 MB in 5 s: 2.5 MB/s, 37.5 MB left = 15 s.
  EXPECT_EQ(FormatProgress({12500000, 50000000, 90000}, absl::Seconds(5)),
            "12.5 MB of 50.0 MB (25%), 2.5 MB/s, 15 s left");
  // 1 MB of 400 MB in 2 s: 0.5 MB/s, 798 s left.
  EXPECT_EQ(FormatProgress({1000000, 400000000, 1}, absl::Seconds(2)),
            "1.0 MB of 400.0 MB (0%), 0.5 MB/s, 13 min 18 s left");
  // 1 MB of 4 GB in 1 s: 3999 s left.
  EXPECT_EQ(FormatProgress({1000000, 4000000000, 1}, absl::Seconds(1)),
            "1.0 MB of 4000.0 MB (0%), 1.0 MB/s, 1 h 06 min left");
}

TEST(FormatProgressTest, NoRateBeforeAnythingIsRead) {
  EXPECT_EQ(FormatProgress({0, 50000000, 0}, absl::Seconds(3)),
            "0.0 MB of 50.0 MB (0%)");
  EXPECT_EQ(FormatProgress({5, 50, 1}, absl::ZeroDuration()),
            "0.0 MB of 0.0 MB (10%)");
}

TEST(FormatProgressTest, AFileThatGrewStopsAtOneHundredPercent) {
  EXPECT_EQ(FormatProgress({60000000, 50000000, 1}, absl::Seconds(10)),
            "50.0 MB of 50.0 MB (100%), 5.0 MB/s, 0 s left");
}

TEST(FormatProgressTest, PacketsWhenTheSizeIsUnknown) {
  EXPECT_EQ(FormatProgress({1234567, 0, 40960}, absl::Seconds(2)),
            "40960 packets, 20480 packets/s");
  EXPECT_EQ(FormatProgress({0, 0, 0}, absl::Seconds(2)), "0 packets");
}

// What the meter wrote to `file`.
std::string Written(FILE* file) {
  std::fflush(file);
  std::rewind(file);
  std::string text;
  char chunk[256];
  size_t n;
  while ((n = std::fread(chunk, 1, sizeof(chunk), file)) > 0)
    text.append(chunk, n);
  return text;
}

TEST(ProgressMeterTest, SilentDuringTheFirstSecond) {
  FILE* file = std::tmpfile();
  const absl::Time start = absl::FromUnixSeconds(1000);
  {
    ProgressMeter meter("flows", /*enabled=*/true, file, start);
    meter.Update({100, 1000, 10}, start + absl::Milliseconds(999));
  }
  EXPECT_EQ(Written(file), "");
  std::fclose(file);
}

TEST(ProgressMeterTest, DrawsAfterASecondAndClearsTheLine) {
  FILE* file = std::tmpfile();
  const absl::Time start = absl::FromUnixSeconds(1000);
  {
    ProgressMeter meter("flows", /*enabled=*/true, file, start);
    meter.Update({500000, 1000000, 10}, start + absl::Seconds(1));
    // Within the redraw interval: not drawn.
    meter.Update({600000, 1000000, 10}, start + absl::Milliseconds(1100));
  }
  EXPECT_EQ(Written(file),
            "\rccreplay flows: 0.5 MB of 1.0 MB (50%), 0.5 MB/s, 1 s "
            "left\033[K\r\033[K");
  std::fclose(file);
}

TEST(ProgressMeterTest, ASecondPassStartsTheRateAfresh) {
  FILE* file = std::tmpfile();
  const absl::Time start = absl::FromUnixSeconds(1000);
  {
    ProgressMeter meter("timeline", /*enabled=*/true, file, start);
    meter.Update({900000, 1000000, 9000}, start + absl::Seconds(9));
    meter.Update({100000, 1000000, 1000}, start + absl::Seconds(10));
    meter.Update({200000, 1000000, 2000}, start + absl::Seconds(11));
  }
  // The third report: 0.2 MB in the 1 s since the second pass began.
  EXPECT_THAT(Written(file), HasSubstr("0.2 MB/s, 4 s left"));
  std::fclose(file);
}

TEST(ProgressMeterTest, DisabledWritesNothingAndHasNoCallback) {
  FILE* file = std::tmpfile();
  const absl::Time start = absl::FromUnixSeconds(1000);
  {
    ProgressMeter meter("flows", /*enabled=*/false, file, start);
    EXPECT_FALSE(meter.Callback());
    meter.Update({500000, 1000000, 10}, start + absl::Seconds(5));
  }
  EXPECT_EQ(Written(file), "");
  std::fclose(file);
}

}  // namespace
}  // namespace ccreplay
