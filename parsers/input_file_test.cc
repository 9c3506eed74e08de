#include "parsers/input_file.h"

#include <cstdio>
#include <fstream>
#include <string>
#include <vector>

#include "gtest/gtest.h"
#include "proto/testing/test_data.h"

namespace ccreplay {
namespace {

TEST(InputFileTest, GzipAndPlainReadTheSameBytes) {
  // The lab capture decompressed by zcat (independent of zlib's gz* API as
  // used here) must equal what InputFile hands out.
  const std::string gz =
      TestDataPath("lab/reno_ecn1_stepK60k_50mbit/sender.pcap.gz");
  FILE* pipe = popen(("zcat " + gz).c_str(), "r");
  ASSERT_NE(pipe, nullptr);
  std::string expected;
  char chunk[65536];
  size_t n;
  while ((n = std::fread(chunk, 1, sizeof(chunk), pipe)) > 0)
    expected.append(chunk, n);
  pclose(pipe);

  absl::StatusOr<std::unique_ptr<InputFile>> file = InputFile::Open(gz);
  ASSERT_TRUE(file.ok()) << file.status();
  EXPECT_TRUE((*file)->gzip());
  std::string got(expected.size() + 10, '\0');
  absl::StatusOr<size_t> read = (*file)->Read(got.data(), got.size());
  ASSERT_TRUE(read.ok());
  got.resize(*read);
  EXPECT_EQ(got.size(), expected.size());
  EXPECT_TRUE(got == expected);
  EXPECT_EQ((*file)->offset(), expected.size());
}

TEST(InputFileTest, ReadLineHandlesCrLfAndAMissingFinalNewline) {
  const std::string path = ::testing::TempDir() + "/lines.txt";
  {
    std::ofstream out(path, std::ios::binary);
    out << "first\r\nsecond\n\nlast";
  }
  absl::StatusOr<std::unique_ptr<InputFile>> file = InputFile::Open(path);
  ASSERT_TRUE(file.ok());
  EXPECT_FALSE((*file)->gzip());
  std::string line;
  std::vector<std::string> lines;
  while ((*file)->ReadLine(&line)) lines.push_back(line);
  EXPECT_EQ(lines, (std::vector<std::string>{"first", "second", "", "last"}));
  EXPECT_TRUE((*file)->status().ok());
}

TEST(InputFileTest, MissingFileIsNotFound) {
  absl::StatusOr<std::unique_ptr<InputFile>> file =
      InputFile::Open("/no/such/file");
  EXPECT_TRUE(absl::IsNotFound(file.status()));
}

TEST(InputFileTest, CutGzipStreamIsDataLossAfterTheGoodPart) {
  std::ifstream in(TestDataPath("lab/reno_ecn1_stepK60k_50mbit/sender.pcap.gz"),
                   std::ios::binary);
  std::string bytes(100000, '\0');
  in.read(bytes.data(), static_cast<std::streamsize>(bytes.size()));
  const std::string path = ::testing::TempDir() + "/cut.gz";
  {
    std::ofstream out(path, std::ios::binary);
    out << bytes;
  }
  absl::StatusOr<std::unique_ptr<InputFile>> file = InputFile::Open(path);
  ASSERT_TRUE(file.ok());
  std::string buffer(1 << 20, '\0');
  uint64_t total = 0;
  absl::Status status;
  while (true) {
    absl::StatusOr<size_t> n = (*file)->Read(buffer.data(), buffer.size());
    if (!n.ok()) {
      status = n.status();
      break;
    }
    if (*n == 0) break;
    total += *n;
  }
  EXPECT_GT(total, 100000u);  // Decompressed more than it read.
  EXPECT_TRUE(absl::IsDataLoss(status)) << status;
}

}  // namespace
}  // namespace ccreplay
