#include "cli/command_line.h"

#include <optional>

#include "absl/flags/commandlineflag.h"
#include "absl/flags/reflection.h"
#include "absl/status/status.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_split.h"
#include "absl/strings/strip.h"
#include "absl/time/time.h"
#include "replay/sim/units.h"

namespace ccreplay {
namespace {

constexpr size_t kHelpWidth = 79;
constexpr size_t kFlagColumn = 24;

const FlagDoc* FindFlag(const CommandSpec& command, absl::string_view name) {
  for (const FlagDoc& flag : command.flags) {
    if (flag.name == name) return &flag;
  }
  return nullptr;
}

bool IsHelp(absl::string_view arg) {
  return arg == "-h" || arg == "--help" || arg == "-help" ||
         arg == "--helpfull" || arg == "--helpshort";
}

// "--rwnd is a flag of `simulate`, not of `flows`", or "unknown flag".
absl::Status NotThisCommandsFlag(const CommandSpec& command,
                                 absl::Span<const CommandSpec> all,
                                 absl::string_view name) {
  std::vector<std::string> owners;
  for (const CommandSpec& other : all) {
    // --noNAME belongs to the commands of the boolean NAME.
    if (FindFlag(other, name) != nullptr ||
        (absl::StartsWith(name, "no") &&
         FindFlag(other, name.substr(2)) != nullptr)) {
      owners.push_back(absl::StrCat("`", other.name, "`"));
    }
  }
  if (owners.empty()) {
    return absl::InvalidArgumentError(
        absl::StrCat("unknown flag --", name, " (`ccreplay ", command.name,
                     " --help` lists its flags)"));
  }
  return absl::InvalidArgumentError(
      absl::StrCat("--", name, " is a flag of ", absl::StrJoin(owners, ", "),
                   ", not of `", command.name, "`"));
}

// Durations go through ParseDurationWithUnit first: absl's own flag parser
// would refuse "10" without saying which unit to add.
absl::Status SetFlag(absl::CommandLineFlag& flag, absl::string_view value) {
  if (flag.IsOfType<absl::Duration>() ||
      (flag.IsOfType<std::optional<absl::Duration>>() && !value.empty())) {
    absl::StatusOr<absl::Duration> duration = ParseDurationWithUnit(value);
    if (!duration.ok()) {
      return absl::InvalidArgumentError(
          absl::StrCat("--", flag.Name(), ": ", duration.status().message()));
    }
  }
  std::string error;
  if (flag.ParseFrom(value, &error)) return absl::OkStatus();
  // absl says "Illegal value 'V' specified for flag 'F'; REASON": keep the
  // reason when the type gave one.
  absl::string_view reason = error;
  const size_t semicolon = reason.find("; ");
  if (semicolon != absl::string_view::npos)
    reason = reason.substr(semicolon + 2);
  return absl::InvalidArgumentError(
      absl::StrCat("--", flag.Name(), " ", value, ": ", reason));
}

// Appends `text` to `out` wrapped at kHelpWidth: the first line goes on from
// `column`, the others are indented by `indent`.
void AppendWrapped(std::string* out, absl::string_view text, size_t column,
                   size_t indent) {
  bool line_empty = true;
  for (absl::string_view word : absl::StrSplit(text, ' ', absl::SkipEmpty())) {
    if (!line_empty && column + 1 + word.size() > kHelpWidth) {
      absl::StrAppend(out, "\n", std::string(indent, ' '));
      column = indent;
      line_empty = true;
    }
    if (!line_empty) {
      out->push_back(' ');
      ++column;
    }
    absl::StrAppend(out, word);
    column += word.size();
    line_empty = false;
  }
  out->push_back('\n');
}

}  // namespace

absl::StatusOr<CommandLine> ParseCommandLine(const CommandSpec& command,
                                             absl::Span<const CommandSpec> all,
                                             absl::Span<char* const> args) {
  CommandLine line;
  for (const FlagDoc& doc : command.flags) {
    if (absl::FindCommandLineFlag(doc.name) == nullptr) {
      return absl::InternalError(
          absl::StrCat("--", doc.name, " is documented but not defined"));
    }
  }
  for (size_t i = 0; i < args.size(); ++i) {
    if (IsHelp(args[i])) line.help = true;
    if (absl::string_view(args[i]) == "--") break;
  }
  if (line.help) return line;
  bool flags_ended = false;
  for (size_t i = 0; i < args.size(); ++i) {
    absl::string_view arg = args[i];
    if (flags_ended || arg.size() < 2 || arg[0] != '-') {
      line.positional.emplace_back(arg);
      continue;
    }
    if (arg == "--") {
      flags_ended = true;
      continue;
    }
    if (!absl::ConsumePrefix(&arg, "--")) absl::ConsumePrefix(&arg, "-");
    const size_t equals = arg.find('=');
    absl::string_view name = arg.substr(0, equals);
    std::optional<absl::string_view> value;
    if (equals != absl::string_view::npos) value = arg.substr(equals + 1);
    const FlagDoc* doc = FindFlag(command, name);
    absl::CommandLineFlag* flag =
        doc != nullptr ? absl::FindCommandLineFlag(name) : nullptr;
    if (doc == nullptr && absl::StartsWith(name, "no")) {
      // --noNAME sets a boolean NAME to false.
      absl::CommandLineFlag* negated =
          absl::FindCommandLineFlag(name.substr(2));
      if (FindFlag(command, name.substr(2)) != nullptr && !value &&
          negated->IsOfType<bool>()) {
        value = "false";
        flag = negated;
      }
    }
    if (flag == nullptr) return NotThisCommandsFlag(command, all, name);
    if (!value && flag->IsOfType<bool>()) value = "true";
    if (!value) {
      if (i + 1 == args.size()) {
        return absl::InvalidArgumentError(
            absl::StrCat("--", name, " needs a value (", doc->value, ")"));
      }
      value = args[++i];
    }
    absl::Status set = SetFlag(*flag, *value);
    if (!set.ok()) return set;
  }
  return line;
}

std::string CommandHelp(const CommandSpec& command) {
  std::string out;
  absl::string_view prefix = "usage: ";
  for (absl::string_view line : absl::StrSplit(command.synopsis, '\n')) {
    absl::StrAppend(&out, prefix);
    AppendWrapped(&out, absl::StripLeadingAsciiWhitespace(line), prefix.size(),
                  prefix.size() + 4);
    prefix = "       ";
  }
  out.push_back('\n');
  for (absl::string_view paragraph :
       absl::StrSplit(command.description, "\n\n")) {
    AppendWrapped(&out, paragraph, 0, 0);
    out.push_back('\n');
  }
  if (!command.flags.empty()) absl::StrAppend(&out, "Flags:\n");
  for (const FlagDoc& flag : command.flags) {
    std::string head =
        absl::StrCat(flag.name.size() == 1 ? "  -" : "  --", flag.name);
    if (!flag.value.empty()) absl::StrAppend(&head, " ", flag.value);
    if (head.size() + 1 >= kFlagColumn) {
      absl::StrAppend(&out, head, "\n", std::string(kFlagColumn, ' '));
    } else {
      absl::StrAppend(&out, absl::StrFormat("%-*s", kFlagColumn, head));
    }
    const std::string help = flag.help.empty()
                                 ? absl::FindCommandLineFlag(flag.name)->Help()
                                 : std::string(flag.help);
    AppendWrapped(&out, help, kFlagColumn, kFlagColumn);
  }
  absl::StrAppend(&out, "\nExample:\n  ", command.example, "\n");
  return out;
}

}  // namespace ccreplay
