#include "cc/registry.h"

#include <string>
#include <vector>

#include "absl/status/status.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace ccreplay {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;

TEST(RegistryTest, EverySpecOfTheIssueParses) {
  for (const char* spec :
       {"reno", "reno:linux", "reno:normalize=1462", "cubic", "cubic:linux",
        "dctcp", "prague:v05", "prague:v06", "prague:v07",
        "prague:v05,rtt_scaling=none", "prague:v06,target=10ms,transition=100",
        "cubic:mss=1280,normalize=off"}) {
    absl::StatusOr<std::unique_ptr<CongestionController>> controller =
        MakeController(spec);
    EXPECT_TRUE(controller.ok()) << spec << ": " << controller.status();
  }
}

TEST(RegistryTest, ListSplitsSpecsAndKeepsOptionsWithTheirSpec) {
  absl::StatusOr<std::vector<std::string>> specs =
      ParseControllerList("cubic,prague:v05,rtt_scaling=none,reno:linux");
  ASSERT_TRUE(specs.ok()) << specs.status();
  EXPECT_THAT(*specs, ElementsAre("cubic", "prague:v05,rtt_scaling=none",
                                  "reno:linux"));
  specs = ParseControllerList(
      "prague:v06,target=10ms,transition=100,reno:normalize=1462,dctcp");
  ASSERT_TRUE(specs.ok()) << specs.status();
  EXPECT_THAT(*specs, ElementsAre("prague:v06,target=10ms,transition=100",
                                  "reno:normalize=1462", "dctcp"));
  for (const std::string& spec : *specs) {
    EXPECT_TRUE(MakeController(spec).ok()) << spec;
  }
}

TEST(RegistryTest, ListRejectsEmptyItemsAndOrphanOptions) {
  EXPECT_EQ(ParseControllerList("").status().code(),
            absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(ParseControllerList("reno,,cubic").status().code(),
            absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(ParseControllerList("rtt_scaling=none,prague").status().message(),
              HasSubstr("rtt_scaling=none"));
}

TEST(RegistryTest, OptionsReachTheController) {
  auto cubic = MakeController("cubic:mss=1280,iw=4");
  ASSERT_TRUE(cubic.ok());
  EXPECT_EQ((*cubic)->cwnd_bytes(), 4u * 1280);

  auto prague = MakeController("prague:v05,iw=4,mss=1000");
  ASSERT_TRUE(prague.ok());
  EXPECT_EQ((*prague)->cwnd_bytes(), 4000u);

  // SpecMssBytes: what the spec itself sets, checked like MakeController.
  EXPECT_EQ(*SpecMssBytes("reno,mss=1280,iw=4"), 1280u);
  EXPECT_EQ(*SpecMssBytes("prague:v05,mss=1448"), 1448u);  // Explicit default.
  EXPECT_EQ(*SpecMssBytes("cubic:linux"), std::nullopt);
  EXPECT_FALSE(SpecMssBytes("reno,mss=0").ok());
  EXPECT_FALSE(SpecMssBytes("bbr,mss=1200").ok());

  // The form ParseControllerList makes of "reno,mss=1280,iw=4".
  auto reno = MakeController("reno,mss=1280,iw=4");
  ASSERT_TRUE(reno.ok()) << reno.status();
  EXPECT_EQ((*reno)->cwnd_bytes(), 4u * 1280);
}

TEST(RegistryTest, UnknownNameListsProfiles) {
  auto controller = MakeController("bbr");
  EXPECT_EQ(controller.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(std::string(controller.status().message()),
              HasSubstr("unknown controller 'bbr'"));
  EXPECT_THAT(std::string(controller.status().message()),
              HasSubstr("prague:v05, prague:v06, prague:v07"));
  EXPECT_FALSE(MakeController("prague").ok());  // the version is required
  EXPECT_FALSE(MakeController("cubic:v05").ok());
}

TEST(RegistryTest, UnknownOptionListsOptions) {
  auto controller = MakeController("cubic:linux,normalize=1462");
  EXPECT_THAT(std::string(controller.status().message()),
              HasSubstr("options: mss, iw, hz, hystart"));
  EXPECT_FALSE(MakeController("reno:linux,bogus=1").ok());
  EXPECT_FALSE(MakeController("reno:mss").ok());
}

TEST(RegistryTest, BadValuesAreErrors) {
  for (const char* spec :
       {"reno:normalize=big", "reno:mss=0", "prague:v05,target=10",
        "prague:v05,rtt_scaling=fast", "prague:v07,rtt_scaling=scalable",
        "cubic:linux,hystart=2", "dctcp:iw=-1"}) {
    auto controller = MakeController(spec);
    EXPECT_EQ(controller.status().code(), absl::StatusCode::kInvalidArgument)
        << spec;
    EXPECT_THAT(std::string(controller.status().message()), HasSubstr(spec));
  }
}

TEST(RegistryTest, ProfilesListSourcesAndDefaults) {
  const auto& profiles = ListControllerProfiles();
  ASSERT_EQ(profiles.size(), 8u);
  for (const ControllerProfile& profile : profiles) {
    EXPECT_FALSE(profile.source.empty()) << profile.spec;
    EXPECT_TRUE(MakeController(profile.spec).ok()) << profile.spec;
  }
  const ControllerProfile& v05 = profiles[5];
  EXPECT_EQ(v05.spec, "prague:v05");
  EXPECT_THAT(v05.options,
              ::testing::Contains(
                  std::pair<std::string, std::string>("target", "10ms")));
  EXPECT_THAT(v05.options,
              ::testing::Contains(
                  std::pair<std::string, std::string>("transition", "100")));
}

}  // namespace
}  // namespace ccreplay
