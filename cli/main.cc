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
     "Example:\n  ccreplay flows "
     "testdata/lab/reno_ecn1_stepK60k_50mbit/sender.pcap.gz\n"},
    {"diagnose", RunDiagnose,
     "the main job: where cwnd growth fell short, and why",
     "ccreplay diagnose INPUT [--flow N] [-o report.html] [--json "
     "report.json]\n\n"
     "Reconstructs the chosen flow's sender ACK by ACK, estimates the path\n"
     "(bottleneck rate, base RTT, BDP), attributes what limited the sender in\n"
     "each interval, and reports findings with their evidence: a summary on\n"
     "the terminal, a self-contained HTML report with -o, the JSON diagnosis\n"
     "(proto/report.proto) with --json PATH. INPUT is a capture or a lab\n"
     "bundle directory.\n\n"
     "Example:\n  ccreplay diagnose "
     "testdata/sim/prague_v05_rtt_scaling_1gbit.pcap.gz -o report.html\n"},
    {"convert", RunConvert,
     "write an input as the proto trace (binary or JSON)",
     "ccreplay convert INPUT [--flow N] [-o FILE] [--json]\n\n"
     "Writes the normalized trace of proto/trace.proto: flow identity,\n"
     "handshake facts, per-packet events (unwrapped sequence numbers, scaled\n"
     "windows, SACK blocks, timestamps, ACE and AccECN option counters) and\n"
     "the capture summary. Binary protobuf by default, protobuf JSON with\n"
     "--json; to stdout unless -o names a file. Every packet is held in\n"
     "memory: convert one flow (--flow) of a very large capture.\n\n"
     "Example:\n  ccreplay convert "
     "testdata/lab/reno_ecn1_stepK60k_50mbit/sender.pcap.gz --flow 1 -o "
     "reno.pb\n"},
    {"timeline", RunTimeline, "the per-ACK timeline of a flow's sender",
     "ccreplay timeline CAPTURE [--flow N|ADDR:PORT-ADDR:PORT] "
     "[--csv|--json]\n\n"
     "Rebuilds what the data sender learned from every ACK: bytes acked\n"
     "cumulatively, SACKed and D-SACKed, RTT sample and RFC 6298 srtt/min "
     "RTT,\n"
     "ECN feedback (ECE, AccECN CE counts), pipe (RFC 6675), receive window,\n"
     "what limited the sender, and every retransmission classified as fast,\n"
     "rto, tlp or other. Default flow: the one with the most payload.\n\n"
     "Example:\n  ccreplay timeline "
     "testdata/lab/cubic_noecn_droptail100_50mbit/sender.pcap.gz --csv "
     "> t.csv\n"},
    {"replay", RunReplay, "replay a flow's ACKs through reference controllers",
     "ccreplay replay CAPTURE|BUNDLE_DIR [--ss LOG | --probe LOG] [--flow N] "
     "--cc LIST\n"
     "    [--csv|--json] [--full] [-o FILE]\n"
     "ccreplay replay --qlog FILE --cc LIST [--csv|--json]\n\n"
     "Feeds every controller of LIST (specs separated by commas; an "
     "option=value\n"
     "item continues the spec before it) the flow's ACK timeline: bytes acked "
     "and\n"
     "SACKed, ECN feedback as negotiated, RTT, losses when the sender saw "
     "them.\n"
     "Compares each with the real cwnd (ss samples, tcp_probe per ACK, the "
     "qlog's\n"
     "congestion_window, or else the flight size while cwnd-limited): median "
     "and\n"
     "p95 error, first lasting divergence, error by phase. A bundle directory\n"
     "(ccreplay lab) gives sender.pcap plus tcp_probe.txt or ss.log.\n\n"
     "Example:\n  ccreplay replay testdata/lab/reno_ecn1_stepK60k_50mbit "
     "--cc reno:linux,reno --json\n"},
    {"controllers", RunControllers, "list the reference congestion controllers",
     "ccreplay controllers [--json]\n\n"
     "Lists every controller profile a --cc spec can name (name[:variant]\n"
     "[,option=value...]), what it models, the RFC section or kernel file it\n"
     "follows, and its options with their defaults.\n\n"
     "Example:\n  ccreplay controllers --json | jq '.controllers[].spec'\n"},
    {"simulate", RunSimulate,
     "closed-loop what-if runs on a modelled bottleneck",
     "ccreplay simulate [--profile NAME | --rate RATE --delay RTT_MS] "
     "[--buffer 100p|150kB|50ms]\n"
     "    [--cc SPEC,SPEC...] [--mss BYTES] [--start_ms 0,10] [--pacing] "
     "[--ack_every N]\n"
     "    [--delayed_ack_ms MS] [--ce_threshold_ms MS | --ce_backlog_bytes K]\n"
     "    [--byte_fit_admission] [--ecn_feedback "
     "auto|none|rfc3168|dctcp|accecn]\n"
     "    [--random_loss P --seed N] [--duration S] [--sample_ms MS] [--pcap "
     "FILE]\n"
     "    [--json|--csv]\n\n"
     "Runs bulk flows, one per controller spec (its mss= option is the packet\n"
     "size), through one bottleneck (rate, buffer, packet-size-neutral or\n"
     "byte-fit tail drop, optional step CE marking) with receivers that ACK "
     "every\n"
     "N segments and give RFC 3168, DCTCP or AccECN feedback. Prints per-flow\n"
     "throughput; --json/--csv add the cwnd, phase, alpha, queue and RTT "
     "series;\n"
     "--pcap writes the senders' view as a capture that `flows` and `diagnose` "
     "read.\n\n"
     "Example:\n  ccreplay simulate --profile DSL --cc "
     "reno:mss=1462,reno:mss=1280 "
     "--duration 60\n"},
    {"experiment", RunExperiment, "run a reference experiment in the simulator",
     "ccreplay experiment mtu-normalization [--controllers reno,cubic] "
     "[--profile A,B]\n"
     "    [--start_offsets 10] [--threads N] [--json]\n"
     "ccreplay experiment prague-rtt-scaling [--duration 10] "
     "[--transition_rounds N] [--json]\n\n"
     "mtu-normalization: on each of the 15 path profiles, a 1462-byte and a\n"
     "1280-byte flow with the same controller compete (20 runs per profile "
     "and\n"
     "setting); prints T1280/T1462 without and with MTU normalization of the\n"
     "1280-byte flow. prague-rtt-scaling: one Prague v0.5/v0.6/v0.7 flow at\n"
     "1 Gbit/s, 0.4 ms, CE above 5 ms sojourn, RTT scaling on and off, ACK "
     "every\n"
     "1..16 segments; prints utilization and the lowest cwnd after slow "
     "start.\n\n"
     "Example:\n  ccreplay experiment prague-rtt-scaling --json\n"},
    {"lab", RunLab, "make a real capture on a network-namespace testbed (root)",
     "ccreplay lab [--cc reno|cubic|bbr] [--ecn off|rfc3168|accecn] [--rate "
     "50mbit]\n"
     "    [--queue 100p|150kB] [--mark step:K_BYTES|none] [--delay MS] "
     "[--duration S]\n"
     "    [--flows SPEC,...] [--mss BYTES] [--transfer auto|iperf3|builtin] -o "
     "BUNDLE_DIR\n\n"
     "Builds sender / router / receiver network namespaces, shapes the "
     "router's\n"
     "egress (HTB + pfifo/bfifo, optional eBPF step CE marker), adds delay on "
     "the\n"
     "ACK path (netem, or a TUN delay line), runs the transfer, and writes a "
     "bundle:\n"
     "sender.pcap, receiver.pcap, ss.log, tcp_probe.txt (the kernel's per-ACK "
     "cwnd)\n"
     "and meta.json. Everything is removed afterwards, on errors and Ctrl-C "
     "too.\n\n"
     "Example:\n  sudo ccreplay lab --cc reno --ecn rfc3168 --mark step:60000 "
     "--delay 10 "
     "--duration 5 -o /tmp/reno-bundle\n"},
};

