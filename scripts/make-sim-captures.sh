#!/usr/bin/env bash
# Makes testdata/sim/prague_v05_rtt_scaling_1gbit.pcap.gz, the capture
# scripts/run-example.sh diagnoses: the simulator's export (`ccreplay
# simulate --pcap`, raw IPv4/TCP headers only) of docs/experiments.md "Experiment 2"'s
# RTT-scaling case, as reports/sim_diagnosis_test.cc configures it: one
# paced TCP Prague v0.5 flow with RTT scaling on from the start
# (transition=0), 1 Gbit/s, 0.4 ms base RTT, a 100 ms buffer, CE above 5 ms
# of sojourn, an ACK every 16 segments (40 ms delayed-ACK timer), AccECN
# feedback; 4 s. Deterministic (no random loss): the same binary makes the
# same bytes. Usage: scripts/make-sim-captures.sh [CCREPLAY] [OUTDIR]
set -euo pipefail
cd "$(dirname "$0")/.."
ccreplay=${1:-build/cli/ccreplay}
out=${2:-testdata/sim}
mkdir -p "$out"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
"$ccreplay" simulate --rate 1gbit --delay 400us --buffer 100ms \
  --ce_threshold 5ms --pacing --ack_every 16 --delayed_ack 40ms \
  --cc prague:v05,transition=0 --duration 4s \
  --pcap "$tmp/prague_v05_rtt_scaling_1gbit.pcap" >/dev/null
# -n: no name or time stamp in the gzip header, so reruns are identical.
gzip -9 -n -c "$tmp/prague_v05_rtt_scaling_1gbit.pcap" \
  >"$out/prague_v05_rtt_scaling_1gbit.pcap.gz"
ls -l "$out/prague_v05_rtt_scaling_1gbit.pcap.gz"
