#include "lab/sender_host.h"

#include <memory>
#include <regex>

#include "absl/status/statusor.h"
#include "absl/strings/ascii.h"
#include "absl/strings/numbers.h"
#include "lab/subprocess.h"
#include "parsers/input_file.h"

namespace ccreplay::lab {
namespace {

std::optional<int64_t> IntAfter(const std::string& text,
                                const std::regex& pattern) {
  std::smatch match;
  int64_t value = 0;
  if (!std::regex_search(text, match, pattern) ||
      !absl::SimpleAtoi(match[1].str(), &value)) {
    return std::nullopt;
  }
  return value;
}

// The whole of a (possibly gzip) text file; "" when it cannot be read.
std::string ReadText(const std::string& path) {
  absl::StatusOr<std::unique_ptr<InputFile>> file = InputFile::Open(path);
  if (!file.ok()) return "";
  std::string text, line;
  while ((*file)->ReadLine(&line)) text.append(line).push_back('\n');
  return (*file)->status().ok() ? text : "";
}

}  // namespace

void ParseGsoLimits(absl::string_view ip_link_details, SenderHostFacts* facts) {
  const std::string text(ip_link_details);
  facts->gso_max_size_bytes =
      IntAfter(text, std::regex(R"(\bgso_max_size (\d+))"));
  facts->gso_max_segs = IntAfter(text, std::regex(R"(\bgso_max_segs (\d+))"));
}

std::optional<int> ParseConfigHz(absl::string_view kernel_config) {
  std::optional<int64_t> hz = IntAfter(
      std::string(kernel_config), std::regex(R"((?:^|\n)CONFIG_HZ=(\d+))"));
  if (!hz.has_value()) return std::nullopt;
  return static_cast<int>(*hz);
}

SenderHostFacts ReadSenderHostFacts(const std::string& netns,
                                    const std::string& device,
                                    const std::string& kernel_release) {
  SenderHostFacts facts;
  absl::StatusOr<std::string> link =
      RunProgram({"ip", "-n", netns, "-d", "link", "show", "dev", device});
  if (link.ok()) ParseGsoLimits(*link, &facts);
  absl::StatusOr<std::string> cc =
      RunProgram({"ip", "netns", "exec", netns, "cat",
                  "/proc/sys/net/ipv4/tcp_congestion_control"});
  if (cc.ok()) {
    facts.default_controller = std::string(absl::StripAsciiWhitespace(*cc));
  }
  for (const std::string& config :
       {std::string("/proc/config.gz"), "/boot/config-" + kernel_release}) {
    facts.config_hz = ParseConfigHz(ReadText(config));
    if (facts.config_hz.has_value()) break;
  }
  return facts;
}

}  // namespace ccreplay::lab
