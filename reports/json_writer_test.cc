#include "reports/json_writer.h"

#include <limits>
#include <optional>

#include "gtest/gtest.h"

namespace ccreplay {
namespace {

TEST(JsonWriterTest, NestedContainersNullsAndEscapes) {
  JsonWriter w;
  w.BeginObject()
      .Field("a", 1)
      .Field("s", "q\"\\\n\x01")
      .Field("none", std::optional<uint32_t>())
      .Field("some", std::optional<uint32_t>(7))
      .Key("list")
      .BeginArray()
      .Int(-3)
      .Double(0.5)
      .Bool(true)
      .BeginObject()
      .EndObject()
      .EndArray()
      .EndObject();
  EXPECT_EQ(
      w.str(),
      R"({"a":1,"s":"q\"\\\n\u0001","none":null,"some":7,"list":[-3,0.5,true,{}]})");
}

TEST(JsonWriterTest, DoublesRoundTripAndNonFiniteIsNull) {
  JsonWriter w;
  w.BeginArray()
      .Double(0.1)
      .Double(1e21)
      .Double(std::numeric_limits<double>::quiet_NaN())
      .EndArray();
  EXPECT_EQ(w.str(), "[0.1,1e+21,null]");
  JsonWriter big;
  big.Uint(18446744073709551615ull);
  EXPECT_EQ(big.str(), "18446744073709551615");
}

}  // namespace
}  // namespace ccreplay
