#include "proto/json_printer.h"

#include <cmath>
#include <limits>

#include "absl/strings/str_format.h"
#include "gtest/gtest.h"
#include "proto/json_printer_test.pb.h"

namespace ccreplay {
namespace {

using proto::test::Everything;

// Defaults print as values, unset optional and message fields as null, and
// empty containers as empty JSON containers.
TEST(JsonPrinterTest, DefaultsAndNulls) {
  Everything e;
  EXPECT_EQ(PrintJson(e, {0}),
            "{\"i32\":0,\"i64\":0,\"u32\":0,\"u64\":0,\"d\":0,\"f\":0,"
            "\"b\":false,\"s\":\"\",\"mode\":\"MODE_UNSPECIFIED\","
            "\"maybe\":null,\"maybe_count\":null,\"inner\":null,"
            "\"inners\":[],\"ds\":[],\"counts\":{},\"names\":{}}\n");
}

// 64-bit integers stay exact numbers (protobuf's own printer quotes them);
// 2^53 + 1 is the first integer a double cannot hold.
TEST(JsonPrinterTest, SixtyFourBitIntegersUnquoted) {
  Everything e;
  e.set_i64(-9007199254740993);
  e.set_u64(std::numeric_limits<uint64_t>::max());
  const std::string json = PrintJson(e, {0});
  EXPECT_NE(json.find("\"i64\":-9007199254740993,"), std::string::npos);
  EXPECT_NE(json.find("\"u64\":18446744073709551615,"), std::string::npos);
}

// Doubles print in the shortest of 15 or 17 digits that reads back exactly;
// non-finite values are null, never inf or nan.
TEST(JsonPrinterTest, FloatingPoint) {
  Everything e;
  e.set_d(0.1);
  e.set_f(0.1f);
  e.add_ds(1.0 / 3.0);
  e.add_ds(std::numeric_limits<double>::infinity());
  e.add_ds(std::nan(""));
  e.set_maybe(-std::numeric_limits<double>::infinity());
  const std::string json = PrintJson(e, {0});
  EXPECT_NE(json.find("\"d\":0.1,"), std::string::npos) << json;
  EXPECT_NE(json.find("\"f\":0.1,"), std::string::npos) << json;
  EXPECT_NE(json.find("\"ds\":[0.33333333333333331,null,null]"),
            std::string::npos)
      << json;
  EXPECT_NE(json.find("\"maybe\":null"), std::string::npos) << json;
}

// Whole numbers take a fast path: the same text as the general one
// (printf's %.15g, %.6g for floats) on both sides of its limits, and for -0.
TEST(JsonPrinterTest, WholeNumbersPrintAsPrintfDoes) {
  for (double d : {0.0, -0.0, 1.0, -7.0, 4096.0, 999999999999999.0,
                   -999999999999999.0, 1e15, 1e16, 1e300}) {
    Everything e;
    e.add_ds(d);
    const std::string json = PrintJson(e, {0});
    const std::string want = absl::StrFormat("\"ds\":[%.15g]", d);
    EXPECT_NE(json.find(want), std::string::npos) << want << " in " << json;
  }
  for (float f : {0.0f, -0.0f, 3.0f, 999999.0f, -999999.0f, 1e6f, 3e9f}) {
    Everything e;
    e.set_f(f);
    const std::string json = PrintJson(e, {0});
    const std::string want = absl::StrFormat("\"f\":%.6g,", f);
    EXPECT_NE(json.find(want), std::string::npos) << want << " in " << json;
  }
}

TEST(JsonPrinterTest, StringsAreEscaped) {
  Everything e;
  e.set_s("a\"b\\c\nd\x01");
  EXPECT_NE(PrintJson(e, {0}).find("\"s\":\"a\\\"b\\\\c\\nd\\u0001\""),
            std::string::npos);
}

TEST(JsonPrinterTest, Indented) {
  Everything::Mode mode = Everything::MODE_PACED;
  Everything e;
  e.set_mode(mode);
  e.add_inners()->set_name("x");
  e.set_maybe_count(7);
  const std::string json = PrintJson(e);
  EXPECT_NE(json.find("\n  \"mode\": \"MODE_PACED\",\n"), std::string::npos)
      << json;
  EXPECT_NE(json.find("\"inners\": [\n    {\n      \"name\": \"x\",\n      "
                      "\"value\": null\n    }\n  ],"),
            std::string::npos)
      << json;
  EXPECT_NE(json.find("\"maybe_count\": 7,"), std::string::npos) << json;
}

// Every output parses back into its message unchanged, nulls included.
TEST(JsonPrinterTest, RoundTrip) {
  Everything e;
  e.set_i32(-3);
  e.set_i64(1LL << 60);
  e.set_u64(12345678901234567890ULL);
  e.set_d(2.5e-300);
  e.set_s("é");
  e.set_maybe_count(0);
  e.mutable_inner()->set_name("in");
  e.add_inners()->set_value(1.5);
  e.add_ds(-0.25);
  (*e.mutable_counts())["ce"] = 9;
  (*e.mutable_names())[4] = "four";
  for (int indent : {0, 2}) {
    Everything back;
    ASSERT_TRUE(ParseJson(PrintJson(e, {indent}), &back).ok());
    EXPECT_EQ(back.SerializeAsString(), e.SerializeAsString());
    EXPECT_TRUE(back.has_maybe_count());
    EXPECT_FALSE(back.has_maybe());
  }
}

// The printer keeps each message type's field prefixes per depth and
// indent; an object's prefixes must survive the ones its nested objects
// add (they did not in a flat map, which moved them while growing). Each
// indent is new to the cache here, so the nested types are added while
// the outer object is being printed.
TEST(JsonPrinterTest, NestedObjectsPrintRightWhileTheirPrefixesAreMade) {
  Everything e;
  e.mutable_inner()->set_name("in");
  e.add_inners()->set_value(1.5);
  (*e.mutable_counts())["ce"] = 9;
  for (int indent = 3; indent < 67; ++indent) {
    const std::string json = PrintJson(e, {indent});
    Everything back;
    ASSERT_TRUE(ParseJson(json, &back).ok()) << json;
    EXPECT_EQ(back.SerializeAsString(), e.SerializeAsString());
    EXPECT_NE(
        json.find("\n" + std::string(2 * indent, ' ') + "\"name\": \"in\""),
        std::string::npos)
        << json;
  }
}

TEST(JsonPrinterTest, ParseRejectsUnknownFields) {
  Everything e;
  const absl::Status status = ParseJson("{\"no_such_field\": 1}", &e);
  EXPECT_FALSE(status.ok());
  EXPECT_NE(status.message().find("ccreplay.proto.test.Everything"),
            std::string::npos);
}

}  // namespace
}  // namespace ccreplay
