// `ccreplay controllers [--json]`: the reference controller profiles.
#include <algorithm>
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
#include "proto/controllers.pb.h"
#include "proto/json_printer.h"

namespace ccreplay {
namespace {

std::string ProfilesJson(const std::vector<ControllerProfile>& profiles) {
  proto::ControllersReport report;
  for (const ControllerProfile& profile : profiles) {
    proto::ControllerProfile* out = report.add_controllers();
    out->set_spec(profile.spec);
    out->set_description(profile.description);
    out->set_source(profile.source);
    for (const auto& [name, default_value] : profile.options) {
      (*out->mutable_options())[name] = default_value;
    }
  }
  return PrintJson(report);
}

std::string ProfilesTable(const std::vector<ControllerProfile>& profiles) {
  // Names are padded to the longest spec so the descriptions line up.
  int width = 0;
  for (const ControllerProfile& profile : profiles) {
    width = std::max(width, static_cast<int>(profile.spec.size()));
  }
  std::string out;
  for (const ControllerProfile& profile : profiles) {
    std::vector<std::string> options;
    for (const auto& [name, default_value] : profile.options) {
      options.push_back(absl::StrCat(name, "=", default_value));
    }
    absl::StrAppendFormat(
        &out, "%-*s %s\n%-*s source:  %s\n%-*s options: %s\n\n", width,
        profile.spec, profile.description, width, "", profile.source, width, "",
        absl::StrJoin(options, ","));
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
