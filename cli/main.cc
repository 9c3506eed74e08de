// ccreplay: replay captured ACK/ECN sequences through reference congestion
// controllers. This file only dispatches to subcommands.
#include <cstdio>
#include <cstring>
#include <string>
#include <vector>

#include "absl/flags/parse.h"
#include "absl/flags/usage.h"
#include "absl/flags/usage_config.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "cli/commands.h"
#include "cli/exit_codes.h"

namespace ccreplay {
namespace {

struct Command {
  const char* name;
  int (*run)(const Args&);
  // One line for the overview, then the usage with an example.
  const char* summary;
  const char* usage;
};

constexpr Command kCommands[] = {
    {"flows", RunFlows, "list the TCP flows of a capture",
     "ccreplay flows CAPTURE [--json]\n\n"
     "Lists every TCP connection in a pcap or pcapng capture (gzip is read\n"
     "transparently): endpoints, data direction, packets, unique bytes,\n"
     "retransmissions, handshake options, ECN mode and codepoint counts,\n"
     "goodput.\n\n"
     "Example:\n  ccreplay flows testdata/tcp/l4s-tests_prague_dualpi2_wifi.pcap.gz\n"},
    {"controllers", RunControllers, "list the reference congestion controllers",
     "ccreplay controllers [--json]\n\n"
     "Lists every controller profile a --cc spec can name (name[:variant]\n"
     "[,option=value...]), what it models, the RFC section or kernel file it\n"
     "follows, and its options with their defaults.\n\n"
     "Example:\n  ccreplay controllers --json | jq '.controllers[].spec'\n"},
    {"lab", RunLab, "make a real capture on a network-namespace testbed (root)",
     "ccreplay lab [--cc reno|cubic|bbr] [--ecn off|rfc3168|accecn] [--rate 50mbit]\n"
     "    [--queue 100p|150kB] [--mark step:K_BYTES|none] [--delay MS] [--duration S]\n"
     "    [--flows SPEC,...] [--mss BYTES] [--transfer auto|iperf3|builtin] -o BUNDLE_DIR\n\n"
     "Builds sender / router / receiver network namespaces, shapes the router's\n"
     "egress (HTB + pfifo/bfifo, optional eBPF step CE marker), adds delay on the\n"
     "ACK path (netem, or a TUN delay line), runs the transfer, and writes a bundle:\n"
     "sender.pcap, receiver.pcap, ss.log, tcp_probe.txt (the kernel's per-ACK cwnd)\n"
     "and meta.json. Everything is removed afterwards, on errors and Ctrl-C too.\n\n"
     "Example:\n  sudo ccreplay lab --cc reno --ecn rfc3168 --mark step:60000 --delay 10 "
     "--duration 5 -o /tmp/reno-bundle\n"},
};

// The subcommand whose --help is being printed; its flags file is shown.
const Command* g_current = nullptr;

bool ShowFlagsOf(absl::string_view file) {
  if (absl::StrContains(file, "cli/common_flags")) return true;
  return g_current != nullptr &&
         absl::StrContains(file, absl::StrCat("cli/", g_current->name, "_command"));
}

void PrintOverview(FILE* out) {
  std::fprintf(out,
               "usage: ccreplay COMMAND [ARGS] [FLAGS]\n\n"
               "Rebuilds what a TCP or QUIC sender saw ACK by ACK and replays it "
               "through\nreference congestion controllers.\n\nCommands:\n");
  for (const Command& c : kCommands) std::fprintf(out, "  %-12s %s\n", c.name, c.summary);
  std::fprintf(out, "\n`ccreplay COMMAND --help` shows a command's flags and an example.\n");
}

int Main(int argc, char** argv) {
  if (argc < 2 || std::strcmp(argv[1], "--help") == 0 || std::strcmp(argv[1], "help") == 0 ||
      std::strcmp(argv[1], "-h") == 0) {
    PrintOverview(argc < 2 ? stderr : stdout);
    return argc < 2 ? kExitUsage : kExitOk;
  }
  for (const Command& c : kCommands) {
    if (std::strcmp(argv[1], c.name) != 0) continue;
    g_current = &c;
    absl::FlagsUsageConfig config;
    config.contains_help_flags = ShowFlagsOf;
    config.contains_helpshort_flags = ShowFlagsOf;
    config.normalize_filename = [](absl::string_view f) { return std::string(f); };
    absl::SetFlagsUsageConfig(config);
    absl::SetProgramUsageMessage(absl::StrCat("usage: ", c.usage));
    // Flags are parsed after the subcommand name.
    std::vector<char*> rest = {argv[0]};
    for (int i = 2; i < argc; ++i) rest.push_back(argv[i]);
    std::vector<char*> positional = absl::ParseCommandLine(static_cast<int>(rest.size()), rest.data());
    Args args;
    for (size_t i = 1; i < positional.size(); ++i) args.emplace_back(positional[i]);
    return c.run(args);
  }
  std::fprintf(stderr, "ccreplay: unknown command '%s'\n\n", argv[1]);
  PrintOverview(stderr);
  return kExitUsage;
}

}  // namespace
}  // namespace ccreplay

int main(int argc, char** argv) { return ccreplay::Main(argc, argv); }
