// Every subcommand: what it does, the flags it accepts and an example.
// A flag documented here with an empty help text is described by its
// ABSL_FLAG; a flag several commands read differently (--cc, --delay,
// --duration, ...) is described here, per command.
#include "cli/command_line.h"

namespace ccreplay {
namespace {

constexpr FlagDoc kJson = {"json", "", ""};
constexpr FlagDoc kCsv = {"csv", "", ""};
constexpr FlagDoc kFlow = {"flow", "N|ADDR:PORT-ADDR:PORT", ""};
constexpr FlagDoc kSs = {"ss", "LOG", ""};
constexpr FlagDoc kProbe = {"probe", "LOG", ""};
constexpr FlagDoc kQlog = {"qlog", "FILE", ""};
constexpr FlagDoc kFilter = {"filter", "EXPR", ""};
constexpr FlagDoc kQuiet = {"quiet", "", ""};
constexpr FlagDoc kReplayCc = {
    "cc", "SPEC,SPEC...",
    "reference controllers (`ccreplay controllers`), separated by commas; an "
    "item key=value without ':' continues the spec before it "
    "(cubic,prague:v05,rtt_scaling=none)."};

CommandSpec Flows() {
  return {
      "flows",
      RunFlows,
      "list the TCP flows of a capture",
      "ccreplay flows CAPTURE [--json] [--filter EXPR] [--quiet]",
      "Lists every TCP connection in a pcap or pcapng capture (gzip is "
      "read transparently): endpoints, data direction, packets, unique "
      "bytes, retransmissions, handshake options, ECN mode and codepoint "
      "counts, goodput. An ss log, tcp_probe trace, qlog or quicly log "
      "gives one entry per connection or trace.",
      "ccreplay flows testdata/lab/reno_ecn1_stepK60k_50mbit/sender.pcap.gz",
      {{"json", "", "write the flows as JSON to stdout."}, kFilter, kQuiet}};
}

CommandSpec Diagnose() {
  return {
      "diagnose",
      RunDiagnose,
      "the main job: where cwnd growth fell short, and why",
      "ccreplay diagnose INPUT [--ss LOG | --probe LOG] [--flow N] [--cc LIST] "
      "[-o report.html] [--json [report.json]] [--filter EXPR] [--quiet]\n"
      "ccreplay diagnose --qlog FILE [...]\n"
      "ccreplay diagnose INPUT --flows N,N... | INPUT INPUT... [-o "
      "report.html] [--json]\n"
      "ccreplay diagnose INPUT --flows all [--sort KEY] [-o index.html] "
      "[--json [index.json]]",
      "Reconstructs the chosen flow's sender ACK by ACK, estimates the path "
      "(bottleneck rate, base RTT, BDP), attributes what limited the sender "
      "in each interval, and reports findings with their evidence: a summary "
      "on the terminal, a self-contained HTML report with -o, the JSON "
      "diagnosis (proto/report.proto) with --json PATH. INPUT is a capture, "
      "a qlog or a lab bundle directory. With --flows or several INPUTs, "
      "the flows are compared on one time axis (throughput shares, Jain's "
      "index, cwnd and RTT) and each keeps its own diagnosis; the JSON is "
      "then a MultiFlowDiagnosis (proto/competition.proto), on stdout "
      "with several INPUTs.",
      "ccreplay diagnose testdata/sim/prague_v05_rtt_scaling_1gbit.pcap.gz "
      "-o report.html",
      {kFlow,
       {"flows", "N,N...",
        "several flows of INPUT (--flow selectors), each diagnosed and all "
        "compared in one report; several INPUTs do the same with each "
        "input's flow."},
       kSs,
       kProbe,
       kQlog,
       {"cc", "SPEC,SPEC...",
        "reference controllers to replay instead of the ones chosen from the "
        "capture (see `ccreplay controllers`)."},
       {"o", "report.html", "write the HTML report to this file."},
       {"json", "",
        "write the JSON diagnosis: to the path after INPUT, else to stdout "
        "(then without the terminal summary)."},
       {"simulate", "", ""},
       {"flows", "all",
        "instead of one flow's diagnosis, the index of every flow (one line "
        "each: throughput, utilization bound, main limiter, worst finding) "
        "from one pass over the capture: a table, -o index.html, --json."},
       {"sort", "KEY", ""},
       kFilter,
       kQuiet}};
}

CommandSpec Convert() {
  return {"convert",
          RunConvert,
          "write an input as the proto trace (binary or JSON)",
          "ccreplay convert INPUT [--flow N] [-o FILE] [--json] "
          "[--filter EXPR] [--quiet]",
          "Writes the normalized trace of proto/trace.proto: flow identity, "
          "handshake facts, per-packet events (unwrapped sequence numbers, "
          "scaled windows, SACK blocks, timestamps, ACE and AccECN option "
          "counters) and the capture summary. Binary protobuf by default, "
          "protobuf JSON with --json; to stdout unless -o names a file. Every "
          "packet is held in memory: convert one flow (--flow) of a very "
          "large capture.",
          "ccreplay convert "
          "testdata/lab/reno_ecn1_stepK60k_50mbit/sender.pcap.gz --flow 1 "
          "-o reno.pb",
          {{"flow", "N",
            "the index of the flow (or trace) to keep, as `ccreplay flows` "
            "numbers them. Default: all."},
           {"o", "FILE", "write to this file instead of stdout."},
           {"json", "", "write protobuf JSON instead of binary."},
           kFilter,
           kQuiet}};
}

CommandSpec Timeline() {
  return {"timeline",
          RunTimeline,
          "the per-ACK timeline of a flow's sender",
          "ccreplay timeline CAPTURE [--flow N|ADDR:PORT-ADDR:PORT] "
          "[--csv|--json] [--filter EXPR] [--quiet]",
          "Rebuilds what the data sender learned from every ACK: bytes acked "
          "cumulatively, SACKed and D-SACKed, RTT sample and RFC 6298 "
          "srtt/min RTT, ECN feedback (ECE, AccECN CE counts), pipe (RFC "
          "6675), receive window, what limited the sender, and every "
          "retransmission classified as fast, rto, tlp or other.",
          "ccreplay timeline "
          "testdata/lab/cubic_noecn_droptail100_50mbit/sender.pcap.gz --csv "
          "> t.csv",
          {kFlow, kCsv, kJson, kFilter, kQuiet}};
}

CommandSpec Replay() {
  return {"replay",
          RunReplay,
          "replay a flow's ACKs through reference controllers",
          "ccreplay replay CAPTURE|BUNDLE_DIR [--ss LOG | --probe LOG] "
          "[--flow N] --cc LIST [--csv|--json] [--full] [-o FILE] "
          "[--filter EXPR] [--quiet]\n"
          "ccreplay replay --qlog FILE [--cc LIST] [--csv|--json]",
          "Feeds every controller of LIST the flow's ACK timeline: bytes "
          "acked and SACKed, ECN feedback as negotiated, RTT, losses when the "
          "sender saw them. Compares each with the real cwnd (ss samples, "
          "tcp_probe per ACK, the qlog's congestion_window, or else the "
          "flight size while cwnd-limited): median and p95 error, first "
          "lasting divergence, error by phase. A bundle directory (ccreplay "
          "lab) gives sender.pcap plus tcp_probe.txt or ss.log. A qlog "
          "without --cc is replayed through its stack's own profile "
          "(ngtcp2:reno or ngtcp2:cubic for an ngtcp2 qlog), named in the "
          "output.",
          "ccreplay replay testdata/lab/reno_ecn1_stepK60k_50mbit --cc "
          "reno:linux,reno --json",
          {kReplayCc,
           kFlow,
           kSs,
           kProbe,
           kQlog,
           kCsv,
           kJson,
           {"full", "", ""},
           {"o", "FILE", "write to this file instead of stdout."},
           kFilter,
           kQuiet}};
}

CommandSpec Check() {
  return {"check",
          RunCheck,
          "check the captured cwnd against its family's RFC rules",
          "ccreplay check INPUT|BUNDLE_DIR [--ss LOG | --probe LOG] "
          "[--flow N] [--cc reno|cubic|dctcp] [--stack NAME] [--json]\n"
          "ccreplay check --qlog FILE [...]",
          "Checks the sender's own cwnd (a qlog's congestion_window, "
          "tcp_probe's snd_cwnd, ss samples), ACK by ACK, against the rules "
          "of its family: initial window (RFC 9002 7.2, RFC 6928), slow-start "
          "increase at most the bytes acked (RFC 9002 7.3.1, RFC 3465), "
          "congestion-avoidance increase at most one datagram per window "
          "acked (RFC 9002 7.3.3, RFC 5681; CUBIC's 1.5x clamp, RFC 9438), "
          "growth while cwnd-limited, one reduction by beta per congestion "
          "event and per recovery period (RFC 9002 7.3.2, RFC 6582), no "
          "increase in recovery, the minimum window after persistent "
          "congestion (RFC 9002 7.6), flight within cwnd, no increase "
          "while under half used (RFC 9002 7.8); CUBIC under max(W_cubic, "
          "W_est) (RFC 9438 4.2-4.3), TCP recovery within PRR's bound (RFC "
          "6937), DCTCP's cut by alpha/2 once per window (RFC 8257 3.3). "
          "One line per group of "
          "violations: rule, time range, ACKs, the bound and the value seen, "
          "the RFC section; a stack's documented deviations (--stack) are "
          "named as such. Exit 0 whatever it finds; the count is printed.",
          "ccreplay check testdata/quic/ngtcp2_reno_20mbit_pfifo12/"
          "server.sqlog.gz --cc reno --stack ngtcp2",
          {{"cc", "reno|cubic|dctcp",
            "the family whose rules apply; default: the bundle's controller, "
            "else reno."},
           {"stack", "NAME", ""},
           kFlow,
           kSs,
           kProbe,
           kQlog,
           kJson}};
}

CommandSpec Controllers() {
  return {"controllers",
          RunControllers,
          "list the reference congestion controllers",
          "ccreplay controllers [--json]",
          "Lists every controller profile a --cc spec can name "
          "(name[:variant][,option=value...]), what it models, the RFC "
          "section or kernel file it follows, and its options with their "
          "defaults.",
          "ccreplay controllers --json | jq '.controllers[].spec'",
          {kJson}};
}

CommandSpec Simulate() {
  return {
      "simulate",
      RunSimulate,
      "closed-loop what-if runs on a modelled bottleneck",
      "ccreplay simulate [--profile NAME | --rate RATE --delay RTT] "
      "[--buffer 100p|150kB|50ms] [--cc SPEC,...] [FLAGS]",
      "Runs bulk flows, one per controller spec (its mss= option is the "
      "packet size), through one bottleneck (rate, buffer, "
      "packet-size-neutral or byte-fit tail drop, optional step CE marking) "
      "with receivers that ACK every N segments and give RFC 3168, DCTCP or "
      "AccECN feedback. Prints per-flow throughput; --json/--csv add the "
      "cwnd, phase, alpha, queue and RTT series; --pcap writes the senders' "
      "view as a capture that `flows` and `diagnose` read.",
      "ccreplay simulate --profile DSL --cc reno:mss=1462,reno:mss=1280 "
      "--duration 60s",
      {{"profile", "NAME", ""},
       {"rate", "RATE",
        "bottleneck rate in bits per second, tc units: 50mbit, 1gbit, "
        "800kbit (bit, kbit, mbit, gbit; SI). Overrides the profile's."},
       {"delay", "RTT",
        "base round-trip time with its unit: 40ms, 400us. Overrides the "
        "profile's."},
       {"buffer", "SIZE", ""},
       {"cc", "SPEC,SPEC...",
        "one bulk flow per reference controller spec (`ccreplay "
        "controllers`); mss=BYTES sets its packet size. Default: cubic."},
       {"mss", "BYTES",
        "packet size in bytes of flows whose spec has no mss= (default "
        "1448)."},
       {"duration", "TIME",
        "simulated time with its unit: 10s, 500ms (default 10s)."},
       {"start", "TIME,TIME...", ""},
       {"pacing", "", ""},
       {"tso_burst_shift", "N", ""},
       {"nic_rate", "BPS", ""},
       {"ack_every", "N", ""},
       {"delayed_ack", "TIME", ""},
       {"ack_hold", "TIME", ""},
       {"ack_hold_period", "TIME", ""},
       {"ce_threshold", "TIME", ""},
       {"ce_backlog_bytes", "BYTES", ""},
       {"byte_fit_admission", "", ""},
       {"ecn_feedback", "MODE", ""},
       {"random_loss", "P", ""},
       {"policer_rate", "RATE", ""},
       {"policer_burst", "SIZE", ""},
       {"rate_step", "TIME,RATE", ""},
       {"seed", "N", ""},
       {"sender_jitter", "off|service|TIME", ""},
       {"rwnd", "SIZE", ""},
       {"sample_interval", "TIME", ""},
       {"pcap", "FILE", ""},
       {"json", "", "write the results and series as JSON to stdout."},
       {"csv", "", "write the series as CSV to stdout."}}};
}

CommandSpec Experiment() {
  return {"experiment",
          RunExperiment,
          "run a reference experiment in the simulator",
          "ccreplay experiment mtu-normalization [--controllers reno,cubic] "
          "[--profile A,B] [--runs 20] [--threads N] [--json]\n"
          "ccreplay experiment prague-rtt-scaling [--duration 10s] "
          "[--transition_rounds N] [--json]",
          "mtu-normalization: on each of the 15 path profiles, a 1462-byte and "
          "a 1280-byte flow with the same controller compete (20 runs per "
          "profile and setting); prints T1280/T1462 without and with MTU "
          "normalization of the 1280-byte flow.\n\n"
          "prague-rtt-scaling: one Prague v0.5/v0.6/v0.7 flow at 1 Gbit/s, 0.4 "
          "ms, CE above 5 ms sojourn, RTT scaling on and off, ACK every 1..16 "
          "segments; prints utilization and the lowest cwnd after slow start.",
          "ccreplay experiment prague-rtt-scaling --json",
          {{"controllers", "CC,CC...", ""},
           {"profile", "NAME,NAME...",
            "mtu-normalization: the path profiles to run (default all 15)."},
           {"start_offsets", "N", ""},
           {"runs", "N", ""},
           {"in_service", "dequeue_at_start|until_last_bit", ""},
           {"byte_fit_admission", "", ""},
           {"delivery", "at_start|at_last_bit", ""},
           {"small_flow_extra_rtt", "TIME", ""},
           {"recovery_acks", "on_new_gap|every_packet_while_hole", ""},
           {"timer_granularity", "TIME", ""},
           {"sender_clock", "TIME", ""},
           {"max_sim_time", "TIME", ""},
           {"seed", "N", ""},
           {"sender_jitter", "off|service|TIME", ""},
           {"duration", "TIME",
            "prague-rtt-scaling: simulated time per run with its unit (10s)."},
           {"transition_rounds", "N", ""},
           {"versions", "CC,CC...", ""},
           {"gro_segments", "N,N...", ""},
           {"flush_timer", "TIME", ""},
           {"tso_burst_shift", "N", ""},
           {"nic_rate", "BPS", ""},
           {"ce_per_skb", "", ""},
           {"preset", "gro_flush", ""},
           {"threads", "N", ""},
           {"json", "", "write the results as JSON to stdout."}}};
}

CommandSpec Lab() {
  return {
      "lab",
      RunLab,
      "make a real capture on a network-namespace testbed (root)",
      "ccreplay lab [--cc reno|cubic|bbr] [--ecn off|rfc3168|accecn] "
      "[--rate 50mbit] [--queue 100p|150kB|20ms] [--mark step:K_BYTES|none] "
      "[--delay 10ms] [--duration 5s] [--flows SPEC,...] [--mss BYTES] "
      "[--rate2 RATE] [--queue2 SIZE] [--delay2 TIME] "
      "[--reorder PCT] [--reorder_delay TIME] "
      "[--transfer auto|iperf3|builtin|ngtcp2] [--paced auto|on|off] "
      "-o BUNDLE_DIR\n"
      "       ccreplay lab --cleanup",
      "Builds sender / router / receiver network namespaces, shapes the "
      "router's egress (HTB + pfifo/bfifo, optional eBPF step CE marker), "
      "adds delay on the ACK path (netem, or a TUN delay line), runs the "
      "transfer, and writes a bundle: sender.pcap, receiver.pcap, ss.log, "
      "tcp_probe.txt (the kernel's per-ACK cwnd) and meta.json. Everything "
      "is removed afterwards, on errors and Ctrl-C too; a bundle cut short "
      "says so (meta.json \"complete\": false). What a killed lab left "
      "(kill -9) is removed by the next run, or by --cleanup.",
      "sudo ccreplay lab --cc reno --ecn rfc3168 --mark step:60000 --delay "
      "10ms --duration 5s -o /tmp/reno-bundle",
      {{"cc", "NAME",
        "the sender socket's Linux controller (TCP_CONGESTION), default "
        "cubic."},
       {"ecn", "MODE", ""},
       {"rate", "RATE",
        "bottleneck rate in bits per second, tc units: 50mbit, 1gbit, "
        "800kbit (default 50mbit)."},
       {"queue", "SIZE", ""},
       {"mark", "none|step:K_BYTES", ""},
       {"delay", "TIME",
        "delay added on the ACK path with its unit: 10ms, 400us (default 0: "
        "none)."},
       {"duration", "TIME",
        "length of the transfer with its unit: 5s, 1500ms (default 5s)."},
       {"flows", "SPEC,SPEC...",
        "comma-separated flows, each "
        "CC[:mss=BYTES][:rate=RATE[:rate_for=TIME]][:path=1|2]"
        "[:rcvbuf=BYTES] "
        "(rate: the application-limited sending rate in tc bit units, "
        "10mbit; rate_for: for the first TIME only, then bulk, --transfer "
        "builtin; path=2: through the second bottleneck, --rate2/--queue2/"
        "--delay2; rcvbuf: the receiver's SO_RCVBUF, no autotuning, "
        "--transfer builtin), or with --transfer ngtcp2 "
        "CC[:max_udp_payload=BYTES] "
        "(1200..1472). Default: one bulk flow of --cc."},
       {"rate2", "RATE", ""},
       {"queue2", "SIZE", ""},
       {"delay2", "TIME", ""},
       {"reorder", "PCT", ""},
       {"reorder_delay", "TIME", ""},
       {"mss", "BYTES",
        "TCP_MAXSEG of flows that set no mss= (default: the path's)."},
       {"transfer", "TOOL", ""},
       {"paced", "auto|on|off", ""},
       {"o", "BUNDLE_DIR", "the bundle directory to write (required)."},
       {"cleanup", "", ""}}};
}

}  // namespace

CommandSpec Watch() {
  return {
      "watch",
      RunWatch,
      "live: the flows on an interface, refreshed every second",
      "ccreplay watch -i IFACE [--filter EXPR] [--json] [--duration TIME] "
      "[--idle TIME] [--host=false] [-o report.html [--flow N] [--keep "
      "SIZE]]",
      "Captures on IFACE (libpcap, headers only, each packet as it arrives) "
      "and every second lists the flows active in the last second: "
      "endpoints, goodput (data newly acknowledged) and rate of new data "
      "sent, smoothed RTT, packets and "
      "retransmissions so far, what limited the sender at most ACKs (cwnd, "
      "rwnd, app) and its newest event (retransmission, ECN congestion "
      "episode, duplicate ACK), and for a sender on this host the kernel's "
      "own cwnd. Stops at --duration or on Ctrl-C; with -o "
      "it then writes the diagnosis of the largest flow (or --flow) of what "
      "it captured. Needs root or CAP_NET_RAW.",
      "sudo ccreplay watch -i eth0 --filter 'tcp port 443' --idle 10s -o "
      "report.html --keep 500MB",
      {{"i", "IFACE", ""},
       kFilter,
       {"json", "",
        "write one JSON line per active flow per second "
        "(proto/watch.proto) instead of the table."},
       {"duration", "TIME",
        "stop after this long, with its unit: 30s, 2m (default: at "
        "Ctrl-C)."},
       {"host", "",
        "beside each flow whose sender is a socket of this host (of the "
        "network namespace watch runs in), the kernel's own cwnd, ssthresh, "
        "srtt, pacing and delivery rate and CC, read by NETLINK_SOCK_DIAG "
        "as `ss -tin` reads them (default on; it turns itself off with a "
        "warning where the kernel refuses; --host=false: never)."},
       {"idle", "TIME",
        "a flow with no packet for this long leaves the table and its state "
        "is freed (default 60s); a closed one (FIN both ways, or RST) "
        "leaves after 5 s. Its index is not reused: a later packet of its "
        "endpoints is a new flow with a new index."},
       {"o", "report.html",
        "when stopped, write the HTML diagnosis of the chosen flow."},
       {"flow", "N|ADDR:PORT-ADDR:PORT",
        "with -o: the flow to diagnose, N as this watch numbered it "
        "(default: the largest)."},
       {"keep", "SIZE",
        "with -o: keep at most this much of the capture for the report, in "
        "bytes (default 200MB, about 1.2 million packets: 10 s at 1 Gbit/s, "
        "100 s at 100 Mbit/s); beyond it the oldest packets go and the "
        "report says which part of the flow it covers."}}};
}

const std::vector<CommandSpec>& AllCommands() {
  static const std::vector<CommandSpec>* const commands =
      new std::vector<CommandSpec>{Flows(),       Diagnose(), Convert(),
                                   Timeline(),    Replay(),   Check(),
                                   Controllers(), Simulate(), Experiment(),
                                   Lab(),         Watch()};
  return *commands;
}

}  // namespace ccreplay
