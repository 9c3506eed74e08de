// `ccreplay controllers [--json]`: the reference controller profiles.
#include <cstdio>
#include <string>
#include <vector>

#include "absl/flags/flag.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"
#include "cc/registry.h"
#include "cli/commands.h"
#include "cli/common_flags.h"
#include "cli/exit_codes.h"
#include "reports/json_writer.h"

namespace ccreplay {
namespace {

std::string ProfilesJson(const std::vector<ControllerProfile>& profiles) {
  JsonWriter json;
  json.BeginObject().Key("controllers").BeginArray();
  for (const ControllerProfile& profile : profiles) {
    json.BeginObject()
        .Field("spec", profile.spec)
        .Field("description", profile.description)
        .Field("source", profile.source)
        .Key("options")
        .BeginObject();
    for (const auto& [name, default_value] : profile.options) {
      json.Field(name, default_value);
    }
    json.EndObject().EndObject();
  }
  json.EndArray().EndObject();
  return json.str() + "\n";
}

std::string ProfilesTable(const std::vector<ControllerProfile>& profiles) {
  std::string out;
  for (const ControllerProfile& profile : profiles) {
    std::vector<std::string> options;
    for (const auto& [name, default_value] : profile.options) {
      options.push_back(absl::StrCat(name, "=", default_value));
    }
    absl::StrAppendFormat(&out,
                          "%-12s %s\n%-12s source:  %s\n%-12s options: %s\n\n",
                          profile.spec, profile.description, "", profile.source,
                          "", absl::StrJoin(options, ","));
  }
  return out;
}

}  // namespace

int RunControllers(const Args& args) {
  if (!args.empty()) {
    std::fprintf(stderr,
                 "usage: ccreplay controllers [--json]  (see --help)\n");
    return kExitUsage;
  }
  const std::vector<ControllerProfile>& profiles = ListControllerProfiles();
  const std::string out = absl::GetFlag(FLAGS_json) ? ProfilesJson(profiles)
                                                    : ProfilesTable(profiles);
  std::fwrite(out.data(), 1, out.size(), stdout);
  return kExitOk;
}

}  // namespace ccreplay
