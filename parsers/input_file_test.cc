#include "parsers/input_file.h"

#include <zlib.h>

#include <cstdio>
#include <fstream>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "proto/testing/test_data.h"

namespace ccreplay {
namespace {

using ::testing::HasSubstr;
using ::testing::Not;

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

// Issue 16: an `ss` file with one 200 MB token was held whole and echoed
// into a warning. A line over kMaxLineBytes comes back empty, counted and
// named once by its line number and offset; the lines around it are read.
TEST(InputFileTest, OverlongLineIsSkippedAndNamedOnce) {
  const std::string path = ::testing::TempDir() + "/long_line.txt";
  const std::string long_line(InputFile::kMaxLineBytes + 1, 'x');
  {
    std::ofstream out(path, std::ios::binary);
    out << "first\n" << long_line << "\n" << long_line << "\nlast\n";
  }
  absl::StatusOr<std::unique_ptr<InputFile>> file = InputFile::Open(path);
  ASSERT_TRUE(file.ok());
  std::string line;
  std::vector<std::string> lines;
  while ((*file)->ReadLine(&line)) lines.push_back(line);
  EXPECT_TRUE((*file)->status().ok()) << (*file)->status();
  EXPECT_EQ(lines, (std::vector<std::string>{"first", "", "", "last"}));
  EXPECT_EQ((*file)->overlong_lines(), 2u);
  ASSERT_EQ((*file)->warnings().size(), 1u);
  EXPECT_THAT((*file)->warnings()[0],
              HasSubstr("long_line.txt:2: line of 1048578 bytes (from byte "
                        "offset 6), longer than the 1048576"));
  EXPECT_LT((*file)->warnings()[0].size(), 200u);
}

// Issue 16: 256 MiB of NUL bytes took 273 MB of memory as one "line". A
// file without line breaks is skipped through, and memory stays at the
// 256 KiB buffer. (The endless /dev/zero case is in cli_test.cc.)
TEST(InputFileTest, NulBytesWithoutLineBreaksAreSkipped) {
  const std::string path = ::testing::TempDir() + "/nul.bin";
  {
    std::ofstream out(path, std::ios::binary);
    const std::string zeros(1 << 20, '\0');
    for (int i = 0; i < 4; ++i) out << zeros;
  }
  absl::StatusOr<std::unique_ptr<InputFile>> file = InputFile::Open(path);
  ASSERT_TRUE(file.ok());
  std::string line;
  EXPECT_TRUE((*file)->ReadLine(&line));
  EXPECT_EQ(line, "");
  EXPECT_FALSE((*file)->ReadLine(&line));
  EXPECT_TRUE((*file)->status().ok());
  EXPECT_EQ((*file)->overlong_lines(), 1u);
  EXPECT_LE(line.capacity(), InputFile::kMaxLineBytes + 1);
}

TEST(InputFileTest, DirectoryIsUnavailableNamedByItsPath) {
  absl::StatusOr<std::unique_ptr<InputFile>> file =
      InputFile::Open(::testing::TempDir());
  EXPECT_TRUE(absl::IsUnavailable(file.status())) << file.status();
  EXPECT_THAT(file.status().message(), HasSubstr(": is a directory"));
}

// Issue 16: a corrupt .gz lost everything zlib's gzread had decompressed
// in the failing call (up to the 256 KiB stdio buffer) and named the start
// of that call. Here: a gzip stream flushed (Z_FULL_FLUSH, a byte boundary
// deflate can resume from) after 300000 bytes, then a byte 0xff, which
// starts a final block of the reserved type 3 (RFC 1951 §3.2.3): every byte
// before it is kept and the error names both offsets.
TEST(InputFileTest, CorruptGzipKeepsEveryByteBeforeTheDamage) {
  std::string plain(300000, '\0');
  for (size_t i = 0; i < plain.size(); ++i)
    plain[i] = static_cast<char>('a' + (i * 7919) % 26);
  z_stream z = {};
  ASSERT_EQ(
      deflateInit2(&z, 6, Z_DEFLATED, 16 + MAX_WBITS, 8, Z_DEFAULT_STRATEGY),
      Z_OK);
  std::string gz(deflateBound(&z, plain.size()) + 64, '\0');
  z.next_in = reinterpret_cast<Bytef*>(plain.data());
  z.avail_in = static_cast<uInt>(plain.size());
  z.next_out = reinterpret_cast<Bytef*>(gz.data());
  z.avail_out = static_cast<uInt>(gz.size());
  ASSERT_EQ(deflate(&z, Z_FULL_FLUSH), Z_OK);
  gz.resize(z.total_out);
  deflateEnd(&z);
  const size_t damage_at = gz.size();
  gz += std::string("\xff\xff\xff\xff", 4);
  const std::string path = ::testing::TempDir() + "/corrupt.gz";
  std::ofstream(path, std::ios::binary) << gz;

  absl::StatusOr<std::unique_ptr<InputFile>> file = InputFile::Open(path);
  ASSERT_TRUE(file.ok());
  std::string got(1 << 20, '\0');
  absl::StatusOr<size_t> n = (*file)->Read(got.data(), got.size());
  ASSERT_TRUE(n.ok()) << n.status();
  got.resize(*n);
  EXPECT_TRUE(got == plain);
  absl::StatusOr<size_t> next = (*file)->Read(got.data(), 1);
  ASSERT_TRUE(absl::IsDataLoss(next.status())) << next.status();
  EXPECT_THAT(next.status().message(),
              HasSubstr(absl::StrCat("corrupt compressed data (invalid block "
                                     "type) at compressed byte offset ",
                                     damage_at + 1,
                                     ", after 300000 "
                                     "decompressed bytes")));
  EXPECT_THAT(next.status().message(), Not(HasSubstr("<fd:")));
}

}  // namespace
}  // namespace ccreplay
