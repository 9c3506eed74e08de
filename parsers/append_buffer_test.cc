#include "parsers/append_buffer.h"

#include <string>

#include "gtest/gtest.h"

namespace ccreplay {
namespace {

TEST(AppendBufferTest, HoldsWhatWasAppendedUpToItsCapacity) {
  AppendBuffer buffer(10);
  EXPECT_TRUE(buffer.Append(""));
  EXPECT_TRUE(buffer.Append("abcd"));
  EXPECT_TRUE(buffer.Append("efghij"));
  EXPECT_EQ(buffer.view(), "abcdefghij");
  // One byte past the capacity: refused whole, nothing appended.
  EXPECT_FALSE(buffer.Append("k"));
  EXPECT_EQ(buffer.size(), 10u);
  buffer.Clear();
  EXPECT_EQ(buffer.size(), 0u);
  EXPECT_TRUE(buffer.Append("xyz"));
  EXPECT_EQ(buffer.view(), "xyz");
}

// Pieces of every size across page and huge-page boundaries come back
// byte for byte, at the address the first one was put (nothing moves).
TEST(AppendBufferTest, LargeAppendsKeepEveryByteInPlace) {
  AppendBuffer buffer(size_t{8} << 20);
  std::string expected;
  const char* first = nullptr;
  for (size_t n = 1; expected.size() + n <= buffer.capacity(); n = n * 3 + 1) {
    std::string piece(n, '\0');
    for (size_t i = 0; i < n; ++i) {
      piece[i] = static_cast<char>((expected.size() + i) * 131 % 251);
    }
    ASSERT_TRUE(buffer.Append(piece));
    if (first == nullptr) first = buffer.view().data();
    expected += piece;
  }
  EXPECT_EQ(buffer.view().data(), first);
  EXPECT_EQ(buffer.view(), expected);
}

}  // namespace
}  // namespace ccreplay
