#include "parsers/text_scan.h"

#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace ccreplay {
namespace {

using ::testing::ElementsAre;

TEST(SplitNumberAndUnitTest, SplitsNumberFromUnit) {
  std::optional<NumberAndUnit> parsed = SplitNumberAndUnit("016ms");
  ASSERT_TRUE(parsed.has_value());
  EXPECT_EQ(parsed->value, 16);
  EXPECT_EQ(parsed->unit, "ms");
  parsed = SplitNumberAndUnit("3.99Gbps");
  ASSERT_TRUE(parsed.has_value());
  EXPECT_DOUBLE_EQ(parsed->value, 3.99);
  EXPECT_EQ(parsed->unit, "Gbps");
}

TEST(SplitNumberAndUnitTest, ExponentOnlyWithDigits) {
  std::optional<NumberAndUnit> parsed = SplitNumberAndUnit("2.5e-06x");
  ASSERT_TRUE(parsed.has_value());
  EXPECT_DOUBLE_EQ(parsed->value, 2.5e-06);
  EXPECT_EQ(parsed->unit, "x");
  parsed = SplitNumberAndUnit("5ecn");
  ASSERT_TRUE(parsed.has_value());
  EXPECT_EQ(parsed->value, 5);
  EXPECT_EQ(parsed->unit, "ecn");
}

TEST(SplitNumberAndUnitTest, RejectsNonNumbers) {
  EXPECT_FALSE(SplitNumberAndUnit("").has_value());
  EXPECT_FALSE(SplitNumberAndUnit("ms").has_value());
  EXPECT_FALSE(SplitNumberAndUnit(".").has_value());
  EXPECT_FALSE(SplitNumberAndUnit("-").has_value());
}

TEST(SplitTopLevelTest, KeepsParenthesesAndQuotesTogether) {
  EXPECT_THAT(SplitTopLevel("a users:((\"x y\",pid=1)) \tb:(c d)", ' '),
              ElementsAre("a", "users:((\"x y\",pid=1))", "b:(c d)"));
  EXPECT_THAT(SplitTopLevel("bw:1bps,(\"a,b\",pid=2),,x", ','),
              ElementsAre("bw:1bps", "(\"a,b\",pid=2)", "x"));
}

// Issue 16: an ss token of 200 MB was echoed whole into a warning.
TEST(TextScanTest, QuoteInputShowsAtMostEightyBytes) {
  EXPECT_EQ(QuoteInput("ten"), "'ten'");
  EXPECT_EQ(QuoteInput(std::string("a\0b", 3)), "'a\\000b'");
  const std::string token(200000, 'x');
  EXPECT_EQ(QuoteInput(token),
            "'" + std::string(80, 'x') + "...' (200000 bytes)");
}

}  // namespace
}  // namespace ccreplay
