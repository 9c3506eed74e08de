#include "reports/controller_choice.h"

#include <string>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace ccreplay {
namespace {

using ::testing::ElementsAre;

std::vector<std::string> Specs(const ControllerChoice& choice,
                               ReplayRole role) {
  std::vector<std::string> out;
  for (const ReplayChoice& c : choice.controllers) {
    if (c.role == role) out.push_back(c.spec);
  }
  return out;
}

TEST(ControllerChoiceTest, L4sFlowGetsEachPragueCandidateOnce) {
  // The l4s-tests capture's flow 1 (`ccreplay flows`): AccECN, ECT(1)
  // 30810, ECT(0) 2, 1432-byte segments.
  ControllerChoiceFacts facts;
  facts.ecn = EcnMode::kAccEcn;
  facts.ect1_packets = 30810;
  facts.ect0_packets = 2;
  facts.packet_bytes = 1432;
  const ControllerChoice choice = ChooseControllers(facts, {});
  EXPECT_THAT(Specs(choice, ReplayRole::kClaimed),
              ElementsAre("prague:v05", "prague:v05,transition=0",
                          "prague:v05,rtt_scaling=none", "prague:v06",
                          "prague:v06,rtt_scaling=none", "prague:v07"));
  // v0.5 and v0.6 without scaling are candidates already; only v0.7's
  // unscaled replay is a counterfactual.
  EXPECT_THAT(Specs(choice, ReplayRole::kRttScalingOff),
              ElementsAre("prague:v07,rtt_scaling=none"));
  EXPECT_TRUE(Specs(choice, ReplayRole::kNormalizationOn).empty());
}

TEST(ControllerChoiceTest, ScalingOffDropsTheTransition) {
  auto off = [](const char* text) {
    return RttScalingOffSpec(*ControllerSpec::Parse(text))->ToString();
  };
  EXPECT_EQ(off("prague:v05,transition=0"), "prague:v05,rtt_scaling=none");
  EXPECT_EQ(off("prague:v07"), "prague:v07,rtt_scaling=none");
  EXPECT_FALSE(RttScalingOffSpec(*ControllerSpec::Parse("cubic")).ok());
  // A user's spec: its scaling-off counterfactual is added once.
  const ControllerChoice choice =
      ChooseControllers({}, {"prague:v05", "prague:v05,transition=0"});
  EXPECT_THAT(Specs(choice, ReplayRole::kRttScalingOff),
              ElementsAre("prague:v05,rtt_scaling=none"));
}

TEST(ControllerChoiceTest, SmallPacketsGetNormalizableCandidates) {
  // A 1280-byte TCP flow with no controller named: Linux Reno takes
  // normalize=, Linux CUBIC does not, so RFC CUBIC joins to be compared.
  ControllerChoiceFacts facts;
  facts.packet_bytes = 1280;
  const ControllerChoice choice = ChooseControllers(facts, {});
  EXPECT_THAT(Specs(choice, ReplayRole::kClaimed),
              ElementsAre("reno:linux", "cubic:linux", "cubic"));
  EXPECT_THAT(Specs(choice, ReplayRole::kNormalizationOn),
              ElementsAre("reno:linux,normalize=1462", "cubic:normalize=1462"));
  // 1448-byte packets are within 1% of the reference: no counterfactual.
  facts.packet_bytes = 1448;
  EXPECT_THAT(Specs(ChooseControllers(facts, {}), ReplayRole::kClaimed),
              ElementsAre("reno:linux", "cubic:linux"));
}

TEST(ControllerChoiceTest, NormalizationOfAUserSpecIsAValidSpec) {
  // --cc "reno,mss=1280,prague:v07,dctcp": the list form of a spec without a
  // variant. Its normalization counterfactual must parse (appending
  // ":normalize=1462" to "reno,mss=1280" would not); v0.7 and DCTCP take no
  // normalize= (their option tables in cc/registry.cc).
  ControllerChoiceFacts facts;
  facts.packet_bytes = 1280;
  const ControllerChoice choice =
      ChooseControllers(facts, {"reno,mss=1280", "prague:v07", "dctcp"});
  EXPECT_THAT(Specs(choice, ReplayRole::kNormalizationOn),
              ElementsAre("reno:mss=1280,normalize=1462"));
  EXPECT_THAT(Specs(choice, ReplayRole::kRttScalingOff),
              ElementsAre("prague:v07,rtt_scaling=none"));
  for (const ReplayChoice& c : choice.controllers) {
    EXPECT_TRUE(ControllerSpec::Parse(c.spec).ok()) << c.spec;
  }
}

// The model_divergence message says "the controller the flow claims" only
// when an input named it; the defaults are a guess.
TEST(ControllerChoiceTest, NamedOnlyWhenAnInputNamesTheController) {
  ControllerChoiceFacts facts;
  EXPECT_FALSE(ChooseControllers(facts, {}).named);
  facts.stack_name = "cubic";
  EXPECT_TRUE(ChooseControllers(facts, {}).named);
  facts.stack_name.clear();
  EXPECT_TRUE(ChooseControllers(facts, {"reno"}).named);
}

}  // namespace
}  // namespace ccreplay

namespace ccreplay {
namespace {

// A QUIC log that names a stack with a profile (replay/stack_profile.h):
// that profile is the claimed controller, with its reason; --cc still wins.
TEST(ControllerChoiceTest, StackProfileIsClaimedUnlessGiven) {
  ControllerChoiceFacts facts;
  facts.quic = true;
  facts.packet_bytes = 1444;
  facts.stack_profile_spec = "ngtcp2:cubic";
  facts.stack_profile_reason = "controller profile: ngtcp2:cubic, from qlog";
  ControllerChoice choice = ChooseControllers(facts, {});
  ASSERT_EQ(choice.controllers.size(), 1u);
  EXPECT_EQ(choice.controllers[0].spec, "ngtcp2:cubic");
  EXPECT_TRUE(choice.named);
  EXPECT_EQ(choice.reason, facts.stack_profile_reason);
  choice = ChooseControllers(facts, {"cubic"});
  ASSERT_EQ(choice.controllers.size(), 1u);
  EXPECT_EQ(choice.controllers[0].spec, "cubic");
}

}  // namespace
}  // namespace ccreplay
