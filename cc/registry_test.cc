#include "cc/registry.h"

#include <algorithm>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace ccreplay {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;
using ::testing::Pair;

// SpecMssBytes of the spec `text` parses to; a parse error as it is.
absl::StatusOr<std::optional<uint32_t>> MssOf(absl::string_view text) {
  absl::StatusOr<ControllerSpec> spec = ControllerSpec::Parse(text);
  if (!spec.ok()) return spec.status();
  return SpecMssBytes(*spec);
}

TEST(RegistryTest, EverySpecOfTheIssueParses) {
  for (const char* spec :
       {"reno", "reno:linux", "reno:normalize=1462", "cubic", "cubic:linux",
        "dctcp", "prague:v05", "prague:v06", "prague:v07",
        "prague:v05,rtt_scaling=none", "prague:v06,target=10ms,transition=100",
        "cubic:mss=1280,normalize=off", "reno:linux,limited=flight",
        "cubic:linux,hz=250,paced=1,gso=1500,limited=flight",
        "dctcp:limited=capture"}) {
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
  EXPECT_EQ(*MssOf("reno,mss=1280,iw=4"), 1280u);
  EXPECT_EQ(*MssOf("prague:v05,mss=1448"), 1448u);  // Explicit default.
  EXPECT_EQ(*MssOf("cubic:linux"), std::nullopt);
  EXPECT_FALSE(MssOf("reno,mss=0").ok());
  EXPECT_FALSE(MssOf("bbr,mss=1200").ok());

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
        "cubic:linux,hystart=2", "dctcp:iw=-1", "reno:linux,limited=app",
        "cubic:linux,paced=2", "cubic:linux,gso=0", "bbr:v3,ecn_low=on"}) {
    auto controller = MakeController(spec);
    EXPECT_EQ(controller.status().code(), absl::StatusCode::kInvalidArgument)
        << spec;
    EXPECT_THAT(std::string(controller.status().message()), HasSubstr(spec));
  }
}

