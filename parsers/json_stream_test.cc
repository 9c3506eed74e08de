#include "parsers/json_stream.h"

#include <fstream>
#include <string>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "proto/testing/test_data.h"

namespace ccreplay {
namespace {

using ::testing::HasSubstr;
using ::testing::StartsWith;

std::unique_ptr<InputFile> Open(const std::string& path) {
  absl::StatusOr<std::unique_ptr<InputFile>> file = InputFile::Open(path);
  EXPECT_TRUE(file.ok()) << file.status();
  return file.ok() ? *std::move(file) : nullptr;
}

// Cross-check: zcat server-0.sqlog.gz | tr '\036' '\n' | sed -n 2p | wc -c
// → 245 (244 bytes of header JSON and its newline).
TEST(JsonStreamTest, CapturesJsonSeqRecordsOfARealQlog) {
  std::unique_ptr<InputFile> file = Open(
      TestDataPath("quic/ngtcp2_reno_30mbit_pfifo100_40ms/server-0.sqlog.gz"));
  ASSERT_NE(file, nullptr);
  JsonStream stream(file.get());
  std::string value;
  ASSERT_TRUE(stream.CaptureValue(&value).ok());
  EXPECT_TRUE(stream.skipped_record_separator());
  EXPECT_THAT(value, StartsWith("{\"qlog_format\":\"JSON-SEQ\""));
  EXPECT_EQ(value.size(), 244u);
  EXPECT_EQ(value.back(), '}');
  ASSERT_TRUE(stream.CaptureValue(&value).ok());
  EXPECT_THAT(value,
              StartsWith("{\"time\":0,\"name\":\"transport:parameters_set\""));
}

// The record separator sits at byte 19: printf '{"a":"}\\"]"} 12 [1,' | wc -c.
TEST(JsonStreamTest, StringsEscapesAndCutRecords) {
  std::string path = ::testing::TempDir() + "/stream.json";
  std::ofstream(path, std::ios::binary)
      << "{\"a\":\"}\\\"]\"} 12 [1,\x1e{\"b\":[2]}\n{\"c\":";
  std::unique_ptr<InputFile> file = Open(path);
  JsonStream stream(file.get());
  std::string value;
  ASSERT_TRUE(stream.CaptureValue(&value).ok());
  EXPECT_EQ(value, "{\"a\":\"}\\\"]\"}");
  ASSERT_TRUE(stream.CaptureValue(&value).ok());
  EXPECT_EQ(value, "12");
  absl::Status cut = stream.CaptureValue(&value);
  EXPECT_EQ(cut.code(), absl::StatusCode::kDataLoss);
  EXPECT_THAT(cut.message(), HasSubstr("byte offset 19: record cut short"));
  ASSERT_TRUE(stream.CaptureValue(&value).ok());
  EXPECT_EQ(value, "{\"b\":[2]}");
  absl::Status end = stream.CaptureValue(&value);
  EXPECT_EQ(end.code(), absl::StatusCode::kDataLoss);
  EXPECT_THAT(end.message(), HasSubstr("data ends inside a value"));
}

}  // namespace
}  // namespace ccreplay