// The subcommand whose --help is being printed; its flags file is shown.
const Command* g_current = nullptr;

bool ShowFlagsOf(absl::string_view file) {
  if (absl::StrContains(file, "cli/common_flags")) return true;
  return g_current != nullptr &&
         absl::StrContains(file,
                           absl::StrCat("cli/", g_current->name, "_command"));
}

void PrintOverview(FILE* out) {
  std::fprintf(
      out,
      "usage: ccreplay COMMAND [ARGS] [FLAGS]\n\n"
      "Rebuilds what a TCP or QUIC sender saw ACK by ACK and replays it "
      "through\nreference congestion controllers.\n\nCommands:\n");
  for (const Command& c : kCommands)
    std::fprintf(out, "  %-12s %s\n", c.name, c.summary);
  std::fprintf(
      out,
      "\n`ccreplay COMMAND --help` shows a command's flags and an example.\n");
}

int Main(int argc, char** argv) {
  if (argc < 2 || std::strcmp(argv[1], "--help") == 0 ||
      std::strcmp(argv[1], "help") == 0 || std::strcmp(argv[1], "-h") == 0) {
    PrintOverview(argc < 2 ? stderr : stdout);
    return argc < 2 ? kExitUsage : kExitOk;
  }
  for (const Command& c : kCommands) {
    if (std::strcmp(argv[1], c.name) != 0) continue;
    g_current = &c;
    absl::FlagsUsageConfig config;
    config.contains_help_flags = ShowFlagsOf;
    config.contains_helpshort_flags = ShowFlagsOf;
    config.normalize_filename = [](absl::string_view f) {
      return std::string(f);
    };
    absl::SetFlagsUsageConfig(config);
    absl::SetProgramUsageMessage(absl::StrCat("usage: ", c.usage));
    // Flags are parsed after the subcommand name.
    std::vector<char*> rest = {argv[0]};
    for (int i = 2; i < argc; ++i) rest.push_back(argv[i]);
    std::vector<char*> positional =
        absl::ParseCommandLine(static_cast<int>(rest.size()), rest.data());
    Args args;
    for (size_t i = 1; i < positional.size(); ++i)
      args.emplace_back(positional[i]);
    return c.run(args);
  }
  std::fprintf(stderr, "ccreplay: unknown command '%s'\n\n", argv[1]);
  PrintOverview(stderr);
  return kExitUsage;
}

}  // namespace
}  // namespace ccreplay

int main(int argc, char** argv) { return ccreplay::Main(argc, argv); }