TEST(RegistryTest, ProfilesListSourcesAndDefaults) {
  const auto& profiles = ListControllerProfiles();
  // The RFC, Linux, Prague and quicly profiles, ngtcp2's two (issue 17),
  // then bbr:linux and bbr:v3 (issue 20).
  ASSERT_EQ(profiles.size(), 18u);
  EXPECT_EQ(profiles[14].spec, "ngtcp2:reno");
  EXPECT_EQ(profiles[15].spec, "ngtcp2:cubic");
  EXPECT_EQ(profiles[16].spec, "bbr:linux");
  EXPECT_EQ(profiles[17].spec, "bbr:v3");
  EXPECT_THAT(
      profiles[17].options,
      ::testing::Contains(std::pair<std::string, std::string>("ecn_low", "0")));
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

TEST(ControllerSpecTest, ParsesFamilyVariantAndOptions) {
  absl::StatusOr<ControllerSpec> spec =
      ControllerSpec::Parse("prague:v05,rtt_scaling=none,normalize=1462");
  ASSERT_TRUE(spec.ok()) << spec.status();
  EXPECT_EQ(spec->family, "prague");
  EXPECT_EQ(spec->variant, "v05");
  EXPECT_THAT(spec->options, ElementsAre(Pair("rtt_scaling", "none"),
                                         Pair("normalize", "1462")));
  // No variant: the options follow ':' or ',' (ParseControllerList's form).
  for (const char* text : {"reno:mss=1280", "reno,mss=1280"}) {
    spec = ControllerSpec::Parse(text);
    ASSERT_TRUE(spec.ok()) << text << ": " << spec.status();
    EXPECT_EQ(spec->family, "reno") << text;
    EXPECT_EQ(spec->variant, "") << text;
    EXPECT_THAT(spec->options, ElementsAre(Pair("mss", "1280"))) << text;
    EXPECT_EQ(spec->ToString(), "reno:mss=1280");
  }
  // An option set twice: the last value, in the first place.
  spec = ControllerSpec::Parse("reno:mss=1000,iw=4,mss=1280");
  ASSERT_TRUE(spec.ok()) << spec.status();
  EXPECT_EQ(spec->ToString(), "reno:mss=1280,iw=4");
}

TEST(ControllerSpecTest, EveryProfileRoundTrips) {
  for (const ControllerProfile& profile : ListControllerProfiles()) {
    // The profile alone, and with every option set to its default.
    std::string with_options = profile.spec;
    bool first = true;
    for (const auto& [option, value] : profile.options) {
      const bool variant = absl::StrContains(profile.spec, ':');
      absl::StrAppend(&with_options, first && !variant ? ":" : ",", option, "=",
                      value);
      first = false;
    }
    for (const std::string& text : {profile.spec, with_options}) {
      absl::StatusOr<ControllerSpec> spec = ControllerSpec::Parse(text);
      ASSERT_TRUE(spec.ok()) << text << ": " << spec.status();
      EXPECT_EQ(spec->ProfileName(), profile.spec);
      EXPECT_EQ(spec->ToString(), text);
      absl::StatusOr<ControllerSpec> again =
          ControllerSpec::Parse(spec->ToString());
      ASSERT_TRUE(again.ok()) << again.status();
      EXPECT_EQ(*again, *spec) << text;
      EXPECT_TRUE(MakeController(*spec).ok()) << text;
    }
  }
}

TEST(ControllerSpecTest, TakesMatchesTheOptionTables) {
  // Each profile takes exactly the options its table lists.
  for (const ControllerProfile& profile : ListControllerProfiles()) {
    const ControllerSpec spec = *ControllerSpec::Parse(profile.spec);
    for (const char* option : {"mss", "iw", "normalize", "rtt_scaling",
                               "target", "transition", "hz", "hystart"}) {
      const bool listed =
          std::any_of(profile.options.begin(), profile.options.end(),
                      [&](const auto& entry) { return entry.first == option; });
      EXPECT_EQ(spec.Takes(option), listed) << profile.spec << " " << option;
    }
  }
  // What cc/README.section.md says: normalization on every controller with
  // a CA phase of its own, except Linux CUBIC, DCTCP and Prague v0.7.
  auto takes = [](const char* text, const char* option) {
    return ControllerSpec::Parse(text)->Takes(option);
  };
  EXPECT_TRUE(takes("reno", "normalize"));
  EXPECT_TRUE(takes("reno:linux,mss=1280", "normalize"));
  EXPECT_TRUE(takes("cubic:mss=1280", "normalize"));
  EXPECT_TRUE(takes("prague:v05", "normalize"));
  EXPECT_TRUE(takes("prague:v06", "normalize"));
  EXPECT_FALSE(takes("cubic:linux", "normalize"));
  EXPECT_FALSE(takes("dctcp", "normalize"));
  EXPECT_FALSE(takes("prague:v07", "normalize"));
  EXPECT_TRUE(takes("prague:v07", "rtt_scaling"));
  EXPECT_FALSE(takes("cubic", "rtt_scaling"));
  EXPECT_TRUE(takes("cubic:linux", "hystart"));
  // Issue 17 item 1: RFC 9406 HyStart++ on the RFC profiles (it was false
  // for `cubic` before).
  EXPECT_TRUE(takes("cubic", "hystart"));
  EXPECT_TRUE(takes("reno", "hystart"));
  EXPECT_TRUE(takes("rfc9002:newreno", "hystart"));
  EXPECT_FALSE(takes("reno:linux", "hystart"));
  EXPECT_FALSE(takes("quicly:reno", "hystart"));
  EXPECT_FALSE(takes("reno", "Normalize"));
  EXPECT_FALSE((ControllerSpec{"bbr", "", {}}.Takes("mss")));
}

TEST(RegistryTest, StackProfilesOfIssue17) {
  for (const char* spec :
       {"quicly:reno", "quicly:cubic", "quicly:cuback", "quicly:pico",
        "quicly:cubic-legacy", "rfc9002:newreno", "quicly:reno,normalize=off",
        "quicly:cubic,mss=1280,normalize=1462",
        "quicly:cuback,normalize=off"}) {
    EXPECT_TRUE(MakeController(spec).ok()) << spec;
  }
  // quicly normalizes by default (include/quicly.h normalize_cc_mtu); Pico
  // and cubic-legacy never read the flag, so they do not take it.
  EXPECT_EQ(ControllerSpec::Parse("quicly:cubic")->Value("normalize"), "1462");
  EXPECT_FALSE(MakeController("quicly:pico,normalize=off").ok());
  EXPECT_FALSE(MakeController("quicly:cubic-legacy,normalize=1462").ok());
  EXPECT_FALSE(MakeController("rfc9002:newreno,normalize=1462").ok());
  EXPECT_TRUE(MakeController("rfc9002:newreno,hystart=1").ok());
  EXPECT_TRUE(MakeController("cubic:hystart=1").ok());
  EXPECT_FALSE(MakeController("reno:hystart=2").ok());
  // Initial windows: quicly max(10, 2) * min(1472, 1472) = 14720 B;
  // RFC 9002 section 7.2 min(10 * 1200, max(14720, 2400)) = 12000 B.
  EXPECT_EQ((*MakeController("quicly:reno"))->cwnd_bytes(), 14720u);
  EXPECT_EQ((*MakeController("rfc9002:newreno"))->cwnd_bytes(), 12000u);
}

TEST(ControllerSpecTest, WithSetsOnlyOptionsTheProfileTakes) {
  const ControllerSpec v05 = *ControllerSpec::Parse("prague:v05,target=5ms");
  absl::StatusOr<ControllerSpec> off = v05.With("rtt_scaling", "none");
  ASSERT_TRUE(off.ok()) << off.status();
  EXPECT_EQ(off->ToString(), "prague:v05,target=5ms,rtt_scaling=none");
  EXPECT_EQ(v05.ToString(), "prague:v05,target=5ms");  // A copy.
  EXPECT_EQ(off->Value("rtt_scaling"), "none");
  EXPECT_EQ(v05.Value("rtt_scaling"), "rate");  // The profile's default.
  EXPECT_EQ(v05.Value("hz"), std::nullopt);
  // Replacing keeps the place; Without returns to the default.
  EXPECT_EQ(off->With("target", "1ms")->ToString(),
            "prague:v05,target=1ms,rtt_scaling=none");
  EXPECT_EQ(off->Without("target").ToString(), "prague:v05,rtt_scaling=none");
  EXPECT_FALSE(off->Without("target").Sets("target"));
  EXPECT_TRUE(off->Sets("rtt_scaling"));
  // No variant: the first option follows ':'.
  EXPECT_EQ(
      ControllerSpec::Parse("reno")->With("normalize", "1462")->ToString(),
      "reno:normalize=1462");

  absl::StatusOr<ControllerSpec> bad =
      ControllerSpec::Parse("prague:v07")->With("normalize", "1462");
  EXPECT_EQ(bad.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(bad.status().message(),
              HasSubstr("unknown option 'normalize' for prague:v07"));
  EXPECT_FALSE(
      ControllerSpec::Parse("cubic:linux")->With("normalize", "off").ok());
  EXPECT_FALSE(
      ControllerSpec::Parse("dctcp")->With("rtt_scaling", "none").ok());
}

TEST(ControllerSpecTest, EqualityIgnoresOptionOrder) {
  EXPECT_EQ(*ControllerSpec::Parse("reno:mss=1280,iw=4"),
            *ControllerSpec::Parse("reno,iw=4,mss=1280"));
  EXPECT_NE(*ControllerSpec::Parse("reno:mss=1280"),
            *ControllerSpec::Parse("reno:linux,mss=1280"));
  EXPECT_NE(*ControllerSpec::Parse("reno:mss=1280"),
            *ControllerSpec::Parse("reno:mss=1000"));
  EXPECT_EQ(*ControllerSpec::Parse("prague:v07"),
            (ControllerSpec{"prague", "v07", {}}));
}

TEST(ControllerSpecTest, MalformedSpecsNameTheBadPart) {
  const std::vector<std::pair<const char*, const char*>> cases = {
      {"", "no controller name"},
      {":v05", "no controller name in ':v05'"},
      {"bbr", "unknown controller 'bbr'"},
      {"prague", "unknown controller 'prague'"},
      {"prague:v09,rtt_scaling=none", "unknown controller 'prague:v09'"},
      {"reno:", "empty item in controller spec 'reno:'"},
      {"reno,,mss=1280", "empty item"},
      {"prague:v05,v06", "'v06' in 'prague:v05,v06' is not option=value"},
      {"reno:mss=", "option 'mss' has no value"},
      {"reno:linux,bogus=1", "unknown option 'bogus' for reno:linux"},
      {"cubic:linux,normalize=1462", "options: mss, iw, hz, hystart"},
  };
  for (const auto& [text, message] : cases) {
    absl::StatusOr<ControllerSpec> spec = ControllerSpec::Parse(text);
    EXPECT_EQ(spec.status().code(), absl::StatusCode::kInvalidArgument) << text;
    EXPECT_THAT(spec.status().message(), HasSubstr(message)) << text;
  }
}

}  // namespace
}  // namespace ccreplay
